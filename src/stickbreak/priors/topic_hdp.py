"""HDP topic-model top level: ``q(u_k) = Beta(rho_k omega_k, (1 - rho_k) omega_k)`` with the
surrogate bound (Hughes 2016, Ch. 5, Eq. 5.18-5.39; digest ``thesis_ch5-7.md`` §1.3-1.4).

Documents draw ``pi_d ~ Dir(alpha pi^G_1, ..., alpha pi^G_K, alpha pi^G_>K)`` with
``pi^G(u)`` the stick-breaking weights of ``u_k ~ Beta(1, gamma)``. The exact ``E c_Dir(alpha
pi^G(u))`` has no closed form; Eq. 5.23-5.25 bound it below, giving the top term
:func:`surrogate_top`. The global step maximises the ``rho``-dependent part of the ELBO,
:func:`stick_objective`, by L-BFGS on ``logit(rho)`` with the analytic gradient (Eq. 5.34-5.38)
and keeps ``omega`` at the heuristic of Eq. 5.39 (bnpy's default). ``alpha`` and ``gamma`` may be
learned by empirical Bayes (:func:`global_step`); the weights then carry their current values.
"""

from __future__ import annotations

import numpy as np

from . import empirical_bayes
from . import top_sticks as sticks
from .top_sticks import rho_from_weights, stick_weights  # noqa: F401  (this module's API)

name = "hdp"


def default_prior(doc_topic_prior: float = 0.5, concentration: float = 10.0, learn_alpha: bool = False,
                  learn_gamma: bool = False) -> dict[str, float]:
    """``alpha`` (document concentration) and ``gamma`` (top-level stick concentration); the
    thesis uses alpha = 0.5, gamma = 10. With ``learn_alpha`` / ``learn_gamma`` each is set by
    empirical Bayes in every global step (:func:`global_step`); the value given is then its start."""
    for label, value in (("doc_topic_prior", doc_topic_prior), ("concentration", concentration)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{label} must be positive, got {value}")
    return {"alpha": float(doc_topic_prior), "gamma": float(concentration), "learn_alpha": bool(learn_alpha),
            "learn_gamma": bool(learn_gamma)}


def _at(prior, weights) -> dict[str, float]:
    """The prior with the learned concentrations ``weights`` holds (the prior's own otherwise)."""
    if weights is None:
        return prior
    return {**prior, **{key: float(weights[key]) for key in ("alpha", "gamma") if prior[f"learn_{key}"]}}


def concentrations(prior, weights) -> dict[str, float]:
    """The concentrations in use, by the estimator's parameter names (learned ones as learned)."""
    current = _at(prior, weights)
    return {"doc_topic_prior": current["alpha"], "concentration": current["gamma"]}


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
    return {"rho": init_rho(n_topics, n_docs, prior["gamma"]), "omega": init_omega(n_topics, n_docs, prior["gamma"]),
            "alpha": np.asarray(prior["alpha"]), "gamma": np.asarray(prior["gamma"])}


def pseudo_counts(prior, weights) -> tuple[np.ndarray, float]:
    """``(alpha pi^G_k, alpha pi^G_>K)`` at the mean sticks (exact: ``E pi^G(u) = pi^G(rho)``)."""
    beta, rest = stick_weights(weights["rho"])
    alpha = _at(prior, weights)["alpha"]
    return alpha * beta, alpha * rest


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


def learned_alpha(rho, n_docs: float, log_pi, log_pi_rest: float, start: float) -> float:
    """Empirical-Bayes ``alpha`` at fixed ``q``: the ELBO's ``alpha`` terms are ``D K log alpha`` (the
    surrogate, Eq. 5.25) plus ``alpha (sum_k pi^G_k P_k + pi^G_>K P_>K)`` (the documents' prior), so
    ``alpha = -D K / (sum_k pi^G_k P_k + pi^G_>K P_>K)``."""
    beta, rest = stick_weights(rho)
    slope = float(beta @ log_pi + rest * log_pi_rest)
    return float(np.clip(-n_docs * len(rho) / slope, *empirical_bayes.BOUNDS)) if slope < 0 else float(start)


def global_step(prior, stats, previous) -> dict[str, np.ndarray]:
    """New ``rho`` from the whole-data statistics ``P_k`` (``log_pi``) and ``P_>K``; ``omega`` by Eq. 5.39.

    With learned concentrations, ``rho`` and the empirical-Bayes ``alpha`` (:func:`learned_alpha`)
    and ``gamma`` (:func:`.sticks.learned_gamma`) are alternated, each step raising the ELBO, until
    the concentrations settle (Hughes 2016, §4.4, does the same for the DP mixture's ``gamma``)."""
    n_docs, n_topics = stats.scalars["n_items"], stats.n_components
    log_pi, log_pi_rest = stats.fields["log_pi"], stats.scalars["log_pi_rest"]
    current = _at(prior, previous)
    same_size = previous is not None and len(previous["rho"]) == n_topics
    rho = previous["rho"] if same_size else init_rho(n_topics, n_docs, current["gamma"])
    on, off = _counts(n_topics, n_docs)
    learning = prior["learn_alpha"] or prior["learn_gamma"]
    for _ in range(empirical_bayes.MAX_ROUNDS if learning else 1):
        rho = optimize_rho(current, rho, init_omega(n_topics, n_docs, current["gamma"]), n_docs, log_pi, log_pi_rest)
        if not learning:
            break
        updated = dict(current)
        if prior["learn_alpha"]:
            updated["alpha"] = learned_alpha(rho, n_docs, log_pi, log_pi_rest, current["alpha"])
        if prior["learn_gamma"]:
            updated["gamma"] = sticks.learned_gamma(rho, on, off, current["gamma"])
        settled = all(abs(updated[k] - current[k]) <= empirical_bayes.SETTLED * current[k] for k in ("alpha", "gamma"))
        current = updated
        if settled:
            break
    return {"rho": rho, "omega": init_omega(n_topics, n_docs, current["gamma"]),
            "alpha": np.asarray(current["alpha"]), "gamma": np.asarray(current["gamma"])}


def top_elbo(prior, weights, n_docs: float) -> float:
    return surrogate_top(_at(prior, weights), weights["rho"], weights["omega"], n_docs)


def align(weights, old_uids, new_uids) -> dict[str, np.ndarray]:
    """:func:`.sticks.align`, the concentrations carried over."""
    aligned = sticks.align(weights, old_uids, new_uids)
    return aligned if aligned is weights else {**aligned, "alpha": weights["alpha"], "gamma": weights["gamma"]}


def blend(old, target, step: float):
    """:func:`.sticks.blend`; learned concentrations move by the same step."""
    return {**sticks.blend(old, target, step),
            **{k: np.asarray((1.0 - step) * old[k] + step * target[k]) for k in ("alpha", "gamma")}}


def expected_weights(prior, weights) -> np.ndarray:
    return stick_weights(weights["rho"])[0]
