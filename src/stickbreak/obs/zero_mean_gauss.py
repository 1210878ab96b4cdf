"""Zero-mean Gaussian likelihood with a Wishart prior (bnpy ``ZeroMeanGauss``; image patches).

Prior ``Lambda_k ~ Wishart(nu, B^-1)``. Natural coordinates: ``nu`` pairs with ``1/2 log|Lambda|``
(statistic ``N``) and ``scatter = B`` with ``-1/2 Lambda`` (statistic ``xxT``); the update is
``nu + N, B + xxT`` (digest ``thesis_ch1-4.md`` §2(b)).
"""

from __future__ import annotations

import numpy as np

from ..data import DenseData
from . import gaussian_common as G
from .expfam import Natural

name = "zero_mean_gauss"
natural_keys = ("nu", "scatter")
stat_keys = ("xxT",)
prior_options = ("covariance", "dof")

check_data = G.check_dense
frames_of = G.dense_frames
log_base = G.log_base


def default_prior(data: DenseData, covariance=None, dof=None) -> Natural:
    """Wishart prior; ``covariance`` is the prior guess of ``E[Lambda]^-1`` (so ``B = dof * covariance``)."""
    dim = data.n_features
    nu = float(dim + 2) if dof is None else float(dof)
    if not nu > dim - 1:
        raise ValueError(f"prior option 'dof' must exceed n_features - 1 = {dim - 1}, got {nu}")
    second_moment = (data.X**2).mean(axis=0)
    scale = G.prior_covariance(covariance, second_moment, G.DEFAULT_COVARIANCE_FRACTION)
    return {"nu": np.array(nu), "scatter": nu * scale}


def suff_stats(data: DenseData, resp, prior: Natural) -> dict[str, np.ndarray]:
    """``xxT = sum_n r_nk x_n x_n^T``; ``resp`` dense or L-sparse CSR (then O(N L D^2))."""
    return {"xxT": G.weighted_outer_sums(data.X, resp)}


def stats_to_natural(stats) -> Natural:
    return {"nu": stats["N"], "scatter": stats["xxT"]}


def _chol(nat: Natural) -> np.ndarray:
    return G.cholesky(0.5 * (nat["scatter"] + np.swapaxes(nat["scatter"], 1, 2)), "posterior scale matrix")


def log_normalizer(nat: Natural) -> np.ndarray:
    dim = nat["scatter"].shape[1]
    return G.wishart_log_normalizer(nat["nu"], G.logdet_from_chol(_chol(nat)), dim)


def expected_t(nat: Natural) -> Natural:
    dim = nat["scatter"].shape[1]
    nu = nat["nu"]
    return {
        "nu": 0.5 * G.expected_logdet_precision(nu, G.logdet_from_chol(_chol(nat)), dim),
        "scatter": -0.5 * nu[:, None, None] * G.inverse_from_chol(_chol(nat)),
    }


def expected_loglik(nat: Natural, data: DenseData) -> np.ndarray:
    dim = data.n_features
    chol = _chol(nat)
    e_logdet = G.expected_logdet_precision(nat["nu"], G.logdet_from_chol(chol), dim)
    return -0.5 * dim * G.LOG_2PI + 0.5 * e_logdet - 0.5 * nat["nu"] * G.mahalanobis(data.X, chol)


def log_predictive(nat: Natural, data: DenseData) -> np.ndarray:
    """Posterior predictive: Student-t with ``nu-D+1`` dof, location 0 and shape ``B / dof``."""
    dim = data.n_features
    chol = _chol(nat)
    dof = nat["nu"] - dim + 1.0
    maha = G.mahalanobis(data.X, chol) * dof
    return G.student_t_logpdf(maha, dof, G.logdet_from_chol(chol) - dim * np.log(dof), dim)


def bregman_divergence(data: DenseData, prior: Natural, centers: Natural) -> np.ndarray:
    """KL from prior-smoothed items ``N(0, (B + x x^T)/(nu+1))`` to each center ``N(0, B_k/nu_k)``."""
    return G.kl_smoothed_items_to_centers(
        data.X, 1.0, None, prior["scatter"], float(prior["nu"]), _chol(centers), centers["nu"], None
    )


def summary(nat: Natural) -> dict[str, np.ndarray]:
    """Posterior covariances ``E[Lambda]^-1 = B / nu``."""
    return {"covariances": nat["scatter"] / nat["nu"][:, None, None]}


def draw(nat: Natural, states: np.ndarray, rng: np.random.Generator, prev0=None) -> np.ndarray:
    """Frames ``x_t ~ N(0, E[Lambda_k]^-1)`` for the states ``z_t`` (``prev0`` unused)."""
    covariances = summary(nat)["covariances"]
    return G.draw_gaussian(np.zeros(covariances.shape[:2]), covariances, states, rng)
