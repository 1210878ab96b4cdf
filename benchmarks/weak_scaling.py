"""Weak scaling by simulation: memoized HDP topics on growing on-disk corpora, on a Dask LocalCluster
of 2 single-threaded workers (issue 25).

The corpora come from ``benchmarks/make_corpus.py`` (wiki-like documents from 100 LDA topics fitted
on wiki, 20,000 documents per shard); a size of N documents is the store's first N / 20,000 shards,
one memoized batch per shard. Each size runs in a fresh process (so peak memory is its own):
HDPTopicModel with K=100, no moves (so every lap does the same work), ``--laps`` laps. Reported:
seconds per lap after the first, microseconds per document per lap, the driver's peak RSS, each
worker's peak RSS (the workers hold their halves of the shards they were given), and bytes moved
per lap.

Run:  .venv/bin/python benchmarks/make_corpus.py --docs 300000 --out /tmp/wiki_synth_300k
      .venv/bin/python benchmarks/weak_scaling.py --store /tmp/wiki_synth_300k --sizes 100000,300000
Writes benchmarks/results/weak_scaling.{json,md}.
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

import distributed

from stickbreak import HDPTopicModel
from stickbreak.data import ShardStore
from _rss import peak_rss_mib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def peak_rss_mb() -> float:
    return peak_rss_mib()


def one_size(store_dir: str, n_docs: int, laps: int) -> dict:
    """Fit on the first ``n_docs`` documents of the store (whole shards) in this process."""
    store = ShardStore.open(store_dir)
    sizes = store.meta["sizes"]
    n_shards = next(i + 1 for i in range(len(sizes)) if sum(sizes[:i + 1]) >= n_docs)
    part = ShardStore(store.directory, {**store.meta, "sizes": sizes[:n_shards]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                           memory_limit=0)
        client = distributed.Client(cluster)
        start = time.perf_counter()
        model = HDPTopicModel(n_topics=100, n_batches=n_shards, moves=(), max_laps=laps, tol=0.0, random_state=0,
                              executor=client).fit(part)
        wall = time.perf_counter() - start
        workers = client.run(peak_rss_mb)
        client.close()
        cluster.close()
    trace = model.trace_
    per_lap = (trace[-1]["seconds"] - trace[0]["seconds"]) / max(1, len(trace) - 1)
    docs = part.n_items
    return {"docs": docs, "shards": n_shards, "laps": len(trace), "wall": wall, "first_lap": trace[0]["seconds"],
            "per_lap": per_lap, "us_per_doc_lap": 1e6 * per_lap / docs, "elbo": model.lower_bound_,
            "driver_peak_mb": peak_rss_mb(), "worker_peak_mb": sorted(workers.values()),
            "bytes_per_lap": trace[-1]["bytes_moved"], "load": os.getloadavg()[0]}


def table(rows) -> str:
    lines = ["| documents | shards | first lap s | s/lap after | us/doc/lap | driver peak MB | worker peak MB | "
             "MB moved/lap | load |", "|---" * 9 + "|"]
    for r in rows:
        lines.append(f"| {r['docs']:,} | {r['shards']} | {r['first_lap']:.0f} | {r['per_lap']:.0f} | "
                     f"{r['us_per_doc_lap']:.0f} | {r['driver_peak_mb']:.0f} | "
                     f"{' / '.join(f'{m:.0f}' for m in r['worker_peak_mb'])} | {r['bytes_per_lap'] / 1e6:.0f} | "
                     f"{r['load']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--sizes", default="100000,300000")
    parser.add_argument("--laps", type=int, default=2)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: run one size, print JSON
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one_size(args.store, args.one, args.laps)))
        return
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        done = subprocess.run([sys.executable, __file__, "--store", args.store, "--laps", str(args.laps),
                               "--one", str(n)], capture_output=True, text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "weak_scaling.json"  # rows of other sizes (an earlier invocation's) are kept
    sizes = {r["docs"] for r in rows}
    earlier = [r for r in json.loads(path.read_text()) if r["docs"] not in sizes] if path.exists() else []
    rows = sorted(earlier + rows, key=lambda r: r["docs"])
    path.write_text(json.dumps(rows, indent=1))
    header = ("# Weak scaling, memoized HDP K=100 without moves, Dask LocalCluster of 2 workers "
              f"(`{' '.join(sys.argv)}`)\n\n")
    (RESULTS / "weak_scaling.md").write_text(header + table(rows))


if __name__ == "__main__":
    main()
