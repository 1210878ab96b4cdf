"""NumPy twin of the weights in :mod:`stickbreak.kernels.evaluate.hdp_importance`, used only by the tests.

Written the textbook way (full Dirichlet log densities, no cancellation), so that agreement with the
kernel's telescoped form checks the algebra too.
"""

import numpy as np
from scipy.special import gammaln


def _log_dirichlet(phi, alpha):
    """log Dir(phi | alpha) for each row of ``phi`` (S, K)."""
    return gammaln(alpha.sum()) - gammaln(alpha).sum() + ((alpha - 1.0) * np.log(phi)).sum(axis=1)


def importance_log_weights(words, word_counts, theta_t, prior, doc_topic, phi):
    """``log w_s = log Dir(phi_s | a) + sum_u c_u log sum_k phi_sk theta_{k,v_u} - log Dir(phi_s | a + n)``.

    ``phi`` (S, K) on the simplex with positive entries (Wang & Blei 2012, S.3).
    """
    loglik = np.log(phi @ theta_t[words].T) @ word_counts
    return _log_dirichlet(phi, prior) + loglik - _log_dirichlet(phi, prior + doc_topic)
