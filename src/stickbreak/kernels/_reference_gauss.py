"""NumPy twin of :mod:`stickbreak.kernels.gauss`, used only by the tests."""

import numpy as np



def blockwise_squared_norms(whitened, shift, out, start):
    """NumPy twin of :func:`stickbreak.kernels.gauss.blockwise_squared_norms`."""
    n_comp, dim = shift.shape
    blocks = whitened.reshape(len(whitened), n_comp, dim) - shift[None]
    out[start:start + len(whitened)] = (blocks**2).sum(axis=2)


def packed_outer_products(X, out):
    """NumPy twin of :func:`stickbreak.kernels.gauss.packed_outer_products`."""
    first, second = np.triu_indices(X.shape[1])
    out[:] = X[:, first] * X[:, second]
