"""DP Gaussian mixture: stickbreak vs scikit-learn's BayesianGaussianMixture, side by side.

Same data, same held-out split, same truncation, same priors, same evaluator; each (library, seed) fit
runs in a fresh process given the prepared data (its peak RSS: the fit's process, data included;
the table shows the largest over seeds):

* digits (1,797 x 64, constant pixels dropped): 80/20 split by a seeded permutation, K = 30;
* Fashion-MNIST, the 60,000 training images projected to 50 PCA dimensions (fitted on them), the
  10,000 test images held out, K = 50.

Priors are set identically in both libraries: mean prior = training mean, mean precision 0.01,
Wishart dof D + 2, prior covariance guess 0.1 x diag(training variance) (our default), DP
concentration 1. Each library uses its own initialisation (ours: Bregman k-means++; scikit-learn:
k-means). Convergence, the same rule for both: stop when the bound changes by less than 1e-4 nats
per training item from one iteration to the next (scikit-learn: ``tol``, on its total bound; ours:
a callback on the ELBO trace), at most 500 iterations. BLAS is single-threaded for both.

Held-out score (the same function for both): mean over test points of
``log sum_k w_k N(x | mu_k, Sigma_k)`` with each library's posterior-mean weights, means and
covariances (``Sigma_k = E[Lambda_k]^-1``; both libraries report that). Ours additionally reports its
posterior predictive density (Student-t mixture), which scikit-learn does not offer.

Run:  .venv/bin/python benchmarks/mixtures.py [--datasets digits fashion] [--seeds 0 1 2]
Writes benchmarks/results/mixtures.json and .md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import sklearn
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import BayesianGaussianMixture

import stickbreak
from _rss import in_fresh_process, rss_cell
from stickbreak import DPMixture
from stickbreak.evaluate import plugin_gaussian_log_density

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"


def load_digits():
    table = np.loadtxt(DATA / "sklearn_digits" / "digits.csv.gz", delimiter=",")
    X = table[:, :-1]
    order = np.random.RandomState(0).permutation(len(X))
    n_test = int(round(0.2 * len(X)))
    train, test = X[order[:-n_test]], X[order[-n_test:]]
    keep = train.std(axis=0) > 0
    return train[:, keep], test[:, keep], 30


def _idx_images(name):
    return np.frombuffer(gzip.open(DATA / "fashion_mnist" / name).read(), np.uint8, offset=16).reshape(-1, 784)


def load_fashion():
    train = _idx_images("train-images-idx3-ubyte.gz").astype(float)
    test = _idx_images("t10k-images-idx3-ubyte.gz").astype(float)
    pca = PCA(n_components=50, random_state=0).fit(train)
    return pca.transform(train), pca.transform(test), 50


LOADERS = {"digits": load_digits, "fashion": load_fashion}


def shared_priors(train):
    dim = train.shape[1]
    dof = dim + 2.0
    covariance = 0.1 * np.diag(train.var(axis=0))
    return {"mean": train.mean(axis=0), "mean_precision": 0.01, "dof": dof, "covariance": covariance}


TOL_PER_ITEM = 1e-4
MAX_ITER = 500


def stop_on_absolute_change(tol):
    """A callback stopping the fit once the ELBO changes by less than ``tol`` nats in one lap."""
    last = []

    def callback(record, params):
        done = bool(last) and abs(record.elbo - last[-1]) < tol
        last.append(record.elbo)
        return done

    return callback


def run_ours(train, test, n_components, prior, seed):
    model = DPMixture(algorithm="vb", n_components=n_components, obs_model="gauss", concentration=1.0, tol=0.0,
                      max_laps=MAX_ITER,
                      callbacks=[stop_on_absolute_change(TOL_PER_ITEM * len(train))],
                      obs_prior={"mean": prior["mean"], "mean_precision": prior["mean_precision"],
                                 "dof": prior["dof"], "covariance": np.diag(prior["covariance"])},
                      random_state=seed)
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(train)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    counts = model.predict_proba(train).sum(axis=0)
    return {
        "wall_s": wall, "cpu_s": cpu, "iterations": model.n_iter_, "converged": model.stop_reason_ == "callback",
        "heldout_plugin": float(plugin_gaussian_log_density(test, model.weights_, model.means_,
                                                            model.covariances_).mean()),
        "heldout_predictive": float(model.score(test)),
        "K_used": int((counts >= 1).sum()), "K_weight_1e-3": int((model.weights_ / model.weights_.sum() > 1e-3).sum()),
    }


def run_sklearn(train, test, n_components, prior, seed):
    model = BayesianGaussianMixture(
        n_components=n_components, covariance_type="full", weight_concentration_prior_type="dirichlet_process",
        weight_concentration_prior=1.0, mean_prior=prior["mean"], mean_precision_prior=prior["mean_precision"],
        degrees_of_freedom_prior=prior["dof"], covariance_prior=prior["dof"] * prior["covariance"],
        max_iter=MAX_ITER, tol=TOL_PER_ITEM * len(train), random_state=seed,
    )
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(train)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    counts = model.predict_proba(train).sum(axis=0)
    return {
        "wall_s": wall, "cpu_s": cpu, "iterations": int(model.n_iter_), "converged": bool(model.converged_),
        "heldout_plugin": float(plugin_gaussian_log_density(test, model.weights_, model.means_,
                                                            model.covariances_).mean()),
        "heldout_predictive": None,
        "K_used": int((counts >= 1).sum()), "K_weight_1e-3": int((model.weights_ > 1e-3).sum()),
    }


RUNNERS = {"stickbreak": run_ours, "sklearn": run_sklearn}


def run_row(lib, train, test, n_components, prior, seed) -> dict:
    """One library and seed (in a fresh process: :func:`main`), BLAS on one thread; ours after an untimed
    tiny fit (numba's kernels)."""
    with threadpool_limits(limits=1, user_api="blas"):
        if lib == "stickbreak":
            DPMixture(algorithm="vb", n_components=2, max_laps=2,
                      tol=0.5).fit(np.random.default_rng(0).normal(size=(50, 2)))
        return RUNNERS[lib](train, test, n_components, prior, seed)


def summarize(rows):
    def stat(key):
        values = np.array([r[key] for r in rows], dtype=float)
        return float(values.mean()), float(values.std())

    keys = ["wall_s", "cpu_s", "iterations", "heldout_plugin", "K_used", "K_weight_1e-3"]
    out = {k: stat(k) for k in keys}
    if rows[0]["heldout_predictive"] is not None:
        out["heldout_predictive"] = stat("heldout_predictive")
    return out


def markdown(results, meta) -> str:
    lines = [
        "# DP Gaussian mixture: stickbreak vs scikit-learn BayesianGaussianMixture",
        "",
        f"Command: `{meta['command']}`  ",
        f"Machine: {meta['machine']}; load average at start {meta['load_start']}, at end {meta['load_end']}  ",
        f"Versions: stickbreak {meta['stickbreak']}, scikit-learn {meta['sklearn']}, numpy "
        f"{meta['numpy']}; BLAS single-threaded for both  ",
        f"Seeds: {meta['seeds']} (mean ± sd over seeds). Protocol: see the docstring of `benchmarks/mixtures.py`.",
        "",
        "| data | library | K (trunc.) | wall s | CPU s | iterations | held-out log p(x), plug-in | "
        "held-out, predictive | K used (N_k≥1) | K (w>1e-3) "
        "| peak RSS MiB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, res in results.items():
        for lib in ("stickbreak", "sklearn"):
            s = res[lib]["summary"]
            pred = (f"{s['heldout_predictive'][0]:.2f} ± {s['heldout_predictive'][1]:.2f}" if "heldout_predictive" in s
                    else "n/a")
            lines.append(
                f"| {name} ({res['shape']}) | {lib} | {res['K']} | {s['wall_s'][0]:.2f} ± {s['wall_s'][1]:.2f} | "
                f"{s['cpu_s'][0]:.2f} | {s['iterations'][0]:.0f} | {s['heldout_plugin'][0]:.2f} ± "
                f"{s['heldout_plugin'][1]:.2f} | "
                f"{pred} | {s['K_used'][0]:.1f} | {s['K_weight_1e-3'][0]:.1f} | {rss_cell(res[lib]['runs'])} |"
            )
        ratio = res["sklearn"]["summary"]["wall_s"][0] / res["stickbreak"]["summary"]["wall_s"][0]
        gain = res["stickbreak"]["summary"]["heldout_plugin"][0] - res["sklearn"]["summary"]["heldout_plugin"][0]
        lines.append(f"| {name} | **ratio** | | sklearn/stickbreak wall time = **{ratio:.2f}×** | | | "
                     f"stickbreak − sklearn = **{gain:+.2f} nats** | | | | |")
    lines.append("")
    lines.append("Per-seed rows are in `mixtures.json`.")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(LOADERS), choices=list(LOADERS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--out", default=str(RESULTS / "mixtures"))
    args = parser.parse_args(argv)
    meta = {
        "command": "python benchmarks/mixtures.py " + " ".join(sys.argv[1:]),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "load_start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "stickbreak": stickbreak.__version__, "sklearn": sklearn.__version__, "numpy": np.__version__,
        "seeds": args.seeds,
    }
    results = {}
    for name in args.datasets:
        train, test, n_components = LOADERS[name]()
        prior = shared_priors(train)
        res = {"shape": f"{len(train)}+{len(test)} x {train.shape[1]}", "K": n_components}
        for lib in RUNNERS:
            rows = []
            for seed in args.seeds:
                row = in_fresh_process(run_row, lib, train, test, n_components, prior, seed)
                print(name, lib, seed, {k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()},
                      flush=True)
                rows.append(row)
            res[lib] = {"runs": rows, "summary": summarize(rows)}
        results[name] = res
    meta["load_end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    out.with_suffix(".md").write_text(markdown(results, meta))
    print(markdown(results, meta))


if __name__ == "__main__":
    main()
