"""DILN's top level: point-mass sticks ``V``, concentrations ``alpha`` and ``beta`` (Paisley, Wang &
Blei 2012, §4.1, Eqs. 26, 28, 29, 38-39, with the digest's corrections, ``research/diln.md`` §3).

The documents enter through their Gamma terms ``G(s)``, a function of the shapes ``s_k = beta p_k(V) +
SHAPE_FLOOR`` (:class:`FixedGammas` or :class:`ProfiledGammas`), and the part of the ELBO that depends
on ``V``, ``alpha`` and ``beta`` is

    J = G(s) + sum_{k<T} [log alpha + (alpha - 1) log(1 - V_k)]
        + log Gamma(alpha; tau1, tau2) + log Gamma(beta; kappa1, kappa2)

``FixedGammas`` is the paper's update (Eqs. 26, 29): the documents' ``q(Z_mk) = Gamma(a, b)`` held fixed,
``G(s) = sum_k [s_k A_k - M lgamma(s_k)]`` with ``A_k = sum_m (E log Z_mk - l_k'u_m)``. Then ``beta``
barely moves per lap: every unused topic's ``E log Z_mk = psi(beta_old p_k) - log b`` pulls ``psi(beta
p_k)`` back to ``psi(beta_old p_k)``, so on 20newsgroups the HDP ended at beta = 1.9 from 1 and 7.0 from
20 (``benchmarks/diln_beta.py``). ``ProfiledGammas`` maximises the ELBO over ``(V, beta)`` and every
``q(Z_mk)`` together: the best ``a = s + N_mk``, ``b = B_mk = N_m / xi_m + exp(-l_k'u_m)`` (ours; see
:mod:`stickbreak.models.diln.documents`), leaving

    G(s) = sum_m w_m sum_k [lgamma(s_k + N_mk) - lgamma(s_k) - s_k log(1 + (N_m / xi_m) exp(l_k'u_m))],

a Polya (Dirichlet-multinomial-like) likelihood of the shapes, concave in ``beta``.

``SHAPE_FLOOR`` (ours) keeps ``psi(s_k)`` finite when ``p_k`` underflows for unused topics; it is a
smooth shift, so the gradients stay exact.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize
from scipy.special import digamma, gammaln, polygamma

from .top_sticks import stick_weights

#: Added to every Gamma shape ``beta p_k`` (see the module docstring).
SHAPE_FLOOR = 1e-6
#: ``V_k`` is kept in ``[V_EPS, 1 - V_EPS]``.
V_EPS = 1e-10
#: Counts below this (1e-4 of the smallest shape) enter :class:`ProfiledGammas` by the Taylor series of
#: ``lgamma(s + N) - lgamma(s)`` in ``N`` to third order (relative error below 1e-16).
TINY_COUNT = 1e-4 * SHAPE_FLOOR


@dataclass(frozen=True)
class FixedGammas:
    """``G(s) = s'A - M sum lgamma(s)``: the documents' Gamma factors held fixed (the paper's update)."""

    doc_terms: np.ndarray
    n_docs: float

    def value(self, s: np.ndarray) -> float:
        return float(s @ self.doc_terms - self.n_docs * gammaln(s).sum())

    def slope(self, s: np.ndarray) -> np.ndarray:
        """``dG/ds`` (T,)."""
        return self.doc_terms - self.n_docs * digamma(s)

    def curvature(self, s: np.ndarray) -> np.ndarray:
        """``d^2 G / ds^2`` (T,): ``G`` is separable in the shapes."""
        return -self.n_docs * polygamma(1, s)


class ProfiledGammas:
    """``G(s) = sum_m w_m sum_k [lgamma(s_k + N_mk) - lgamma(s_k) - s_k cost_mk]``: the documents' Gamma
    factors at their optimum for every ``s`` (module docstring). ``counts`` ``N`` (M, T), ``cost`` (M, T),
    ``weight`` ``w`` (M,) (1, or SVI's ``M / |B|``). Counts of at least ``TINY_COUNT`` are kept as exact
    (topic, count, weight) triplets; the rest enter through three weighted moments per topic."""

    def __init__(self, counts: np.ndarray, cost: np.ndarray, weight: np.ndarray):
        counts, weight = np.asarray(counts, dtype=float), np.asarray(weight, dtype=float)
        self.n_topics, self.n_docs = counts.shape[1], float(weight.sum())
        big = counts >= TINY_COUNT
        rows, self.topic = np.nonzero(big)
        self.count, self.weight = counts[rows, self.topic], weight[rows]
        small = np.where(big, 0.0, counts)
        self.moments = [weight @ small**j / np.prod(np.arange(1, j + 1)) for j in (1, 2, 3)]
        self.cost = weight @ np.asarray(cost, dtype=float)

    def _exact(self, function, s):
        at = s[self.topic]
        return np.bincount(self.topic, self.weight * (function(at + self.count) - function(at)), self.n_topics)

    def value(self, s: np.ndarray) -> float:
        series = sum(m * polygamma(j, s) for j, m in enumerate(self.moments))
        return float((self._exact(gammaln, s) + series - s * self.cost).sum())

    def slope(self, s: np.ndarray) -> np.ndarray:
        series = sum(m * polygamma(j + 1, s) for j, m in enumerate(self.moments))
        return self._exact(digamma, s) + series - self.cost

    def curvature(self, s: np.ndarray) -> np.ndarray:
        series = sum(m * polygamma(j + 2, s) for j, m in enumerate(self.moments))
        return self._exact(lambda z: polygamma(1, z), s) + series


def weights(sticks: np.ndarray) -> np.ndarray:
    """``p_k = V_k prod_{l<k} (1 - V_l)`` for ``k < T`` and ``p_T = prod_{l<T} (1 - V_l)`` (``V_T := 1``)."""
    head, rest = stick_weights(np.asarray(sticks, dtype=float))
    return np.append(head, rest)


def uniform_sticks(n_topics: int) -> np.ndarray:
    """``V_k = 1 / (T - k + 1)``: equal weights ``p_k = 1 / T`` (the paper's start, §5.2)."""
    return 1.0 / (n_topics - np.arange(n_topics - 1))


def shapes(beta: float, sticks: np.ndarray) -> np.ndarray:
    """The document Gamma shapes ``s_k = beta p_k + SHAPE_FLOOR``."""
    return beta * weights(sticks) + SHAPE_FLOOR


def _jacobian(sticks: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``D[j, k] = d p_j / d V_k``: ``prod_{l<k}(1 - V_l)`` for ``j = k``, ``-p_j / (1 - V_k)`` for ``j > k``."""
    n = len(p)
    before = np.concatenate([[1.0], np.cumprod(1.0 - sticks)[:-1]])
    jac = np.where(np.arange(n)[:, None] > np.arange(n - 1)[None, :], -p[:, None] / (1.0 - sticks)[None, :], 0.0)
    jac[np.arange(n - 1), np.arange(n - 1)] = before
    return jac


def log_gamma_density(x: float, shape: float, rate: float) -> float:
    return float(shape * np.log(rate) - gammaln(shape) + (shape - 1.0) * np.log(x) - rate * x)


def stick_objective(sticks, alpha, beta, gammas) -> float:
    """The ``V``-dependent part of ``J``: ``G(s) + (alpha - 1) sum log(1 - V)``."""
    return float(gammas.value(shapes(beta, sticks)) + (alpha - 1.0) * np.log1p(-sticks).sum())


def stick_gradient(sticks, alpha, beta, gammas) -> np.ndarray:
    """Exact ``dJ/dV_k = -(alpha - 1)/(1 - V_k) + sum_j g_j dp_j/dV_k``, ``g_j = beta G'(s_j)`` (for fixed
    Gammas ``G' = A_j - M psi(s_j)``; digest §3: the printed Eq. 26 has a bracket that vanishes identically)."""
    p = weights(sticks)
    g = beta * gammas.slope(beta * p + SHAPE_FLOOR)
    return _jacobian(sticks, p).T @ g - (alpha - 1.0) / (1.0 - sticks)


def stick_hessian(sticks, alpha, beta, gammas) -> np.ndarray:
    """Exact ``d^2 J / dV dV'`` (the corrected Eqs. 38-39): ``D' diag(h) D`` with ``h_j = beta^2 G''(s_j)``
    (fixed Gammas: ``-M beta^2 psi'(s_j)``), plus, for ``r < k``, ``-[dJ_data/dV_k] / (1 - V_r)`` (``p`` is
    linear in each ``V_k``), plus the prior's ``-(alpha - 1)/(1 - V_k)^2`` on the diagonal."""
    p = weights(sticks)
    s = beta * p + SHAPE_FLOOR
    jac = _jacobian(sticks, p)
    g = beta * gammas.slope(s)
    h = beta**2 * gammas.curvature(s)
    data_grad = jac.T @ g
    cross = np.tril(-data_grad[:, None] / (1.0 - sticks)[None, :], k=-1)  # [k, r] for r < k
    return (jac.T * h) @ jac + cross + cross.T - np.diag((alpha - 1.0) / (1.0 - sticks) ** 2)


def optimize_sticks(sticks0, alpha, beta, gammas) -> np.ndarray:
    """Maximise the stick objective over ``V`` in ``[V_EPS, 1 - V_EPS]`` (L-BFGS-B with the exact
    gradient); returns ``sticks0`` unless the result is better, so the step never lowers the ELBO."""
    sticks0 = np.clip(np.asarray(sticks0, dtype=float), V_EPS, 1.0 - V_EPS)
    scale = 1.0 / max(gammas.n_docs, 1.0)

    def negative(v):
        value = stick_objective(v, alpha, beta, gammas)
        grad = stick_gradient(v, alpha, beta, gammas)
        if not np.isfinite(value) or not np.all(np.isfinite(grad)):
            return np.inf, np.zeros_like(v)
        return -value * scale, -grad * scale

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = minimize(negative, sticks0, jac=True, method="L-BFGS-B",
                          bounds=[(V_EPS, 1.0 - V_EPS)] * len(sticks0), options={"maxiter": 500})
    better = np.isfinite(result.fun) and result.fun <= negative(sticks0)[0]
    return np.clip(result.x, V_EPS, 1.0 - V_EPS) if better else sticks0


def newton_sticks(sticks, alpha, beta, gammas) -> np.ndarray:
    """``V + A grad``, ``A`` the inverse negative Hessian made positive definite (eigenvalues floored at
    1e-8 of the largest): the Newton target of a stochastic step (Alg. 2, Eqs. 34, 38-39); clipped."""
    grad = stick_gradient(sticks, alpha, beta, gammas)
    values, vectors = np.linalg.eigh(-stick_hessian(sticks, alpha, beta, gammas))
    values = np.maximum(np.abs(values), 1e-8 * np.max(np.abs(values)) + 1e-300)
    step = vectors @ ((vectors.T @ grad) / values)
    return np.clip(sticks + step, V_EPS, 1.0 - V_EPS)


def optimal_alpha(sticks, tau1: float, tau2: float) -> float:
    """Eq. 28: ``alpha = (T + tau1 - 2) / (tau2 - sum_{k<T} log(1 - V_k))``."""
    return float((len(sticks) + 1 + tau1 - 2.0) / (tau2 - np.log1p(-np.asarray(sticks)).sum()))


def beta_derivative(beta, sticks, gammas, kappa1, kappa2) -> float:
    """Eq. 29 with the corrected prior sign: ``sum_k p_k G'(s_k) + (kappa1 - 1)/beta - kappa2``."""
    p = weights(sticks)
    return float(p @ gammas.slope(beta * p + SHAPE_FLOOR) + (kappa1 - 1.0) / beta - kappa2)


def optimize_beta(beta0, sticks, gammas, kappa1, kappa2) -> float:
    """The root of :func:`beta_derivative` (``J`` is concave in ``beta`` for ``kappa1 >= 1``), bracketed
    by doubling/halving from ``beta0`` and found by Brent's method in ``log beta``."""
    def slope(log_beta):
        return beta_derivative(np.exp(log_beta), sticks, gammas, kappa1, kappa2)

    low = high = np.log(beta0)
    for _ in range(200):
        if slope(high) <= 0:
            break
        high += np.log(2.0)
    for _ in range(200):
        if slope(low) >= 0:
            break
        low -= np.log(2.0)
    if slope(high) > 0 or slope(low) < 0:
        return float(beta0)
    if low == high:
        return float(np.exp(low))
    return float(np.exp(brentq(slope, low, high, xtol=1e-12)))
