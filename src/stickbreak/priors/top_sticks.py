"""The top-level sticks ``q(u_k) = Beta(rho_k omega_k, (1 - rho_k) omega_k)`` shared by the HDP
topic model and the (sticky) HDP-HMM (Hughes 2016, Eq. 5.25, 5.34-5.39, 6.28-6.47).

Both models bound ``E c_Dir(.)`` of every group-level Dirichlet below (Eq. 5.23, 6.30), which
leaves, as the part of the ELBO that depends on ``u``,

    f(rho) = sum_k [c_B(1, gamma) - c_B(a_k, b_k)]
             + sum_k (on_k + 1 - a_k) E log u_k + sum_k (off_k + gamma - b_k) E log(1 - u_k)
             + sum_k pi^G_k(rho) w_k + pi^G_>K(rho) w_>K,           a = rho omega, b = (1 - rho) omega.

Only the pseudo-counts ``on``/``off`` (how many ``E log u_k`` / ``E log(1 - u_k)`` the bounds
produce) and the weights ``w`` (``alpha x`` the summed ``E log pi_jk`` of the groups) differ:

==============  ======================  ==============================
model           ``on_k``                ``off_k``
==============  ======================  ==============================
HDP topics      ``D``                   ``D (K + 1 - k)``
HDP-HMM         ``K + 1``               ``(K + 1)(K + 1 - k)``
sticky HDP-HMM  ``K``                   ``K (K + 1 - k) + 1`` (corrected)
==============  ======================  ==============================
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import fmin_l_bfgs_b, minimize_scalar
from scipy.special import digamma, expit, gammaln, logit, polygamma

from ..kernels.sticks import minimize_sticks, negative_objective

#: ``rho`` is kept in ``[RHO_EPS, 1 - RHO_EPS]`` (bnpy clips the same way).
RHO_EPS = 1e-8
#: L-BFGS ``factr`` values tried in turn until one succeeds (bnpy ``OptimizerRhoOmega``).
FACTR_LADDER = (1e4, 1e6, 1e8, 1e10, 1e12)
#: The searches' gradient tolerance (SciPy's ``pgtol`` default) and step limit.
PGTOL, MAX_ITER = 1e-5, 500
#: The compiled search's gradient tolerance: tighter than SciPy's, as its steps cost microseconds, so that two
#: nearly equal problems (a merge and its brute-force twin) reach the same optimum to ~1e-12.
COMPILED_GTOL = 1e-9
#: Where an empirical-Bayes ``gamma`` is searched.
GAMMA_RANGE = (1e-3, 1e4)


def stick_weights(rho: np.ndarray) -> tuple[np.ndarray, float]:
    """``E[pi^G_k] = rho_k prod_{l<k} (1 - rho_l)`` and the leftover ``prod_l (1 - rho_l)``."""
    rest = np.cumprod(1.0 - rho)
    before = np.concatenate([[1.0], rest[:-1]])
    return rho * before, float(rest[-1]) if len(rest) else 1.0


def rho_from_weights(beta: np.ndarray) -> np.ndarray:
    """Inverse of :func:`stick_weights`: ``rho_k = pi_k / (1 - sum_{l<k} pi_l)``, clipped."""
    remaining = 1.0 - np.concatenate([[0.0], np.cumsum(beta)[:-1]])
    return np.clip(beta / np.maximum(remaining, RHO_EPS), RHO_EPS, 1.0 - RHO_EPS)


def heuristic_omega(on: np.ndarray, off: np.ndarray, gamma: float) -> np.ndarray:
    """``omega_k = on_k + off_k + 1 + gamma`` (Eq. 5.39 / 6.44 with the corrected counts)."""
    return on + off + 1.0 + gamma


def heuristic_rho(on: np.ndarray, off: np.ndarray, gamma: float) -> np.ndarray:
    """``(on_k + 1) / (on_k + 1 + off_k + gamma)`` (bnpy ``make_initrho``)."""
    return (on + 1.0) / (on + 1.0 + off + gamma)


def _log_beta_normalizer(a, b):
    return gammaln(a + b) - gammaln(a) - gammaln(b)


def beta_terms(gamma: float, rho, omega, on, off) -> float:
    """``sum_k [c_B(1,gamma) - c_B(a,b)] + (on+1-a) E log u + (off+gamma-b) E log(1-u)``."""
    a, b = rho * omega, (1.0 - rho) * omega
    log_u, log_rest = digamma(a) - digamma(omega), digamma(b) - digamma(omega)
    return float(np.sum(_log_beta_normalizer(1.0, gamma) - _log_beta_normalizer(a, b)
                        + (on + 1.0 - a) * log_u + (off + gamma - b) * log_rest))


def learned_gamma(rho, on, off, start: float) -> float:
    """Empirical-Bayes ``gamma``: the maximiser over ``gamma`` of :func:`beta_terms` at fixed
    ``rho``, with ``omega`` following its heuristic (:func:`heuristic_omega`), so the value returned
    never scores below ``start`` (bounded 1-D search on ``log gamma``)."""
    def negative(log_gamma):
        gamma = float(np.exp(log_gamma))
        return -beta_terms(gamma, rho, heuristic_omega(on, off, gamma), on, off)

    found = minimize_scalar(negative, bounds=(np.log(GAMMA_RANGE[0]), np.log(GAMMA_RANGE[1])), method="bounded",
                            options={"xatol": 1e-6})
    return float(np.exp(found.x)) if found.fun < negative(np.log(start)) else float(start)


def objective(gamma: float, rho, omega, on, off, weights, weight_rest) -> float:
    """``f(rho)`` above."""
    beta, rest = stick_weights(rho)
    return beta_terms(gamma, rho, omega, on, off) + float(beta @ weights + rest * weight_rest)


def gradient(gamma: float, rho, omega, on, off, weights, weight_rest) -> np.ndarray:
    """``d f / d rho`` (digest ``thesis_ch5-7.md`` §1.4; finite differences in the tests)."""
    a, b = rho * omega, (1.0 - rho) * omega
    grad = omega * ((on + 1.0 - a) * polygamma(1, a) - (off + gamma - b) * polygamma(1, b))
    beta, rest = stick_weights(rho)
    before = np.concatenate([[1.0], np.cumprod(1.0 - rho)[:-1]])
    weighted = beta * weights
    later = np.concatenate([np.cumsum(weighted[::-1])[::-1][1:], [0.0]])  # sum_{k>j} w_k pi^G_k
    return grad + weights * before - (later + weight_rest * rest) / (1.0 - rho)


def optimize(gamma: float, rho0, omega, on, off, weights, weight_rest, scale: float) -> np.ndarray:
    """Maximise :func:`objective` over ``rho`` (L-BFGS on ``logit rho``, compiled:
    :func:`stickbreak.kernels.sticks.minimize_sticks`; SciPy's L-BFGS-B with its ``factr`` ladder
    if that does not improve on the start).

    ``scale`` (about one over the number of groups) keeps the objective near unit size. Returns
    ``rho0`` unchanged if no attempt improves on it, so the step never lowers the ELBO.
    """
    rho0 = np.clip(rho0, RHO_EPS, 1.0 - RHO_EPS)
    arrays = [np.ascontiguousarray(v, dtype=np.float64) for v in (omega, on, off, weights)]
    constants = (float(gamma), *arrays, float(weight_rest), float(scale), RHO_EPS)

    def negative(c):  # objective and gradient in one compiled pass (kernels/sticks.py)
        grad = np.empty(c.size)
        return negative_objective(np.ascontiguousarray(c, dtype=np.float64), *constants, grad), grad

    start = np.ascontiguousarray(logit(rho0))
    start_value = negative(start)[0]
    c, value = minimize_sticks(start, *constants, FACTR_LADDER[0] * np.finfo(float).eps,  # type: ignore[call-arg]
                               COMPILED_GTOL, MAX_ITER)  # (numba's Dispatcher stub hides the signature)
    if np.isfinite(value) and value <= start_value:
        return np.clip(expit(c), RHO_EPS, 1.0 - RHO_EPS)
    for factr in FACTR_LADDER:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            c, value, info = fmin_l_bfgs_b(negative, start, factr=factr, maxiter=MAX_ITER)
        if np.isfinite(value) and info["warnflag"] != 2:
            if value <= start_value:
                return np.clip(expit(c), RHO_EPS, 1.0 - RHO_EPS)
            break
    return rho0


def align(weights, old_uids, new_uids) -> dict[str, np.ndarray]:
    """The sticks re-indexed to ``new_uids``: kept components keep their ``E pi^G_k``, dropped ones'
    mass goes to the rest, new ones get a share of the rest (a start for the optimiser)."""
    if np.array_equal(old_uids, new_uids):
        return weights
    beta, _ = stick_weights(weights["rho"])
    by_uid = dict(zip(np.asarray(old_uids).tolist(), beta))
    aligned = np.array([by_uid.get(u, np.nan) for u in np.asarray(new_uids).tolist()])
    newborn = np.isnan(aligned)
    if newborn.any():  # newborns share half of what is left
        aligned[newborn] = (1.0 - np.sum(aligned[~newborn])) / (2.0 * np.count_nonzero(newborn))
    return {"rho": rho_from_weights(aligned), "omega": weights["omega"]}


def blend(old, target, step: float):
    """bnpy's stochastic step: blend the Beta parameters ``(rho omega, (1 - rho) omega)``."""
    eta1 = (1 - step) * old["rho"] * old["omega"] + step * target["rho"] * target["omega"]
    eta0 = (1 - step) * (1 - old["rho"]) * old["omega"] + step * (1 - target["rho"]) * target["omega"]
    return {"rho": eta1 / (eta1 + eta0), "omega": eta1 + eta0}
