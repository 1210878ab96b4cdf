"""NumPy twin of :mod:`stickbreak.kernels.evaluate.completion_mc`, used only by the tests."""

import numpy as np


def loglik_given_draws(heldout, eta_t, log_z):
    """``sum_v c_dv log sum_k eta_t[v, k] pi_dk`` for every row of the CSR ``heldout`` (D, W), with
    ``pi_d = exp(log_z_d) / sum exp(log_z_d)``; written densely."""
    pi = np.exp(log_z - log_z.max(axis=1, keepdims=True))
    pi /= pi.sum(axis=1, keepdims=True)
    word_probs = pi @ eta_t.T  # (D, W)
    dense = heldout.toarray()
    with np.errstate(divide="ignore"):
        return np.where(dense > 0, dense * np.log(word_probs), 0.0).sum(axis=1)
