"""
Three algorithms for the HDP on one corpus: held-out score against time
=======================================================================

The same HDP topic model fitted to the same AP articles by three algorithms:

* memoized VI with birth, merge and delete moves (Hughes 2016, Ch. 5), the default;
* stochastic VI (Hoffman et al. 2013): one natural-gradient step per minibatch, here 8 per lap;
* the direct-assignment collapsed Gibbs sampler (Teh et al. 2006, §5.3), which starts from no
  topics and creates and removes them as it sweeps.

After every lap (a pass over the training articles) a callback takes the current topics
(``params.topic_word``) and scores them by document completion on held-out articles
(:func:`stickbreak.evaluate.document_completion`), so every algorithm is judged by the same
protocol. For the sampler the topics are those of the current sample, not an average over samples.

For speed: 800 training articles, 246 test articles, and short runs (8 laps of memoized VI,
10 of SVI, 40 Gibbs sweeps); the curves are not run to convergence. Both variational runs start
from the same 50 random topics (``init="random"``): the default start, a collapsed Gibbs run of its
own (``init="gibbs"``), happens before the first lap, and the laps' clock would not show it.
"""

# %%
# A callback that scores the topics after every lap
# -------------------------------------------------
# ``callback(lap_record, params)`` runs after every lap. ``lap_record.seconds`` counts the time
# since the fit started, including the time spent in callbacks, so the callback measures its own
# time and the curve subtracts it. The sampler's sweeps are short, so it is scored every 4th sweep.
import time
import warnings

import matplotlib.pyplot as plt
from sklearn.exceptions import ConvergenceWarning

from stickbreak import HDPTopicModel, datasets
from stickbreak.evaluate import document_completion

ap = datasets.load("ap")
train, test = ap.X[:800], ap.X[2000:]
warnings.simplefilter("ignore", ConvergenceWarning)  # the lap caps are for speed


def scored_fit(every=1, **settings):
    curve, scoring = [], [0.0]

    def callback(record, params):
        if record.lap % every:
            return
        start = time.perf_counter()
        score = document_completion(params.topic_word, test, seed=0).per_word
        curve.append((record.seconds - scoring[0], score, params.topic_word.shape[0]))
        scoring[0] += time.perf_counter() - start

    model = HDPTopicModel(random_state=0, callbacks=[callback], **settings).fit(train)
    return model, curve


runs = {
    "memoized VI + moves": scored_fit(n_topics=50, init="random", n_batches=4, max_laps=8),
    "stochastic VI": scored_fit(n_topics=50, init="random", algorithm="stochastic", n_batches=8, max_laps=10),
    "collapsed Gibbs": scored_fit(algorithm="gibbs", max_laps=40, every=4),
}
for name, (model, curve) in runs.items():
    seconds, score, k = curve[-1]
    print(f"{name:20s}: {len(model.trace_):2d} laps in {seconds:5.1f} s, held-out {score:.4f} nats per token, "
          f"{k} topics at the end")

# %%
# Held-out score against fitting time
# -----------------------------------
# One marker per scored lap. The topic counts at the end are printed above: memoized VI prunes from 50,
# SVI keeps its truncation of 50 (it runs no moves), the sampler grows its own set.
fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
for (name, (model, curve)), colour in zip(runs.items(), ("tab:red", "tab:blue", "tab:green")):
    seconds, scores, _ = zip(*curve)
    ax.plot(seconds, scores, ".-", color=colour, label=name)
ax.set_xlabel("fitting time (s, scoring excluded)")
ax.set_ylabel("held-out log-likelihood per token (nats)")
ax.set_title("HDP on 800 AP articles: document completion on 246 others")
ax.legend()
plt.show()
