"""Is K learned, or inherited from the start? (issue 45) Mixtures and HMMs: the companion of
``benchmarks/k_learning.py`` (topics) for clusters and hidden states.

* ``digits`` (scikit-learn, 1,797 x 64) as raw pixels and as their 20 principal components:
  ``DPMixture()`` (memoized VI with birth, merge and delete from ``n_components="auto"``) with seeds
  0-4; ``DPMixture(n_components=k)`` from the starts k in 1, 10, 50 (seed 0); batch VB at fixed K in
  10, 20, 40; scikit-learn's ``BayesianGaussianMixture(20)`` (DP weights). Every row fits all 1,797
  digits; K used (at least one expected item; scikit-learn: weight above 1 / N) and the adjusted
  Rand index against the digit classes.
* ``fashion`` (Fashion-MNIST: the 60,000 training images projected on their 50 principal components,
  PCA fitted on the training images; the 10,000 test images projected alike are held out):
  ``DPMixture()``, ``DPMixture(n_components=1)`` and batch VB at fixed K in 25, 50, 100 (seed 0, the
  sizes of ``benchmarks/mixture_moves.py``);
  K, held-out ``score`` (mean log predictive density per test image, nats) and ARI on the training
  images.
* ``mocap6`` (6 sequences, 2,058 frames, 12 joint angles): ``HDPHMM()`` with seeds 0-4 and from the
  starts 1, 10, 25, 50, 100 (seed 0); final K, ELBO and the Hamming distance to the 12 exercise labels
  after the optimal alignment.
* ``speech`` (the 15 AMI debug clips as 15 sequences: each clip's staged 19 MFCCs at 100 Hz,
  ``benchmarks/hmm_common.ami_clips``, averaged over consecutive 100 ms blocks, 4,485 frames in
  all): ``HDPHMM()`` and
  ``HDPHMM(obs_model="diag_gauss")``, seed 0; final K, laps, why the fit stopped (``stop_reason_``)
  and whether it warned that K or the ELBO was still moving at ``max_laps``. (On the 45,000 raw
  frames the full-covariance default ran over 27 CPU-minutes without finishing; not measured here.)

One thread (BLAS and numba) per row, each row in a fresh process after an untimed small fit there
(numba's kernels); CPU is process time of the fit. Run:

    .venv/bin/python benchmarks/k_learning_clusters.py [--only digits,fashion,mocap6,speech]

Writes ``benchmarks/results/k_learning_clusters.{json,md}`` (parts not run keep their earlier rows).
"""

from __future__ import annotations

import argparse
import gzip
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rss import in_fresh_process  # noqa: E402
from hmm_common import ami_clips  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
SHARED = ROOT.parent / "shared" / "data"
PARTS = ("digits", "fashion", "mocap6", "speech")
N_SEEDS = 5
PEER = "sklearn BayesianGaussianMixture(20)"


def mixture_methods(part: str) -> dict:
    """method name -> DPMixture keyword arguments (the peer: None)."""
    if part == "fashion":
        return {"default": {}, "start 1": {"n_components": 1},
                **{f"vb K={k}": {"n_components": k, "algorithm": "vb"} for k in (25, 50, 100)}}
    return {"default": {}, **{f"default seed {s}": {"random_state": s} for s in range(1, N_SEEDS)},
            **{f"start {k}": {"n_components": k} for k in (1, 10, 50)},
            **{f"vb K={k}": {"n_components": k, "algorithm": "vb"} for k in (10, 20, 40)}, PEER: None}


def hmm_methods(part: str) -> dict:
    """method name -> HDPHMM keyword arguments."""
    if part == "speech":
        return {"default (full covariance)": {}, "diag_gauss": {"obs_model": "diag_gauss"}}
    return {"default": {}, **{f"default seed {s}": {"random_state": s} for s in range(1, N_SEEDS)},
            **{f"start {k}": {"n_states": k} for k in (1, 10, 25, 50, 100)}}


def methods(part: str) -> dict:
    return hmm_methods(part) if part in ("mocap6", "speech") else mixture_methods(part)


def _fashion(kind: str):
    folder = SHARED / "fashion_mnist"
    with gzip.open(folder / f"{kind}-images-idx3-ubyte.gz") as f:
        X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784).astype(float)
    with gzip.open(folder / f"{kind}-labels-idx1-ubyte.gz") as f:
        return X, np.frombuffer(f.read(), np.uint8, offset=8).astype(int)


def mixture_data(name: str):
    """(X, labels, X_test or None) of a mixture part ("digits", "digits PCA-20", "fashion")."""
    if name == "fashion":
        (X, y), (X_test, _) = _fashion("train"), _fashion("t10k")
        pca = PCA(n_components=50, random_state=0).fit(X)
        return pca.transform(X), y, pca.transform(X_test)
    digits = load_digits()
    pixels = digits.data.astype(float)
    if name == "digits PCA-20":
        return PCA(n_components=20, random_state=0).fit_transform(pixels), digits.target, None
    return pixels, digits.target, None


def _timed(fit):
    start = time.process_time()
    out = fit()
    return out, time.process_time() - start


def mixture_row(name: str, method: str) -> dict:
    """One mixture row, in a fresh process."""
    from stickbreak import DPMixture

    warnings.simplefilter("ignore", ConvergenceWarning)
    X, labels, X_test = mixture_data(name)
    options = mixture_methods("fashion" if name == "fashion" else "digits")[method]
    with threadpool_limits(limits=1):
        if options is None:
            peer, cpu = _timed(lambda: BayesianGaussianMixture(n_components=20, random_state=0, max_iter=500).fit(X))
            return {"data": name, "method": method, "K": int(np.sum(peer.weights_ > 1.0 / len(X))),
                    "ARI": adjusted_rand_score(labels, peer.predict(X)), "cpu": cpu}
        options = {"random_state": 0, **options}
        DPMixture(**options).set_params(max_laps=2).fit(X[:300])  # untimed: numba's kernels
        model, cpu = _timed(lambda: DPMixture(**options).fit(X))
    return {"data": name, "method": method, "start": options.get("n_components", "auto"),
            "K": int(model.n_active_components_), "ARI": adjusted_rand_score(labels, model.labels_),
            "heldout": None if X_test is None else float(model.score(X_test)), "elbo": float(model.lower_bound_),
            "laps": int(model.n_iter_), "stop": model.stop_reason_, "cpu": cpu}


def hmm_row(name: str, method: str) -> dict:
    """One HDP-HMM row, in a fresh process."""
    from stickbreak import HDPHMM
    from stickbreak.evaluate import hamming_distance

    if name == "mocap6":
        z = np.load(SHARED / "mocap6" / "mocap6.npz")
        X, lengths, truth = z["X"], z["lengths"], z["Z"].astype(int)
    else:
        blocks = [data.X[:len(data.X) // 10 * 10].reshape(-1, 10, data.X.shape[1]).mean(axis=1)
                  for _, data, _ in ami_clips()]
        X, lengths, truth = np.vstack(blocks), [len(b) for b in blocks], None  # speakers differ by clip
    options = {"random_state": 0, **hmm_methods(name)[method]}
    with threadpool_limits(limits=1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        HDPHMM(**options).set_params(max_laps=1).fit(X[:lengths[0]], lengths=lengths[:1])  # untimed: numba
        caught.clear()
        model, cpu = _timed(lambda: HDPHMM(**options).fit(X, lengths=lengths))
    moving = any("still" in str(w.message) for w in caught)
    return {"data": name, "method": method, "start": options.get("n_states", 10), "K": int(model.n_states_),
            "elbo": float(model.lower_bound_), "laps": int(model.n_iter_), "stop": model.stop_reason_,
            "warned_moving": moving, "cpu": cpu,
            "hamming": None if truth is None else float(hamming_distance(truth, model.predict(X, lengths=lengths)))}


def run_part(part: str) -> list[dict]:
    rows = []
    names = ("digits", "digits PCA-20") if part == "digits" else (part,)
    one = hmm_row if part in ("mocap6", "speech") else mixture_row
    for name in names:
        for method in methods(part):
            rows.append(in_fresh_process(one, name, method))
            print(rows[-1], flush=True)
    return rows


def summary(rows: list[dict]) -> dict:
    """The issue's targets on one data set's rows."""
    by = {r["method"]: r for r in rows}
    seeds = [r for r in rows if r["method"].startswith("default")]
    out = {"K seeds": [r["K"] for r in seeds]}
    if "ARI" in rows[0]:
        out["min ARI over seeds and starts"] = min(r["ARI"] for r in rows
                                                   if r["method"].startswith(("default", "start")))
    if by.get("default", {}).get("heldout") is not None:
        fixed = [r for r in rows if r["method"].startswith("vb")]
        best = max(fixed, key=lambda r: r["heldout"])
        out["default - best fixed K held-out"] = by["default"]["heldout"] - best["heldout"]
        out["best fixed K"] = best["method"]
    if rows[0].get("hamming") is not None:
        out["K starts"] = [r["K"] for r in rows if r["method"].startswith("start")]
    return out


def _cell(value, column: str = "") -> str:
    if value is None:
        return "–"
    if column == "cpu":
        return f"{value:.1f}"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 100 or column == "heldout" else f"{value:.0f}"
    return str(value)


COLUMNS = ("method", "start", "K", "ARI", "heldout", "hamming", "elbo", "laps", "stop", "warned_moving", "cpu")


def markdown(results: dict, meta: dict) -> str:
    lines = ["# K learned, or inherited from the start? Mixtures and HMMs (issue 45)", "",
             f"stickbreak {meta['version']}; protocol in the docstring of "
             "`benchmarks/k_learning_clusters.py`. Commands (commit and load average at their start):", ""]
    lines += [f"- {part}: `{command}`" for part, command in meta["parts"].items()]
    lines += ["", "K: components holding at least one expected item (HMM: states used). held-out: mean log "
              "predictive density per test image. CPU s: the fit alone, one thread, compilation excluded.", ""]
    for name, rows in results.items():
        columns = [c for c in COLUMNS if any(r.get(c) is not None for r in rows)]
        lines += [f"## {name}", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(_cell(r.get(c), c) for c in columns) + " |" for r in rows]
        lines += ["", "Targets: " + "; ".join(f"{k}: {_cell(v)}" for k, v in summary(rows).items()), ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=",".join(PARTS))
    args = parser.parse_args(argv)
    import stickbreak

    path = RESULTS / "k_learning_clusters.json"
    earlier = json.loads(path.read_text()) if path.exists() else {"results": {}, "meta": {"parts": {}}}
    results, meta = earlier["results"], earlier["meta"]
    git = os.popen(f"git -C {ROOT} rev-parse --short HEAD").read().strip()
    command = f"python benchmarks/k_learning_clusters.py --only {args.only} (git {git}; load " + \
        " ".join(f"{x:.2f}" for x in os.getloadavg()) + ")"
    for part in args.only.split(","):
        rows = run_part(part)
        for name in sorted({r["data"] for r in rows}, key=[r["data"] for r in rows].index):
            results[name] = [r for r in rows if r["data"] == name]
        meta["parts"][part] = command
        meta.update(version=stickbreak.__version__)
        path.write_text(json.dumps({"results": results, "meta": meta}, indent=1))
        (RESULTS / "k_learning_clusters.md").write_text(markdown(results, meta))


if __name__ == "__main__":
    main()
