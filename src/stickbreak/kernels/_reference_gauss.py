"""NumPy twin of :mod:`stickbreak.kernels.gauss`, used only by the tests."""



def blockwise_squared_norms(whitened, shift, out, start):
    """NumPy twin of :func:`stickbreak.kernels.gauss.blockwise_squared_norms`."""
    n_comp, dim = shift.shape
    blocks = whitened.reshape(len(whitened), n_comp, dim) - shift[None]
    out[start:start + len(whitened)] = (blocks**2).sum(axis=2)
