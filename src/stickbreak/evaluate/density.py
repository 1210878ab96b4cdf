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
    """Mean posterior predictive log density per held-out item.

    The mean of ``estimator.score_samples(X)``: for the mixtures, ``log p(x | training data)``
    under the variational posterior (Student-t components for Gaussian likelihoods).

    Parameters
    ----------
    estimator : fitted estimator
        A fitted model with ``score_samples``, e.g. :class:`~stickbreak.DPMixture`.
    X : array-like of shape (n_items, n_features)
        The held-out items.

    Returns
    -------
    float
        The mean log density per item, in nats (higher is better).

    Examples
    --------
    >>> from stickbreak import DPMixture, datasets
    >>> from stickbreak.evaluate import heldout_log_density
    >>> X = datasets.load("old_faithful").X
    >>> model = DPMixture(n_components=5, max_laps=5, random_state=0).fit(X[::2])
    >>> score = heldout_log_density(model, X[1::2])
    >>> isinstance(score, float)
    True
    """
    return float(np.mean(estimator.score_samples(X)))


def plugin_gaussian_log_density(X, weights, means, covariances) -> np.ndarray:
    """``log sum_k w_k N(x_n | mu_k, Sigma_k)`` per item, weights renormalised to sum to one.

    A plug-in score from point estimates, so that any library's Gaussian mixture (e.g.
    scikit-learn's ``weights_``, ``means_``, ``covariances_``) is scored the same way.

    Parameters
    ----------
    X : array-like of shape (n_items, n_features)
        The items scored.
    weights : array-like of shape (n_components,)
        Non-negative component weights (divided by their sum).
    means : array-like of shape (n_components, n_features)
        The component means.
    covariances : array-like of shape (n_components, n_features, n_features) or (n_components, n_features)
        Full covariance matrices (positive definite), or the variances of diagonal ones.

    Returns
    -------
    ndarray of shape (n_items,)
        The log density of each item, in nats.

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak.evaluate import plugin_gaussian_log_density
    >>> X = np.array([[0.0, 0.0], [3.0, 3.0]])
    >>> logp = plugin_gaussian_log_density(X, [1.0, 1.0], [[0.0, 0.0], [3.0, 3.0]], [[1.0, 1.0], [1.0, 1.0]])
    >>> logp.shape, bool(np.allclose(logp[0], logp[1]))
    ((2,), True)
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
