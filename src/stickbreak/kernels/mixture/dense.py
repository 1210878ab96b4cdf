"""Responsibility kernels: row-wise softmax of log-weights with the entropy gathered in one pass."""

import numpy as np
from numba import njit

#: Responsibilities are floored here so that ``r log r`` stays finite (Hughes 2016, §3.5; bnpy).
RESP_FLOOR = 1e-100


@njit(cache=True, nogil=True)
def softmax_row(row, columns, floor, entropy, shifted):
    """One row of :func:`normalize_log_resp` in place; returns its ``log sum_j exp row_j``.

    ``row[j]`` becomes ``r_j = max(softmax(row)_j, floor)`` and ``-r_j log r_j`` is added to
    ``entropy[columns[j]]``, with ``log r_j = row_j - log_norm`` (one logarithm per row, not per entry).
    ``shifted`` is scratch space of the row's length.
    """
    width = row.shape[0]
    top = row[0]
    for j in range(1, width):
        if row[j] > top:
            top = row[j]
    total = 0.0
    for j in range(width):
        shifted[j] = row[j] - top
        row[j] = np.exp(shifted[j])
        total += row[j]
    log_total = np.log(total)
    log_floor = np.log(floor)
    for j in range(width):
        r = row[j] / total
        if r < floor:
            row[j] = floor
            entropy[columns[j]] -= floor * log_floor
        else:
            row[j] = r
            entropy[columns[j]] -= r * (shifted[j] - log_total)
    return top + log_total


@njit(cache=True, nogil=True)
def normalize_log_resp(log_weights, floor):
    """Turn log-weights into responsibilities in place (Hughes 2016, Eq. 3.46-3.49).

    ``log_weights`` (n_items, n_components) holds ``W_nk = E log p(x_n|k) + E log pi_k``.
    Each row becomes ``r_n = softmax(W_n)`` (computed by log-sum-exp), floored at ``floor``.

    Returns
    -------
    log_norm : (n_items,) array, ``log sum_k exp W_nk`` per row.
    entropy : (n_components,) array, ``H_k = -sum_n r_nk log r_nk`` (0 log 0 = 0).
    """
    n_items, n_comp = log_weights.shape
    log_norm = np.empty(n_items)
    entropy = np.zeros(n_comp)
    shifted = np.empty(n_comp)
    columns = np.arange(n_comp)
    for n in range(n_items):
        log_norm[n] = softmax_row(log_weights[n], columns, floor, entropy, shifted)
    return log_norm, entropy


@njit(cache=True, nogil=True)
def column_entropy(resp, floor):
    """``H_k = -sum_n r_nk log r_nk`` of given responsibilities, each floored at ``floor``."""
    n_items, n_comp = resp.shape
    entropy = np.zeros(n_comp)
    for n in range(n_items):
        for k in range(n_comp):
            r = resp[n, k]
            if r < floor:
                r = floor
            entropy[k] -= r * np.log(r)
    return entropy


@njit(cache=True, nogil=True)
def pair_merge_entropy(resp, first, second, floor):
    """Entropy of merged pairs, ``H_m = -sum_n (r_na + r_nb) log(r_na + r_nb)`` for ``a = first[m]``,
    ``b = second[m]`` (Hughes 2016, Eq. 4.3 with its missing sign restored). Shape (n_pairs,)."""
    n_items = resp.shape[0]
    n_pairs = len(first)
    out = np.zeros(n_pairs)
    for n in range(n_items):
        for m in range(n_pairs):
            r = resp[n, first[m]] + resp[n, second[m]]
            if r < floor:
                r = floor
            out[m] -= r * np.log(r)
    return out
