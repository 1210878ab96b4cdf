"""DILN's topic locations ``l_k`` (Paisley, Wang & Blei 2012, Eqs. 27 and 37; digest §3-4).

With the documents' ``E[Z_mk]`` (``W``, M x T) and locations ``u_m`` (``U``, M x d) fixed, each topic's
location maximises the concave

    f_k(l) = -s_k l'U_sum - sum_m W_mk exp(-l'u_m) - |l|^2 / (2c),

gradient ``sum_m W_mk e^{-l'u_m} u_m - s_k U_sum - l / c`` (Eq. 27 with its index erratum corrected)
and negative Hessian ``sum_m W_mk e^{-l'u_m} u_m u_m' + I / c`` (Eq. 37), always positive definite.
Batch VI takes damped Newton steps on the whole corpus (:func:`optimize_locations`); a stochastic
step takes one Newton step from the minibatch's additive statistics (:func:`newton_locations`).
"""

from __future__ import annotations

import numpy as np

#: Armijo constant and maximal halvings of the Newton steps.
ARMIJO, MAX_HALVINGS = 1e-4, 40
#: Newton iterations of one batch update and the step size (max |Delta l|) at which they stop.
NEWTON_STEPS, NEWTON_TOL = 20, 1e-6


def tilted_weights(mean_z: np.ndarray, doc_locations: np.ndarray, locations: np.ndarray) -> np.ndarray:
    """``W_mk exp(-l_k'u_m)`` (M, T)."""
    return mean_z * np.exp(-(doc_locations @ locations.T))


def location_statistics(mean_z, doc_locations, locations) -> dict[str, np.ndarray]:
    """The additive statistics of a set of documents at ``locations``: ``tilted`` (T,) = ``sum_m W_mk
    e^{-l_k'u_m}``, ``tilted_location`` (T, d) = ``sum_m W_mk e^{-l_k'u_m} u_m`` and ``tilted_outer``
    (T, d, d) = ``sum_m W_mk e^{-l_k'u_m} u_m u_m'``."""
    tilt = tilted_weights(mean_z, doc_locations, locations)
    dim = doc_locations.shape[1]
    outer = (doc_locations[:, :, None] * doc_locations[:, None, :]).reshape(len(doc_locations), dim * dim)
    return {"tilted": tilt.sum(axis=0), "tilted_location": tilt.T @ doc_locations,
            "tilted_outer": (tilt.T @ outer).reshape(tilt.shape[1], dim, dim)}


def objective(locations, shape, location_sum, mean_z, doc_locations, variance) -> np.ndarray:
    """``f_k(l_k)`` for every topic (T,)."""
    tilt = tilted_weights(mean_z, doc_locations, locations).sum(axis=0)
    return -shape * (locations @ location_sum) - tilt - (locations**2).sum(axis=1) / (2.0 * variance)


def gradient_and_hessian(locations, shape, location_sum, stats, variance):
    """Gradient (T, d) and negative Hessian (T, d, d) of every ``f_k`` from :func:`location_statistics`."""
    grad = stats["tilted_location"] - shape[:, None] * location_sum[None, :] - locations / variance
    hess = stats["tilted_outer"] + np.eye(locations.shape[1])[None] / variance
    return grad, hess


def newton_locations(locations, shape, location_sum, stats, variance) -> np.ndarray:
    """``l_k + H_k^{-1} grad_k``: the Newton target of a stochastic step (Alg. 2, Eq. 37)."""
    grad, hess = gradient_and_hessian(locations, shape, location_sum, stats, variance)
    return locations + np.linalg.solve(hess, grad[:, :, None])[:, :, 0]


def optimize_locations(locations, shape, location_sum, mean_z, doc_locations, variance,
                       max_steps: int = NEWTON_STEPS) -> np.ndarray:
    """Damped Newton ascent on every ``f_k`` at once, each topic with its own backtracking (Armijo), so
    no ``f_k`` ever decreases; stops when no topic moves by more than ``NEWTON_TOL``."""
    current = np.array(locations, dtype=float)
    value = objective(current, shape, location_sum, mean_z, doc_locations, variance)
    for _ in range(max_steps):
        stats = location_statistics(mean_z, doc_locations, current)
        grad, hess = gradient_and_hessian(current, shape, location_sum, stats, variance)
        step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        slope = np.einsum("kd,kd->k", grad, step)
        scale = np.ones(len(current))
        pending = slope > 0
        accepted = np.zeros(len(current), dtype=bool)
        for _ in range(MAX_HALVINGS):
            if not pending.any():
                break
            trial = np.where(pending[:, None], current + scale[:, None] * step, current)
            with np.errstate(over="ignore"):
                trial_value = objective(trial, shape, location_sum, mean_z, doc_locations, variance)
            good = pending & np.isfinite(trial_value) & (trial_value >= value + ARMIJO * scale * slope)
            current[good], value[good] = trial[good], trial_value[good]
            accepted |= good
            pending &= ~good
            scale[pending] *= 0.5
        moved = np.abs(scale[:, None] * step)[accepted]
        if moved.size == 0 or moved.max() < NEWTON_TOL:
            break
    return current
