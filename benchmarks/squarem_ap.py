"""SQUAREM's document fixed point against the plain iteration (issue 28), LDA on AP to convergence
(the estimator's defaults otherwise): iterations, CPU, final ELBO and held-out document completion
(225 documents held out, each split in half by tokens). One thread; each fit in a fresh process, after
an untimed one-lap fit on 100 documents there (numba's kernels), with its peak RSS.

    python benchmarks/squarem_ap.py > benchmarks/results/squarem_ap.md
"""
import os
import warnings, time, numpy as np
from threadpoolctl import threadpool_limits
from _rss import in_fresh_process
from stickbreak import LDA, datasets
from stickbreak.evaluate import split_documents, completion_from_split


def fit(K: int, acc: bool) -> dict:
    """One fit (in a fresh process: :func:`main`)."""
    warnings.simplefilter("ignore")
    ap = datasets.load("ap").X
    rng = np.random.default_rng(0)
    idx = rng.permutation(ap.n_items); test, train = idx[:225], idx[225:]
    obs, held = split_documents(ap.counts[test], "tokens", 0.5, seed=1)
    with threadpool_limits(1):
        options = {"local_accelerate": acc}
        LDA(n_topics=K, algorithm="vb", random_state=0, max_laps=1,
            algorithm_options=options).fit(ap.counts[train[:100]])
        m = LDA(n_topics=K, algorithm="vb", random_state=0, max_laps=100, algorithm_options=options)
        t = time.process_time(); m.fit(ap.counts[train]); cpu = time.process_time() - t
    score = completion_from_split(m.topic_word_, obs, held)
    return {"laps": m.n_iter_, "cpu": cpu, "elbo": m.lower_bound_, "heldout": score.per_word}


def main():
    print(f"load {os.getloadavg()}")
    for K in (20, 50):
        for acc in (False, True):
            r = in_fresh_process(fit, K, acc)
            print(f"K={K} accelerate={acc}: laps {r['laps']}, CPU {r['cpu']:.1f} s, ELBO {r['elbo']:.6g}, "
                  f"held-out {r['heldout']:.4f}, peak RSS {r['peak_rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
