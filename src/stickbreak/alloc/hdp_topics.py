"""HDP topic-model top level: ``q(u_k) = Beta(rho_k omega_k, (1 - rho_k) omega_k)`` with the
surrogate bound (Hughes 2016, Ch. 5, Eq. 5.18-5.39; digest ``thesis_ch5-7.md`` §1.3-1.4).

Documents draw ``pi_d ~ Dir(alpha pi^G_1, ..., alpha pi^G_K, alpha pi^G_>K)`` with
``pi^G(u)`` the stick-breaking weights of ``u_k ~ Beta(1, gamma)``. The exact ``E c_Dir(alpha
pi^G(u))`` has no closed form; Eq. 5.23-5.25 bound it below, giving the top term
:func:`surrogate_top`. The global step maximises the ``rho``-dependent part of the ELBO,
:func:`stick_objective`, by L-BFGS on ``logit(rho)`` with the analytic gradient (Eq. 5.34-5.38)
and keeps ``omega`` at the heuristic of Eq. 5.39 (bnpy's default).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import fmin_l_bfgs_b
from scipy.special import digamma, expit, gammaln, logit, polygamma

name = "hdp"
#: ``rho`` is kept in ``[RHO_EPS, 1 - RHO_EPS]`` (bnpy clips the same way).
RHO_EPS = 1e-8
#: L-BFGS ``factr`` values tried in turn until one succeeds (bnpy ``OptimizerRhoOmega``).
FACTR_LADDER = (1e4, 1e6, 1e8, 1e10, 1e12)


def default_prior(doc_topic_prior: float = 0.5, concentration: float = 10.0) -> dict[str, float]:
    """``alpha`` (document concentration) and ``gamma`` (top-level stick concentration); the
    thesis uses alpha = 0.5, gamma = 10."""
    for label, value in (("doc_topic_prior", doc_topic_prior), ("concentration", concentration)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{label} must be positive, got {value}")
    return {"alpha": float(doc_topic_prior), "gamma": float(concentration)}


def stick_weights(rho: np.ndarray) -> tuple[np.ndarray, float]:
    """``E[pi^G_k] = rho_k prod_{l<k} (1 - rho_l)`` and the leftover ``prod_l (1 - rho_l)``."""
    rest = np.cumprod(1.0 - rho)
    before = np.concatenate([[1.0], rest[:-1]])
    return rho * before, float(rest[-1]) if len(rest) else 1.0


def init_omega(n_topics: int, n_docs: float, gamma: float) -> np.ndarray:
    """Eq. 5.39: ``omega_k = D (K + 1 - k) + D + 1 + gamma`` (bnpy ``make_initomega``)."""
    k = np.arange(1, n_topics + 1)
    return n_docs * (n_topics + 1 - k) + n_docs + 1.0 + gamma


def init_rho(n_topics: int, n_docs: float, gamma: float) -> np.ndarray:
    """bnpy ``make_initrho``: ``(D + 1) / (D + 1 + D (K + 1 - k) + gamma)``."""
    k = np.arange(1, n_topics + 1)
    return (n_docs + 1.0) / (n_docs + 1.0 + n_docs * (n_topics + 1 - k) + gamma)


def initial(prior, n_topics: int, n_docs: float) -> dict[str, np.ndarray]:
    return {"rho": init_rho(n_topics, n_docs, prior["gamma"]), "omega": init_omega(n_topics, n_docs, prior["gamma"])}


def pseudo_counts(prior, weights) -> tuple[np.ndarray, float]:
    """``(alpha pi^G_k, alpha pi^G_>K)`` at the mean sticks (exact: ``E pi^G(u) = pi^G(rho)``)."""
    beta, rest = stick_weights(weights["rho"])
    return prior["alpha"] * beta, prior["alpha"] * rest


def _log_beta_normalizer(a, b):
    return gammaln(a + b) - gammaln(a) - gammaln(b)


def surrogate_top(prior, rho, omega, n_docs: float) -> float:
    """``L_sur-top`` (Eq. 5.25): ``D K log alpha`` plus the Beta prior/entropy terms of ``u``."""
    alpha, gamma = prior["alpha"], prior["gamma"]
    k_total = len(rho)
    k = np.arange(1, k_total + 1)
    a, b = rho * omega, (1.0 - rho) * omega
    log_u, log_rest = digamma(a) - digamma(omega), digamma(b) - digamma(omega)
    return float(
        n_docs * k_total * np.log(alpha)
        + np.sum(_log_beta_normalizer(1.0, gamma) - _log_beta_normalizer(a, b))
        + np.sum((n_docs + 1.0 - a) * log_u)
        + np.sum((n_docs * (k_total + 1 - k) + gamma - b) * log_rest)
    )


def stick_objective(prior, rho, omega, n_docs, log_pi, log_pi_rest) -> float:
    """``f(rho)`` of Eq. 5.34: the top term plus ``alpha sum_k pi^G_k P_k + alpha pi^G_>K P_>K``."""
    beta, rest = stick_weights(rho)
    return surrogate_top(prior, rho, omega, n_docs) + prior["alpha"] * (beta @ log_pi + rest * log_pi_rest)


def stick_gradient(prior, rho, omega, n_docs, log_pi, log_pi_rest) -> np.ndarray:
    """``d f / d rho`` (digest §1.4, checked by finite differences in the tests)."""
    alpha, gamma = prior["alpha"], prior["gamma"]
    k_total = len(rho)
    k = np.arange(1, k_total + 1)
    a, b = rho * omega, (1.0 - rho) * omega
    coef_u = n_docs + 1.0 - a
    coef_rest = n_docs * (k_total + 1 - k) + gamma - b
    grad = omega * (coef_u * polygamma(1, a) - coef_rest * polygamma(1, b))
    beta, rest = stick_weights(rho)
    before = np.concatenate([[1.0], np.cumprod(1.0 - rho)[:-1]])
    weighted = beta * log_pi
    later = np.concatenate([np.cumsum(weighted[::-1])[::-1][1:], [0.0]])  # sum_{k>j} P_k pi^G_k
    grad += alpha * (log_pi * before - (later + log_pi_rest * rest) / (1.0 - rho))
    return grad


def optimize_rho(prior, rho0, omega, n_docs, log_pi, log_pi_rest) -> np.ndarray:
    """Maximise :func:`stick_objective` over ``rho`` (L-BFGS on ``logit rho``, retries, fallback).

    Returns ``rho0`` unchanged if no attempt improves on it, so the step never lowers the ELBO.
    """
    scale = 1.0 / (n_docs + 1.0)
    rho0 = np.clip(rho0, RHO_EPS, 1.0 - RHO_EPS)

    def negative(c):
        rho = np.clip(expit(c), RHO_EPS, 1.0 - RHO_EPS)
        value = stick_objective(prior, rho, omega, n_docs, log_pi, log_pi_rest)
        grad = stick_gradient(prior, rho, omega, n_docs, log_pi, log_pi_rest) * rho * (1.0 - rho)
        if not np.isfinite(value) or not np.all(np.isfinite(grad)):
            return np.inf, np.zeros_like(c)
        return -value * scale, -grad * scale

    start_value = negative(logit(rho0))[0]
    for factr in FACTR_LADDER:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            c, value, info = fmin_l_bfgs_b(negative, logit(rho0), factr=factr, maxiter=500)
        if np.isfinite(value) and info["warnflag"] != 2:
            if value <= start_value:
                return np.clip(expit(c), RHO_EPS, 1.0 - RHO_EPS)
            break
    return rho0


def rho_from_weights(beta: np.ndarray) -> np.ndarray:
    """Inverse of :func:`stick_weights`: ``rho_k = pi_k / (1 - sum_{l<k} pi_l)``, clipped."""
    remaining = 1.0 - np.concatenate([[0.0], np.cumsum(beta)[:-1]])
    return np.clip(beta / np.maximum(remaining, RHO_EPS), RHO_EPS, 1.0 - RHO_EPS)


def align(weights, old_uids, new_uids) -> dict[str, np.ndarray]:
    """The sticks re-indexed to ``new_uids``: kept topics keep their ``E pi^G_k``, dropped ones'
    mass goes to the rest, new ones get a share of the rest (a start for :func:`global_step`)."""
    if np.array_equal(old_uids, new_uids):
        return weights
    beta, _ = stick_weights(weights["rho"])
    by_uid = dict(zip(np.asarray(old_uids).tolist(), beta))
    aligned = np.array([by_uid.get(u, np.nan) for u in np.asarray(new_uids).tolist()])
    newborn = np.isnan(aligned)
    if newborn.any():  # newborns share half of what is left
        aligned[newborn] = (1.0 - np.sum(aligned[~newborn])) / (2.0 * np.count_nonzero(newborn))
    return {"rho": rho_from_weights(aligned), "omega": weights["omega"]}


def global_step(prior, stats, previous) -> dict[str, np.ndarray]:
    """New ``rho`` from the whole-data statistics ``P_k`` (``log_pi``) and ``P_>K``; ``omega`` by Eq. 5.39."""
    n_docs, n_topics = stats.scalars["n_items"], stats.n_components
    omega = init_omega(n_topics, n_docs, prior["gamma"])
    start = previous["rho"] if previous is not None and len(previous["rho"]) == n_topics else init_rho(n_topics, n_docs, prior["gamma"])
    rho = optimize_rho(prior, start, omega, n_docs, stats.fields["log_pi"], stats.scalars["log_pi_rest"])
    return {"rho": rho, "omega": omega}


def top_elbo(prior, weights, n_docs: float) -> float:
    return surrogate_top(prior, weights["rho"], weights["omega"], n_docs)


def blend(old, target, step: float):
    """bnpy's stochastic step: blend the Beta parameters ``(rho omega, (1 - rho) omega)``."""
    eta1 = (1 - step) * old["rho"] * old["omega"] + step * target["rho"] * target["omega"]
    eta0 = (1 - step) * (1 - old["rho"]) * old["omega"] + step * (1 - target["rho"]) * target["omega"]
    return {"rho": eta1 / (eta1 + eta0), "omega": eta1 + eta0}


def expected_weights(prior, weights) -> np.ndarray:
    return stick_weights(weights["rho"])[0]
