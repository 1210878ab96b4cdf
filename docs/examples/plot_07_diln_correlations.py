"""
Correlated topics with DILN
===========================

The discrete infinite logistic normal (DILN; Paisley, Wang & Blei 2012) is an HDP whose
document-level topic weights are correlated: topic k sits at a location ``l_k`` in R^d,
document m at ``u_m``, and ``Z_mk ~ Gamma(beta p_k, exp(-l_k'u_m))``, so topics whose locations
point the same way tend to appear in the same documents. ``topic_correlation_`` holds the cosine
of the learned topic locations; we print the most correlated pairs with their top words and draw
the correlations among the largest topics (the paper's Figs. 4-6).

Fitted by batch VI (the paper's Algorithm 1) on all 2,246 AP articles. For speed the truncation is
50 topics with 10 latent dimensions instead of the defaults 200 and 20.
"""

# %%
# Fit DILN
# --------
import matplotlib.pyplot as plt

from stickbreak import DILN, datasets, plot

ap = datasets.load("ap")
diln = DILN(n_topics=50, latent_dim=10, random_state=0).fit(ap.X)
print(f"{diln.n_topics_} topics used of the truncation of 50, {len(diln.trace_)} laps ({diln.stop_reason_})")

# %%
# When every topic of the truncation is in use, as it can be at 50, the truncation rather than
# the data bounds the number of topics; the default ``n_topics=200`` leaves room for the data to
# decide.

# %%
# The most correlated pairs
# -------------------------
# ``top_correlated_pairs`` ranks pairs among the 30 largest topics by their correlation.
words = {topic["topic"]: " ".join(w for w, _ in topic["words"]) for topic in diln.top_words(5)}
for pair in diln.top_correlated_pairs(6):
    i, j = pair["topics"]
    print(f"{pair['correlation']:+.2f}  [{words[i]}]  ~  [{words[j]}]")

# %%
# The correlation matrix
# ----------------------
# :func:`stickbreak.plot.plot_topic_correlation` labels each topic by its id and top word.
fig = plot.plot_topic_correlation(diln, max_topics=25)
plt.show()
