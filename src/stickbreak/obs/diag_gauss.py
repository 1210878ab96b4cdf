"""Diagonal-covariance Gaussian likelihood with a Normal-Gamma prior per feature (bnpy ``DiagGauss``).

Prior per feature d: ``lambda_d ~ Gamma(nu/2, rate beta_d/2)``, ``mu_d | lambda_d ~ N(m_d, (kappa lambda_d)^-1)``.
Natural coordinates: ``nu`` pairs with ``sum_d 1/2 log lambda_d`` (statistic ``N``), ``kappa`` with
``-1/2 sum_d lambda_d mu_d^2`` (``N``), ``kappa_mean = kappa m`` with ``lambda mu`` (``x``) and
``scatter = beta + kappa m^2`` with ``-1/2 lambda`` (``xx``); digest ``thesis_ch1-4.md`` §2(c).
As in :mod:`.gauss`, statistics are measured from the prior mean (``origin``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

from ..core.sparse_resp import weighted_sums
from ..data import DenseData
from . import gaussian_common as G
from .gaussian_common import LOG_2PI
from .expfam import Natural, positive_scalar

name = "diag_gauss"
natural_keys = ("nu", "kappa", "kappa_mean", "scatter")
stat_keys = ("x", "xx")
prior_options = ("mean", "mean_precision", "covariance", "dof")

DEFAULT_DOF = 3.0

check_data = G.check_dense
frames_of = G.dense_frames
log_base = G.log_base


def default_prior(data: DenseData, mean=None, mean_precision=G.DEFAULT_MEAN_PRECISION, covariance=None,
                  dof=DEFAULT_DOF) -> Natural:
    """Normal-Gamma prior; ``covariance`` (scalar or (D,)) is the prior guess of ``1 / E[lambda_d]``,
    so ``beta = dof * covariance``. Defaults: data mean, 0.01, 0.1 x per-feature variance, dof 3."""
    X = data.X
    origin = G.prior_mean(mean, X)
    kappa = positive_scalar(mean_precision, "mean_precision")
    nu = positive_scalar(dof, "dof")
    if covariance is not None and np.ndim(covariance) == 2:
        raise ValueError("prior option 'covariance' of diag_gauss is a scalar or one variance per "
                         "feature, not a matrix")
    variance = np.diag(G.prior_covariance(covariance, X.var(axis=0), G.DEFAULT_COVARIANCE_FRACTION)).copy()
    nat = {"nu": np.array(nu), "kappa": np.array(kappa), "kappa_mean": np.zeros(X.shape[1]), "scatter": nu * variance}
    return G.with_origin(nat, origin)


def suff_stats(data: DenseData, resp, prior: Natural) -> dict[str, np.ndarray]:
    """``x = sum_n r_nk x_n`` and ``xx = sum_n r_nk x_n^2`` (centred); ``resp`` dense or L-sparse CSR."""
    centred = data.X - prior["origin"]
    return {"x": weighted_sums(resp, centred), "xx": weighted_sums(resp, centred**2)}


def stats_to_natural(stats) -> Natural:
    return {"nu": stats["N"], "kappa": stats["N"], "kappa_mean": stats["x"], "scatter": stats["xx"]}


def common_params(nat: Natural):
    """``(nu, kappa, mean, beta)`` with leading K axis; ``mean`` is relative to the origin."""
    kappa = nat["kappa"]
    mean = nat["kappa_mean"] / kappa[:, None]
    beta = nat["scatter"] - kappa[:, None] * mean**2
    if not (beta > 0).all():
        raise ValueError("a posterior rate of diag_gauss is not positive" + G.NOT_PD_HINT)
    return nat["nu"], kappa, mean, beta


def log_normalizer(nat: Natural) -> np.ndarray:
    nu, kappa, mean, beta = common_params(nat)
    dim = mean.shape[1]
    per_dim_const = -0.5 * LOG_2PI - 0.5 * nu * np.log(2.0) - gammaln(nu / 2.0) + 0.5 * np.log(kappa)
    return dim * per_dim_const + 0.5 * nu * np.log(beta).sum(axis=1)


def _expected_half_log_precision(nu, beta):
    return 0.5 * (digamma(nu / 2.0)[:, None] - np.log(beta / 2.0)).sum(axis=1)


def expected_t(nat: Natural) -> Natural:
    nu, kappa, mean, beta = common_params(nat)
    precision = nu[:, None] / beta  # E[lambda]
    return {
        "nu": _expected_half_log_precision(nu, beta),
        "kappa": -0.5 * (mean.shape[1] / kappa + (precision * mean**2).sum(axis=1)),
        "kappa_mean": precision * mean,
        "scatter": -0.5 * precision,
    }


def _weighted_square_distance(X: np.ndarray, weights: np.ndarray, means: np.ndarray) -> np.ndarray:
    """``sum_d w_kd (x_nd - m_kd)^2``, shape (N, K), from the differences themselves (no cancellation)."""
    out = np.empty((X.shape[0], len(means)))
    for k in range(len(means)):
        out[:, k] = ((X - means[k]) ** 2) @ weights[k]
    return out


def expected_loglik(nat: Natural, data: DenseData) -> np.ndarray:
    nu, kappa, mean, beta = common_params(nat)
    dim = data.n_features
    quad = _weighted_square_distance(data.X, nu[:, None] / beta, mean + nat["origin"])
    return -0.5 * dim * LOG_2PI + _expected_half_log_precision(nu, beta) - 0.5 * (dim / kappa + quad)


def log_predictive(nat: Natural, data: DenseData) -> np.ndarray:
    """Posterior predictive: a Student-t per feature, ``nu`` dof, scale^2 ``beta (kappa+1) / (kappa nu)``."""
    nu, kappa, mean, beta = common_params(nat)
    means = mean + nat["origin"]
    scale2 = beta * ((kappa + 1.0) / (kappa * nu))[:, None]
    const = gammaln((nu + 1.0) / 2.0) - gammaln(nu / 2.0) - 0.5 * np.log(nu * np.pi)
    out = np.empty((data.n_items, len(nu)))
    for k in range(len(nu)):
        z = (data.X - means[k]) ** 2 / (nu[k] * scale2[k])
        out[:, k] = -0.5 * (nu[k] + 1.0) * np.log1p(z).sum(axis=1)
    return out + data.n_features * const - 0.5 * np.log(scale2).sum(axis=1)


def bregman_divergence(data: DenseData, prior: Natural, centers: Natural) -> np.ndarray:
    """KL from prior-smoothed items (diagonal Gaussians) to each center ``N(m_k, beta_k / nu_k)``."""
    p_nu, p_kappa, p_mean, p_beta = (v[0] for v in common_params({k: v[None] for k, v in prior.items()}))
    nu, _, mean, beta = common_params(centers)
    centred = data.X - prior["origin"]
    shrink = p_kappa / (p_kappa + 1.0)
    item_mean = (p_kappa * p_mean + centred) / (p_kappa + 1.0)
    item_var = (p_beta + shrink * (centred - p_mean) ** 2) / (p_nu + 1.0)
    inv_var = nu[:, None] / beta
    kl = 0.5 * (
        item_var @ inv_var.T
        + _weighted_square_distance(item_mean, inv_var, mean)
        - data.n_features
        - np.log(inv_var).sum(axis=1)[None, :]
        - np.log(item_var).sum(axis=1)[:, None]
    )
    return np.maximum(kl, 0.0)


def summary(nat: Natural) -> dict[str, np.ndarray]:
    """Posterior means and per-feature variances ``1 / E[lambda] = beta / nu`` (shape (K, D))."""
    nu, _, mean, beta = common_params(nat)
    return {"means": mean + nat["origin"], "covariances": beta / nu[:, None]}


def draw(nat: Natural, states: np.ndarray, rng: np.random.Generator, prev0=None) -> np.ndarray:
    """Frames ``x_td ~ N(E[mu_kd], 1 / E[lambda_kd])`` for the states ``z_t`` (``prev0`` unused)."""
    found = summary(nat)
    return found["means"][states] + np.sqrt(found["covariances"][states]) * rng.standard_normal(
        (len(states), found["means"].shape[1]))
