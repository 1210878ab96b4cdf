"""
Short texts: one topic per document, K learned
==============================================

Tweets, titles and the first line of a post hold too few words for an admixture (LDA, the HDP) to
estimate each document's topic proportions. :class:`stickbreak.ShortTextTopicModel` gives each
document a single topic instead (the Dirichlet-process mixture of multinomials that GSDMM samples),
and learns how many topics there are: by default with truncation-free SVI (Wang & Blei 2012), which
starts from no topic and opens one whenever a document fits a new topic better than every existing
one. We fit it to the bundled ``news_openings`` (the first 15 words of 4,000 20 Newsgroups posts),
compare its topics with the 20 newsgroups, and show their top words.
"""

# %%
# Fit on the raw openings
# -----------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import normalized_mutual_info_score

from stickbreak import ShortTextTopicModel, datasets, plot

news = datasets.load("news_openings")
texts, groups = news.extras["texts"], news.labels
print(f"{len(texts)} openings, e.g. {texts[1]!r}")

model = ShortTextTopicModel(random_state=0).fit(texts)  # raw text, counted with English stop words left out
print(f"{model.n_topics_} topics learned for {len(news.extras['label_names'])} newsgroups; "
      f"NMI with the newsgroups {normalized_mutual_info_score(groups, model.labels_):.3f}")
print("a new opening goes to topic", model.predict(["my hard drive will not boot after installing windows"])[0])

# %%
# Which newsgroups each topic holds
# ---------------------------------
# Rows: the topics, largest first; columns: the newsgroups; each row sums to one.
order = [topic["topic"] for topic in model.top_words(1)]
table = np.array([np.bincount(groups[model.labels_ == k], minlength=20) for k in order], dtype=float)
fig, ax = plt.subplots(figsize=(10, 6), layout="constrained")
ax.imshow(table / table.sum(axis=1, keepdims=True), aspect="auto", cmap="Greys")
ax.set_xticks(range(20), news.extras["label_names"], rotation=90, fontsize=7)
ax.set_yticks(range(len(order)), [f"topic {k}" for k in order], fontsize=7)
ax.set_title("Share of each topic's openings per newsgroup")

# %%
# The topics' top words
# ---------------------
fig = plot.plot_topic_words(model, n_words=8, max_topics=12)
