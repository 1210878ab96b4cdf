"""
AP news: HDP topics as K is learned
===================================

The hierarchical Dirichlet process topic model (Teh et al. 2006) fitted to AP news articles by
memoized VI with birth, merge and delete moves, in the direct-assignment variational family of
Hughes (2016, Ch. 5). The run starts from the topics that a short collapsed Gibbs run of the
same HDP finds (``init="gibbs"``, the default: the better by the ELBO of a chain from no topics
and one seeded with 100 documents); then topics the corpus does not
support are merged or deleted, each move kept only if the exact ELBO rises. We follow K over
the laps and show the largest topics' top words and the topic sizes.

For speed this example uses the first 800 of the 2,246 articles and stops after at most 15 laps.
"""

# %%
# Fit the HDP
# -----------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from stickbreak import HDPTopicModel, datasets, plot

ap = datasets.load("ap")
X = ap.X[:800]  # a subset for speed
print(f"{X.shape[0]} documents, {X.shape[1]} words in the vocabulary")

hdp = HDPTopicModel(n_batches=4, max_laps=15, random_state=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # 15 laps is a cap for speed, not convergence
    hdp.fit(X)

moves = {kind: laps.tolist() for kind, laps in plot.accepted_moves(hdp.trace_).items()}
print(f"K per lap: {[record['n_components'] for record in hdp.trace_]}")
print(f"laps with accepted moves: {moves}")
print(f"{hdp.n_topics_} topics used after {len(hdp.trace_)} laps ({hdp.stop_reason_})")
for topic in hdp.top_words(6)[:5]:
    print(f"topic {topic['topic']:2d} ({topic['size']:7.0f} tokens):", " ".join(w for w, _ in topic["words"]))

# %%
# K over the laps and the topic sizes
# -----------------------------------
# Sizes are expected tokens per topic (``topic_sizes_``), largest first.
sizes = np.sort(hdp.topic_sizes_)[::-1]
sizes = sizes[sizes > 0]
fig, (ax_k, ax_sizes) = plt.subplots(1, 2, figsize=(12, 3.8), layout="constrained")
ax_k.step([r["lap"] for r in hdp.trace_], [r["n_components"] for r in hdp.trace_], where="post", color="k")
for kind, colour in (("merge", "tab:purple"), ("delete", "tab:red"), ("birth", "tab:green")):
    if kind in moves:
        ax_k.vlines(moves[kind], 0, 1, transform=ax_k.get_xaxis_transform(), colors=colour, alpha=0.6,
                    label=f"{kind} accepted")
ax_k.set_xlabel("lap")
ax_k.set_ylabel("topics K")
ax_k.set_title(f"K over the laps (learned start: {hdp.trace_[0]['n_components']} after the first)")
ax_k.legend(fontsize=8)
ax_sizes.bar(np.arange(len(sizes)), sizes, color="tab:blue")
ax_sizes.set_xlabel("topic rank")
ax_sizes.set_ylabel("expected tokens")
ax_sizes.set_title(f"Sizes of the {len(sizes)} topics used")

# %%
# The largest topics' top words
# -----------------------------
# :func:`stickbreak.plot.plot_topic_words`.
fig = plot.plot_topic_words(hdp, n_words=8, max_topics=12)
