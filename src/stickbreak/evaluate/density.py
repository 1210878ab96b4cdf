"""Held-out density of mixture models.

Two estimators, both in nats per item:

* :func:`heldout_log_density` – the posterior predictive ``log p(x | training data)`` under ``q``
  (Student-t / Dirichlet-multinomial / Beta-Bernoulli components), the model's own score;
* :func:`plugin_gaussian_log_density` – ``log sum_k w_k N(x | mu_k, Sigma_k)`` from point
  estimates, which any library's Gaussian mixture can be scored with (used side by side with
  scikit-learn in ``benchmarks/mixtures.py``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp


def heldout_log_density(estimator, X) -> float:
    """Mean posterior predictive log density per held-out item."""
    return float(np.mean(estimator.score_samples(X)))


def plugin_gaussian_log_density(X, weights, means, covariances) -> np.ndarray:
    """``log sum_k w_k N(x_n | mu_k, Sigma_k)`` per item, weights renormalised to sum to one.

    ``covariances`` is (K, D, D) for full or (K, D) for diagonal covariances.
    """
    X = np.asarray(X, dtype=float)
    weights = np.asarray(weights, dtype=float)
    weights = weights / weights.sum()
    covariances = np.asarray(covariances, dtype=float)
    if covariances.ndim == 2:
        covariances = np.stack([np.diag(c) for c in covariances])
    dim = X.shape[1]
    out = np.empty((X.shape[0], len(weights)))
    for k, (mean, cov) in enumerate(zip(means, covariances)):
        chol = np.linalg.cholesky(cov)
        z = np.linalg.solve(chol, (X - mean).T)
        out[:, k] = -0.5 * (dim * np.log(2 * np.pi) + 2 * np.log(np.diag(chol)).sum() + (z**2).sum(axis=0))
    with np.errstate(divide="ignore"):
        return logsumexp(out + np.log(weights)[None, :], axis=1)
