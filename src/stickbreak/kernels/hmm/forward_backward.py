"""Hidden Markov model kernels: the local step of the HDP-HMM (Hughes 2016, Ch. 6, §6.3; digest
thesis_ch5-7 §3.3, §3.5, §3.7) and Viterbi decoding.

Sequences are stacked: sequence ``s`` is rows ``offsets[s]:offsets[s+1]`` of the (T, K) frame
arrays, every sequence has at least one frame. ``log_start`` (K,) is ``E log pi_0k``, ``log_trans``
(K, K) is ``E log pi_jk`` (row ``j`` = from-state), ``loglik`` (T, K) is ``E log p(x_t | phi_k)``.

Zero probabilities are allowed: ``log_start`` and ``log_trans`` may hold ``-inf`` (a transition
that cannot happen) or values so negative that ``exp`` underflows to 0, and ``loglik`` may hold
``-inf``. No input may hold ``+inf`` or NaN. If every path of a sequence has probability 0 in
floating point, no output is NaN or infinite: the forward normaliser is floored at
:data:`NORM_FLOOR`, which makes ``log_norm`` very negative but finite, and the frames that are
impossible get zero responsibilities.

Forward pass. This is the scaled recursion of §3.5 on ``a0 = exp(log_start)``,
``A = exp(log_trans)`` and ``e_t = exp(loglik_t - max_k loglik_tk)``. Each ``f_t`` sums to one,
and ``log_norm = sum_t (log c_t + max_k loglik_tk)``.

Backward pass. This is where the kernel departs from §3.5. The digest divides the backward
message by the forward normaliser, ``b_t = A (e_{t+1} * b_{t+1}) / c_{t+1}``. That message is
bounded only by ``1 / f_tj``. When a state is unreachable (``f_tj = 0``) but the data strongly
favour it (e.g. a log-likelihood lead of ~700 when every way into that state is ``-inf``), the
message overflows to ``inf`` within two frames and ``r = f * b`` becomes NaN. Here each backward
message ``b_t`` is instead normalised to sum to one over the states with ``f_tj > 0``, and set to 0
on the others. This is exact: every way into such a state has ``A_ij e_tj = 0`` from each state
``i`` with ``f_{t-1,i} > 0``, so its ``b_tj`` never reaches a marginal. It also keeps a favoured
unreachable state from soaking up the normalisation and pushing the other states into underflow.
The marginals are then normalised explicitly. With ``btilde_t = A (e_{t+1} * b_{t+1})``,
``r_t = f_t * btilde_t / Z_t`` where ``Z_t = sum_j f_tj btilde_tj``. In exact arithmetic this equals
the digest's result. The pairwise marginals ``s_tjl = r_tj A_jl g_l / btilde_tj``, with
``g = e_{t+1} * b_{t+1}``, are formed on the fly and never stored per frame.

Entropy table. ``log(s_tjl / r_tj) = log A_jl + log g_l - log btilde_tj``. So
``H_jl = -M_jl log_trans_jl - sum_t s_tjl (log g_tl - log btilde_tj)``, which costs 2K logarithms
per frame instead of K^2.

Merge gains. With ``f(x) = x log x`` and ``G(x, y) = f(x + y) - f(x) - f(y) >= 0`` (computed as
``(x + y)`` times a binary entropy, free of cancellation), merging ``a`` and ``b`` changes the
entropy ``H = -sum f(r_1) - sum_t sum f(s_t) + sum_{t<T} sum f(r_t)`` by
``-G(r_1a, r_1b) + sum_{t<T} [G(r_ta, r_tb) - corner_t - sum_{l != a,b} (G(s_al, s_bl) + G(s_la, s_lb))]``.
Here ``corner_t = G(s_aa + s_ab, s_ba + s_bb) + G(s_aa, s_ab) + G(s_ba, s_bb)``. The gain is
*not* always <= 0. The merged chain's table entropy is that of its Markov projection, which can
exceed the original (see ``tests/test_hmm_kernels.py::test_pair_gain_can_be_positive``).

Both public kernels run chunks of whole sequences on threads (:mod:`~stickbreak.kernels.chunked`).
The chunks are balanced by frame count, and each chunk keeps its own (K, K) accumulators, summed at
the end. NumPy twins live in :mod:`stickbreak.kernels.hmm._reference`.
"""

import numpy as np
from numba import njit

from ..chunked import over_chunks

#: A forward normaliser that is exactly 0 (every path into the frame has probability 0 in floating
#: point) is replaced by this, so that ``log_norm`` stays finite; the frame's messages stay 0.
NORM_FLOOR = 1e-300
#: At most this many chunks of sequences (balanced by frames). The count depends only on the inputs, not
#: on the thread count, so results are bit-identical for any number of threads.
_MAX_CHUNKS = 32


def _sequence_chunks(offsets, n_states):
    """Bounds (n_chunks + 1,) of contiguous runs of sequences with about equal frame counts. The
    per-chunk (K, K) accumulators together stay no larger than a (T, K) array."""
    n_seq = offsets.size - 1
    n_frames = int(offsets[n_seq] - offsets[0])
    n_chunks = max(1, min(n_seq, _MAX_CHUNKS, n_frames // n_states))
    targets = offsets[0] + np.arange(n_chunks, dtype=np.int64) * n_frames // n_chunks
    return np.append(np.searchsorted(offsets[:n_seq], targets), n_seq).astype(np.int64)


@njit(cache=True, nogil=True)
def _emission(row, out):
    """``out_k = exp(row_k - max_k row_k)``; returns the max (0, with ``out = 0``, if it is ``-inf``)."""
    top = row[0]
    for k in range(1, row.size):
        if row[k] > top:
            top = row[k]
    if top == -np.inf:
        for k in range(row.size):
            out[k] = 0.0
        return 0.0
    for k in range(row.size):
        out[k] = np.exp(row[k] - top)
    return top


@njit(cache=True, nogil=True)
def _merge_gain(x, y):
    """``G(x, y) = f(x + y) - f(x) - f(y) >= 0`` for ``f(x) = x log x`` (0 if either is 0)."""
    if x > 0.0 and y > 0.0:
        u = x + y
        return -(x * np.log(x / u) + y * np.log(y / u))
    return 0.0


@njit(cache=True, nogil=True)
def _forward(a0, A, loglik, lo, hi, fwd, e):
    """Scaled forward messages of frames ``lo:hi`` into ``fwd`` (each sums to one, or is 0 where the
    normaliser is 0); returns the sequence's log normaliser ``sum_t (log c_t + max_k loglik_tk)``."""
    n_states = a0.size
    log_norm = 0.0
    for t in range(lo, hi):
        top = _emission(loglik[t], e)
        f = fwd[t]
        if t == lo:
            for k in range(n_states):
                f[k] = a0[k]
        else:
            prev = fwd[t - 1]
            for k in range(n_states):
                f[k] = 0.0
            for j in range(n_states):
                pj = prev[j]
                if pj != 0.0:
                    for k in range(n_states):
                        f[k] += pj * A[j, k]
        c = 0.0
        for k in range(n_states):
            f[k] *= e[k]
            c += f[k]
        if c > 0.0:
            for k in range(n_states):
                f[k] /= c
        else:
            c = NORM_FLOOR
        log_norm += np.log(c) + top
    return log_norm


@njit(cache=True, nogil=True)
def _pair_gains(S, r, pairs, gain):
    """Add one frame's change in ``-sum f(s_t) + sum f(r_t)`` for every merge pair to ``gain``."""
    n_states = r.size
    for p in range(pairs.shape[0]):
        a, b = pairs[p, 0], pairs[p, 1]
        delta = _merge_gain(r[a], r[b])
        delta -= _merge_gain(S[a, a] + S[a, b], S[b, a] + S[b, b]) + _merge_gain(S[a, a], S[a, b]) \
            + _merge_gain(S[b, a], S[b, b])
        for l in range(n_states):
            if l != a and l != b:
                delta -= _merge_gain(S[a, l], S[b, l]) + _merge_gain(S[l, a], S[l, b])
        gain[p] += delta


@njit(cache=True, nogil=True)
def _pairwise_frame(A, f, bt, b, g, lg, S, trans, cross):
    """One frame of the backward pass, given ``f = f_t`` (replaced by ``r_t``), ``g = e_{t+1} * b_{t+1}``
    and ``lg = log g`` (0 where ``g = 0``). Fills ``S`` with ``s_t``, adds it to ``trans`` and
    ``s_tjl (log g_l - log btilde_tj)`` to ``cross``, and leaves ``b_t`` (normalised) in ``b``."""
    n_states = f.size
    b_sum = 0.0
    for j in range(n_states):
        acc = 0.0
        for l in range(n_states):
            acc += A[j, l] * g[l]
        bt[j] = acc
        if f[j] > 0.0:  # b_tj of a state the forward pass cannot reach is never used (see module docstring)
            b_sum += acc
    Z = 0.0
    for j in range(n_states):
        b[j] = bt[j] / b_sum if b_sum > 0.0 and f[j] > 0.0 else 0.0
        Z += f[j] * b[j]
    for j in range(n_states):
        r = f[j] * b[j] / Z if Z > 0.0 else 0.0
        f[j] = r
        if r == 0.0:  # also covers btilde_tj = 0: the whole row of s_t is 0
            for l in range(n_states):
                S[j, l] = 0.0
            continue
        q = r / bt[j]
        if q < np.inf:
            for l in range(n_states):
                S[j, l] = q * (A[j, l] * g[l])
        else:  # btilde_tj so small that r / btilde_tj overflows: divide entry by entry
            for l in range(n_states):
                S[j, l] = r * (A[j, l] * g[l] / bt[j])
        lbj = np.log(bt[j])
        for l in range(n_states):
            s = S[j, l]
            trans[j, l] += s
            cross[j, l] += s * (lg[l] - lbj)


@njit(cache=True, nogil=True)
def _backward(A, loglik, lo, hi, pairs, resp, bt, b, g, lg, S, start, trans, cross, head, gain):
    """Backward pass of frames ``lo:hi`` over the forward messages in ``resp`` (turned into ``r_t``),
    adding the sequence's statistics to the chunk's accumulators."""
    n_states = A.shape[0]
    for k in range(n_states):
        b[k] = 1.0
    for t in range(hi - 2, lo - 1, -1):
        _emission(loglik[t + 1], g)
        for l in range(n_states):
            g[l] *= b[l]
            lg[l] = np.log(g[l]) if g[l] > 0.0 else 0.0
        _pairwise_frame(A, resp[t], bt, b, g, lg, S, trans, cross)
        if pairs.shape[0] > 0:
            _pair_gains(S, resp[t], pairs, gain)
    first = resp[lo]
    for k in range(n_states):
        r = first[k]
        start[k] += r
        if r > 0.0:
            head[k] -= r * np.log(r)
    for p in range(pairs.shape[0]):
        gain[p] -= _merge_gain(first[pairs[p, 0]], first[pairs[p, 1]])


@njit(cache=True, nogil=True)
def fb_chunk(a0, A, loglik, offsets, first, last, pairs, resp, log_norm, start, trans, cross, head, gain):
    """Forward-backward for sequences ``first:last``, with scratch buffers and (K, K) accumulators
    of its own."""
    n_states = a0.size
    e, bt, b, g, lg = np.empty(n_states), np.empty(n_states), np.empty(n_states), np.empty(n_states), \
        np.empty(n_states)
    S = np.empty((n_states, n_states))
    for s in range(first, last):
        lo, hi = offsets[s], offsets[s + 1]
        log_norm[s] = _forward(a0, A, loglik, lo, hi, resp, e)
        _backward(A, loglik, lo, hi, pairs, resp, bt, b, g, lg, S, start, trans, cross, head, gain)


def forward_backward(log_start, log_trans, loglik, offsets, pairs):
    """Exact local step of the HMM for every sequence (module docstring; digest §3.5).

    ``offsets`` (S+1,) int64; ``pairs`` (P, 2) int64 state pairs ``a != b`` (usually ``a < b``; the
    order does not matter), P may be 0.

    Returns
    -------
    resp : (T, K) marginals ``r_tk = q(z_t = k)``.
    start_counts : (K,) ``sum_s r_{s,first,k}``.
    trans_counts : (K, K) ``M_jk = sum_s sum_{t<T_s} s_tjk``.
    entropy : (K+1, K) entropy table summed over sequences. Row 0 is ``-sum_s r_s1l log r_s1l``,
        and row ``j+1`` is ``-sum_s sum_t s_tjl log(s_tjl / r_tj)``. All entries are >= 0.
    log_norm : (S,) ``log`` of the sum over all paths of ``a0 prod A prod exp(loglik)``.
    pair_gain : (P,) change in ``entropy.sum()`` if states ``a, b`` were merged (either sign).
    """
    n_seq, n_states, n_pairs = offsets.size - 1, log_start.size, pairs.shape[0]
    bounds = _sequence_chunks(offsets, n_states)
    n_chunks = bounds.size - 1
    a0, A = np.exp(log_start), np.exp(log_trans)
    resp = np.zeros(loglik.shape)
    log_norm = np.zeros(n_seq)
    start, head, gain = np.zeros((n_chunks, n_states)), np.zeros((n_chunks, n_states)), np.zeros((n_chunks, n_pairs))
    trans, cross = np.zeros((n_chunks, n_states, n_states)), np.zeros((n_chunks, n_states, n_states))

    def run(c, first, last):
        fb_chunk(a0, A, loglik, offsets, first, last, pairs, resp, log_norm, start[c], trans[c], cross[c], head[c],
                 gain[c])

    over_chunks(run, bounds)
    start_counts, trans_counts, cross_total, head_total, pair_gain = start[0], trans[0], cross[0], head[0], gain[0]
    for c in range(1, n_chunks):  # in chunk order: the same sums whatever the threads
        start_counts += start[c]
        trans_counts += trans[c]
        cross_total += cross[c]
        head_total += head[c]
        pair_gain += gain[c]
    with np.errstate(invalid="ignore"):  # 0 * log 0 where a transition is never taken
        used = np.where(trans_counts > 0.0, trans_counts * log_trans, 0.0)
    # >= 0 exactly; rounding may leave -1e-16 on deterministic rows
    entropy = np.vstack([head_total[None, :], np.maximum(-cross_total - used, 0.0)])
    return resp, start_counts, trans_counts, entropy, log_norm, pair_gain


@njit(cache=True, nogil=True)
def viterbi_chunk(log_start, log_trans, loglik, offsets, first, last, labels):
    """Viterbi for sequences ``first:last`` (back-pointers sized for the longest of them)."""
    n_states = log_start.size
    longest = 0
    for s in range(first, last):
        longest = max(longest, offsets[s + 1] - offsets[s])
    back = np.empty((longest, n_states), dtype=np.int64)
    delta, best = np.empty(n_states), np.empty(n_states)
    for s in range(first, last):
        lo, hi = offsets[s], offsets[s + 1]
        for k in range(n_states):
            delta[k] = log_start[k] + loglik[lo, k]
        for t in range(lo + 1, hi):
            arg = back[t - lo]
            for k in range(n_states):
                best[k] = delta[0] + log_trans[0, k]
                arg[k] = 0
            for j in range(1, n_states):
                for k in range(n_states):
                    v = delta[j] + log_trans[j, k]
                    if v > best[k]:  # strict: ties keep the lowest index
                        best[k] = v
                        arg[k] = j
            for k in range(n_states):
                delta[k] = best[k] + loglik[t, k]
        z = 0
        for k in range(1, n_states):
            if delta[k] > delta[z]:
                z = k
        labels[hi - 1] = z
        for t in range(hi - 1, lo, -1):
            z = back[t - lo, z]
            labels[t - 1] = z


def viterbi(log_start, log_trans, loglik, offsets):
    """MAP state path (T,) int64 of every sequence, in log space. Among tied paths it returns the one
    that is smallest read backwards from the last frame (each argmax takes the lowest index)."""
    labels = np.zeros(loglik.shape[0], dtype=np.int64)

    def run(c, first, last):
        viterbi_chunk(log_start, log_trans, loglik, offsets, first, last, labels)

    over_chunks(run, _sequence_chunks(offsets, log_start.size))
    return labels
