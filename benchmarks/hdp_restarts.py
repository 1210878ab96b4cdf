"""The HDP document step's sparsity restarts (``n_restarts``, Hughes 2016 Alg. 5.2): CPU, K, ELBO and
held-out score of ``HDPTopicModel`` with 0, 1 and 5 restarts (5 is the default), with fixed truncation
K = 100 (``moves=()``) and with the default moves, on the split and evaluator of
``benchmarks/topic_moves.py`` (10 % of documents held out, tokens halved, document completion); at
most 50 laps, one thread, CPU is process time.

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
from defaults import TOPIC_LAPS  # noqa: E402
from topic_moves import load_corpus  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def run(split, moves: str, restarts: int) -> dict:
    est = HDPTopicModel(max_laps=TOPIC_LAPS, random_state=0, algorithm_options={"n_restarts": restarts},
                        **({"moves": ()} if moves == "fixed" else {}))
    start = time.process_time()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
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
    split = load_corpus(args.corpus)
    rows = []
    for spec in args.runs.split(","):
        moves, restarts = spec.split(":")
        rows.append(run(split, moves, int(restarts)))
        print(rows[-1], flush=True)
    lines = [f"# HDP document-step restarts on {args.corpus}", "",
             f"`.venv/bin/python benchmarks/hdp_restarts.py --corpus {args.corpus} --runs {args.runs}` "
             f"(load average {load:.2f} at the start); protocol in the script's docstring.", "",
             "| moves | n_restarts | K | ELBO | held-out per word | laps | CPU s |", "|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['moves']} | {r['restarts']} | {r['K']} | {r['elbo']:,.0f} | {r['heldout']:.4f} | {r['laps']} | "
              f"{r['cpu']:.1f} |" for r in rows]
    (RESULTS / f"hdp_restarts_{args.corpus}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
