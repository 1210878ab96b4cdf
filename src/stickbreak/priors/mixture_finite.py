"""Finite mixture weights with a symmetric Dirichlet prior (Hughes 2016, §2.6).

``pi ~ Dir(alpha, ..., alpha)`` over K components; ``q(pi) = Dir(theta)``; ``alpha`` is the
per-component concentration (scikit-learn's ``weight_concentration_prior`` for
``dirichlet_distribution``; the thesis writes it gamma/K).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

from . import empirical_bayes
from .merged_weights import refitted_gains

name = "finite"


def default_prior(concentration: float = 1.0, learn: bool = False) -> dict[str, float]:
    """``Dir(alpha, ..., alpha)``; with ``learn``, alpha by empirical Bayes (:func:`concentration`)
    from ``concentration`` as a start."""
    if not (np.isfinite(concentration) and concentration > 0):
        raise ValueError(f"concentration must be positive, got {concentration}")
    return {"alpha": float(concentration), "learn": bool(learn)}


def concentration(prior, post) -> float:
    """alpha: the prior's, or with ``learn`` ``argmax_alpha E log Dir(pi | alpha 1)`` under ``q = post``."""
    if not prior["learn"]:
        return prior["alpha"]
    return empirical_bayes.dirichlet_concentration(expected_log_weights(post), prior["alpha"])


def global_step(prior, counts: np.ndarray) -> dict[str, np.ndarray]:
    """``theta_k = alpha + N_k``; with a learned alpha, alternated with its update to their joint optimum."""
    return empirical_bayes.alternate(lambda alpha: {"theta": alpha + counts},
                                     lambda post, alpha: concentration({**prior, "alpha": alpha}, post),
                                     prior["alpha"], prior["learn"])


def expected_log_weights(post) -> np.ndarray:
    theta = post["theta"]
    return digamma(theta) - digamma(theta.sum())


def expected_weights(post) -> np.ndarray:
    return post["theta"] / post["theta"].sum()


def _log_dirichlet_normalizer(theta):
    return gammaln(theta.sum()) - gammaln(theta).sum()


def elbo(prior, post, counts: np.ndarray) -> float:
    """``c_Dir(alpha) - c_Dir(theta) + sum_k (N_k + alpha - theta_k) E log pi_k`` (Eq. 2.102 corrected)."""
    theta = post["theta"]
    alpha = np.full_like(theta, concentration(prior, post))
    return float(
        _log_dirichlet_normalizer(alpha) - _log_dirichlet_normalizer(theta)
        + np.sum((counts + alpha - theta) * expected_log_weights(post))
    )


def merge_gains(prior, counts: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The weights' ELBO change of merging component ``second[m]`` into ``first[m]``: the symmetric
    Dirichlet over K - 1 components refitted for each pair
    (:func:`~stickbreak.priors.merged_weights.refitted_gains`)."""
    return refitted_gains(global_step, elbo, prior, counts, first, second)
