"""L-sparse responsibility kernels (Hughes 2016 thesis, Sec. 7.1, Alg. 7.2).

Each item keeps non-zero responsibility on at most ``L`` components, stored as two (N, L) arrays:
``values`` (the responsibilities) and ``indices`` (their components, ascending within a row). A
value of exactly 0 marks an unused slot (it contributes to nothing, entropy included).
"""

import numpy as np
from numba import njit

from ..heap import sift_down
from .dense import softmax_row

#: Up to this many selected entries per row are ordered by insertion sort; beyond, by a scan over K.
_INSERTION_LIMIT = 32


@njit(cache=True, nogil=True)
def _select_top(row, n_active, heap_w, heap_i, mark, out_idx):
    """Indices of the ``n_active`` largest entries of ``row`` (ties: lower index), ascending, in ``out_idx``.

    O(K log L) worst case, O(K) typically: a min-heap of the best L so far rejects a candidate with
    one comparison against its root (Alg. 7.2's SelectTopL, without sorting the K weights).
    """
    n_comp = len(row)
    for j in range(n_active):
        heap_w[j] = row[j]
        heap_i[j] = j
    for j in range(n_active // 2 - 1, -1, -1):
        sift_down(heap_w, heap_i, n_active, j)
    for k in range(n_active, n_comp):
        w = row[k]
        if w > heap_w[0]:  # equal weight: the kept entry has the lower index
            heap_w[0] = w
            heap_i[0] = k
            sift_down(heap_w, heap_i, n_active, np.int64(0))
    if n_active <= _INSERTION_LIMIT:
        for j in range(n_active):
            out_idx[j] = heap_i[j]
        for j in range(1, n_active):
            v = out_idx[j]
            m = j - 1
            while m >= 0 and out_idx[m] > v:
                out_idx[m + 1] = out_idx[m]
                m -= 1
            out_idx[m + 1] = v
    else:
        for j in range(n_active):
            mark[heap_i[j]] = True
        m = 0
        for k in range(n_comp):
            if mark[k]:
                out_idx[m] = k
                m += 1
                mark[k] = False


@njit(cache=True, nogil=True)
def top_l_resp(log_weights, n_active, floor):
    """Top-L responsibilities from log-weights (Hughes 2016, Sec. 7.1, Alg. 7.2 ``TopLRespFromWeights``).

    Per row n of ``log_weights`` (N, K), ``W_nk = E log p(x_n|k) + E log pi_k``: select the
    ``n_active`` (= L, 1 <= L <= K) largest weights in O(K), then ``r_nl = exp(W_nl) / sum_l' exp(W_nl')``
    over the selection only (L exponentials), floored at ``floor``; every other entry is exactly 0.
    This maximises ``L_n = sum_k r_nk (W_nk - log r_nk)`` over all r_n with at most L non-zeros
    (Eq. 7.4; swap argument), and ``L_n = log sum_l exp(W_nl)`` at the optimum.

    Returns
    -------
    values : (N, L) responsibilities; indices : (N, L) int64 components, ascending per row;
    log_norm : (N,) ``log sum_l exp W_nl``; entropy : (K,) ``H_k = -sum_n r_nk log r_nk`` over the non-zeros.
    With L = K the result equals :func:`~stickbreak.kernels.mixture.dense.normalize_log_resp` bit for bit.
    """
    n_items, n_comp = log_weights.shape
    values = np.empty((n_items, n_active))
    indices = np.empty((n_items, n_active), dtype=np.int64)
    heap_w = np.empty(n_active)
    heap_i = np.empty(n_active, dtype=np.int64)
    mark = np.zeros(n_comp, dtype=np.bool_)
    log_norm = np.empty(n_items)
    entropy = np.zeros(n_comp)
    shifted = np.empty(n_active)
    for n in range(n_items):
        _select_top(log_weights[n], n_active, heap_w, heap_i, mark, indices[n])
        for j in range(n_active):  # in index order, as the dense kernel sums
            values[n, j] = log_weights[n, indices[n, j]]
        log_norm[n] = softmax_row(values[n], indices[n], floor, entropy, shifted)  # the softmax over the selection
    return values, indices, log_norm, entropy


@njit(cache=True, nogil=True)
def sparse_column_entropy(values, indices, n_comp, floor):
    """``H_k = -sum_n r_nk log r_nk`` over the non-zero entries of L-sparse responsibilities
    (Hughes 2016, Sec. 7.1), each floored at ``floor``. Shape (n_comp,)."""
    n_items, n_active = values.shape
    entropy = np.zeros(n_comp)
    for n in range(n_items):
        for j in range(n_active):
            r = values[n, j]
            if r == 0.0:
                continue
            if r < floor:
                r = floor
            entropy[indices[n, j]] -= r * np.log(r)
    return entropy


@njit(cache=True, nogil=True)
def sparse_weighted_outer_sums(X, values, indices, n_comp):
    """``S_k = sum_n r_nk x_n x_n^T`` from L-sparse responsibilities in O(N L D^2) (Hughes 2016,
    Sec. 7.1: the summary cost drops from O(N K D^2) to O(N L D^2)). Shape (n_comp, D, D)."""
    n_items, dim = X.shape
    n_active = values.shape[1]
    out = np.zeros((n_comp, dim, dim))
    for n in range(n_items):
        x = X[n]
        for j in range(n_active):
            r = values[n, j]
            if r == 0.0:
                continue
            block = out[indices[n, j]]
            for a in range(dim):
                ra = r * x[a]
                row = block[a]
                for b in range(a, dim):
                    row[b] += ra * x[b]
    for k in range(n_comp):
        for a in range(dim):
            for b in range(a + 1, dim):
                out[k, b, a] = out[k, a, b]
    return out


@njit(cache=True, nogil=True)
def sparse_pair_merge_entropy(values, indices, n_comp, first, second, floor):
    """``H_m = -sum_n (r_na + r_nb) log(r_na + r_nb)`` for ``a = first[m]``, ``b = second[m]``
    from L-sparse responsibilities (Hughes 2016, Eq. 4.3 and Sec. 7.1). An item holding neither
    component adds nothing; one holding one of them adds that entry's own term. Shape (n_pairs,).

    Cost O(N (L + M)): each row is scattered into a length-K scratch and cleared again.
    """
    n_items, n_active = values.shape
    n_pairs = len(first)
    out = np.zeros(n_pairs)
    dense = np.zeros(n_comp)
    for n in range(n_items):
        for j in range(n_active):
            dense[indices[n, j]] += values[n, j]
        for m in range(n_pairs):
            r = dense[first[m]] + dense[second[m]]
            if r == 0.0:
                continue
            if r < floor:
                r = floor
            out[m] -= r * np.log(r)
        for j in range(n_active):
            dense[indices[n, j]] = 0.0
    return out
