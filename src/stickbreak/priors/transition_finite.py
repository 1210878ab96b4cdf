"""Finite HMM transitions with Dirichlet rows (Hughes 2016, §6.1 with a uniform base measure).

``pi_0 ~ Dir(alpha_0 / K, ...)`` (start state), ``pi_j ~ Dir(alpha / K, ..., alpha / K + kappa, ...)``
(row j, ``kappa`` on the diagonal: the sticky finite HMM, the weak-limit form of the sticky
HDP-HMM). ``q(pi_j) = Dir(theta_j)``. The statistics are the expected start counts ``M_0k`` and
transition counts ``M_jk``. The transition ELBO is exact:
``sum_j c_Dir(prior_j) - c_Dir(theta_j) + sum_k (M_jk + prior_jk - theta_jk) E log pi_jk``.

The functions on Dirichlet rows (:func:`dirichlet_rows_elbo`, :func:`expected_log_rows`) are shared
with :mod:`.hdp_hmm`, whose rows carry one more column (the mass of all inactive states).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

name = "finite"


def check_concentrations(**values) -> None:
    for label, value in values.items():
        if label == "stickiness":
            if not (np.isfinite(value) and value >= 0):
                raise ValueError(f"stickiness must be zero or positive, got {value}")
        elif not (np.isfinite(value) and value > 0):
            raise ValueError(f"{label} must be positive, got {value}")


def default_prior(transition_concentration: float = 0.5, start_concentration: float = 5.0,
                  stickiness: float = 0.0) -> dict[str, float]:
    """``alpha``, ``alpha_0`` and ``kappa``; the defaults are bnpy's HDP-HMM defaults."""
    check_concentrations(transition_concentration=transition_concentration,
                         start_concentration=start_concentration, stickiness=stickiness)
    return {"alpha": float(transition_concentration), "start_alpha": float(start_concentration),
            "kappa": float(stickiness)}


def log_dirichlet_normalizer(theta: np.ndarray) -> np.ndarray:
    """``c_Dir(theta_j) = log Gamma(sum theta_j) - sum log Gamma(theta_j)`` per row (last axis)."""
    return gammaln(theta.sum(axis=-1)) - gammaln(theta).sum(axis=-1)


def expected_log_rows(theta: np.ndarray) -> np.ndarray:
    """``E log pi_jk = psi(theta_jk) - psi(sum_l theta_jl)``."""
    return digamma(theta) - digamma(theta.sum(axis=-1, keepdims=True))


def dirichlet_rows_elbo(prior_rows: np.ndarray, theta: np.ndarray, counts: np.ndarray) -> float:
    """``sum_j -c_Dir(theta_j) + sum_k (M_jk + prior_jk - theta_jk) E log pi_jk`` (Eq. 6.26,
    without the prior normaliser); ``counts`` may have fewer columns than ``theta`` (zeros after)."""
    padded = np.zeros_like(theta)
    padded[..., :counts.shape[-1]] = counts
    return float(np.sum(-log_dirichlet_normalizer(theta))
                 + np.sum((padded + prior_rows - theta) * expected_log_rows(theta)))


def prior_rows(prior, n_states: int) -> tuple[np.ndarray, np.ndarray]:
    """The Dirichlet parameters of the start row (K,) and the transition rows (K, K)."""
    start = np.full(n_states, prior["start_alpha"] / n_states)
    trans = np.full((n_states, n_states), prior["alpha"] / n_states) + prior["kappa"] * np.eye(n_states)
    return start, trans


def initial(prior, n_states: int) -> dict[str, np.ndarray]:
    start, trans = prior_rows(prior, n_states)
    return {"start": start, "trans": trans}


def global_step(prior, start_counts: np.ndarray, trans_counts: np.ndarray, previous=None,
                rounds: int | None = None) -> dict[str, np.ndarray]:
    """``theta_0 = alpha_0 / K + M_0``, ``theta_j = alpha / K + kappa e_j + M_j`` (Eq. 6.40);
    ``previous`` and ``rounds`` are accepted for the common interface (there is no top level)."""
    start, trans = prior_rows(prior, len(start_counts))
    return {"start": start + start_counts, "trans": trans + trans_counts}


def expected_log_start(post) -> np.ndarray:
    return expected_log_rows(post["start"])


def expected_log_trans(post) -> np.ndarray:
    return expected_log_rows(post["trans"])


def elbo(prior, post, start_counts: np.ndarray, trans_counts: np.ndarray) -> dict[str, float]:
    start, trans = prior_rows(prior, len(start_counts))
    value = (dirichlet_rows_elbo(start, post["start"], start_counts)
             + dirichlet_rows_elbo(trans, post["trans"], trans_counts)
             + float(log_dirichlet_normalizer(start) + log_dirichlet_normalizer(trans).sum()))
    return {"transitions": value}


def blend(old, target, step: float):
    return {k: (1.0 - step) * old[k] + step * target[k] for k in old}


def select(prior, post, old_uids, new_uids):
    """The rows and columns of the states ``new_uids`` (a subset of ``old_uids``, e.g. after a delete)."""
    position = {int(u): i for i, u in enumerate(old_uids)}
    keep = np.array([position[int(u)] for u in new_uids], dtype=np.int64)
    return {"start": post["start"][keep], "trans": post["trans"][np.ix_(keep, keep)]}


def expected_start(post) -> np.ndarray:
    return post["start"] / post["start"].sum()


def expected_trans(post) -> np.ndarray:
    return post["trans"] / post["trans"].sum(axis=1, keepdims=True)
