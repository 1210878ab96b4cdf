"""NumPy twin of :mod:`stickbreak.kernels.hmm.forward_backward`, used only by the tests.

The twin runs forward-backward in log space (log-sum-exp), one sequence at a time. It keeps every
pairwise marginal ``s_t`` as a (T-1, K, K) array. It computes the entropy table straight from its
definition, and gets each merge gain by building the merged ``s'_t`` and ``r'_t`` and recomputing
the table. This is a different route from the kernel's scaled recursion and its O(TKP) merge
formula. It is valid where some path of every sequence has nonzero probability.
"""

import numpy as np


def _logsumexp(a, axis):
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(np.log(np.sum(np.exp(a - top), axis=axis, keepdims=True)) + top, axis=axis)


def sequence_posterior(log_start, log_trans, loglik):
    """Exact posterior of one sequence: marginals (T, K), pairwise marginals (T-1, K, K), log normaliser.

    The log messages are shifted to log-sum-exp 0 in every frame, so that they do not grow with t
    and lose digits. The forward shifts add up to the log normaliser."""
    n_frames, n_states = loglik.shape
    log_fwd, log_bwd = np.empty((n_frames, n_states)), np.zeros((n_frames, n_states))
    log_norm = 0.0
    for t in range(n_frames):
        prior = log_start if t == 0 else _logsumexp(log_fwd[t - 1][:, None] + log_trans, axis=0)
        shift = _logsumexp(prior + loglik[t], axis=0)
        log_fwd[t] = prior + loglik[t] - shift
        log_norm += shift
    for t in range(n_frames - 2, -1, -1):
        step = _logsumexp(log_trans + (loglik[t + 1] + log_bwd[t + 1])[None, :], axis=1)
        log_bwd[t] = step - _logsumexp(step, axis=0)
    joint = log_fwd + log_bwd
    resp = np.exp(joint - _logsumexp(joint, axis=1)[:, None])
    joint = log_fwd[:-1, :, None] + log_trans[None] + (loglik[1:] + log_bwd[1:])[:, None, :]
    pairwise = np.exp(joint - _logsumexp(joint, axis=(1, 2))[:, None, None])
    return resp, pairwise, log_norm


def entropy_table(resp, pairwise):
    """(K+1, K): row 0 ``-r_1l log r_1l``; row ``j+1`` ``-sum_t s_tjl log(s_tjl / r_tj)`` (0 log 0 = 0)."""
    n_states = resp.shape[1]
    table = np.zeros((n_states + 1, n_states))
    positive = resp[0] > 0
    table[0, positive] = -resp[0, positive] * np.log(resp[0, positive])
    denom = np.broadcast_to(resp[:-1, :, None], pairwise.shape)
    positive = pairwise > 0
    ratio = np.ones_like(pairwise)
    ratio[positive] = pairwise[positive] / denom[positive]
    table[1:] = -(pairwise * np.log(ratio)).sum(axis=0)
    return table


def merge_states(resp, pairwise, a, b):
    """Marginals and pairwise marginals with state ``b`` folded into ``a`` (rows, then columns)."""
    keep = [k for k in range(resp.shape[1]) if k != b]
    merged_resp = resp.copy()
    merged_resp[:, a] += merged_resp[:, b]
    merged_pairs = pairwise.copy()
    merged_pairs[:, a, :] += merged_pairs[:, b, :]
    merged_pairs[:, :, a] += merged_pairs[:, :, b]  # the corner gets s_aa + s_ba + s_ab + s_bb
    return merged_resp[:, keep], merged_pairs[:, keep][:, :, keep]


def forward_backward(log_start, log_trans, loglik, offsets, pairs):
    """NumPy twin of :func:`stickbreak.kernels.hmm.forward_backward.forward_backward`."""
    n_states = log_start.size
    resp = np.zeros(loglik.shape)
    start_counts, trans_counts = np.zeros(n_states), np.zeros((n_states, n_states))
    entropy = np.zeros((n_states + 1, n_states))
    log_norm, pair_gain = np.zeros(len(offsets) - 1), np.zeros(len(pairs))
    for s in range(len(offsets) - 1):
        lo, hi = offsets[s], offsets[s + 1]
        r, pairwise, log_norm[s] = sequence_posterior(log_start, log_trans, loglik[lo:hi])
        resp[lo:hi] = r
        start_counts += r[0]
        trans_counts += pairwise.sum(axis=0)
        table = entropy_table(r, pairwise)
        entropy += table
        for p, (a, b) in enumerate(pairs):
            pair_gain[p] += entropy_table(*merge_states(r, pairwise, a, b)).sum() - table.sum()
    return resp, start_counts, trans_counts, entropy, log_norm, pair_gain


def viterbi(log_start, log_trans, loglik, offsets):
    """NumPy twin of :func:`stickbreak.kernels.hmm.forward_backward.viterbi` (``argmax`` takes the first maximum)."""
    labels = np.zeros(len(loglik), dtype=np.int64)
    for s in range(len(offsets) - 1):
        lo, hi = offsets[s], offsets[s + 1]
        delta = log_start + loglik[lo]
        back = np.zeros((hi - lo, log_start.size), dtype=np.int64)
        for t in range(1, hi - lo):
            scores = delta[:, None] + log_trans
            back[t] = np.argmax(scores, axis=0)
            delta = scores[back[t], np.arange(log_start.size)] + loglik[lo + t]
        labels[hi - 1] = np.argmax(delta)
        for t in range(hi - lo - 1, 0, -1):
            labels[lo + t - 1] = back[t, labels[lo + t]]
    return labels
