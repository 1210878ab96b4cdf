"""Pieces shared by the full-covariance and zero-mean Gaussian families (Wishart algebra).

All functions are vectorised over a leading component axis K and loop in Python over components
only (each iteration is a BLAS call over all items).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.special import digamma, gammaln

from ..core import sparse_resp
from ..data import DenseData
from ..kernels import blockwise_squared_norms, packed_outer_products, sparse_weighted_outer_sums

LOG_2PI = float(np.log(2.0 * np.pi))

#: Default prior guess of one cluster's covariance ``E[Lambda]^-1``, as a fraction of the data's
#: per-feature variance (or second moment, for zero-mean models).
DEFAULT_COVARIANCE_FRACTION = 0.1
#: Default prior precision of a cluster mean, relative to the cluster's own precision (kappa).
DEFAULT_MEAN_PRECISION = 1e-2

NOT_PD_HINT = (
    "; if the features span very different scales or lie far from the prior mean, standardize them "
    "(e.g. sklearn.preprocessing.StandardScaler), or increase the prior covariance"
)


def check_dense(data, what: str = "X") -> DenseData:
    """Validated dense data (shared ``check_data`` of the Gaussian families)."""
    return data if isinstance(data, DenseData) else DenseData.from_array(data, what)


def dense_frames(sequences) -> DenseData:
    """The frames of :class:`~stickbreak.data.Sequences` as dense items (``frames_of`` of every family
    whose items are single rows; validated by the family's ``check_data`` where the data enter)."""
    return DenseData(sequences.X)


def log_base(data: DenseData) -> float:
    """``sum_n log h(x_n) = -N D/2 log(2 pi)`` for every Gaussian family."""
    return -0.5 * data.n_items * data.n_features * LOG_2PI


def with_origin(nat: dict, origin: np.ndarray, n_components: int | None = None) -> dict:
    """Attach the fixed ``origin`` the statistics are measured from (stacked over components if asked)."""
    out = dict(nat)
    out["origin"] = origin if n_components is None else np.broadcast_to(origin, (n_components, len(origin))).copy()
    return out


def cholesky(B: np.ndarray, what: str = "scale matrix") -> np.ndarray:
    """Lower Cholesky factors of a stack (K, D, D) of symmetric positive-definite matrices."""
    try:
        return np.linalg.cholesky(B)
    except np.linalg.LinAlgError as exc:
        raise ValueError(f"a {what} is not positive definite" + NOT_PD_HINT) from exc


def per_feature(value, dim: int, name: str) -> np.ndarray:
    """A scalar or a length-D vector option as a (D,) array, with a clear error for other shapes."""
    arr = np.asarray(value, dtype=float)
    if arr.ndim > 1 or (arr.ndim == 1 and len(arr) != dim):
        raise ValueError(f"prior option {name!r} must be a scalar or have n_features={dim} values, got shape "
                         f"{arr.shape}")
    arr = np.broadcast_to(arr, (dim,)).copy()
    if not np.isfinite(arr).all():
        raise ValueError(f"prior option {name!r} must be finite")
    return arr


def prior_mean(value, X: np.ndarray) -> np.ndarray:
    """The prior mean: the data mean by default, else ``value`` broadcast to (D,)."""
    return X.mean(axis=0) if value is None else per_feature(value, X.shape[1], "mean")


def prior_covariance(value, feature_scale: np.ndarray, default_fraction: float) -> np.ndarray:
    """A (D, D) prior covariance from a scalar (times identity), a (D,) diagonal or a full matrix.

    ``None`` gives ``default_fraction * diag(feature_scale)``, floored so that constant features do
    not make the prior singular.
    """
    dim = len(feature_scale)
    if value is None:
        if not feature_scale.max() > 0:
            warnings.warn(
                "the data have no spread (every feature is constant), so the default prior covariance falls "
                "back to the identity; pass obs_prior={'covariance': ...} to set it", UserWarning, stacklevel=4,
            )
            feature_scale = np.ones(dim)
        scale = np.maximum(feature_scale, 1e-6 * feature_scale.max())
        return np.diag(default_fraction * scale)
    cov = np.asarray(value, dtype=float)
    if cov.ndim == 0:
        if not np.isfinite(cov) or cov <= 0:
            raise ValueError(f"prior option 'covariance' must be positive, got {float(cov)}")
        cov = float(cov) * np.eye(dim)
    elif cov.shape == (dim,):
        if not (np.isfinite(cov).all() and (cov > 0).all()):
            raise ValueError("prior option 'covariance' must be positive")
        cov = np.diag(cov)
    if cov.shape != (dim, dim) or not np.allclose(cov, cov.T):
        raise ValueError(
            f"prior option 'covariance' must be a scalar, a ({dim},) diagonal or a symmetric ({dim}, {dim}) matrix"
        )
    cholesky(cov[None], "prior covariance")
    return cov


def inverse_from_chol(chol: np.ndarray) -> np.ndarray:
    """``B^-1`` for every ``B = L L^T`` of a stack, from its Cholesky factors."""
    eye = np.eye(chol.shape[-1])
    return np.stack([cho_solve((c, True), eye) for c in chol])


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


#: Size (in float64 values) of the whitened block of rows computed at once: small enough to stay in cache.
WHITENED_BLOCK = 200_000
#: Size (in float64 values) of a block of packed outer products (rows x D(D+1)/2), and the largest
#: D for which they are used (beyond it a block of 64 rows would exceed it).
PACKED_BLOCK = 1 << 20
PACKED_MAX_DIM = 180


def mahalanobis(X: np.ndarray, chol: np.ndarray, means: np.ndarray | None = None) -> np.ndarray:
    """``||L_k^-1 (x_n - m_k)||^2`` for every item and component, shape (N, K).

    With ``W_k = L_k^-1``, ``W_k (x - m_k) = W_k x - W_k m_k``: one matrix product per block of rows
    whitens it for every component at once, and a kernel sums the squares (about twice as fast as
    one triangular solve per component).
    """
    n_comp, dim = chol.shape[0], chol.shape[1]
    eye = np.eye(dim)
    inverse = np.stack([solve_triangular(c, eye, lower=True, check_finite=False) for c in chol])
    stacked = np.ascontiguousarray(inverse.transpose(2, 0, 1).reshape(dim, n_comp * dim))
    shift = np.zeros((n_comp, dim)) if means is None else np.ascontiguousarray(np.einsum("kde,ke->kd", inverse, means))
    out = np.empty((X.shape[0], n_comp))
    rows = max(16, WHITENED_BLOCK // (n_comp * dim))
    for start in range(0, X.shape[0], rows):
        blockwise_squared_norms(np.asarray(X[start:start + rows]) @ stacked, shift, out, start)
    return out


def student_t_logpdf(maha: np.ndarray, dof: np.ndarray, logdet_shape: np.ndarray, dim: int) -> np.ndarray:
    """Multivariate Student-t log density given Mahalanobis distances w.r.t. its shape matrix."""
    return (
        gammaln((dof + dim) / 2.0) - gammaln(dof / 2.0) - 0.5 * dim * np.log(dof * np.pi) - 0.5 * logdet_shape
        - 0.5 * (dof + dim) * np.log1p(maha / dof)
    )


def weighted_outer_sums(X: np.ndarray, resp: np.ndarray) -> np.ndarray:
    """``sum_n r_nk x_n x_n^T`` for every component, shape (K, D, D).

    Dense ``resp``: each block of rows has its outer products packed (upper triangles,
    :func:`~stickbreak.kernels.gauss.packed_outer_products`) and one matrix product
    ``resp_block^T @ packed`` adds them to every component's sum at once: 4x faster than a
    symmetric rank-k update per component on Fashion-MNIST PCA-50 with K = 50
    (``benchmarks/mixture_kernels.py``). Above ``PACKED_MAX_DIM`` features the packed rows would not
    fit a cache-sized block, and one update ``Y^T Y`` with ``Y = sqrt(r_k) X`` per component is used.
    L-sparse ``resp`` (CSR) goes to a kernel that touches only the non-zeros, O(N L D^2) instead of
    O(N K D^2) (Hughes 2016, Sec. 7.1).
    """
    if sparse_resp.is_sparse(resp):
        values, indices = sparse_resp.top_l_parts(resp)
        return sparse_weighted_outer_sums(np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(values),
                                          np.ascontiguousarray(indices), resp.shape[1])
    n_items, dim = X.shape
    out = np.empty((resp.shape[1], dim, dim))
    if dim > PACKED_MAX_DIM:
        root = np.sqrt(resp)
        for k in range(resp.shape[1]):
            weighted = X * root[:, k:k + 1]
            out[k] = weighted.T @ weighted
        return out
    first, second = np.triu_indices(dim)  # the (i, j), i <= j, of each packed column
    rows = max(64, PACKED_BLOCK // len(first))
    packed = np.empty((min(rows, n_items), len(first)))
    sums = np.zeros((resp.shape[1], len(first)))
    X = np.ascontiguousarray(X, dtype=float)
    for start in range(0, n_items, rows):
        block = packed[: min(rows, n_items - start)]
        packed_outer_products(X[start:start + rows], block)
        sums += resp[start:start + rows].T @ block
    out[:, first, second] = sums
    out[:, second, first] = sums
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


def draw_gaussian(means, covariances, states: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One frame per state ``x_t ~ N(means[z_t], covariances[z_t])`` (K, D, D), vectorised over frames."""
    factors = np.linalg.cholesky(covariances)
    noise = rng.standard_normal((len(states), covariances.shape[-1]))
    return means[states] + np.einsum("tij,tj->ti", factors[states], noise)
