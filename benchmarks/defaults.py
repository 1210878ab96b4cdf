"""K learned by default (issue 24): each nonparametric estimator with no arguments against fixed-K fits
and a peer, on real data sets shipped with the package or with scikit-learn.

* Mixtures, ``digits`` (scikit-learn, 1,797 x 64; raw pixels and their 20 principal components) and
  ``old_faithful`` (272 x 2): ``DPMixture()``
  (memoized VI, birth/merge/delete from ``n_components="auto"``) and ``DPMixture(n_components=1)`` against
  batch VB at fixed K in {5, 10, 20, 40} and scikit-learn's ``BayesianGaussianMixture`` (DP weights,
  ``n_components=20``, its other defaults). K used (at least one expected item; scikit-learn: weight
  above 1 / N), adjusted Rand index against the digit classes, our ELBO (ours only) and CPU s.
* HMM, ``mocap6`` (6 sequences, 2,058 frames, 12 joint angles, full Gaussian emissions): ``HDPHMM()``
  and HDP-HMMs started from 1, 10, 25, 50 and 100 states with every move, against the previous default
  (merge and delete only) from the same starts: final K, ELBO, Hamming distance to the 12 exercise
  labels after the optimal alignment, CPU s. Does the final K still follow the start?
* Topics, ``ap``, ``wiki``, ``20newsgroups`` (the split of ``benchmarks/topic_moves.py``: documents
  permuted by ``RandomState(0)``, 10 % held out, each held-out document's tokens halved, document
  completion by ``stickbreak.evaluate.completion_from_split``, the same for every row):
  ``HDPTopicModel()`` (memoized, birth, merge and delete from 100 topics), the same without births, fixed
  truncation K = 100 (no moves), and LDA by batch VB at the sizes of ``--lda``; at most 50 laps each
  (both stop earlier at tol 1e-4). K used, held-out per-word log-likelihood, CPU s.

One thread (BLAS and numba) for every row; CPU is process time. Every row runs in a fresh process
(its peak RSS is the row's own: data, fit and scoring), after an untimed small fit of the same
estimator there (one or two laps on a slice: loads numba's kernels). Run:

    .venv/bin/python benchmarks/defaults.py [--only mixtures,hmm,ap,wiki,20newsgroups] [--lda 20,50,100]

Writes benchmarks/results/defaults.{json,md}; parts not run keep their rows from an earlier run (the
json's ``meta.parts`` names the command of each).
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
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.mixture import BayesianGaussianMixture
from threadpoolctl import threadpool_limits

import stickbreak
from stickbreak import HDPHMM, LDA, DPMixture, HDPTopicModel, datasets
from stickbreak.evaluate import completion_from_split, hamming_distance

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rss import in_fresh_process, rss_cell
from topic_moves import load_corpus  # the topic benchmarks' split

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
MOCAP = ROOT.parent / "shared" / "data" / "mocap6" / "mocap6.npz"
TOPIC_LAPS = 50


def _timed(fit):
    start = time.process_time()
    out = fit()
    return out, time.process_time() - start


MIXTURE_SETS = ("digits", "digits PCA-20", "old_faithful")
MIXTURE_RUNS = {"DPMixture() defaults": dict(), "DPMixture(n_components=1)": dict(n_components=1),
                **{f"vb K={k}": dict(n_components=k, algorithm="vb") for k in (5, 10, 20, 40)}}
MIXTURE_PEER = "sklearn BayesianGaussianMixture(20)"
HMM_RUNS = {"HDPHMM() defaults": dict(),
            **{f"all moves from {k}": dict(n_states=k) for k in (1, 10, 25, 50, 100)},
            **{f"merge+delete from {k}": dict(n_states=k, moves=("merge", "delete")) for k in (10, 25, 50, 100)}}
TOPIC_RUNS = {"HDPTopicModel() defaults": dict(), "HDP merge+delete from 100": dict(moves=("merge", "delete")),
              "HDP fixed K=100 (no moves)": dict(moves=())}


def _mixture_data(name: str):
    if name == "old_faithful":
        return datasets.load("old_faithful").X, None
    digits = load_digits()
    pixels = digits.data.astype(float)
    if name == "digits PCA-20":
        return PCA(n_components=20, random_state=0).fit_transform(pixels), digits.target
    return pixels, digits.target


def mixture_row(name: str, method: str) -> dict:
    """One mixture row (run in a fresh process by :func:`mixtures`)."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    X, labels = _mixture_data(name)
    with threadpool_limits(limits=1):
        if method == MIXTURE_PEER:
            peer, cpu = _timed(lambda: BayesianGaussianMixture(n_components=20, random_state=0, max_iter=500).fit(X))
            return {"data": name, "method": method, "K": int(np.sum(peer.weights_ > 1.0 / len(X))),
                    "ARI": None if labels is None else adjusted_rand_score(labels, peer.predict(X)), "elbo": None,
                    "cpu": cpu}
        options = MIXTURE_RUNS[method]
        DPMixture(random_state=0, **options).set_params(max_laps=2).fit(X[:200])  # untimed: numba's kernels
        model, cpu = _timed(lambda: DPMixture(random_state=0, **options).fit(X))
    return {"data": name, "method": method, "K": int(model.n_active_components_),
            "ARI": None if labels is None else adjusted_rand_score(labels, model.labels_),
            "elbo": float(model.lower_bound_), "cpu": cpu}


def mixtures() -> list[dict]:
    rows = []
    for name in MIXTURE_SETS:
        for method in [*MIXTURE_RUNS, MIXTURE_PEER]:
            rows.append(in_fresh_process(mixture_row, name, method))
            print(rows[-1], flush=True)
    return rows


def hmm_row(method: str) -> dict:
    """One HDP-HMM row (run in a fresh process by :func:`hmm`)."""
    z = np.load(MOCAP)
    X, lengths, truth = z["X"], z["lengths"], z["Z"].astype(int)
    options = HMM_RUNS[method]
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        HDPHMM(random_state=0, **options).set_params(max_laps=1).fit(X, lengths=lengths)  # untimed: numba's kernels
        model, cpu = _timed(lambda: HDPHMM(random_state=0, **options).fit(X, lengths=lengths))
        hamming = hamming_distance(truth, model.predict(X, lengths=lengths))
    return {"data": "mocap6", "method": method, "start": options.get("n_states", 10), "K": int(model.n_states_),
            "elbo": float(model.lower_bound_), "hamming": hamming, "cpu": cpu}


def hmm() -> list[dict]:
    rows = []
    for method in HMM_RUNS:
        rows.append(in_fresh_process(hmm_row, method))
        print(rows[-1], flush=True)
    return rows


def _topic_estimator(method: str):
    if method in TOPIC_RUNS:
        return HDPTopicModel(**TOPIC_RUNS[method])
    return LDA(n_topics=int(method.rpartition("=")[2]))  # "LDA vb K=<k>"


def topic_row(corpus: str, method: str) -> dict:
    """One topic row (run in a fresh process by :func:`topics`)."""
    split = load_corpus(corpus)  # benchmarks/topic_moves.py's split: 10 % of documents held out, tokens halved
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        _topic_estimator(method).set_params(max_laps=1, random_state=0).fit(split["train"][:200])  # untimed: numba
        est = _topic_estimator(method).set_params(max_laps=TOPIC_LAPS, random_state=0)
        model, cpu = _timed(lambda: est.fit(split["train"]))
    score = completion_from_split(model.topic_word_, split["observed"], split["heldout"])
    return {"data": corpus, "method": method, "K": int(model.n_topics_), "heldout": float(score.per_word),
            "laps": int(model.n_iter_), "cpu": cpu, "K_over_laps": [int(r["n_components"]) for r in model.trace_]}


def topics(corpus: str, lda_sizes) -> list[dict]:
    rows = []
    for method in [*TOPIC_RUNS, *(f"LDA vb K={k}" for k in lda_sizes)]:
        rows.append(in_fresh_process(topic_row, corpus, method))
        print({k: v for k, v in rows[-1].items() if k != "K_over_laps"}, flush=True)
    return rows


def _fmt(value, spec):
    return "–" if value is None else format(value, spec)


def markdown(results: dict, meta: dict) -> str:
    lines = ["# K learned by default", "", f"stickbreak {meta['stickbreak']}; protocol in the docstring of "
             "`benchmarks/defaults.py`. Commands (and load average at their start):", ""]
    lines += [f"- {name}: `{command}`" for name, command in meta["parts"].items()] + [""]
    if "mixtures" in results:
        lines += ["## Mixtures (full-covariance Gaussian)", "", "| data | method | K used | ARI | ELBO | "
                                                                "CPU s | peak RSS MiB |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {r['data']} | {r['method']} | {r['K']} | {_fmt(r['ARI'], '.3f')} | {_fmt(r['elbo'], '.0f')} | "
                  f"{r['cpu']:.2f} | {rss_cell(r)} |" for r in results["mixtures"]]
        lines.append("")
    if "hmm" in results:
        lines += ["## HDP-HMM on mocap6 (Gaussian emissions)", "",
                  "| method | start K | final K | ELBO | Hamming | CPU s | peak RSS MiB |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {r['method']} | {r['start']} | {r['K']} | {r['elbo']:.0f} | {r['hamming']:.3f} | "
                  f"{r['cpu']:.1f} | "
                  f"{rss_cell(r)} |" for r in results["hmm"]]
        lines.append("")
    for corpus in ("ap", "wiki", "20newsgroups"):
        if corpus not in results:
            continue
        lines += [f"## Topics on {corpus} (document completion)", "",
                  "| method | K | held-out per word | laps | CPU s | peak RSS MiB | K over laps (every 5th) |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        lines += [f"| {r['method']} | {r['K']} | {r['heldout']:.4f} | {r['laps']} | {r['cpu']:.1f} | {rss_cell(r)} | "
                  f"{' '.join(str(k) for k in r['K_over_laps'][::5])} |" for r in results[corpus]]
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="mixtures,hmm,ap", help="mixtures, hmm and corpora (ap, wiki, 20newsgroups)")
    parser.add_argument("--lda", default="20,50,100", help="LDA sizes K")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    meta = {"command": "python benchmarks/defaults.py " + " ".join(sys.argv[1:]), "stickbreak": stickbreak.__version__,
            "load": " ".join(f"{v:.2f}" for v in os.getloadavg())}
    lda_sizes = [int(k) for k in args.lda.split(",")]
    parts = {"mixtures": mixtures, "hmm": hmm,
             **{c: (lambda c=c: topics(c, lda_sizes)) for c in ("ap", "wiki", "20newsgroups")}}
    path = RESULTS / "defaults.json"
    earlier = json.loads(path.read_text()) if path.exists() else {"results": {}, "meta": {}}
    results = earlier["results"]  # other parts of an earlier run stay
    for name in args.only.split(","):  # each row in a fresh process, one thread there
        results[name] = parts[name]()
    RESULTS.mkdir(exist_ok=True)
    meta["parts"] = {**earlier["meta"].get("parts", {}),
                     **{name: f"{meta['command']} (load {meta['load']})" for name in args.only.split(",")}}
    path.write_text(json.dumps({"meta": meta, "results": results}, indent=1, default=float))
    text = markdown(results, meta)
    (RESULTS / "defaults.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
