"""Driver memory against the number of memoized batches (issue 25: the driver holds one set of
whole-data statistics whatever the number of batches; the batches' caches live on the workers).

Memoized HDP topics (K=100, no moves, 3 laps) on wiki (7,961 documents, 6,130 words) over 2 worker
processes, with 4, 16 and 64 batches; each run in a fresh process, so that its peak RSS is its own.
Reported: the driver's peak RSS, the growth over the 4-batch run, bytes moved per lap, seconds.

Run:  .venv/bin/python benchmarks/driver_memory.py
Writes benchmarks/results/driver_memory.{json,md}; ``--label`` names the code measured (e.g. run it
with ``PYTHONPATH=<an older checkout>/src`` and ``--label before``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _rss import peak_rss_mib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
WIKI = ROOT.parent / "shared" / "data" / "wiki"


def one(n_batches: int) -> dict:
    from stickbreak import HDPTopicModel

    z = np.load(WIKI / "bow.npz")
    counts = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
    counts = counts[np.asarray(counts.sum(axis=1)).ravel() > 0]
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = HDPTopicModel(n_topics=100, n_batches=n_batches, moves=(), max_laps=3, tol=0.0, random_state=0,
                              executor="processes", n_jobs=2).fit(counts)
    return {"batches": n_batches, "driver_peak_mb": peak_rss_mib(),
            "bytes_per_lap": model.trace_[-1]["bytes_moved"], "seconds": time.perf_counter() - start,
            "elbo": model.lower_bound_, "load": os.getloadavg()[0]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", default="4,16,64")
    parser.add_argument("--label", default="now")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one)))
        return
    rows = []
    for n in (int(b) for b in args.batches.split(",")):
        done = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, check=True)
        rows.append({"label": args.label, **json.loads(done.stdout.strip().splitlines()[-1])})
        print(rows[-1], flush=True)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "driver_memory.json"
    previous = [r for r in json.loads(path.read_text()) if r["label"] != args.label] if path.exists() else []
    rows = previous + rows
    path.write_text(json.dumps(rows, indent=1))
    lines = ["# Driver peak RSS against the number of memoized batches (HDP K=100 on wiki, 2 worker processes, "
             "3 laps)", "", "`.venv/bin/python benchmarks/driver_memory.py --label <code>`", "",
             "| code | batches | driver peak MB | growth over the fewest batches MB | MB moved/lap | "
             "seconds | ELBO | load |",
             "|---" * 8 + "|"]
    for r in rows:
        base = min((x for x in rows if x["label"] == r["label"]), key=lambda x: x["batches"])["driver_peak_mb"]
        lines.append(f"| {r['label']} | {r['batches']} | {r['driver_peak_mb']:.0f} | "
                     f"{r['driver_peak_mb'] - base:.0f} | "
                     f"{r['bytes_per_lap'] / 1e6:.0f} | {r['seconds']:.0f} | {r['elbo']:.6e} | {r['load']:.2f} |")
    (RESULTS / "driver_memory.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
