"""Kernels over count data: sparse CSR triplets ``(indptr, indices, values)`` and dense count arrays."""

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def sparse_lgamma_ratio(indptr, indices, values, lam_t):
    """``out[n, k] = sum_{v in doc n} [lgamma(lam_t[v, k] + x_nv) - lgamma(lam_t[v, k])]``.

    The data-dependent part of the Dirichlet-multinomial log probability of each document under
    each component; ``lam_t`` is (V, K), the Dirichlet parameters transposed.
    """
    n_docs = len(indptr) - 1
    n_comp = lam_t.shape[1]
    out = np.zeros((n_docs, n_comp))
    for n in range(n_docs):
        for j in range(indptr[n], indptr[n + 1]):
            v = indices[j]
            x = values[j]
            for k in range(n_comp):
                lam = lam_t[v, k]
                out[n, k] += math.lgamma(lam + x) - math.lgamma(lam)
    return out


@njit(cache=True, nogil=True)
def lgamma_gain(counts, prior, row_sums):
    """``sum_ik [lgamma(N_ik + prior_k) - lgamma(prior_k)]`` with ``N = max(counts, 0)``, reading
    only the positive entries (the others add exactly 0), and each row's ``sum_k N_ik`` into
    ``row_sums``: the count-dependent part of a Dirichlet-multinomial log probability (collapsed
    LDA's Eq. 1) in one pass, without the dense arrays NumPy would build for it."""
    total = 0.0
    for i in range(counts.shape[0]):
        row = 0.0
        for k in range(counts.shape[1]):
            n = counts[i, k]
            if n > 0.0:
                row += n
                total += math.lgamma(n + prior[k]) - math.lgamma(prior[k])
        row_sums[i] = row
    return total


@njit(cache=True, nogil=True)
def merged_dirichlet_normalizers(counts, prior, first, second, out, lo, hi):
    """``out[m] = c_Dir(prior + counts[first[m]] + counts[second[m]])`` for pairs ``m`` in
    ``[lo, hi)`` (an index of -1 adds no row), with ``c_Dir(lam) = lgamma(sum_v lam_v) - sum_v
    lgamma(lam_v)``: a merge screen's log normalizers, merged or not, summed the same way (so a
    pair with an empty topic gains exactly 0), one pass over the rows, without the (pairs, V)
    arrays NumPy would build for them."""
    for m in range(lo, hi):
        a, b = first[m], second[m]
        total, terms = 0.0, 0.0
        for v in range(counts.shape[1]):
            lam = prior[v]
            if a >= 0:
                lam += counts[a, v]
            if b >= 0:
                lam += counts[b, v]
            total += lam
            terms += math.lgamma(lam)
        out[m] = math.lgamma(total) - terms
