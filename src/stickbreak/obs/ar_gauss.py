"""First-order autoregressive Gaussian likelihood with a matrix-Normal-Wishart prior (bnpy ``AutoRegGauss``).

Items are frames ``x`` (D,) with their predecessors ``xp`` (E,) (:class:`~stickbreak.data.LaggedData`);
component k says ``x | xp ~ N(A_k xp, Lambda_k^-1)`` (Hughes 2016, §6; digest ``thesis_ch5-7.md``
§3.8). Prior: ``Lambda_k ~ Wishart(nu, B^-1)`` and ``A_k | Lambda_k ~ MatrixNormal(M, Lambda_k^-1, V)``
(row covariance ``Lambda^-1``, column covariance ``V`` (E, E)), i.e.
``p(A | Lambda) ∝ |Lambda|^(E/2) exp(-1/2 tr[(A-M) V^-1 (A-M)^T Lambda])``.
Natural coordinates (see :mod:`.expfam`):

=============  ========================  ==========================  ==========
key            natural parameter         ``t(phi)``                  statistic
=============  ========================  ==========================  ==========
``nu``         ``nu``                    ``1/2 log|Lambda|``          ``N``
``prec_pred``  ``V^-1`` (E, E)           ``-1/2 A^T Lambda A``        ``xpxpT``
``cross``      ``M V^-1`` (D, E)         ``Lambda A``                 ``xxpT``
``scatter``    ``B + M V^-1 M^T``        ``-1/2 Lambda``              ``xxT``
=============  ========================  ==========================  ==========

so ``eta_hat = eta_bar + inc(S)`` is the usual update ``nu + N``, ``V_hat^-1 = V^-1 + xpxpT``,
``M_hat = (M V^-1 + xxpT) V_hat``, ``B_hat = B + xxT + M V^-1 M^T - M_hat V_hat^-1 M_hat^T``, and the
log-normalizer is ``c = -DE/2 log(2 pi) + D/2 log|V^-1| + c_Wishart(nu, B)`` (the Wishart part as in
:mod:`.gauss`; the base measure ``g`` holds ``(E-D-1)/2 log|Lambda|``).

The model has no intercept, so the statistics are raw moments (no ``origin`` shift as in
:mod:`.gauss`): centre data that lie far from zero relative to their noise, or ``B_hat`` (a
difference of large moments) loses digits.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from ..data import DataError, LaggedData, Sequences
from . import gaussian_common as G
from .expfam import Natural

name = "ar_gauss"
natural_keys = ("nu", "prec_pred", "cross", "scatter")
stat_keys = ("xxT", "xxpT", "xpxpT")
prior_options = ("covariance", "dof", "coef_mean", "coef_precision")

#: Default prior guess of a component's noise covariance, as a fraction of the per-feature mean
#: square of the residuals of one least-squares AR fit to all items.
DEFAULT_RESIDUAL_FRACTION = 0.5

log_base = G.log_base


def frames_of(sequences) -> LaggedData:
    """The frames of :class:`~stickbreak.data.Sequences` with their predecessors (:func:`check_data`)."""
    return check_data(sequences)


def check_data(data, what: str = "X") -> LaggedData:
    """A :class:`LaggedData` as is; :class:`Sequences` as frames with their predecessors.

    The predecessors of sequences are their ``Xprev`` when they carry one, else the frame before
    (the first frame of each sequence is its own predecessor; see :meth:`LaggedData.from_sequences`).
    """
    if isinstance(data, LaggedData):
        return data
    if isinstance(data, Sequences):
        return LaggedData.from_sequences(data.X, data.offsets, getattr(data, "Xprev", None))
    raise DataError(
        f"{what} is a {type(data).__name__}: the AR Gaussian model needs each frame's predecessor: "
        "pass sequences (stickbreak.data.Sequences) or LaggedData(X, Xprev)"
    )


def _matrix_option(value, shape: tuple[int, int], name: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.shape != shape or not np.isfinite(arr).all():
        raise ValueError(f"prior option {name!r} must be a scalar or a finite {shape} matrix, got shape {arr.shape}")
    return arr


def _coef_precision(value, dim_prev: int) -> np.ndarray:
    """``V^-1`` from a scalar (times identity), a (E,) diagonal or a symmetric positive-definite (E, E) matrix."""
    arr = np.asarray(value, dtype=float)
    if arr.ndim < 2:
        diag = G.per_feature(arr, dim_prev, "coef_precision")
        if not (diag > 0).all():
            raise ValueError("prior option 'coef_precision' must be positive")
        return np.diag(diag)
    arr = _matrix_option(arr, (dim_prev, dim_prev), "coef_precision")
    if not np.allclose(arr, arr.T):
        raise ValueError("prior option 'coef_precision' must be symmetric")
    G.cholesky(arr[None], "prior coefficient precision 'coef_precision'")
    return arr


def _coef_mean(value, dim: int, dim_prev: int) -> np.ndarray:
    """``M``: zero by default, a scalar ``s`` gives ``s`` times the (D, E) identity, or a (D, E) matrix."""
    if value is None:
        return np.zeros((dim, dim_prev))
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        if not np.isfinite(arr):
            raise ValueError("prior option 'coef_mean' must be finite")
        return float(arr) * np.eye(dim, dim_prev)
    return _matrix_option(arr, (dim, dim_prev), "coef_mean")


def default_prior(data: LaggedData, covariance=None, dof=None, coef_mean=None, coef_precision=None) -> Natural:
    """Matrix-Normal-Wishart prior.

    ``covariance`` is the prior guess of a component's noise covariance ``E[Lambda]^-1`` (as in
    :mod:`.gauss`, so ``B = dof * covariance``): a scalar (times identity), a (D,) diagonal or a
    (D, D) matrix. By default it is 0.5 x the per-feature mean square of the residuals
    ``x - A_ls xp`` of a single least-squares AR fit to all items (for smooth sequences this is
    about the first-difference variance bnpy's mocap settings use, and far below the variance of
    ``x``). ``dof`` defaults to D + 2. ``coef_mean`` is ``M`` (default 0; a scalar s gives
    ``s * eye(D, E)``, bnpy's ``MMat='eye'``). ``coef_precision`` is ``V^-1``, the prior precision of
    the coefficients in units of the noise precision (bnpy's ``sV``, which bnpy adds to ``xpxpT``):
    a scalar (times identity), a (E,) diagonal or an (E, E) matrix.

    Units: ``coef_precision`` is added to the predecessors' scatter ``sum xp xp^T``, so a value given
    is in the units of ``xp`` squared (data scaled by ``c`` need it scaled by ``c**2`` for the same
    fit). The default is the per-feature mean square of ``xp``: the prior weighs as much as one
    average frame, whatever the data's units, so the default prior is scale-invariant.
    """
    X, Xprev = data.X, data.Xprev
    dim, dim_prev = X.shape[1], Xprev.shape[1]
    nu = float(dim + 2) if dof is None else float(dof)
    if not nu > dim - 1:
        raise ValueError(f"prior option 'dof' must exceed n_features - 1 = {dim - 1}, got {nu}")
    mean = _coef_mean(coef_mean, dim, dim_prev)
    if coef_precision is None:
        mean_square = np.mean(Xprev ** 2, axis=0)
        coef_precision = np.where(mean_square > 0, mean_square, 1.0)  # a feature that is always 0: 1.0
    prec = _coef_precision(coef_precision, dim_prev)
    scale = np.ones(dim)  # only read when covariance is None
    if covariance is None:
        coefs = np.linalg.lstsq(Xprev, X, rcond=None)[0]
        scale = np.mean((X - Xprev @ coefs) ** 2, axis=0)
    B = nu * G.prior_covariance(covariance, scale, DEFAULT_RESIDUAL_FRACTION)
    cross = mean @ prec
    return {"nu": np.array(nu), "prec_pred": prec, "cross": cross, "scatter": B + cross @ mean.T}


def suff_stats(data: LaggedData, resp: np.ndarray, prior: Natural) -> dict[str, np.ndarray]:
    """``xxT``, ``xxpT`` and ``xpxpT`` as blocks of the weighted outer sums of ``[x, xp]``."""
    dim = data.n_features
    joint = G.weighted_outer_sums(np.hstack([data.X, data.Xprev]), resp)
    return {
        "xxT": np.ascontiguousarray(joint[:, :dim, :dim]),
        "xxpT": np.ascontiguousarray(joint[:, :dim, dim:]),
        "xpxpT": np.ascontiguousarray(joint[:, dim:, dim:]),
    }


def stats_to_natural(stats) -> Natural:
    return {"nu": stats["N"], "prec_pred": stats["xpxpT"], "cross": stats["xxpT"], "scatter": stats["xxT"]}


def _symmetric(S: np.ndarray) -> np.ndarray:
    return 0.5 * (S + np.swapaxes(S, 1, 2))


def common_params(nat: Natural):
    """``(nu, M, V, chol(V^-1), B, chol(B))`` with a leading K axis."""
    prec = _symmetric(nat["prec_pred"])
    chol_prec = G.cholesky(prec, "posterior coefficient precision")
    col_cov = G.inverse_from_chol(chol_prec)
    mean = nat["cross"] @ col_cov
    scale = _symmetric(nat["scatter"] - mean @ np.swapaxes(nat["cross"], 1, 2))
    return nat["nu"], mean, col_cov, chol_prec, scale, G.cholesky(scale, "posterior scale matrix")


def residual_mahalanobis(X: np.ndarray, Xprev: np.ndarray, coefs: np.ndarray, chol: np.ndarray) -> np.ndarray:
    """``||L_k^-1 (x_n - A_k xp_n)||^2`` for every item and component, shape (N, K).

    One product per component: ``L_k^-1 [I, -A_k]`` applied to the stacked rows ``[x, xp]``.
    """
    joint = np.hstack([X, Xprev])
    eye = np.eye(X.shape[1])
    out = np.empty((X.shape[0], len(chol)))
    for k, (c, a) in enumerate(zip(chol, coefs)):
        whiten = solve_triangular(c, np.hstack([eye, -a]), lower=True, check_finite=False)
        proj = joint @ whiten.T
        out[:, k] = np.einsum("nd,nd->n", proj, proj)
    return out


def log_normalizer(nat: Natural) -> np.ndarray:
    nu, mean, _, chol_prec, _, chol = common_params(nat)
    dim, dim_prev = mean.shape[1], mean.shape[2]
    return (
        -0.5 * dim * dim_prev * G.LOG_2PI + 0.5 * dim * G.logdet_from_chol(chol_prec)
        + G.wishart_log_normalizer(nu, G.logdet_from_chol(chol), dim)
    )


def expected_t(nat: Natural) -> Natural:
    """``E t``: ``1/2 E log|Lambda|``, ``-1/2 E[A^T Lambda A] = -1/2 (D V + M^T E[Lambda] M)``,
    ``E[Lambda A] = E[Lambda] M`` and ``-1/2 E[Lambda]`` with ``E[Lambda] = nu B^-1``."""
    nu, mean, col_cov, _, _, chol = common_params(nat)
    dim = mean.shape[1]
    precision = nu[:, None, None] * G.inverse_from_chol(chol)  # E[Lambda]
    prec_mean = precision @ mean
    return {
        "nu": 0.5 * G.expected_logdet_precision(nu, G.logdet_from_chol(chol), dim),
        "prec_pred": -0.5 * (dim * col_cov + np.swapaxes(mean, 1, 2) @ prec_mean),
        "cross": prec_mean,
        "scatter": -0.5 * precision,
    }


def expected_loglik(nat: Natural, data: LaggedData) -> np.ndarray:
    """``E_q log N(x_n | A_k xp_n, Lambda_k^-1)``, shape (N, K).

    ``= -D/2 log 2pi + 1/2 E log|Lambda| - 1/2 [nu r^T B^-1 r + D xp^T V xp]`` with ``r = x - M xp``.
    """
    nu, mean, _, chol_prec, _, chol = common_params(nat)
    dim = data.n_features
    e_logdet = G.expected_logdet_precision(nu, G.logdet_from_chol(chol), dim)
    maha = nu * residual_mahalanobis(data.X, data.Xprev, mean, chol) + dim * G.mahalanobis(data.Xprev, chol_prec)
    return -0.5 * dim * G.LOG_2PI + 0.5 * e_logdet - 0.5 * maha


def log_predictive(nat: Natural, data: LaggedData) -> np.ndarray:
    """Posterior predictive of ``x`` given ``xp``: Student-t with ``nu-D+1`` dof, location ``M xp``
    and shape ``B (1 + xp^T V xp) / dof`` (equals ``c(eta) - c(eta + inc(s(x))) + log h(x)``)."""
    nu, mean, _, chol_prec, _, chol = common_params(nat)
    dim = data.n_features
    dof = nu - dim + 1.0
    factor = (1.0 + G.mahalanobis(data.Xprev, chol_prec)) / dof
    maha = residual_mahalanobis(data.X, data.Xprev, mean, chol) / factor
    logdet_shape = G.logdet_from_chol(chol) + dim * np.log(factor)
    return G.student_t_logpdf(maha, dof, logdet_shape, dim)


def bregman_divergence(data: LaggedData, prior: Natural, centers: Natural) -> np.ndarray:
    """Divergence of prior-smoothed items from each center, shape (N, K) (Hughes 2016, Alg. 2.2).

    Each item's smoothed point estimate is the posterior after the prior and that one item:
    with prior residual ``r = x - M xp`` and ``s = 1 / (1 + xp^T V xp)``, its noise covariance is
    ``(B + s r r^T) / (nu + 1)`` and its mean prediction ``E[A] xp = x - s r``. The divergence is the
    KL divergence between the conditional Gaussians of ``x`` given the item's own ``xp``:
    ``KL(N(x - s r, (B + s r r^T)/(nu+1)) || N(M_k xp, B_k / nu_k))`` -- the covariance part as in
    :mod:`.gauss` plus ``nu_k/2`` times the squared residual of the item's mean under ``B_k``.
    It is zero at the item's own center, nonnegative, and O(N K D (D + E)).
    """
    p_nu, p_mean, _, p_chol_prec, p_scale, _ = common_params({k: v[None] for k, v in prior.items()})
    nu, mean, _, _, _, chol = common_params(centers)
    residuals = data.X - data.Xprev @ p_mean[0].T
    shrink = 1.0 / (1.0 + G.mahalanobis(data.Xprev, p_chol_prec)[:, 0])
    covariance_part = G.kl_smoothed_items_to_centers(
        residuals * np.sqrt(shrink)[:, None], 1.0, None, p_scale[0], float(p_nu[0]), chol, nu, None
    )
    item_means = data.X - shrink[:, None] * residuals
    return covariance_part + 0.5 * nu[None, :] * residual_mahalanobis(item_means, data.Xprev, mean, chol)


def summary(nat: Natural) -> dict[str, np.ndarray]:
    """Posterior mean coefficients ``E[A] = M_hat`` (K, D, E) and covariances ``E[Lambda]^-1 = B / nu`` (K, D, D)."""
    nu, mean, _, _, scale, _ = common_params(nat)
    return {"coefs": mean, "covariances": scale / nu[:, None, None]}


def draw(nat: Natural, states: np.ndarray, rng: np.random.Generator, prev0=None) -> np.ndarray:
    """Frames ``x_t = E[A_k] x_{t-1} + e_t``, ``e_t ~ N(0, E[Lambda_k]^-1)`` for the states ``z_t``,
    starting from the predecessor ``prev0`` (default zeros). Sequential in t (each frame feeds the
    next); the noise is drawn for all frames at once."""
    found = summary(nat)
    coefs, factors = found["coefs"], np.linalg.cholesky(found["covariances"])
    noise = np.einsum("tij,tj->ti", factors[states], rng.standard_normal((len(states), coefs.shape[1])))
    frames = np.empty_like(noise)
    prev = np.zeros(coefs.shape[2]) if prev0 is None else np.asarray(prev0, dtype=float)
    for t, k in enumerate(states):
        prev = frames[t] = coefs[k] @ prev + noise[t]
    return frames
