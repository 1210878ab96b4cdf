"""Empirical-Bayes concentrations (issue 24): does learning them on the ELBO help held out?

* Topics, ``ap``, ``wiki``, ``20newsgroups`` (the split and evaluator of ``benchmarks/topic_moves.py``:
  10 % of documents held out, their tokens halved, document completion): ``HDPTopicModel()`` (memoized,
  every move, at most 50 laps) with fixed alpha = 1, gamma = 10 against ``learn_concentration`` =
  alpha only, gamma only, both. K used, final ELBO, held-out per-word log-likelihood, learned values, CPU s.
* Sequences, ``mocap6`` (6 sequences, 12 joint angles): ``HDPHMM()`` (full Gaussian), the sticky
  ``HDPHMM(stickiness=10)`` and the README's ``HDPHMM(obs_model="ar_gauss", stickiness=50)``, each with
  and without ``learn_concentration`` (alpha, gamma and kappa when sticky): K, ELBO, Hamming distance to
  the 12 exercise labels after the optimal alignment, learned values, CPU s.

One thread; CPU is process time. Every row runs in a fresh process (its peak RSS is the row's own:
data, fit and scoring), after an untimed one-lap fit of the same estimator there (numba's kernels). Run:

    .venv/bin/python benchmarks/empirical_bayes.py [--only ap,wiki,20newsgroups,mocap6]

Writes benchmarks/results/empirical_bayes.{json,md}; parts not run keep their rows from an earlier run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from stickbreak import HDPHMM, HDPTopicModel
from stickbreak.evaluate import completion_from_split, hamming_distance

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rss import in_fresh_process, rss_cell  # noqa: E402
from defaults import MOCAP, TOPIC_LAPS  # the defaults benchmark's data and lap budget
from topic_moves import load_corpus

RESULTS = Path(__file__).resolve().parent / "results"
TOPIC_RUNS = {"fixed": False, "alpha": ("doc_topic_prior",), "gamma": ("concentration",), "both": True}
HMM_RUNS = {"HDPHMM()": {}, "stickiness=10": dict(stickiness=10.0),
            "ar_gauss, stickiness=50": dict(obs_model="ar_gauss", stickiness=50.0)}


def _timed(fit):
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fit()
    return out, time.process_time() - start


def topic_row(corpus: str, name: str) -> dict:
    """One topic row (run in a fresh process by :func:`topics`)."""
    split = load_corpus(corpus)
    learn = TOPIC_RUNS[name]
    with threadpool_limits(1):
        _timed(lambda: HDPTopicModel(max_laps=1, random_state=0, learn_concentration=learn).fit(split["train"][:200]))
        est = HDPTopicModel(max_laps=TOPIC_LAPS, random_state=0, learn_concentration=learn)
        model, cpu = _timed(lambda: est.fit(split["train"]))
    score = completion_from_split(model.topic_word_, split["observed"], split["heldout"])
    return {"data": corpus, "learned": name, "K": int(model.n_topics_), "elbo": float(model.lower_bound_),
            "heldout": float(score.per_word), "values": model.concentrations_, "cpu": cpu}


def topics(corpus: str) -> list[dict]:
    rows = []
    for name in TOPIC_RUNS:
        rows.append(in_fresh_process(topic_row, corpus, name))
        print(rows[-1], flush=True)
    return rows


def sequence_row(name: str, learn: bool) -> dict:
    """One HDP-HMM row (run in a fresh process by :func:`sequences`)."""
    z = np.load(MOCAP)
    X, lengths, truth = z["X"], z["lengths"], z["Z"].astype(int)
    options = HMM_RUNS[name]
    with threadpool_limits(1):
        _timed(lambda: HDPHMM(random_state=0, learn_concentration=learn, max_laps=1, **options).fit(X, lengths=lengths))
        model, cpu = _timed(lambda: HDPHMM(random_state=0, learn_concentration=learn,
                                           **options).fit(X, lengths=lengths))
        hamming = hamming_distance(truth, model.predict(X, lengths=lengths))
    return {"data": "mocap6", "model": name, "learned": learn, "K": int(model.n_states_),
            "elbo": float(model.lower_bound_), "values": model.concentrations_, "hamming": hamming, "cpu": cpu}


def sequences() -> list[dict]:
    rows = []
    for name in HMM_RUNS:
        for learn in (False, True):
            rows.append(in_fresh_process(sequence_row, name, learn))
            print(rows[-1], flush=True)
    return rows


def _values(values: dict) -> str:
    return ", ".join(f"{k} {v:.3g}" for k, v in values.items())


def markdown(results: dict, meta: dict) -> str:
    lines = ["# Empirical-Bayes concentrations", "", "Protocol in the docstring of `benchmarks/empirical_bayes.py`. "
             "Commands (and load average at their start):", ""]
    lines += [f"- {part}: {command}" for part, command in meta["parts"].items()] + [""]
    for part, rows in results.items():
        if part == "mocap6":
            lines += ["## mocap6 (HDP-HMM)", "", "| model | learned | K | ELBO | Hamming | values used | "
                                                 "CPU s | peak RSS MiB |",
                      "|---|---|---:|---:|---:|---|---:|---:|"]
            lines += [f"| {r['model']} | {'yes' if r['learned'] else 'no'} | {r['K']} | {r['elbo']:,.1f} | "
                      f"{r['hamming']:.3f} | {_values(r['values'])} | {r['cpu']:.1f} | {rss_cell(r)} |" for r in rows]
        else:
            lines += [f"## {part} (HDPTopicModel() defaults)", "",
                      "| learned | K | ELBO | held-out per word | values used | CPU s | peak RSS MiB |",
                      "|---|---:|---:|---:|---|---:|---:|"]
            lines += [f"| {r['learned']} | {r['K']} | {r['elbo']:,.0f} | {r['heldout']:.4f} | {_values(r['values'])} | "
                      f"{r['cpu']:.1f} | {rss_cell(r)} |" for r in rows]
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="ap,wiki,20newsgroups,mocap6")
    args = parser.parse_args()
    path = RESULTS / "empirical_bayes.json"
    saved = json.loads(path.read_text()) if path.exists() else {"results": {}, "meta": {"parts": {}}}
    for part in args.only.split(","):
        command = (f"`.venv/bin/python benchmarks/empirical_bayes.py --only {part}` "
                   f"(load average {os.getloadavg()[0]:.2f})")
        saved["results"][part] = sequences() if part == "mocap6" else topics(part)  # one thread in each row's process
        saved["meta"]["parts"][part] = command
        path.write_text(json.dumps(saved, indent=1))
        (RESULTS / "empirical_bayes.md").write_text(markdown(saved["results"], saved["meta"]))


if __name__ == "__main__":
    main()
