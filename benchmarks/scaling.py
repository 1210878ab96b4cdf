"""Strong scaling on this machine: one fit, the same seed, on 1 thread, 2 threads, 2 worker processes and
2 Dask workers (issues 25 and 48), with memoized VI's laps batch by batch (Hughes 2016, Alg. 3.3: the
driver's threads by default) or synchronous (every batch in one call, one global step per lap:
worker processes and Dask by default; ``stickbreak.learn.memo_sync``).

Workloads (the issue's): LDA by batch VB on wiki (K=100); the memoized HDP with its default moves
on 20newsgroups (K=100 to start, 8 batches); the default DP-GMM (memoized, birth/merge/delete) on
Fashion-MNIST projected on 50 principal components (60,000 images); the HDP-HMM on mocap6.
Each fit runs ``--laps`` laps with ``tol=0`` in a fresh process given the workload's data (numba's
kernels load first in an untimed one-lap fit there).

Reported per run: wall seconds of the fit (worker start-up included), seconds per lap after the
first (the steady rate), the final ELBO, K, mean bytes moved per lap, the load average before and
after, and the peak RSS of the run's process (the driver: data, warm-up and fit) and of its largest
worker process (local processes or Dask workers started by the fit; none for threads). Speed-up =
the 1-thread wall time over the run's; the rows of a workload with the same schedule show the same
ELBO to 1e-10 relative (the executors compute the same fit); the two schedules differ after the
first lap (one global step per lap against one per batch), so their ELBOs after the same laps
are compared too.

Run:  .venv/bin/python benchmarks/scaling.py [--only lda,hdp,dpgmm,hmm] [--laps 8]
Writes benchmarks/results/scaling.{json,md}.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import PCA

from stickbreak import LDA, DPMixture, HDPHMM, HDPTopicModel
from stickbreak.data import BagOfWords
from stickbreak.datasets import load
from stickbreak.parallel import make_executor

from _rss import CHILDREN_KEY, KEY, in_fresh_process, rss_cell, with_children

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"

#: (label, executor, n_jobs, memoized laps synchronous or not; None: the executor's default)
SETTINGS = [("1 thread", None, 1, None), ("2 threads", None, 2, None), ("2 processes", "processes", 2, None),
            ("2 Dask workers", "dask", 2, None), ("1 thread, synchronous laps", None, 1, True),
            ("2 processes, laps batch by batch", "processes", 2, False)]


def corpus(name: str) -> BagOfWords:
    z = np.load(SHARED / name / "bow.npz")
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
    return BagOfWords(X[np.asarray(X.sum(axis=1)).ravel() > 0])


def fashion_pca50() -> np.ndarray:
    images = np.frombuffer(gzip.open(SHARED / "fashion_mnist" / "train-images-idx3-ubyte.gz").read(), np.uint8,
                           offset=16).reshape(-1, 784).astype(float)
    return PCA(n_components=50, random_state=0).fit_transform(images)


WORKLOADS = {
    "lda": ("LDA K=100, batch VB, wiki", lambda: corpus("wiki"),
            lambda laps: LDA(n_topics=100, algorithm="vb", n_batches=8, max_laps=laps, tol=0.0)),
    # from random topics: the default learned start is a sequential sampler on the driver, which no
    # executor spreads; these rows time the memoized laps
    "hdp": ("memoized HDP with default moves, K=100 random topics, 8 batches, 20newsgroups",
            lambda: corpus("20newsgroups"),
            lambda laps: HDPTopicModel(n_topics=100, init="random", n_batches=8, max_laps=laps, tol=0.0)),
    "dpgmm": ("DP-GMM defaults (memoized, birth/merge/delete), 8 batches, Fashion-MNIST PCA-50", fashion_pca50,
              lambda laps: DPMixture(n_batches=8, max_laps=laps, tol=0.0)),
    "hmm": ("HDP-HMM defaults (memoized), 2 batches, mocap6", lambda: load("mocap6").X,
            lambda laps: HDPHMM(n_batches=2, max_laps=laps, tol=0.0)),
}


def run_row(key: str, X, laps: int, executor, n_jobs: int, synchronous: bool | None) -> dict:
    """One workload on one executor (in a fresh process: :func:`main`), after an untimed one-lap fit there."""
    make = WORKLOADS[key][2]
    with warnings.catch_warnings():  # untimed: numba's kernels load in this process
        warnings.simplefilter("ignore")
        make(1).set_params(random_state=0).fit(X)
    return run(make, X, laps, executor, n_jobs, synchronous)


def run(make, X, laps: int, executor, n_jobs: int, synchronous: bool | None = None) -> dict:
    load_before = os.getloadavg()[0]
    start, cpu = time.perf_counter(), time.process_time()  # worker start-up included
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    opened = make_executor(executor, n_jobs, synchronous_laps=synchronous)
    model = make(laps).set_params(random_state=0, n_jobs=n_jobs, executor=opened)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X)
    finally:
        opened.close()
    wall, driver_cpu = time.perf_counter() - start, time.process_time() - cpu
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker processes, once they have ended
    workers_cpu = (ended.ru_utime + ended.ru_stime) - (children.ru_utime + children.ru_stime)
    trace = model.trace_
    per_lap = (trace[-1]["seconds"] - trace[0]["seconds"]) / max(1, len(trace) - 1)
    ends = [0.0] + [r["seconds"] for r in trace]
    return {"wall": wall, "per_lap": per_lap, "elbo": float(model.lower_bound_), "K": trace[-1]["n_effective"],
            "bytes_per_lap": float(np.mean([r["bytes_moved"] for r in trace])),
            "lap_seconds": [b - a for a, b in zip(ends, ends[1:])], "lap_bytes": [r["bytes_moved"] for r in trace],
            "lap_moves": [", ".join(f"{kind} {v['accepted']}/{v['tried']}" for kind,
                                    v in r["moves"].items() if v["tried"])
                          for r in trace],
            "load_before": load_before, "load_after": os.getloadavg()[0], "driver_cpu": driver_cpu,
            "workers_cpu": workers_cpu}


def _workers_rss(row: dict) -> str:
    if KEY in row and CHILDREN_KEY not in row:
        return "none"  # threads: no worker process
    return rss_cell(row, CHILDREN_KEY)


def table(rows: list[dict]) -> str:
    lines = ["| workload | executor | wall s | s/lap after lap 1 | speed-up (wall) | speed-up (per lap) | ELBO | K "
             "| MB moved/lap | CPU s: driver / worker processes | load before/after "
             "| peak RSS MiB (driver / largest worker) |", "|---" * 12 + "|"]
    for row in rows:
        workers = f"{row['workers_cpu']:.1f}" if row.get("workers_cpu") else "none"
        lines.append(f"| {row['workload']} | {row['setting']} | {row['wall']:.1f} | {row['per_lap']:.2f} | "
                     f"{row['speedup_wall']:.2f}x | {row['speedup_lap']:.2f}x | {row['elbo']:.10g} | {row['K']} | "
                     f"{row['bytes_per_lap'] / 1e6:.1f} | {row.get('driver_cpu', float('nan')):.1f} / {workers} | "
                     f"{row['load_before']:.2f}/{row['load_after']:.2f} | {rss_cell(row)} / {_workers_rss(row)} |")
    return "\n".join(lines) + "\n"


def lap_table(rows: list[dict]) -> str:
    """Each lap's seconds (and MB moved) per executor, with the moves accepted/tried in it."""
    laps = len(rows[0]["lap_seconds"])
    lines = ["| workload | executor | " + " | ".join(f"lap {i + 1}" for i in range(laps)) + " |",
             "|---|---|" + "---|" * laps]
    for row in rows:
        cells = [f"{s:.1f}" + (f" ({b / 1e6:.0f} MB)" if b else "")
                 for s, b in zip(row["lap_seconds"], row["lap_bytes"])]
        lines.append(f"| {row['workload']} | {row['setting']} | " + " | ".join(cells) + " |")
    lines.append("| | moves (accepted/tried) | " + " | ".join(m or "-" for m in rows[0]["lap_moves"]) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=",".join(WORKLOADS))
    parser.add_argument("--laps", type=int, default=8)
    args = parser.parse_args(argv)
    rows = []
    for key in args.only.split(","):
        title, data, _ = WORKLOADS[key]
        X = data()
        base = None
        same_schedule: dict = {}
        for setting, executor, n_jobs, synchronous in SETTINGS:
            row = {"workload": title, "setting": setting,
                   **in_fresh_process(with_children, run_row, key, X, args.laps, executor, n_jobs, synchronous)}
            base = base or row
            row["speedup_wall"] = base["wall"] / row["wall"]
            row["speedup_lap"] = base["per_lap"] / row["per_lap"]
            schedule = executor is not None if synchronous is None else synchronous
            first = same_schedule.setdefault(schedule, row)
            row["same_elbo"] = abs(row["elbo"] - first["elbo"]) <= 1e-10 * abs(first["elbo"])
            rows.append(row)
            print(table([row]).splitlines()[-1], flush=True)
    RESULTS.mkdir(exist_ok=True)
    suffix = "" if args.only == ",".join(WORKLOADS) else "_" + args.only.replace(",", "_")
    (RESULTS / f"scaling{suffix}.json").write_text(json.dumps(rows, indent=1))
    header = (f"# Strong scaling, {args.laps} laps, {os.cpu_count()} cores (`{' '.join(sys.argv)}`)\n\n")
    by_workload = {}
    for row in rows:
        by_workload.setdefault(row["workload"], []).append(row)
    laps = "\n## Seconds of each lap\n\n" + "\n".join(lap_table(group) for group in by_workload.values())
    (RESULTS / f"scaling{suffix}.md").write_text(header + table(rows) + laps)


if __name__ == "__main__":
    main()
