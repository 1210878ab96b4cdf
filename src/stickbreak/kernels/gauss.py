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


@njit(cache=True, nogil=True)
def packed_outer_products(X, out):
    """``out[n, t] = X[n, i] * X[n, j]`` for the upper-triangle pairs ``i <= j`` in row-major order
    (``np.triu_indices``): each row's outer product packed, so that one matrix product with the
    responsibilities sums them for every component at once."""
    n_rows, dim = X.shape
    for r in range(n_rows):
        t = 0
        for i in range(dim):
            xi = X[r, i]
            for j in range(i, dim):
                out[r, t] = xi * X[r, j]
                t += 1
