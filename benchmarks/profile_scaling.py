"""Where one scaling workload's time goes on one executor (issue 25): run it under py-spy with
its worker processes, then sum the samples per process and function.

Run:  .venv/bin/py-spy record --subprocesses --idle --format raw -r 50 -o /tmp/prof.txt -- \\
          .venv/bin/python benchmarks/profile_scaling.py run hdp processes 6
      .venv/bin/python benchmarks/profile_scaling.py summary /tmp/prof.txt

``run`` fits the workload of ``benchmarks/scaling.py`` (after an untimed fit that compiles) and
prints each lap's seconds and MB moved, and the peak RSS of the process and of its largest worker
process (one run per process); ``summary`` prints, for each process, its sampled seconds
and the functions it spent them in (a function counted once per sample, callers included).
"""

from __future__ import annotations

import sys
import time
import warnings
from collections import Counter, defaultdict

from _rss import CHILDREN_KEY, measured, rss_cell, with_children
from scaling import WORKLOADS

RATE = 50  # samples per second, as recorded above


def run(key: str, executor: str, laps: int) -> None:
    out = with_children(measured, fit, key, executor, laps)
    workers = rss_cell(out, CHILDREN_KEY) if CHILDREN_KEY in out else "none"
    print(f"peak RSS MiB: {rss_cell(out)} (largest worker process: {workers})")


def fit(key: str, executor: str, laps: int) -> dict:
    _, data, make = WORKLOADS[key]
    X = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make(1).set_params(random_state=0).fit(X)
        start = time.perf_counter()
        model = make(laps).set_params(random_state=0, executor=None if executor == "threads1" else executor,
                                      n_jobs=1 if executor == "threads1" else 2).fit(X)
    ends = [0.0] + [r["seconds"] for r in model.trace_]
    print(f"fit {time.perf_counter() - start:.1f} s; laps (s):", [round(b - a, 1) for a, b in zip(ends, ends[1:])],
          "MB:", [r["bytes_moved"] // 10 ** 6 for r in model.trace_])
    return {}


def summary(path: str, top: int = 30) -> None:
    per_process, totals = defaultdict(Counter), Counter()
    for line in open(path):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        frames = stack.split(";")
        at = max(i for i, frame in enumerate(frames) if frame.startswith("process "))
        process = frames[at][:70]
        totals[process] += int(count)
        for name in {frame.split(" (")[0] for frame in frames[at + 1:]}:
            per_process[process][name] += int(count)
    for process, count in totals.most_common():
        print(f"{process}: {count / RATE:.1f} s sampled")
        for name, c in per_process[process].most_common(top):
            print(f"  {c / RATE:7.1f} s  {name}")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        summary(sys.argv[2])
