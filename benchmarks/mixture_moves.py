"""DP Gaussian mixtures on real data: memoized VI with moves from K=1 against fixed-K runs, and bnpy.

Data (``../shared/data``):
* Fashion-MNIST: the 60,000 training images projected to 50 PCA dimensions (fitted on them) for
  training, the 10,000 test images held out;
* MNIST: the 10,000 test images, 8,000 for training (PCA 50 fitted on them) and 2,000 held out.

Methods, all with the same Normal-Wishart prior and DP concentration 1, 20 batches:
* ``memoized+moves K=1``: memoized VI with birth, merge and delete from one cluster (thesis "MO-BM");
* ``defaults (K auto, all moves)``: ``DPMixture()``'s own choices (memoized VI, every move, from
  ``n_components="auto"``: one cluster per 100 items, at most 100);
* ``vb``, ``memoized`` (no moves) and ``stochastic`` (kappa 0.55, tau 10) at K = 25, 50, 100: fixed
  truncation from k-means++;
* ``bnpy moves K=1``: bnpy 0.1.7 memoVB with births and merges from one cluster (its own init), when
  ``--bnpy`` is given and ``/work/bnpy-venv`` exists (``benchmarks/bnpy/recipe.sh`` builds it).

The prior is bnpy's for ``ECovMat=covdata, sF=0.1, nu=D+2, kappa=1e-4, m=0``; we read the arrays bnpy
builds and pass the same Normal-Wishart to stickbreak, so both fit the same model. Every final model,
bnpy's included, is scored by the same code: the exact ELBO of its global parameters with optimal
local parameters on the training data, and the held-out mean log posterior predictive density.
``time to bnpy's ELBO`` is when our memoized+moves run first reaches bnpy's final ELBO (per-lap trace).
Peak memory (max RSS) of memoized+moves on the raw 784-pixel Fashion-MNIST images (diagonal Gaussian) is
measured in separate processes, in memory and from on-disk shards (``ShardStore``).

Majority-vote accuracy: each cluster votes its training items' most common class.

Run:

    .venv/bin/python benchmarks/mixture_moves.py [--data fashion mnist] [--bnpy] [--laps 100] [--only A,B] [--out STEM]

Writes benchmarks/results/STEM.{json,md} (default mixture_moves).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

import stickbreak
from stickbreak import DPMixture
from stickbreak.models.mixture.model import MixtureParams
from stickbreak.core.protocols import total_elbo
from stickbreak.data import DenseData, ShardStore
from stickbreak.evaluate import majority_vote_accuracy, plugin_gaussian_log_density
from stickbreak.parallel import summarize_batches
from _rss import peak_rss_mib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"
BNPY_PYTHON = Path("/work/bnpy-venv/bin/python")
BNPY_RUNNER = ROOT / "benchmarks" / "bnpy" / "run_dpmixture.py"
N_BATCHES = 20


def _images(*parts):
    return np.frombuffer(gzip.open(DATA.joinpath(*parts)).read(), np.uint8, offset=16).reshape(-1, 784).astype(float)


def _labels(*parts):
    return np.frombuffer(gzip.open(DATA.joinpath(*parts)).read(), np.uint8, offset=8).astype(int)


def load(name: str, with_labels: bool = False):
    """PCA-50 training and held-out images (and the training labels, ``with_labels``)."""
    if name == "fashion":
        train, test = _images("fashion_mnist",
                              "train-images-idx3-ubyte.gz"), _images("fashion_mnist", "t10k-images-idx3-ubyte.gz")
        labels = _labels("fashion_mnist", "train-labels-idx1-ubyte.gz")
    else:
        images = _images("mnist_subsets", "mnist-t10k-images-idx3-ubyte.gz")
        order = np.random.default_rng(0).permutation(len(images))
        train, test = images[order[:8000]], images[order[8000:]]
        labels = _labels("mnist_subsets", "mnist-t10k-labels-idx1-ubyte.gz")[order[:8000]]
    pca = PCA(n_components=50, random_state=0).fit(train)
    out = pca.transform(train), pca.transform(test)
    return (*out, labels) if with_labels else out


def bnpy_prior(train: np.ndarray) -> dict:
    """bnpy's Gauss prior for ECovMat=covdata, sF=0.1, nu=D+2, kappa=1e-4, m=0: B = sF cov(X) (nu - D - 1)."""
    dim = train.shape[1]
    nu = dim + 2.0
    scale = 0.1 * np.cov(train.T, bias=True) * (nu - dim - 1)
    return {"mean": np.zeros(dim), "mean_precision": 1e-4, "dof": nu, "covariance": scale / nu}


def exact_scores(model, params, train, test) -> dict:
    """The exact ELBO of these global parameters (optimal local step on the training data) and held-out densities."""
    data = model.obs.check_data(train)
    batches = [data.subset(i) for i in np.array_split(np.arange(data.n_items), 10)]
    with threadpool_limits(limits=1, user_api="blas"):
        stats = summarize_batches(model, params, batches)[0]
        elbo = total_elbo(model.elbo_terms(params, stats))
        predictive = float(np.mean(model.log_predictive(params, model.obs.check_data(test))))
    summary = model.obs.summary(params.obs)
    weights = model.weights.expected_weights(params.weights)
    plugin = float(np.mean(plugin_gaussian_log_density(test, weights, summary["means"], summary["covariances"])))
    return {"elbo": elbo, "K_used": int(np.sum(stats.counts >= 1)), "heldout_predictive": predictive,
            "heldout_plugin": plugin}


_STOCHASTIC = dict(algorithm="stochastic", algorithm_options=dict(learning_rate_decay=0.55, learning_rate_delay=10.0))
METHODS = {
    "memoized+moves K=1": dict(n_components=1, algorithm="memoized", moves=("birth", "merge", "delete")),
    "defaults (K auto, all moves)": dict(),
    **{f"{algorithm} K={k}": dict(n_components=k, algorithm=algorithm, moves=())
       for k in (25, 50, 100) for algorithm in ("vb", "memoized")},
    **{f"stochastic K={k}": dict(n_components=k, **_STOCHASTIC) for k in (25, 50, 100)},
}


def run_ours(name, options, train, test, prior, laps, seed=0, labels=None) -> dict:
    trace = []
    cpu = time.process_time()
    start = time.perf_counter()
    model = DPMixture(obs_model="gauss", concentration=1.0, obs_prior=prior, n_batches=N_BATCHES, max_laps=laps,
                      tol=1e-7, random_state=seed,
                      callbacks=[lambda r, p: trace.append((time.perf_counter() - start, r.elbo, r.n_components))],
                      **options)
    model.fit(train)
    seconds = time.perf_counter() - start
    row = {"method": name, "seconds": seconds, "cpu": time.process_time() - cpu, "laps": model.n_iter_,
           **exact_scores(model.model_, model.params_, train, test), "trace": trace}
    if labels is not None:
        row["accuracy"] = majority_vote_accuracy(labels, model.labels_)
    if model.move_log_:
        row["moves"] = {k: sum(m["kind"] == k for m in model.move_log_) for k in ("birth", "merge", "delete")}
    return row


def run_bnpy(train, test, laps, seed=0) -> dict | None:
    if not (BNPY_PYTHON.exists() and BNPY_RUNNER.exists()):
        print("bnpy not set up; run benchmarks/bnpy/recipe.sh", file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory() as tmp:
        np.save(f"{tmp}/X.npy", train)
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        dim = train.shape[1]
        command = [str(BNPY_PYTHON), str(BNPY_RUNNER), "--data", f"{tmp}/X.npy", "--out", f"{tmp}/out.npz", "--K", "1",
                   "--moves", "birth,merge", "--nBatch", str(N_BATCHES), "--nLap", str(laps), "--seed", str(seed),
                   "--gamma0", "1.0", "--nu", str(dim + 2), "--kappa", "1e-4", "--sF", "0.1", "--ECovMat", "covdata",
                   "--mean", "zero"]
        subprocess.run(command, check=True, env=env)
        with np.load(f"{tmp}/out.npz", allow_pickle=False) as z:
            out = {k: z[k] for k in z.files}
    return out


def bnpy_as_params(model, result) -> MixtureParams:
    """bnpy's posterior (nu, kappa, m, B per cluster; sticks) in our natural coordinates."""
    origin = model.obs_prior["origin"]
    mean = result["post_m"] - origin
    kappa = result["post_kappa"]
    obs = {"nu": result["post_nu"], "kappa": kappa, "kappa_mean": kappa[:, None] * mean,
           "scatter": result["post_B"] + kappa[:, None, None] * mean[:, :, None] * mean[:, None, :],
           "origin": np.broadcast_to(origin, mean.shape).copy()}
    weights = {"eta1": result["alloc_eta1"], "eta0": result["alloc_eta0"]}
    return MixtureParams(np.arange(len(kappa)), obs, weights)


def probe_memory(path: str, mode: str, laps: int) -> float:
    """Fit memoized+moves (diagonal Gaussian) from ``path`` (an .npy file or a shard directory) in this
    process and return its max RSS in MB."""

    X = np.load(path) if mode == "memory" else ShardStore.open(path)
    DPMixture(n_components=1, obs_model="diag_gauss", algorithm="memoized", moves=("birth", "merge", "delete"),
              n_batches=N_BATCHES, max_laps=laps, random_state=0).fit(X)
    return peak_rss_mib()


def peak_memory(laps: int) -> dict:
    """Max RSS (MB) of memoized+moves on the raw 60,000 x 784 Fashion-MNIST pixels (376 MB as float64),
    in memory and from on-disk shards, each in a fresh process (the data are written beforehand)."""
    train = _images("fashion_mnist", "train-images-idx3-ubyte.gz")
    out = {"data_mb": train.nbytes / 2**20}
    with tempfile.TemporaryDirectory() as tmp:
        np.save(f"{tmp}/train.npy", train)
        ShardStore.write(DenseData.from_array(train), f"{tmp}/shards", N_BATCHES)
        del train
        for mode, path in (("memory", f"{tmp}/train.npy"), ("shards", f"{tmp}/shards")):
            result = subprocess.run([sys.executable, __file__, "--probe", path, mode, str(laps)], capture_output=True,
                                    text=True, check=True)
            out[mode] = float(result.stdout.strip().splitlines()[-1])
    return out


def markdown(results, meta) -> str:
    lines = ["# DP Gaussian mixtures on real data: memoized VI with moves vs fixed K, and bnpy", "",
             f"Command: `{meta['command']}`  ", f"Versions: stickbreak {meta['stickbreak']}; load average "
                                                f"at start {meta['load']}  ",
             "Protocol: see the docstring of `benchmarks/mixture_moves.py`. Every row is scored by the same code.", ""]
    for name, res in results.items():
        lines += [f"## {name} ({res['shape']})", "",
                  "| method | final ELBO | K used | held-out log p(x) (predictive) | held-out (plug-in) | "
                  "majority-vote accuracy | laps | wall s | CPU s |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for row in res["rows"]:
            accuracy = f"{row['accuracy']:.3f}" if "accuracy" in row else "–"
            cpu = f"{row['cpu']:.1f}" if "cpu" in row else "–"
            lines.append(f"| {row['method']} | {row['elbo']:.0f} | {row['K_used']} | {row['heldout_predictive']:.2f} | "
                         f"{row['heldout_plugin']:.2f} | {accuracy} | {row['laps']} | {row['seconds']:.1f} | {cpu} |")
        if "bnpy" in res:
            b = res["bnpy"]
            lines += ["", f"bnpy: {b['seconds']:.1f} s wall ({b['cpu']:.1f} s CPU) for {b['laps']} laps; our "
                      f"memoized+moves reached bnpy's final ELBO after {b['ours_to_reach']} s "
                      f"(ratio bnpy / ours = {b['ratio']})."]
        lines.append("")
    if "memory_mb" in meta:
        m = meta["memory_mb"]
        lines += ["## Peak memory (max RSS): raw Fashion-MNIST pixels, 60,000 x 784, diagonal Gaussian, memoized+moves",
                  "", f"Data as float64: {m['data_mb']:.0f} MB. Fit in memory: {m['memory']:.0f} MB; fit from "
                  f"{N_BATCHES} on-disk shards: {m['shards']:.0f} MB ({m['laps']} laps each, fresh processes).", ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", default=["fashion", "mnist"], choices=["fashion", "mnist"])
    parser.add_argument("--laps", type=int, default=100)
    parser.add_argument("--bnpy", action="store_true")
    parser.add_argument("--memory", action="store_true", help="also measure peak memory (in memory vs shards)")
    parser.add_argument("--only", help="comma-separated method names (default: all)")
    parser.add_argument("--out", default="mixture_moves", help="results file stem in benchmarks/results")
    parser.add_argument("--probe", nargs=3, metavar=("DATA", "MODE", "LAPS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    if args.probe:
        print(probe_memory(args.probe[0], args.probe[1], int(args.probe[2])))
        return
    meta = {"command": "python benchmarks/mixture_moves.py " + " ".join(sys.argv[1:]),
            "stickbreak": stickbreak.__version__,
            "load": " ".join(f"{v:.2f}" for v in os.getloadavg())}
    results = {}
    for name in args.data:
        train, test, labels = load(name, with_labels=True)
        prior = bnpy_prior(train)
        res = {"shape": f"{len(train)} train + {len(test)} held out, D=50", "rows": []}
        chosen = METHODS if not args.only else {m: METHODS[m] for m in args.only.split(",")}
        for method, options in chosen.items():
            row = run_ours(method, options, train, test, prior, args.laps, labels=labels)
            print(name, {k: v for k, v in row.items() if k != "trace"}, flush=True)
            res["rows"].append(row)
        if args.bnpy:
            out = run_bnpy(train, test, args.laps)
            if out is not None:
                ours = res["rows"][0]
                model = DPMixture(obs_model="gauss", obs_prior=prior, n_components=1,
                                  max_laps=1).fit(train[:500]).model_
                scores = exact_scores(model, bnpy_as_params(model, out), train, test)
                reach = next((t for t, elbo, _ in ours["trace"] if elbo >= scores["elbo"]), None)
                seconds = float(out["fit_wall_sec"])
                laps_done = int(np.ceil(float(out["n_laps_done"])))
                res["rows"].append({"method": "bnpy moves K=1", "seconds": seconds, "laps": laps_done, **scores,
                                    "bnpy_reported_elbo": -float(out["final_loss"]) * train.size})
                res["bnpy"] = {"seconds": seconds, "cpu": float(out["fit_cpu_sec"]), "laps": laps_done,
                               "ours_to_reach": None if reach is None else round(reach, 1),
                               "ratio": None if reach is None else round(seconds / reach, 2)}
        results[name] = res
    if args.memory:
        meta["memory_mb"] = {**peak_memory(laps=10), "laps": 10}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1, default=float))
    text = markdown(results, meta)
    (RESULTS / f"{args.out}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
