"""(Sticky) HDP-HMM transitions with the surrogate top-level bound (Hughes 2016, Ch. 6, Eq. 6.1-6.47;
digest ``thesis_ch5-7.md`` §3, with its errata).

``u_k ~ Beta(1, gamma)`` and ``pi^G = stick(u)``; the start row ``pi_0 ~ Dir(alpha_0 pi^G)`` and
each row ``pi_j ~ Dir(alpha pi^G + kappa e_j)`` over the K active states plus the mass of all
inactive ones (column K+1). ``q(pi_j) = Dir(theta_j)`` (K+1 entries) and
``q(u_k) = Beta(rho_k omega_k, (1 - rho_k) omega_k)``.

``E c_Dir(.)`` of each row has no closed form; it is bounded below (Eq. 6.28 for kappa = 0, the
sticky bound Eq. 6.30-6.33 with the corrected ``+1`` for kappa > 0), which gives :func:`top_elbo`.
The global step alternates ``theta = M + alpha_j pi^G(rho) + kappa delta`` (Eq. 6.40) with the
L-BFGS step on ``rho`` (:func:`.sticks.optimize`); ``omega`` stays at its heuristic (Eq. 6.44,
corrected). Each step of the alternation raises the ELBO, so the global step is monotone.
"""

from __future__ import annotations

import numpy as np

from . import empirical_bayes
from . import top_sticks as sticks
from .transition_finite import (  # noqa: F401
    check_concentrations,
    dirichlet_rows_elbo,
    expected_log_rows,
    log_dirichlet_normalizer,
)

name = "hdp"
#: theta <-> rho alternations per global step: one normally, more when the number of states changed
#: (bnpy does 1 and 10).
ALTERNATIONS = 1
ALTERNATIONS_AFTER_CHANGE = 10


def default_prior(transition_concentration: float = 0.5, start_concentration: float = 5.0,
                  stickiness: float = 0.0, concentration: float = 10.0, learn: bool = False) -> dict[str, float]:
    """``alpha``, ``alpha_0``, ``kappa`` and the top-level ``gamma`` (bnpy's HDPHMM defaults). With
    ``learn``, ``alpha``, ``gamma`` and (when positive) ``kappa`` are set by empirical Bayes in every
    global step (:func:`learned_rows`, :func:`.sticks.learned_gamma`); the values given are the start."""
    check_concentrations(transition_concentration=transition_concentration, start_concentration=start_concentration,
                         stickiness=stickiness, concentration=concentration)
    return {"alpha": float(transition_concentration), "start_alpha": float(start_concentration),
            "kappa": float(stickiness), "gamma": float(concentration), "learn": bool(learn)}


#: The concentrations empirical Bayes may set; the posterior carries their current values.
LEARNED = ("alpha", "kappa", "gamma")


def _at(prior, post) -> dict[str, float]:
    """The prior with the learned concentrations ``post`` holds (the prior itself when none are)."""
    return {**prior, **{k: float(post[k]) for k in LEARNED}} if prior["learn"] and post is not None else prior


def surrogate_counts(prior, n_states: int) -> tuple[np.ndarray, np.ndarray]:
    """Pseudo-counts of ``E log u_k`` and ``E log(1 - u_k)`` in the bound (see :mod:`.sticks`):
    ``K + 1`` and ``(K + 1)(K + 1 - k)`` without stickiness, ``K`` and ``K (K + 1 - k) + 1`` with."""
    k = np.arange(1, n_states + 1)
    if prior["kappa"] > 0:
        return np.full(n_states, float(n_states)), n_states * (n_states + 1.0 - k) + 1.0
    return np.full(n_states, n_states + 1.0), (n_states + 1.0) * (n_states + 1.0 - k)


def _sticky_slope(prior) -> float:
    """``log(alpha + kappa) - log(kappa)``: the weight of ``sum_k pi^G_k`` in the sticky bound."""
    return float(np.log(prior["alpha"] + prior["kappa"]) - np.log(prior["kappa"])) if prior["kappa"] > 0 else 0.0


def prior_rows(prior, rho: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``alpha_0 pi^G`` (K+1,) and ``alpha pi^G + kappa e_j`` (K, K+1) at the mean sticks."""
    beta, rest = sticks.stick_weights(rho)
    base = np.append(beta, rest)
    n_states = len(rho)
    trans = np.tile(prior["alpha"] * base, (n_states, 1))
    trans[:, :n_states] += prior["kappa"] * np.eye(n_states)
    return prior["start_alpha"] * base, trans


def _theta(prior, rho, start_counts, trans_counts):
    start, trans = prior_rows(prior, rho)
    start[:-1] += start_counts
    trans[:, :-1] += trans_counts
    return start, trans


def initial(prior, n_states: int) -> dict[str, np.ndarray]:
    on, off = surrogate_counts(prior, n_states)
    rho = sticks.heuristic_rho(on, off, prior["gamma"])
    start, trans = prior_rows(prior, rho)
    return {"start": start, "trans": trans, "rho": rho, "omega": sticks.heuristic_omega(on, off, prior["gamma"]),
            **{k: np.asarray(prior[k]) for k in LEARNED}}


def concentrations(prior, post) -> dict[str, float]:
    """The concentrations in use, by the estimator's parameter names (learned ones as learned)."""
    current = _at(prior, post)
    return {"transition_concentration": current["alpha"], "stickiness": current["kappa"],
            "concentration": current["gamma"]}


def learned_rows(current, trans: np.ndarray, rho: np.ndarray) -> dict[str, float]:
    """Empirical-Bayes ``alpha`` and (sticky) ``kappa`` at fixed ``q(pi_j) = Dir(trans_j)`` and sticks.

    Their ELBO terms are ``K^2 log alpha + alpha W + kappa D`` plus, for ``kappa > 0``, ``(sum_k
    pi^G_k - K)(log(alpha + kappa) - log kappa)`` (Eq. 6.33 corrected), with ``W = sum_jk pi^G_k E log
    pi_jk`` (the inactive column included) and ``D = sum_j E log pi_jj``. Each is concave in its
    variable; the two are solved in turn (coordinate ascent)."""
    n_states = len(rho)
    beta, rest = sticks.stick_weights(rho)
    log_rows = expected_log_rows(trans)
    weight = float(np.append(beta, rest) @ log_rows.sum(axis=0))
    unused = n_states - float(beta.sum())  # K - sum_k pi^G_k > 0
    alpha, kappa = current["alpha"], current["kappa"]
    sticky = kappa > 0

    def alpha_gradient(a):
        return n_states ** 2 / a + weight - (unused / (a + kappa) if sticky else 0.0)

    def alpha_curvature(a):
        return -n_states ** 2 / a ** 2 + (unused / (a + kappa) ** 2 if sticky else 0.0)

    alpha = empirical_bayes.solve(alpha_gradient, alpha_curvature, alpha)
    if sticky:
        diagonal = float(np.trace(log_rows[:, :n_states]))
        kappa = empirical_bayes.solve(lambda c: diagonal + unused * alpha / (c * (alpha + c)),
                                      lambda c: -unused * alpha * (alpha + 2 * c) / (c * (alpha + c)) ** 2, kappa)
    return {**current, "alpha": alpha, "kappa": kappa}


def global_step(prior, start_counts: np.ndarray, trans_counts: np.ndarray, previous=None,
                rounds: int | None = None) -> dict[str, np.ndarray]:
    """Alternate the rows ``theta`` (closed form) and the sticks ``rho`` (L-BFGS), ending with
    ``theta``; ``rounds`` alternations at most (default: one from previous sticks of the same size,
    ten otherwise; zero keeps ``rho``, a cheap screening score for merges). With learned
    concentrations each alternation also takes their empirical-Bayes step (started from
    ``previous``'s), which raises the ELBO too."""
    n_states = len(start_counts)
    on, off = surrogate_counts(prior, n_states)
    current = _at(prior, previous)
    same_size = previous is not None and len(previous["rho"]) == n_states
    rho = previous["rho"] if same_size else sticks.heuristic_rho(on, off, current["gamma"])
    if rounds is None:
        rounds = ALTERNATIONS if same_size else ALTERNATIONS_AFTER_CHANGE
    for _ in range(rounds):
        start, trans = _theta(current, rho, start_counts, trans_counts)
        weights = (current["start_alpha"] * expected_log_rows(start)
                   + current["alpha"] * expected_log_rows(trans).sum(axis=0))
        weights[:-1] += _sticky_slope(current)
        omega = sticks.heuristic_omega(on, off, current["gamma"])
        new_rho = sticks.optimize(current["gamma"], rho, omega, on, off, weights[:-1], weights[-1],
                                  1.0 / (n_states + 2.0))
        converged = np.max(np.abs(new_rho - rho)) < 1e-8
        rho = new_rho
        if prior["learn"]:
            updated = learned_rows(current, _theta(current, rho, start_counts, trans_counts)[1], rho)
            updated["gamma"] = sticks.learned_gamma(rho, on, off, current["gamma"])
            converged &= all(abs(updated[k] - current[k]) <= empirical_bayes.SETTLED * current[k] for k in LEARNED)
            current = updated
        if converged:
            break
    start, trans = _theta(current, rho, start_counts, trans_counts)
    return {"start": start, "trans": trans, "rho": rho, "omega": sticks.heuristic_omega(on, off, current["gamma"]),
            **{k: np.asarray(current[k]) for k in LEARNED}}


def expected_log_start(post) -> np.ndarray:
    return expected_log_rows(post["start"])[:-1]


def expected_log_trans(post) -> np.ndarray:
    return expected_log_rows(post["trans"])[:, :-1]


def top_elbo(prior, rho: np.ndarray, omega: np.ndarray) -> float:
    """``prior`` holding the concentrations in use (:func:`elbo` passes the learned ones): the
    surrogate for ``sum_j E c_Dir(prior_j)`` plus ``E log p(u) - E log q(u)`` (Eq. 6.28 / 6.33
    corrected)."""
    n_states = len(rho)
    on, off = surrogate_counts(prior, n_states)
    value = n_states * np.log(prior["start_alpha"]) + n_states ** 2 * np.log(prior["alpha"])
    if prior["kappa"] > 0:
        beta, _ = sticks.stick_weights(rho)
        slope = _sticky_slope(prior)
        value += -n_states * slope + slope * beta.sum()
    return float(value + sticks.beta_terms(prior["gamma"], rho, omega, on, off))


def elbo(prior, post, start_counts: np.ndarray, trans_counts: np.ndarray) -> dict[str, float]:
    prior = _at(prior, post)
    start, trans = prior_rows(prior, post["rho"])
    value = (dirichlet_rows_elbo(start, post["start"], start_counts)
             + dirichlet_rows_elbo(trans, post["trans"], trans_counts))
    return {"transitions": value, "top": top_elbo(prior, post["rho"], post["omega"])}


def blend(old, target, step: float):
    out = {k: (1.0 - step) * old[k] + step * target[k] for k in ("start", "trans")}
    out.update(sticks.blend(old, target, step))
    out.update({k: np.asarray((1.0 - step) * old[k] + step * target[k]) for k in LEARNED})
    return out


def select(prior, post, old_uids, new_uids):
    """The states ``new_uids`` (a subset of ``old_uids``): their rows and columns, the dropped
    columns' mass moved to the inactive column, the sticks re-aligned."""
    position = {int(u): i for i, u in enumerate(old_uids)}
    keep = np.array([position[int(u)] for u in new_uids], dtype=np.int64)
    dropped = np.setdiff1d(np.arange(len(old_uids)), keep)

    def columns(rows):
        out = np.concatenate([rows[..., keep], rows[..., -1:]], axis=-1)
        out[..., -1] += rows[..., dropped].sum(axis=-1)
        return out

    weights = sticks.align({"rho": post["rho"], "omega": post["omega"]}, old_uids, new_uids)
    on, off = surrogate_counts(prior, len(keep))
    return {"start": columns(post["start"]), "trans": columns(post["trans"][keep]), "rho": weights["rho"],
            "omega": sticks.heuristic_omega(on, off, _at(prior, post)["gamma"]), **{k: post[k] for k in LEARNED}}


def expected_start(post) -> np.ndarray:
    return post["start"][:-1] / post["start"].sum()


def expected_trans(post) -> np.ndarray:
    return post["trans"][:, :-1] / post["trans"].sum(axis=1, keepdims=True)
