"""Kernels over sparse count data stored as CSR triplets ``(indptr, indices, values)``."""

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
