"""The million-document fit with moves (issue 25): memoized HDP with its default births, merges and
deletes on the 1,000,000-document corpus of ``make_corpus.py``, on a Dask LocalCluster of 2
single-threaded workers, checkpointed every lap so that it can be stopped and resumed.

Everything is the estimator's default except ``n_batches`` (one batch per 20,000-document shard),
the executor and the checkpoint. Scored on 5,000 held-out documents drawn from the same generating
process (seed 12345, not in the training shards): document completion (half of each document's
tokens observed, half held out; the protocol of ``benchmarks/topics.py``), the generating 100
topics' recovery (for each generating topic, the Hellinger distance to its closest learned topic;
recovered below 0.3), K per lap, time, the driver's and workers' peak RSS and CPU seconds (this run's,
the start included) and bytes moved per lap.

Run:  .venv/bin/python benchmarks/make_corpus.py --docs 1000000 --out /tmp/wiki_synth_1m
      .venv/bin/python benchmarks/million.py --store /tmp/wiki_synth_1m --checkpoint /tmp/million_ckpt
Run the second command again to resume a stopped run from its checkpoint (``--max-laps`` extends it).
Writes benchmarks/results/million.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
import warnings
from pathlib import Path

import distributed
import numpy as np
import scipy.sparse as sp

from stickbreak import HDPTopicModel, resume
from stickbreak.data import ShardStore
from stickbreak.evaluate.topics import completion_from_split, split_documents
from stickbreak.learn.base import ELBODecreaseWarning
from stickbreak.persist import checkpoint as checkpoint_files

import make_corpus
from _rss import peak_rss_mib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
HELDOUT_DOCS, HELDOUT_SEED = 5000, 12345
RECOVERED = 0.3  # Hellinger distance under which a generating topic counts as recovered


def peak_rss_mb() -> float:
    return peak_rss_mib()


def cpu_seconds() -> float:
    """This process's CPU seconds, user and system (a worker's, run there by ``client.run``)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def heldout(store_dir: Path) -> sp.csr_matrix:
    """Documents from the store's generating process, with wiki's lengths, not in the store."""
    recipe = json.loads((store_dir / "recipe.json").read_text())
    topics = np.load(store_dir / recipe["generating_topics"])
    counts, _ = make_corpus.wiki()
    lengths = np.asarray(counts.sum(axis=1)).ravel().astype(np.int64)
    rng = np.random.default_rng(HELDOUT_SEED)
    return make_corpus.sample_chunk(topics, rng.choice(lengths, size=HELDOUT_DOCS), recipe["alpha"], rng)


def recovery(truth: np.ndarray, learned: np.ndarray) -> np.ndarray:
    """For each generating topic, the Hellinger distance to its closest learned topic."""
    overlap = np.sqrt(truth) @ np.sqrt(learned).T
    return np.sqrt(np.clip(1.0 - overlap.max(axis=1), 0.0, None))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--max-laps", type=int, default=100)
    args = parser.parse_args(argv)
    store = ShardStore.open(args.store)
    load_before = os.getloadavg()[0]
    start, driver_cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # distributed's own chatter, but not a lap whose ELBO went down:
        warnings.simplefilter("always", ELBODecreaseWarning)
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                           memory_limit=0)
        client = distributed.Client(cluster)
        if checkpoint_files.checkpoint_path(args.checkpoint).exists():
            print(f"resuming {args.checkpoint}", flush=True)
            model = resume(args.checkpoint, store, executor=client, max_laps=args.max_laps)
        else:
            model = HDPTopicModel(n_batches=len(store.meta["sizes"]), max_laps=args.max_laps, random_state=0,
                                  executor=client, verbose=1).fit(store, checkpoint=args.checkpoint)
        wall, driver_cpu = time.perf_counter() - start, time.process_time() - driver_cpu
        workers = client.run(peak_rss_mb)
        workers_cpu = sum(client.run(cpu_seconds).values())
        client.close()
        cluster.close()
    recipe = json.loads((args.store / "recipe.json").read_text())
    truth = np.load(args.store / recipe["generating_topics"])
    distance = recovery(truth, model.topic_word_)
    observed, held = split_documents(heldout(args.store), mode="tokens", heldout_fraction=0.5, seed=1)
    score = completion_from_split(model, observed, held)
    oracle = completion_from_split(truth, observed, held)
    trace = model.trace_
    row = {"docs": store.n_items, "shards": len(store.meta["sizes"]), "laps": len(trace), "K": int(model.n_topics_),
           "K_per_lap": [int(r["n_components"]) for r in trace],
           "lap_seconds": [round(float(t), 1) for t in np.diff([0.0] + [r["seconds"] for r in trace])],
           "fit_seconds": trace[-1]["seconds"],
           "this_run_seconds": wall, "heldout_per_word": score.per_word, "oracle_per_word": oracle.per_word,
           "recovered": int(np.sum(distance < RECOVERED)), "median_hellinger": float(np.median(distance)),
           "driver_cpu_seconds": driver_cpu, "workers_cpu_seconds": workers_cpu,
           "driver_peak_mb": peak_rss_mb(), "worker_peak_mb": sorted(workers.values()),
           "bytes_per_lap": trace[-1].get("bytes_moved"),
           "elbo_decreases": [int(r["lap"]) for a, r in zip(trace, trace[1:]) if r["elbo"] < a["elbo"]],
           "stopped": model.stop_reason_, "load_before": load_before,
           "load": os.getloadavg()[0],
           "accepted": {kind: sum(r["moves"].get(kind, {}).get("accepted", 0) for r in trace)
                        for kind in ("birth", "merge", "delete")}}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "million.json").write_text(json.dumps(row, indent=1, default=str))
    (RESULTS / "million.md").write_text(summary(row))
    print(json.dumps(row, indent=1, default=str))


def summary(row: dict) -> str:
    """The run as a short Markdown table (the JSON holds everything)."""
    lines = [f"# Memoized HDP with its default moves on {row['docs']:,} documents ({row['shards']} shards), "
             "Dask LocalCluster of 2", "", "| measure | value |", "|---|---|"]
    lines += [f"| laps (stop: {row['stopped']}) | {row['laps']} |", f"| K per lap | {row['K_per_lap']} |",
              f"| seconds per lap (the first: the start included) | {row['lap_seconds']} |",
              f"| moves accepted | {row['accepted']} |", f"| fit seconds (all runs) | {row['fit_seconds']:.0f} |",
              f"| held-out log-likelihood per word | {row['heldout_per_word']:.4f} |",
              f"| the generating topics' own | {row['oracle_per_word']:.4f} |",
              f"| generating topics recovered (Hellinger < {RECOVERED}) | {row['recovered']} of 100 |",
              f"| median Hellinger distance | {row['median_hellinger']:.3f} |",
              f"| this run's driver peak MB | {row['driver_peak_mb']:.0f} |",
              f"| this run's CPU seconds: driver / workers | {row['driver_cpu_seconds']:.0f} / "
              f"{row['workers_cpu_seconds']:.0f} |",
              f"| bytes moved in the last lap | {row['bytes_per_lap'] / 1e9:.2f} GB |",
              f"| laps whose ELBO fell below the lap before's | {row['elbo_decreases'] or 'none'} |"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
