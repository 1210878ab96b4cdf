"""The top-level sticks' objective and its gradient in one pass (Hughes 2016, Eq. 5.34-5.39,
6.40-6.47; :mod:`stickbreak.priors.top_sticks` holds the formulas and their NumPy form): what the
L-BFGS search on ``logit rho`` evaluates a few thousand times in a fit, so each evaluation costs
microseconds rather than a dozen NumPy and SciPy calls."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .special import digamma, trigamma


@njit(cache=True, nogil=True)
def negative_objective(c, gamma, omega, on, off, weights, weight_rest, scale, rho_eps, grad):
    """``-f(rho) scale`` at ``rho = clip(expit(c))`` and its gradient with respect to ``c`` (into
    ``grad``); ``f`` and ``d f / d rho`` as :func:`~stickbreak.priors.top_sticks.objective` and
    :func:`~stickbreak.priors.top_sticks.gradient`. ``inf`` (and a zero gradient) where either is
    not finite."""
    n = c.size
    rho, before = np.empty(n), np.empty(n)  # before[k] = prod_{l<k} (1 - rho_l)
    c_b1 = math.lgamma(1.0 + gamma) - math.lgamma(gamma)  # c_B(1, gamma)
    value, rest = 0.0, 1.0
    for k in range(n):
        rho[k] = min(max(1.0 / (1.0 + math.exp(-c[k])), rho_eps), 1.0 - rho_eps)
        a, b, w = rho[k] * omega[k], (1.0 - rho[k]) * omega[k], omega[k]
        log_u, log_rest = digamma(a) - digamma(w), digamma(b) - digamma(w)
        value += (c_b1 - (math.lgamma(w) - math.lgamma(a) - math.lgamma(b))
                  + (on[k] + 1.0 - a) * log_u + (off[k] + gamma - b) * log_rest)
        grad[k] = w * ((on[k] + 1.0 - a) * trigamma(a) - (off[k] + gamma - b) * trigamma(b)) + weights[k] * rest
        before[k] = rest
        value += rho[k] * rest * weights[k]
        rest *= 1.0 - rho[k]
    value += rest * weight_rest
    later = rest * weight_rest  # sum_{k>j} w_k pi^G_k + w_rest pi^G_>K, accumulated from the end
    finite = math.isfinite(value)
    for k in range(n - 1, -1, -1):
        grad[k] = -(grad[k] - later / (1.0 - rho[k])) * rho[k] * (1.0 - rho[k]) * scale
        later += weights[k] * rho[k] * before[k]
        finite = finite and math.isfinite(grad[k])
    if not finite:
        for k in range(n):
            grad[k] = 0.0
        return math.inf
    return -value * scale


#: Pairs of steps the L-BFGS search keeps (Nocedal & Wright 2006, Alg. 7.4-7.5).
HISTORY = 8
#: Armijo's sufficient-decrease constant and the backtracking factor of the line search.
ARMIJO, BACKTRACK = 1e-4, 0.5


@njit(cache=True, nogil=True)
def _largest_magnitude(x):
    """``max |x_i|`` as a loop (``np.max(np.abs(x))`` compiles a temporary array and a reduction)."""
    largest = 0.0
    for i in range(x.size):
        largest = max(largest, abs(x[i]))
    return largest


@njit(cache=True, nogil=True)
def _add_scaled(target, scale, x):
    """``target += scale x`` as a loop: an array expression assigned into a slice compiles numba's
    broadcasting and its shape error message, most of this module's first-use compilation."""
    for i in range(target.size):
        target[i] += scale * x[i]


@njit(cache=True, nogil=True)
def _difference_into(target, a, b):
    """``target[:] = a - b`` as a loop (see :func:`_add_scaled`)."""
    for i in range(target.size):
        target[i] = a[i] - b[i]


@njit(cache=True, nogil=True)
def minimize_sticks(c0, gamma, omega, on, off, weights, weight_rest, scale, rho_eps, ftol, gtol, max_iter):
    """Minimise :func:`negative_objective` over ``c`` from ``c0`` by L-BFGS (two-loop recursion,
    backtracking Armijo line search; Nocedal & Wright 2006, Alg. 7.4-7.5), stopping when the
    relative decrease of a step is at most ``ftol`` (scipy's ``factr * eps``), the largest gradient
    entry at most ``gtol`` or after ``max_iter`` steps. Returns ``(c, value)``; ``value`` is
    ``inf`` when the start is not finite. The vector updates are loops (:func:`_add_scaled`); the
    inner products stay ``np.dot`` (BLAS, whose summation order the fits were measured with)."""
    n = c0.size
    c, grad = c0.copy(), np.empty(n)
    value = negative_objective(c, gamma, omega, on, off, weights, weight_rest, scale, rho_eps, grad)
    if not math.isfinite(value):
        return c, value
    s_hist, y_hist, rho_hist = np.zeros((HISTORY, n)), np.zeros((HISTORY, n)), np.zeros(HISTORY)
    alphas, direction = np.empty(HISTORY), np.empty(n)
    trial, trial_grad = np.empty(n), np.empty(n)
    stored, newest = 0, -1
    for _ in range(max_iter):
        largest = _largest_magnitude(grad)
        if largest <= gtol:
            break
        for i in range(n):  # two-loop recursion: direction = -H grad
            direction[i] = -grad[i]
        for i in range(stored):
            j = (newest - i) % HISTORY
            alphas[j] = rho_hist[j] * np.dot(s_hist[j], direction)
            _add_scaled(direction, -alphas[j], y_hist[j])
        if stored > 0:
            gain = np.dot(s_hist[newest], y_hist[newest]) / np.dot(y_hist[newest], y_hist[newest])
            for i in range(n):
                direction[i] *= gain
        for i in range(stored - 1, -1, -1):
            j = (newest - i) % HISTORY
            _add_scaled(direction, alphas[j] - rho_hist[j] * np.dot(y_hist[j], direction), s_hist[j])
        slope = np.dot(grad, direction)
        if slope >= 0.0:  # not a descent direction: restart from steepest descent
            for i in range(n):
                direction[i] = -grad[i]
            slope = -np.dot(grad, grad)
            stored = 0
        step = 1.0 if stored > 0 else min(1.0, 1.0 / max(largest, 1e-300))
        accepted = False
        for _ in range(60):
            for i in range(n):
                trial[i] = c[i] + step * direction[i]
            trial_value = negative_objective(trial, gamma, omega, on, off, weights, weight_rest, scale, rho_eps,
                                             trial_grad)
            if trial_value <= value + ARMIJO * step * slope:
                accepted = True
                break
            step *= BACKTRACK
        if not accepted:
            break
        decrease = value - trial_value
        newest = (newest + 1) % HISTORY
        _difference_into(s_hist[newest], trial, c)
        _difference_into(y_hist[newest], trial_grad, grad)
        curvature = np.dot(s_hist[newest], y_hist[newest])
        if curvature > 1e-12 * np.dot(y_hist[newest], y_hist[newest]):
            rho_hist[newest] = 1.0 / curvature
            stored = min(stored + 1, HISTORY)
        else:  # keep the history positive definite: forget this pair
            newest = (newest - 1) % HISTORY
        for i in range(n):
            c[i] = trial[i]
            grad[i] = trial_grad[i]
        previous, value = value, trial_value
        if decrease <= ftol * max(abs(previous), abs(value), 1.0):
            break
    return c, value
