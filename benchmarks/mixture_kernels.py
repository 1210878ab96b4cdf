"""Seconds per iteration of a DP Gaussian mixture, full covariance, against scikit-learn's
BayesianGaussianMixture (issue 28: target >= 3x): Fashion-MNIST's 60,000 training images in 50 PCA
dimensions, K = 50, the priors of ``benchmarks/mixtures.py``, BLAS single-threaded for both.

Per-iteration time = (fit with 1 + n iterations - fit with 1 iteration) / n, so each library's
initialisation (ours: k-means++; scikit-learn: k-means) and set-up cancel. One process, the two
libraries alternating; the kernels' share of an iteration is timed on the fitted model.

    python benchmarks/mixture_kernels.py [--laps 5] > benchmarks/results/mixture_kernels.md
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import BayesianGaussianMixture
from threadpoolctl import threadpool_limits

from mixtures import load_fashion, shared_priors
from stickbreak import DPMixture, obs
from stickbreak.obs import gaussian_common as G
from _rss import peak_rss_mib  # noqa: E402

K = 50


def ours(train, prior, laps):
    model = DPMixture(algorithm="vb", n_components=K, obs_model="gauss", concentration=1.0, tol=0.0, max_laps=laps,
                      obs_prior={"mean": prior["mean"], "mean_precision": prior["mean_precision"], "dof": prior["dof"],
                                 "covariance": np.diag(prior["covariance"])}, random_state=0)
    start = time.process_time()
    model.fit(train)
    return time.process_time() - start, model


def sklearn(train, prior, laps):
    model = BayesianGaussianMixture(
        n_components=K, covariance_type="full", weight_concentration_prior_type="dirichlet_process",
        weight_concentration_prior=1.0, mean_prior=prior["mean"], mean_precision_prior=prior["mean_precision"],
        degrees_of_freedom_prior=prior["dof"], covariance_prior=prior["dof"] * prior["covariance"],
        max_iter=laps, tol=0.0, random_state=0)
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(train)
    return time.process_time() - start, model


def per_iteration(fit, train, prior, laps):
    one, _ = fit(train, prior, 1)
    more, model = fit(train, prior, 1 + laps)
    return (more - one) / laps, model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--laps", type=int, default=5)
    args = parser.parse_args()
    train, _, dim = load_fashion()
    prior = shared_priors(train)
    load = os.getloadavg()
    with threadpool_limits(1, "blas"):
        mine, model = per_iteration(ours, train, prior, args.laps)
        theirs, _ = per_iteration(sklearn, train, prior, args.laps)
        resp = model.predict_proba(train)
        kernels = {}
        for name, work in (("expected log-likelihood (whitening GEMM)",
                            lambda: model.model_.obs.expected_loglik(model.params_.obs,
                                                                     obs.get("gauss").check_data(train))),
                           ("weighted outer sums (packed GEMM)", lambda: G.weighted_outer_sums(train, resp))):
            work()
            start = time.process_time()
            work()
            kernels[name] = time.process_time() - start
    print(f"Fashion-MNIST PCA-{dim}, {len(train)} items, K = {K}, full covariance; BLAS one thread; "
          f"{args.laps} iterations timed; load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
    print("| library | CPU s per iteration | scikit-learn / this |\n|---|---:|---:|")
    print(f"| stickbreak DPMixture(algorithm='vb') | {mine:.3f} | **{theirs / mine:.2f}x** |")
    print(f"| scikit-learn BayesianGaussianMixture | {theirs:.3f} | 1.00x |\n")
    print("| part of our iteration | CPU s |\n|---|---:|")
    for name, seconds in kernels.items():
        print(f"| {name} | {seconds:.3f} |")
    data_mb = train.nbytes / 2**20
    print(f"\nPeak RSS of the process (both libraries, data, PCA): "
          f"{peak_rss_mib():.0f} MB; the training data {data_mb:.0f} MB.")


if __name__ == "__main__":
    main()
