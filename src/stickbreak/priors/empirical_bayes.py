"""Empirical-Bayes concentrations: the value that maximises the ELBO's prior term given ``q``.

For a Beta(a, gamma) stick prior and a symmetric Dirichlet(alpha) both objectives are concave in
the concentration ``c`` (log-Gamma differences plus a term linear in ``c``), so the stationary point
is unique; it is found by Newton's method on ``log c`` (safeguarded by bisection). Alternating
this update with the closed-form update of ``q`` is coordinate ascent on the same ELBO, so it
never lowers it (Hughes 2016, §4.4, sets the DP concentration this way).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, polygamma

#: Relative change of the concentration at which the alternation with ``q`` stops.
TOLERANCE = 1e-10
MAX_ROUNDS = 100
LOWEST, HIGHEST = 1e-8, 1e8
BOUNDS = (LOWEST, HIGHEST)
#: Relative change at which concentrations alternated with an iterative ``q`` step count as settled.
SETTLED = 1e-6


def alternate(posterior, optimum, start: float, learn: bool):
    """``posterior(c)`` (the closed-form ``q`` at concentration ``c``), alternated with ``c =
    optimum(q, c)`` to their joint optimum when ``learn``; just ``posterior(start)`` otherwise."""
    c = start
    for _ in range(MAX_ROUNDS if learn else 0):
        updated = optimum(posterior(c), c)
        if abs(updated - c) <= TOLERANCE * c:
            break
        c = updated
    return posterior(c)


def solve(gradient, curvature, start: float) -> float:
    """The root of a decreasing ``gradient(c)`` (``curvature`` its derivative) in [LOWEST, HIGHEST]."""
    low, high, c = LOWEST, HIGHEST, float(np.clip(start, LOWEST, HIGHEST))
    for _ in range(MAX_ROUNDS):
        g = gradient(c)
        if g > 0:
            low = c
        else:
            high = c
        # Newton on log c: d g / d log c = c g'(c)
        slope = curvature(c)
        step = -g / (c * slope) if slope < 0 else 0.0
        candidate = c * np.exp(np.clip(step, -2.0, 2.0))
        if not low < candidate < high:
            candidate = np.sqrt(low * high)
        if abs(candidate - c) <= TOLERANCE * c:
            return float(candidate)
        c = candidate
    return float(c)


def stick_concentration(stick_a: float, log_rest: np.ndarray, start: float) -> float:
    """``argmax_c sum_k E log Beta(u_k | a, c)`` given ``E log(1 - u_k)`` (``log_rest``):
    ``K (psi(a + c) - psi(c)) + sum_k E log(1 - u_k) = 0`` (``c = -K / sum`` when ``a = 1``)."""
    n, total = len(log_rest), float(np.sum(log_rest))
    return solve(lambda c: n * (digamma(stick_a + c) - digamma(c)) + total,
                 lambda c: n * (polygamma(1, stick_a + c) - polygamma(1, c)), start)


def dirichlet_concentration(expected_log_weights: np.ndarray, start: float) -> float:
    """``argmax_alpha E log Dir(pi | alpha, ..., alpha)`` given ``E log pi_k``:
    ``K (psi(K alpha) - psi(alpha)) + sum_k E log pi_k = 0``."""
    n, total = len(expected_log_weights), float(np.sum(expected_log_weights))
    return solve(lambda a: n * (digamma(n * a) - digamma(a)) + total,
                 lambda a: n * (n * polygamma(1, n * a) - polygamma(1, a)), start)
