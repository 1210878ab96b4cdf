"""Full-covariance Gaussian likelihood with a Normal-Wishart prior (bnpy ``Gauss``).

Prior: ``Lambda_k ~ Wishart(nu, B^-1)``, ``mu_k | Lambda_k ~ N(m, (kappa Lambda_k)^-1)``.
Natural coordinates (see :mod:`.expfam`):

=============  ============================  ==========================  ==========
key            natural parameter             ``t(phi)``                  statistic
=============  ============================  ==========================  ==========
``nu``         ``nu``                        ``1/2 log|Lambda|``          ``N``
``kappa``      ``kappa``                     ``-1/2 mu^T Lambda mu``      ``N``
``kappa_mean`` ``kappa m``                   ``Lambda mu``                ``x``
``scatter``    ``B + kappa m m^T``           ``-1/2 Lambda``              ``xxT``
=============  ============================  ==========================  ==========

so the update ``eta_hat = eta_bar + inc(S)`` is bnpy's ``nu+N, kappa+N, m=(kappa m + x)/kappa_hat,
B_hat = B + xxT + kappa m m^T - kappa_hat m_hat m_hat^T`` (digest ``thesis_ch1-4.md`` §2(a)).

Statistics and means are measured from a fixed ``origin`` (the prior mean), carried in the
parameter dicts: raw moments of data far from zero would otherwise lose every significant digit
in ``B_hat``. Reported means add the origin back.
"""

from __future__ import annotations

import numpy as np

from ..core.sparse_resp import weighted_sums
from ..data import DenseData
from . import gaussian_common as G
from .expfam import Natural, positive_scalar

name = "gauss"
natural_keys = ("nu", "kappa", "kappa_mean", "scatter")
stat_keys = ("x", "xxT")
prior_options = ("mean", "mean_precision", "covariance", "dof")

check_data = G.check_dense
frames_of = G.dense_frames
log_base = G.log_base


def default_prior(data: DenseData, mean=None, mean_precision=G.DEFAULT_MEAN_PRECISION, covariance=None,
                  dof=None) -> Natural:
    """Normal-Wishart prior.

    ``covariance`` is the prior guess of a cluster's ``E[Lambda]^-1`` (scikit-learn's convention for
    ``covariances_``), so ``B = dof * covariance``; the prior mean of the covariance itself,
    ``B / (dof - D - 1)``, is larger when ``dof`` is small. Defaults: ``mean`` = data mean,
    ``mean_precision`` = 0.01, ``covariance`` = 0.1 x per-feature variance, ``dof`` = D + 2.
    """
    X = data.X
    dim = X.shape[1]
    origin = G.prior_mean(mean, X)
    kappa = positive_scalar(mean_precision, "mean_precision")
    nu = float(dim + 2) if dof is None else float(dof)
    if not nu > dim - 1:
        raise ValueError(f"prior option 'dof' must exceed n_features - 1 = {dim - 1}, got {nu}")
    scale = nu * G.prior_covariance(covariance, X.var(axis=0), G.DEFAULT_COVARIANCE_FRACTION)
    nat = {"nu": np.array(nu), "kappa": np.array(kappa), "kappa_mean": np.zeros(dim), "scatter": scale}
    return G.with_origin(nat, origin)


def suff_stats(data: DenseData, resp, prior: Natural) -> dict[str, np.ndarray]:
    """``x = sum_n r_nk x_n`` and ``xxT = sum_n r_nk x_n x_n^T`` (centred); ``resp`` dense or L-sparse CSR."""
    centred = data.X - prior["origin"]
    return {"x": weighted_sums(resp, centred), "xxT": G.weighted_outer_sums(centred, resp)}


def stats_to_natural(stats) -> Natural:
    return {"nu": stats["N"], "kappa": stats["N"], "kappa_mean": stats["x"], "scatter": stats["xxT"]}


def common_params(nat: Natural):
    """``(nu, kappa, mean, B, chol(B))`` with a leading K axis; ``mean`` is relative to the origin."""
    kappa = nat["kappa"]
    mean = nat["kappa_mean"] / kappa[:, None]
    scale = nat["scatter"] - kappa[:, None, None] * mean[:, :, None] * mean[:, None, :]
    scale = 0.5 * (scale + np.swapaxes(scale, 1, 2))
    return nat["nu"], kappa, mean, scale, G.cholesky(scale, "posterior scale matrix")


def log_normalizer(nat: Natural) -> np.ndarray:
    nu, kappa, mean, scale, chol = common_params(nat)
    dim = mean.shape[1]
    return (
        -0.5 * dim * G.LOG_2PI + 0.5 * dim * np.log(kappa)
        + G.wishart_log_normalizer(nu, G.logdet_from_chol(chol), dim)
    )


def expected_t(nat: Natural) -> Natural:
    nu, kappa, mean, scale, chol = common_params(nat)
    dim = mean.shape[1]
    precision = nu[:, None, None] * G.inverse_from_chol(chol)  # E[Lambda]
    prec_mean = np.einsum("kde,ke->kd", precision, mean)
    return {
        "nu": 0.5 * G.expected_logdet_precision(nu, G.logdet_from_chol(chol), dim),
        "kappa": -0.5 * (dim / kappa + np.einsum("kd,kd->k", mean, prec_mean)),
        "kappa_mean": prec_mean,
        "scatter": -0.5 * precision,
    }


def _absolute_means(nat: Natural, mean: np.ndarray) -> np.ndarray:
    return mean + nat["origin"]


def expected_loglik(nat: Natural, data: DenseData) -> np.ndarray:
    """``E_q log N(x_n | mu_k, Lambda_k^-1)``, shape (N, K)."""
    nu, kappa, mean, scale, chol = common_params(nat)
    dim = mean.shape[1]
    e_logdet = G.expected_logdet_precision(nu, G.logdet_from_chol(chol), dim)
    maha = nu * G.mahalanobis(data.X, chol, _absolute_means(nat, mean)) + dim / kappa
    return -0.5 * dim * G.LOG_2PI + 0.5 * e_logdet - 0.5 * maha


def log_predictive(nat: Natural, data: DenseData) -> np.ndarray:
    """Posterior predictive: Student-t with ``nu-D+1`` dof and shape ``B (kappa+1) / (kappa dof)``."""
    nu, kappa, mean, scale, chol = common_params(nat)
    dim = mean.shape[1]
    dof = nu - dim + 1.0
    factor = (kappa + 1.0) / (kappa * dof)
    maha = G.mahalanobis(data.X, chol, _absolute_means(nat, mean)) / factor
    logdet_shape = G.logdet_from_chol(chol) + dim * np.log(factor)
    return G.student_t_logpdf(maha, dof, logdet_shape, dim)


def bregman_divergence(data: DenseData, prior: Natural, centers: Natural) -> np.ndarray:
    """Divergence of prior-smoothed items from each center, shape (N, K) (Hughes 2016, Alg. 2.2)."""
    p_nu, p_kappa, p_mean, p_scale, _ = common_params({k: v[None] for k, v in prior.items()})
    nu, _, mean, _, chol = common_params(centers)
    centred = data.X - prior["origin"] - p_mean[0]
    item_means = (p_kappa[0] * p_mean[0] + data.X - prior["origin"]) / (p_kappa[0] + 1.0)
    shrink = p_kappa[0] / (p_kappa[0] + 1.0)
    return G.kl_smoothed_items_to_centers(centred, shrink, item_means, p_scale[0], float(p_nu[0]), chol, nu, mean)


def summary(nat: Natural) -> dict[str, np.ndarray]:
    """Posterior means and covariances ``E[Lambda]^-1 = B / nu`` (scikit-learn's convention)."""
    nu, kappa, mean, scale, _ = common_params(nat)
    return {"means": _absolute_means(nat, mean), "covariances": scale / nu[:, None, None]}


def draw(nat: Natural, states: np.ndarray, rng: np.random.Generator, prev0=None) -> np.ndarray:
    """Frames ``x_t ~ N(E[mu_k], E[Lambda_k]^-1)`` for the states ``z_t`` (the posterior means of
    :func:`summary`; ``prev0`` unused): what an HMM's ``sample`` emits."""
    found = summary(nat)
    return G.draw_gaussian(found["means"], found["covariances"], states, rng)


def sample_params(nat: Natural, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One draw ``(mu_k, Lambda_k)`` per component from the Normal-Wishart ``nat`` (what a Gibbs
    sampler draws emissions from): ``Lambda_k ~ Wishart(nu, B^-1)`` by Bartlett's decomposition
    ``Lambda = F A A^T F^T`` (``F F^T = B^-1``; ``A`` lower triangular, ``A_ii^2 ~ chi2(nu - i)``
    for ``i = 0 .. D-1``, ``A_ij ~ N(0, 1)`` below), then ``mu_k ~ N(m, (kappa Lambda_k)^-1)``.
    Returns ``{"means": (K, D), "chol": (K, D, D)}``, the lower Cholesky factors of ``Lambda_k^-1``."""
    nu, kappa, mean, scale, chol = common_params(nat)
    n_comp, dim = mean.shape
    steps = np.arange(dim)
    bartlett = np.zeros((n_comp, dim, dim))
    bartlett[:, steps, steps] = np.sqrt(rng.chisquare(nu[:, None] - steps[None, :]))
    below = np.tril_indices(dim, -1)
    bartlett[:, below[0], below[1]] = rng.standard_normal((n_comp, len(below[0])))
    factor = chol @ np.swapaxes(np.linalg.inv(bartlett), 1, 2)  # Lambda^-1 = (C A^-T)(C A^-T)^T with B = C C^T
    cov_chol = G.cholesky(factor @ np.swapaxes(factor, 1, 2), "sampled covariance")
    noise = np.einsum("kde,ke->kd", cov_chol, rng.standard_normal((n_comp, dim))) / np.sqrt(kappa)[:, None]
    return {"means": _absolute_means(nat, mean) + noise, "chol": cov_chol}


def params_loglik(drawn: dict[str, np.ndarray], data: DenseData) -> np.ndarray:
    """``log N(x_n | mu_k, Lambda_k^-1)`` at parameters drawn by :func:`sample_params`, shape (N, K)."""
    dim = drawn["means"].shape[1]
    maha = G.mahalanobis(data.X, drawn["chol"], drawn["means"])
    return -0.5 * dim * G.LOG_2PI - 0.5 * G.logdet_from_chol(drawn["chol"])[None, :] - 0.5 * maha
