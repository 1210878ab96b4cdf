"""SQUAREM's document fixed point against the plain iteration (issue 28), LDA on AP to convergence
(the estimator's defaults otherwise): iterations, CPU, final ELBO and held-out document completion
(225 documents held out, each split in half by tokens). One process, one thread.

    python benchmarks/squarem_ap.py > benchmarks/results/squarem_ap.md
"""
import os
import warnings, time, numpy as np
warnings.simplefilter("ignore")
from threadpoolctl import threadpool_limits
from stickbreak import LDA, datasets
from stickbreak.evaluate import split_documents, completion_from_split
ap = datasets.load("ap").X
rng = np.random.default_rng(0)
idx = rng.permutation(ap.n_items); test, train = idx[:225], idx[225:]
obs, held = split_documents(ap.counts[test], "tokens", 0.5, seed=1)
print(f"load {os.getloadavg()}")
for K in (20, 50):
    for acc in (False, True):
        with threadpool_limits(1):
            m = LDA(n_topics=K, algorithm="vb", random_state=0, max_laps=100, algorithm_options={"local_accelerate": acc})
            t = time.process_time(); m.fit(ap.counts[train]); cpu = time.process_time() - t
        score = completion_from_split(m.topic_word_, obs, held)
        print(f"K={K} accelerate={acc}: laps {m.n_iter_}, CPU {cpu:.1f} s, ELBO {m.lower_bound_:.6g}, held-out {score.per_word:.4f}")
