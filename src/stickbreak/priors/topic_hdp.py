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

import numpy as np

from . import top_sticks as sticks
from .top_sticks import align, blend, rho_from_weights, stick_weights  # noqa: F401  (this module's API)

name = "hdp"


def default_prior(doc_topic_prior: float = 0.5, concentration: float = 10.0) -> dict[str, float]:
    """``alpha`` (document concentration) and ``gamma`` (top-level stick concentration); the
    thesis uses alpha = 0.5, gamma = 10."""
    for label, value in (("doc_topic_prior", doc_topic_prior), ("concentration", concentration)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{label} must be positive, got {value}")
    return {"alpha": float(doc_topic_prior), "gamma": float(concentration)}


def _counts(n_topics: int, n_docs: float) -> tuple[np.ndarray, np.ndarray]:
    """The surrogate's pseudo-counts (Eq. 5.25): ``on_k = D``, ``off_k = D (K + 1 - k)``."""
    k = np.arange(1, n_topics + 1)
    return np.full(n_topics, float(n_docs)), n_docs * (n_topics + 1.0 - k)


def init_omega(n_topics: int, n_docs: float, gamma: float) -> np.ndarray:
    """Eq. 5.39: ``omega_k = D (K + 1 - k) + D + 1 + gamma`` (bnpy ``make_initomega``)."""
    return sticks.heuristic_omega(*_counts(n_topics, n_docs), gamma)


def init_rho(n_topics: int, n_docs: float, gamma: float) -> np.ndarray:
    """bnpy ``make_initrho``: ``(D + 1) / (D + 1 + D (K + 1 - k) + gamma)``."""
    return sticks.heuristic_rho(*_counts(n_topics, n_docs), gamma)


def initial(prior, n_topics: int, n_docs: float) -> dict[str, np.ndarray]:
    return {"rho": init_rho(n_topics, n_docs, prior["gamma"]), "omega": init_omega(n_topics, n_docs, prior["gamma"])}


def pseudo_counts(prior, weights) -> tuple[np.ndarray, float]:
    """``(alpha pi^G_k, alpha pi^G_>K)`` at the mean sticks (exact: ``E pi^G(u) = pi^G(rho)``)."""
    beta, rest = stick_weights(weights["rho"])
    return prior["alpha"] * beta, prior["alpha"] * rest


def surrogate_top(prior, rho, omega, n_docs: float) -> float:
    """``L_sur-top`` (Eq. 5.25): ``D K log alpha`` plus the Beta prior/entropy terms of ``u``."""
    on, off = _counts(len(rho), n_docs)
    return n_docs * len(rho) * np.log(prior["alpha"]) + sticks.beta_terms(prior["gamma"], rho, omega, on, off)


def stick_objective(prior, rho, omega, n_docs, log_pi, log_pi_rest) -> float:
    """``f(rho)`` of Eq. 5.34: the top term plus ``alpha sum_k pi^G_k P_k + alpha pi^G_>K P_>K``."""
    beta, rest = stick_weights(rho)
    return surrogate_top(prior, rho, omega, n_docs) + prior["alpha"] * (beta @ log_pi + rest * log_pi_rest)


def stick_gradient(prior, rho, omega, n_docs, log_pi, log_pi_rest) -> np.ndarray:
    """``d f / d rho`` (digest §1.4, checked by finite differences in the tests)."""
    on, off = _counts(len(rho), n_docs)
    return sticks.gradient(prior["gamma"], rho, omega, on, off, prior["alpha"] * log_pi, prior["alpha"] * log_pi_rest)


def optimize_rho(prior, rho0, omega, n_docs, log_pi, log_pi_rest) -> np.ndarray:
    """Maximise :func:`stick_objective` over ``rho`` (see :func:`.sticks.optimize`)."""
    on, off = _counts(len(rho0), n_docs)
    return sticks.optimize(prior["gamma"], rho0, omega, on, off, prior["alpha"] * np.asarray(log_pi),
                           prior["alpha"] * log_pi_rest, 1.0 / (n_docs + 1.0))


def global_step(prior, stats, previous) -> dict[str, np.ndarray]:
    """New ``rho`` from the whole-data statistics ``P_k`` (``log_pi``) and ``P_>K``; ``omega`` by Eq. 5.39."""
    n_docs, n_topics = stats.scalars["n_items"], stats.n_components
    omega = init_omega(n_topics, n_docs, prior["gamma"])
    start = previous["rho"] if previous is not None and len(previous["rho"]) == n_topics else init_rho(n_topics, n_docs, prior["gamma"])
    rho = optimize_rho(prior, start, omega, n_docs, stats.fields["log_pi"], stats.scalars["log_pi_rest"])
    return {"rho": rho, "omega": omega}


def top_elbo(prior, weights, n_docs: float) -> float:
    return surrogate_top(prior, weights["rho"], weights["omega"], n_docs)


def expected_weights(prior, weights) -> np.ndarray:
    return stick_weights(weights["rho"])[0]
