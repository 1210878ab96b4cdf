"""
LDA at several K against the HDP: held-out document completion
===============================================================

LDA needs the number of topics K; the HDP topic model learns it. We fit LDA (batch VB) at a few
values of K and the HDP (memoized VI with moves, Hughes 2016, Ch. 5) to the same training
articles and score every model by document completion (Hughes 2016, Eq. 5.59): half of each test
document's tokens are given, its topic proportions inferred from them, and the other half scored
(:func:`stickbreak.evaluate.document_completion`, the same function for every model).

For speed the models train on the first 1,000 AP articles and are tested on the last 246, LDA
runs at most 30 laps and the HDP (from its learned start, a short collapsed Gibbs run) at most 15
laps; these caps mean that neither is fully converged.
"""

# %%
# Train and score
# ---------------
import time
import warnings

import matplotlib.pyplot as plt
from sklearn.exceptions import ConvergenceWarning

from stickbreak import LDA, HDPTopicModel, datasets
from stickbreak.evaluate import document_completion

ap = datasets.load("ap")
train, test = ap.X[:1000], ap.X[2000:]
warnings.simplefilter("ignore", ConvergenceWarning)  # the lap caps above are for speed

lda_scores = {}
for k in (10, 25, 50):
    start = time.perf_counter()
    lda = LDA(n_topics=k, max_laps=30, random_state=0).fit(train)
    score = document_completion(lda, test, seed=0)
    lda_scores[k] = score.per_word
    print(f"LDA K={k:3d}: {score.per_word:.4f} nats per held-out token (perplexity {score.perplexity:.0f}), "
          f"{time.perf_counter() - start:.1f} s")

start = time.perf_counter()
hdp = HDPTopicModel(n_batches=4, max_laps=15, random_state=0).fit(train)
hdp_score = document_completion(hdp, test, seed=0)
print(f"HDP: {hdp.n_topics_} topics learned, {hdp_score.per_word:.4f} nats per held-out token "
      f"(perplexity {hdp_score.perplexity:.0f}), {time.perf_counter() - start:.1f} s")
print(f"{hdp_score.n_heldout_tokens} held-out tokens in {hdp_score.n_documents} test documents")

# %%
# Held-out score against K
# ------------------------
# Higher is better. The HDP is drawn at the number of topics it ended with. On this small training
# set and with these lap caps, compare the printed numbers rather than read a general ranking
# into them: the ordering can change with more data or more laps.
fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
ax.plot(list(lda_scores), list(lda_scores.values()), "o-", color="tab:blue", label="LDA (K fixed)")
ax.plot([hdp.n_topics_], [hdp_score.per_word], "s", color="tab:red", markersize=9,
        label=f"HDP (K learned: {hdp.n_topics_})")
ax.set_xlabel("number of topics")
ax.set_ylabel("held-out log-likelihood per token (nats)")
ax.set_title("Document completion on 246 held-out AP articles")
ax.legend()
plt.show()
