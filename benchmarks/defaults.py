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

One thread (BLAS and numba) for every row; CPU is process time. Run:

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
from topic_moves import load_corpus  # the topic benchmarks' split

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
MOCAP = ROOT.parent / "shared" / "data" / "mocap6" / "mocap6.npz"
TOPIC_LAPS = 50


def _timed(fit):
    start = time.process_time()
    out = fit()
    return out, time.process_time() - start


def mixtures() -> list[dict]:
    rows = []
    digits = load_digits()
    pixels = digits.data.astype(float)
    sets = {"digits": (pixels, digits.target),
            "digits PCA-20": (PCA(n_components=20, random_state=0).fit_transform(pixels), digits.target),
            "old_faithful": (datasets.load("old_faithful").X, None)}
    for name, (X, labels) in sets.items():
        ours = {"DPMixture() defaults": dict(), "DPMixture(n_components=1)": dict(n_components=1)}
        ours.update({f"vb K={k}": dict(n_components=k, algorithm="vb") for k in (5, 10, 20, 40)})
        for method, options in ours.items():
            model, cpu = _timed(lambda: DPMixture(random_state=0, **options).fit(X))
            rows.append({"data": name, "method": method, "K": int(model.n_active_components_),
                         "ARI": None if labels is None else adjusted_rand_score(labels, model.labels_),
                         "elbo": float(model.lower_bound_), "cpu": cpu})
        peer, cpu = _timed(lambda: BayesianGaussianMixture(n_components=20, random_state=0, max_iter=500).fit(X))
        rows.append({"data": name, "method": "sklearn BayesianGaussianMixture(20)",
                     "K": int(np.sum(peer.weights_ > 1.0 / len(X))),
                     "ARI": None if labels is None else adjusted_rand_score(labels, peer.predict(X)), "elbo": None,
                     "cpu": cpu})
        for row in rows[-7:]:
            print(row, flush=True)
    return rows


def hmm() -> list[dict]:
    z = np.load(MOCAP)
    X, lengths, truth = z["X"], z["lengths"], z["Z"].astype(int)
    runs = {"HDPHMM() defaults": dict()}
    runs.update({f"all moves from {k}": dict(n_states=k) for k in (1, 10, 25, 50, 100)})
    runs.update({f"merge+delete from {k}": dict(n_states=k, moves=("merge", "delete")) for k in (10, 25, 50, 100)})
    rows = []
    for method, options in runs.items():
        model, cpu = _timed(lambda: HDPHMM(random_state=0, **options).fit(X, lengths=lengths))
        rows.append({"data": "mocap6", "method": method, "start": options.get("n_states", 10), "K": int(model.n_states_),
                     "elbo": float(model.lower_bound_),
                     "hamming": hamming_distance(truth, model.predict(X, lengths=lengths)), "cpu": cpu})
        print(rows[-1], flush=True)
    return rows


def topics(corpus: str, lda_sizes) -> list[dict]:
    split = load_corpus(corpus)  # benchmarks/topic_moves.py's split: 10 % of documents held out, tokens halved
    runs = {"HDPTopicModel() defaults": lambda: HDPTopicModel(),
            "HDP merge+delete from 100": lambda: HDPTopicModel(moves=("merge", "delete")),
            "HDP fixed K=100 (no moves)": lambda: HDPTopicModel(moves=()),
            **{f"LDA vb K={k}": (lambda k=k: LDA(n_topics=k)) for k in lda_sizes}}
    rows = []
    for method, make in runs.items():
        est = make().set_params(max_laps=TOPIC_LAPS, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model, cpu = _timed(lambda: est.fit(split["train"]))
        score = completion_from_split(model.topic_word_, split["observed"], split["heldout"])
        rows.append({"data": corpus, "method": method, "K": int(model.n_topics_), "heldout": float(score.per_word),
                     "laps": int(model.n_iter_), "cpu": cpu,
                     "K_over_laps": [int(r["n_components"]) for r in model.trace_]})
        print({k: v for k, v in rows[-1].items() if k != "K_over_laps"}, flush=True)
    return rows


def _fmt(value, spec):
    return "–" if value is None else format(value, spec)


def markdown(results: dict, meta: dict) -> str:
    lines = ["# K learned by default", "", f"stickbreak {meta['stickbreak']}; protocol in the docstring of "
             "`benchmarks/defaults.py`. Commands (and load average at their start):", ""]
    lines += [f"- {name}: `{command}`" for name, command in meta["parts"].items()] + [""]
    if "mixtures" in results:
        lines += ["## Mixtures (full-covariance Gaussian)", "", "| data | method | K used | ARI | ELBO | CPU s |",
                  "|---|---|---:|---:|---:|---:|"]
        lines += [f"| {r['data']} | {r['method']} | {r['K']} | {_fmt(r['ARI'], '.3f')} | {_fmt(r['elbo'], '.0f')} | "
                  f"{r['cpu']:.2f} |" for r in results["mixtures"]]
        lines.append("")
    if "hmm" in results:
        lines += ["## HDP-HMM on mocap6 (Gaussian emissions)", "", "| method | start K | final K | ELBO | Hamming | CPU s |",
                  "|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {r['method']} | {r['start']} | {r['K']} | {r['elbo']:.0f} | {r['hamming']:.3f} | {r['cpu']:.1f} |"
                  for r in results["hmm"]]
        lines.append("")
    for corpus in ("ap", "wiki", "20newsgroups"):
        if corpus not in results:
            continue
        lines += [f"## Topics on {corpus} (document completion)", "",
                  "| method | K | held-out per word | laps | CPU s | K over laps (every 5th) |", "|---|---:|---:|---:|---:|---|"]
        lines += [f"| {r['method']} | {r['K']} | {r['heldout']:.4f} | {r['laps']} | {r['cpu']:.1f} | "
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
    parts = {"mixtures": mixtures, "hmm": hmm, **{c: (lambda c=c: topics(c, lda_sizes)) for c in ("ap", "wiki", "20newsgroups")}}
    path = RESULTS / "defaults.json"
    earlier = json.loads(path.read_text()) if path.exists() else {"results": {}, "meta": {}}
    results = earlier["results"]  # other parts of an earlier run stay
    with threadpool_limits(limits=1):
        for name in args.only.split(","):
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
