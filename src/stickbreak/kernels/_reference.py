"""NumPy twins of the numba kernels, used only by the tests."""

import numpy as np


def normalize_log_resp(log_weights, floor):
    """NumPy twin of :func:`stickbreak.kernels.resp.normalize_log_resp` (also in place)."""
    top = log_weights.max(axis=1, keepdims=True)
    unnormalized = np.exp(log_weights - top)
    total = unnormalized.sum(axis=1, keepdims=True)
    resp = np.maximum(unnormalized / total, floor)
    log_weights[...] = resp
    return (top + np.log(total)).ravel(), -(resp * np.log(resp)).sum(axis=0)


def sparse_lgamma_ratio(indptr, indices, values, lam_t):
    """NumPy twin of :func:`stickbreak.kernels.counts.sparse_lgamma_ratio`."""
    from scipy.special import gammaln

    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    terms = gammaln(lam_t[indices] + values[:, None]) - gammaln(lam_t[indices])
    out = np.zeros((len(indptr) - 1, lam_t.shape[1]))
    np.add.at(out, rows, terms)
    return out


def column_entropy(resp, floor):
    """NumPy twin of :func:`stickbreak.kernels.resp.column_entropy`."""
    r = np.maximum(resp, floor)
    return -(r * np.log(r)).sum(axis=0)


def pair_merge_entropy(resp, first, second, floor):
    """NumPy twin of :func:`stickbreak.kernels.resp.pair_merge_entropy`."""
    r = np.maximum(resp[:, first] + resp[:, second], floor)
    return -(r * np.log(r)).sum(axis=0)


def blockwise_squared_norms(whitened, shift, out, start):
    """NumPy twin of :func:`stickbreak.kernels.gauss.blockwise_squared_norms`."""
    n_comp, dim = shift.shape
    blocks = whitened.reshape(len(whitened), n_comp, dim) - shift[None]
    out[start:start + len(whitened)] = (blocks**2).sum(axis=2)
