"""Pieces shared by the full-covariance and zero-mean Gaussian families (Wishart algebra).

All functions are vectorised over a leading component axis K and loop in Python over components
only (each iteration is a BLAS call over all items).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import digamma, gammaln

LOG_2PI = float(np.log(2.0 * np.pi))


def cholesky(B: np.ndarray, what: str = "scale matrix") -> np.ndarray:
    """Lower Cholesky factors of a stack (K, D, D) of symmetric positive-definite matrices."""
    try:
        return np.linalg.cholesky(B)
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            f"a {what} is not positive definite; increase the prior covariance or its degrees of freedom"
        ) from exc


def prior_mean(value, X: np.ndarray) -> np.ndarray:
    """The prior mean: the data mean by default, else ``value`` broadcast to (D,)."""
    if value is None:
        return X.mean(axis=0)
    mean = np.broadcast_to(np.asarray(value, dtype=float), (X.shape[1],)).copy()
    if not np.isfinite(mean).all():
        raise ValueError("prior option 'mean' must be finite")
    return mean


def prior_covariance(value, feature_scale: np.ndarray, default_fraction: float) -> np.ndarray:
    """A (D, D) prior covariance from a scalar (times identity), a (D,) diagonal or a full matrix.

    ``None`` gives ``default_fraction * diag(feature_scale)``, floored so that constant features do
    not make the prior singular.
    """
    dim = len(feature_scale)
    if value is None:
        scale = np.maximum(feature_scale, max(1e-6 * feature_scale.max(), 1e-12))
        return np.diag(default_fraction * scale)
    cov = np.asarray(value, dtype=float)
    if cov.ndim == 0:
        if not np.isfinite(cov) or cov <= 0:
            raise ValueError(f"prior option 'covariance' must be positive, got {float(cov)}")
        cov = float(cov) * np.eye(dim)
    elif cov.shape == (dim,):
        cov = np.diag(cov)
    if cov.shape != (dim, dim) or not np.allclose(cov, cov.T):
        raise ValueError(
            f"prior option 'covariance' must be a scalar, a ({dim},) diagonal or a symmetric ({dim}, {dim}) matrix"
        )
    cholesky(cov[None], "prior covariance")
    return cov


def logdet_from_chol(chol: np.ndarray) -> np.ndarray:
    return 2.0 * np.log(np.diagonal(chol, axis1=-2, axis2=-1)).sum(axis=-1)


def log_multigamma(a: np.ndarray, dim: int) -> np.ndarray:
    """``log Gamma_D(a) = D(D-1)/4 log(pi) + sum_{d=1..D} log Gamma(a + (1 - d)/2)``."""
    a = np.asarray(a, dtype=float)
    d = np.arange(1, dim + 1)
    return dim * (dim - 1) / 4.0 * np.log(np.pi) + gammaln(a[..., None] + (1.0 - d) / 2.0).sum(axis=-1)


def expected_logdet_precision(nu: np.ndarray, logdet_scale: np.ndarray, dim: int) -> np.ndarray:
    """``E log|Lambda|`` for ``Lambda ~ Wishart(nu, B^-1)``: ``sum_d psi((nu+1-d)/2) + D log 2 - log|B|``."""
    d = np.arange(1, dim + 1)
    return digamma((nu[..., None] + 1.0 - d) / 2.0).sum(axis=-1) + dim * np.log(2.0) - logdet_scale


def wishart_log_normalizer(nu: np.ndarray, logdet_scale: np.ndarray, dim: int) -> np.ndarray:
    """Log-normalizer of ``Wishart(Lambda | nu, B^-1)``: ``-(nu D/2) log 2 - log Gamma_D(nu/2) + (nu/2) log|B|``."""
    return -0.5 * nu * dim * np.log(2.0) - log_multigamma(nu / 2.0, dim) + 0.5 * nu * logdet_scale


def mahalanobis(X: np.ndarray, chol: np.ndarray, means: np.ndarray | None = None) -> np.ndarray:
    """``||L_k^-1 (x_n - m_k)||^2`` for every item and component, shape (N, K); one triangular solve per component."""
    out = np.empty((X.shape[0], chol.shape[0]))
    for k in range(chol.shape[0]):
        centred = X if means is None else X - means[k]
        solved = solve_triangular(chol[k], centred.T, lower=True, check_finite=False)
        out[:, k] = np.einsum("dn,dn->n", solved, solved)
    return out


def student_t_logpdf(maha: np.ndarray, dof: np.ndarray, logdet_shape: np.ndarray, dim: int) -> np.ndarray:
    """Multivariate Student-t log density given Mahalanobis distances w.r.t. its shape matrix."""
    return (
        gammaln((dof + dim) / 2.0) - gammaln(dof / 2.0) - 0.5 * dim * np.log(dof * np.pi) - 0.5 * logdet_shape
        - 0.5 * (dof + dim) * np.log1p(maha / dof)
    )


def weighted_outer_sums(X: np.ndarray, resp: np.ndarray) -> np.ndarray:
    """``sum_n r_nk x_n x_n^T`` for every component, shape (K, D, D).

    Written as ``Y^T Y`` with ``Y = sqrt(r_k) X`` so that numpy calls the symmetric rank-k update
    (half the flops of a general product).
    """
    out = np.empty((resp.shape[1], X.shape[1], X.shape[1]))
    root = np.sqrt(resp)
    for k in range(resp.shape[1]):
        weighted = X * root[:, k:k + 1]
        out[k] = weighted.T @ weighted
    return out


def kl_smoothed_items_to_centers(
    centred_items: np.ndarray,
    shrink: float,
    item_means: np.ndarray | None,
    prior_scale: np.ndarray,
    prior_nu: float,
    center_chol: np.ndarray,
    center_nu: np.ndarray,
    center_means: np.ndarray | None,
) -> np.ndarray:
    """Bregman divergence used by k-means++ for Gaussians (Hughes 2016, Alg. 2.2), shape (N, K).

    Each item is smoothed by the prior: its point estimate is a Gaussian with covariance
    ``(B_bar + shrink * u u^T) / (nu_bar + 1)`` where ``u`` is the centred item, and mean
    ``item_means`` (None means zero). Each center is ``N(m_k, B_k / nu_k)``. The divergence is the
    KL divergence from item to center, computed with rank-one identities in O(N K D^2).
    """
    dim = centred_items.shape[1]
    item_nu = prior_nu + 1.0
    prior_chol = cholesky(prior_scale[None])[0]
    item_logdet = (
        logdet_from_chol(prior_chol[None])[0]
        + np.log1p(shrink * mahalanobis(centred_items, prior_chol[None])[:, 0])
        - dim * np.log(item_nu)
    )
    center_logdet = logdet_from_chol(center_chol) - dim * np.log(center_nu)
    # tr(B_k^-1 B_bar) = ||L_k^-1 L_bar||_F^2
    inv_prior_trace = np.array(
        [np.sum(solve_triangular(c, prior_chol, lower=True, check_finite=False) ** 2) for c in center_chol]
    )
    trace = center_nu / item_nu * (inv_prior_trace[None, :] + shrink * mahalanobis(centred_items, center_chol))
    if item_means is None:
        item_means = np.zeros_like(centred_items)
    maha_means = center_nu * mahalanobis(item_means, center_chol, center_means)
    kl = 0.5 * (trace + maha_means - dim + center_logdet[None, :] - item_logdet[:, None])
    return np.maximum(kl, 0.0)
