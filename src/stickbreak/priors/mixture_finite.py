"""Finite mixture weights with a symmetric Dirichlet prior (Hughes 2016, §2.6).

``pi ~ Dir(alpha, ..., alpha)`` over K components; ``q(pi) = Dir(theta)``; ``alpha`` is the
per-component concentration (scikit-learn's ``weight_concentration_prior`` for
``dirichlet_distribution``; the thesis writes it gamma/K).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

name = "finite"


def default_prior(concentration: float = 1.0) -> dict[str, float]:
    if not (np.isfinite(concentration) and concentration > 0):
        raise ValueError(f"concentration must be positive, got {concentration}")
    return {"alpha": float(concentration)}


def global_step(prior, counts: np.ndarray) -> dict[str, np.ndarray]:
    """``theta_k = alpha + N_k``."""
    return {"theta": prior["alpha"] + counts}


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
    alpha = np.full_like(theta, prior["alpha"])
    return float(
        _log_dirichlet_normalizer(alpha) - _log_dirichlet_normalizer(theta)
        + np.sum((counts + alpha - theta) * expected_log_weights(post))
    )
