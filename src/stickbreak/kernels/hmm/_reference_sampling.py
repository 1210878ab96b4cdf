"""NumPy twin of :mod:`stickbreak.kernels.hmm.sampling`, used only by the tests.

Forward filtering runs in log space (log-sum-exp) instead of the kernel's rescaled probabilities,
and the draws come from a ``numpy.random.Generator``: the twin agrees with the kernel in
distribution (and exactly in the log-evidence), not draw for draw.
"""

import numpy as np
from scipy.special import logsumexp


def ffbs(start_probs, trans_probs, loglik, offsets, rng):
    """Twin of :func:`stickbreak.kernels.hmm.sampling.ffbs`: ``(states, log-evidence per sequence)``."""
    with np.errstate(divide="ignore"):
        log_start, log_trans = np.log(start_probs), np.log(trans_probs)
    states = np.zeros(len(loglik), dtype=np.int64)
    evidence = np.zeros(len(offsets) - 1)
    for s in range(len(offsets) - 1):
        lo, hi = offsets[s], offsets[s + 1]
        log_f = np.empty((hi - lo, len(start_probs)))
        prior = log_start
        for t in range(hi - lo):
            joint = prior + loglik[lo + t]
            shift = logsumexp(joint)
            evidence[s] += shift
            log_f[t] = joint - shift
            prior = logsumexp(log_f[t][:, None] + log_trans, axis=0)
        z = rng.choice(len(start_probs), p=np.exp(log_f[-1]))
        states[hi - 1] = z
        for t in range(hi - lo - 2, -1, -1):
            w = log_f[t] + log_trans[:, z]
            z = rng.choice(len(start_probs), p=np.exp(w - logsumexp(w)))
            states[lo + t] = z
    return states, evidence


def transition_counts(states, offsets, n_states):
    """Twin of :func:`stickbreak.kernels.hmm.sampling.transition_counts`."""
    start = np.bincount(states[offsets[:-1]], minlength=n_states).astype(float)
    inside = np.ones(len(states), dtype=bool)
    inside[offsets[:-1]] = False  # frame t has a predecessor in its sequence
    trans = np.zeros((n_states, n_states))
    np.add.at(trans, (states[np.flatnonzero(inside) - 1], states[inside]), 1.0)
    return start, trans


def _tables(counts, conc, rng):
    """CRP tables of ``counts`` customers at concentrations ``conc`` (same shapes), all at once."""
    counts = counts.astype(np.int64)
    most = int(counts.max()) if counts.size else 0
    i = np.arange(most)
    opens = rng.random(counts.shape + (most,)) < conc[..., None] / (conc[..., None] + i)
    return np.sum(opens & (i < counts[..., None]), axis=-1).astype(float)


def sticky_table_counts(start_counts, trans_counts, beta, alpha, kappa, start_alpha, rng):
    """Twin of :func:`stickbreak.kernels.hmm.sampling.sticky_table_counts`: ``(m, w)``."""
    n_states = len(beta)
    conc = np.vstack([start_alpha * beta, alpha * beta[None, :] + kappa * np.eye(n_states)])
    m = _tables(np.vstack([start_counts, trans_counts]), conc, rng)
    overrides = np.zeros(n_states)
    if kappa > 0:
        rho = kappa / (alpha + kappa)
        overrides = rng.binomial(np.diag(m[1:]).astype(np.int64), rho / (rho + beta * (1 - rho))).astype(float)
    return m, overrides
