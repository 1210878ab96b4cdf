"""
The same fit in process and on a local Dask cluster
===================================================

The local step of every batch is independent of the others given the global parameters (Hughes
2016, §8.1), so it can run where the data are. ``executor=`` says where: the driver's threads
(the default), local worker processes, or the workers of a Dask cluster. On Dask and worker
processes memoized VI runs synchronous laps (every batch visited in one call, one global step per
lap); the driver's threads run them batch by batch unless their executor is made with
``synchronous_laps=True``. With the same schedule the fit is meant to be the same on every
executor, up to floating-point round-off; here we check it by fitting the same HDP topic model in
process and on a ``distributed.LocalCluster`` of 2 single-threaded worker processes, and compare
their ELBO, K and seconds lap by lap.

For speed the corpus is the first 500 AP articles, the HDP starts from 30 topics and each fit is
capped at 8 laps. On data this small, sending parameters to the workers and statistics back costs
more than the parallel local steps save, so expect the Dask run to be slower; Dask is for data
that do not fit one machine.

Dask's worker processes import this script again when they start, so everything that fits or
starts a cluster sits under ``if __name__ == "__main__":``.
"""

# %%
# One function, two executors
# ---------------------------
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from stickbreak import HDPTopicModel, datasets
from stickbreak.parallel import make_executor

X = datasets.load("ap").X[:500]


def fit(executor=None, n_jobs=1):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # 8 laps is a cap for speed
        model = HDPTopicModel(n_topics=30, n_batches=4, max_laps=8, executor=executor, n_jobs=n_jobs,
                              random_state=0).fit(X)
    return model, time.perf_counter() - start


# %%
# Fit in process, then on 2 Dask workers
# --------------------------------------
# The cluster is closed when the ``with`` blocks end. ``bytes_moved`` in the trace counts what
# went to and from the workers in each lap.
if __name__ == "__main__":
    from distributed import Client, LocalCluster

    threads = make_executor("threads", 1, synchronous_laps=True)  # the laps Dask runs
    local, local_seconds = fit(executor=threads)
    threads.close()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        remote, remote_seconds = fit(executor=client)

    for name, model, seconds in (("in process", local, local_seconds), ("Dask, 2 workers", remote, remote_seconds)):
        print(f"{name:16s}: {model.n_topics_} topics, final ELBO {model.trace_[-1]['elbo']:.3f}, "
              f"{seconds:.1f} s, {model.trace_[-1]['bytes_moved'] / 1e6:.1f} MB moved in the last lap")
    elbo_local = np.array([r["elbo"] for r in local.trace_])
    elbo_remote = np.array([r["elbo"] for r in remote.trace_])
    print(f"largest relative ELBO difference over the laps: "
          f"{np.max(np.abs(elbo_local - elbo_remote) / np.abs(elbo_local)):.2e}")
    print("same topics:", np.allclose(local.topic_word_, remote.topic_word_, atol=1e-8))

# %%
# ELBO and time per lap
# ---------------------
# Left, the two ELBO curves lie on top of each other. Right, the seconds spent in each lap.
if __name__ == "__main__":
    fig, (ax_elbo, ax_time) = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
    for name, model, style in (("in process", local, "o-"), ("Dask, 2 workers", remote, "x--")):
        laps = [r["lap"] for r in model.trace_]
        ax_elbo.plot(laps[1:], [r["elbo"] for r in model.trace_][1:], style, label=name)
        ax_time.plot(laps, np.diff([0.0] + [r["seconds"] for r in model.trace_]), style, label=name)
    ax_elbo.set_xlabel("lap")
    ax_elbo.set_ylabel("ELBO (nats)")
    ax_elbo.set_title("ELBO over the laps (from lap 2)")
    ax_elbo.legend()
    ax_time.set_xlabel("lap")
    ax_time.set_ylabel("seconds")
    ax_time.set_title("Seconds per lap")
    ax_time.legend()
    plt.show()
