"""NumPy twins of :mod:`stickbreak.kernels.mixture.dense` and :mod:`~stickbreak.kernels.mixture.sparse`,
used only by the tests."""

import numpy as np


def normalize_log_resp(log_weights, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.dense.normalize_log_resp` (also in place)."""
    top = log_weights.max(axis=1, keepdims=True)
    unnormalized = np.exp(log_weights - top)
    total = unnormalized.sum(axis=1, keepdims=True)
    resp = np.maximum(unnormalized / total, floor)
    log_weights[...] = resp
    return (top + np.log(total)).ravel(), -(resp * np.log(resp)).sum(axis=0)


def column_entropy(resp, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.dense.column_entropy`."""
    r = np.maximum(resp, floor)
    return -(r * np.log(r)).sum(axis=0)


def pair_merge_entropy(resp, first, second, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.dense.pair_merge_entropy`."""
    r = np.maximum(resp[:, first] + resp[:, second], floor)
    return -(r * np.log(r)).sum(axis=0)


def top_l_resp(log_weights, n_active, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.sparse.top_l_resp` (a full stable sort per row)."""
    n_items, n_comp = log_weights.shape
    order = np.argsort(-log_weights, axis=1, kind="stable")[:, :n_active]  # ties: lower index first
    indices = np.sort(order, axis=1).astype(np.int64)
    chosen = np.take_along_axis(log_weights, indices, axis=1)
    top = chosen.max(axis=1, keepdims=True)
    unnormalized = np.exp(chosen - top)
    total = unnormalized.sum(axis=1, keepdims=True)
    values = np.maximum(unnormalized / total, floor)
    entropy = np.bincount(indices.ravel(), -(values * np.log(values)).ravel(), minlength=n_comp)
    return values, indices, (top + np.log(total)).ravel(), entropy


def _dense_from_top_l(values, indices, n_comp):
    dense = np.zeros((len(values), n_comp))
    np.add.at(dense, (np.repeat(np.arange(len(values)), values.shape[1]), indices.ravel()), values.ravel())
    return dense


def sparse_column_entropy(values, indices, n_comp, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.sparse.sparse_column_entropy`."""
    r = np.maximum(values, floor)
    terms = np.where(values == 0, 0.0, -r * np.log(r))
    return np.bincount(indices.ravel(), terms.ravel(), minlength=n_comp)


def sparse_weighted_outer_sums(X, values, indices, n_comp):
    """NumPy twin of :func:`stickbreak.kernels.mixture.sparse.sparse_weighted_outer_sums` (via the dense resp)."""
    resp = _dense_from_top_l(values, indices, n_comp)
    return np.einsum("nk,nd,ne->kde", resp, X, X)


def sparse_pair_merge_entropy(values, indices, n_comp, first, second, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.sparse.sparse_pair_merge_entropy`."""
    resp = _dense_from_top_l(values, indices, n_comp)
    merged = resp[:, first] + resp[:, second]
    r = np.maximum(merged, floor)
    return np.where(merged == 0, 0.0, -r * np.log(r)).sum(axis=0)
