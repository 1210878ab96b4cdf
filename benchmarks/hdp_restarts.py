"""The HDP document step's sparsity restarts (``n_restarts``, Hughes 2016 Alg. 5.2): CPU, K, ELBO and
held-out score of ``HDPTopicModel`` with 0, 1 and 5 restarts (5 is the default), with fixed truncation
K = 100 (``moves=()``) and with the default moves, on the split and evaluator of
``benchmarks/topic_moves.py`` (10 % of documents held out, tokens halved, document completion); at
most 50 laps, one thread, CPU is process time. Each run in a fresh process (peak RSS: the run's own),
after an untimed one-lap fit on 200 documents there (numba's kernels).

    .venv/bin/python benchmarks/hdp_restarts.py --corpus ap [--runs fixed:0,fixed:1,fixed:5,moves:0,moves:1,moves:5]

Writes benchmarks/results/hdp_restarts_<corpus>.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

from threadpoolctl import threadpool_limits

from stickbreak import HDPTopicModel
from stickbreak.evaluate import completion_from_split

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rss import in_fresh_process, rss_cell  # noqa: E402
from defaults import TOPIC_LAPS  # noqa: E402
from topic_moves import load_corpus  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def run(corpus: str, moves: str, restarts: int) -> dict:
    """One run (in a fresh process: :func:`main`)."""
    split = load_corpus(corpus)

    def make(laps):
        return HDPTopicModel(max_laps=laps, random_state=0, algorithm_options={"n_restarts": restarts},
                             **({"moves": ()} if moves == "fixed" else {}))

    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make(1).fit(split["train"][:200])  # untimed: numba's kernels
        est = make(TOPIC_LAPS)
        start = time.process_time()
        est.fit(split["train"])
        cpu = time.process_time() - start
    score = completion_from_split(est.topic_word_, split["observed"], split["heldout"])
    return {"moves": moves, "restarts": restarts, "K": est.n_topics_, "elbo": est.lower_bound_,
            "heldout": score.per_word, "laps": est.n_iter_, "cpu": cpu}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="ap")
    parser.add_argument("--runs", default="fixed:0,fixed:1,fixed:5,moves:0,moves:1,moves:5")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = []
    for spec in args.runs.split(","):
        moves, restarts = spec.split(":")
        rows.append(in_fresh_process(run, args.corpus, moves, int(restarts)))
        print(rows[-1], flush=True)
    lines = [f"# HDP document-step restarts on {args.corpus}", "",
             f"`.venv/bin/python benchmarks/hdp_restarts.py --corpus {args.corpus} --runs {args.runs}` "
             f"(load average {load:.2f} at the start); protocol in the script's docstring.", "",
             "| moves | n_restarts | K | ELBO | held-out per word | laps | CPU s | peak RSS MiB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['moves']} | {r['restarts']} | {r['K']} | {r['elbo']:,.0f} | {r['heldout']:.4f} | {r['laps']} | "
              f"{r['cpu']:.1f} | {rss_cell(r)} |" for r in rows]
    (RESULTS / f"hdp_restarts_{args.corpus}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
