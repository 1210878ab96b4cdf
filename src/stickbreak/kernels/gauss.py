"""Kernels for Gaussian likelihoods."""

from numba import njit


@njit(cache=True, nogil=True)
def blockwise_squared_norms(whitened, shift, out, start):
    """``out[start + n, k] = ||whitened[n, kD:(k+1)D] - shift[k]||^2`` for every row n and block k.

    ``whitened`` (n, K*D) holds ``x_n`` multiplied by every component's whitening matrix side by
    side (one matrix product for all components); ``shift`` (K, D) holds each whitened mean.
    """
    n_rows = whitened.shape[0]
    n_comp, dim = shift.shape
    for i in range(n_rows):
        for k in range(n_comp):
            base = k * dim
            acc = 0.0
            for d in range(dim):
                v = whitened[i, base + d] - shift[k, d]
                acc += v * v
            out[start + i, k] = acc
