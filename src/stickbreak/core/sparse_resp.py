"""Responsibilities that are either a dense (N, K) array or L-sparse (Hughes 2016, Sec. 7.1).

L-sparse responsibilities are a ``scipy.sparse.csr_matrix`` (N, K) with exactly L stored entries
per row (``indptr = arange(0, (N+1) L, L)``, bnpy's layout), so generic code (``resp.T @ X``,
``resp.sum(axis=0)``, column access) keeps working; the helpers here give plain ndarrays back and
hand the (values, indices) pair to the numba kernels. A stored value of exactly 0 is an unused slot.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..kernels import RESP_FLOOR, column_entropy, sparse_column_entropy


def is_sparse(resp) -> bool:
    return sp.issparse(resp)


def from_top_l(values: np.ndarray, indices: np.ndarray, n_components: int) -> sp.csr_matrix:
    """The (N, K) CSR matrix of top-L ``values`` at ``indices`` (both (N, L), indices ascending per row)."""
    n_items, n_active = values.shape
    indptr = np.arange(0, (n_items + 1) * n_active, n_active, dtype=np.int64)
    return sp.csr_matrix((values.ravel(), indices.ravel(), indptr), shape=(n_items, n_components))


def top_l_parts(resp) -> tuple[np.ndarray, np.ndarray]:
    """``(values, indices)``, both (N, L), of sparse responsibilities. Rows with fewer stored entries
    than the longest row are padded with zero values (which count for nothing)."""
    resp = sp.csr_matrix(resp)
    n_items = resp.shape[0]
    per_row = np.diff(resp.indptr)
    width = int(per_row.max()) if n_items else 0
    if n_items and (per_row == width).all():
        return resp.data.reshape(n_items, width), resp.indices.astype(np.int64).reshape(n_items, width)
    values = np.zeros((n_items, width))
    indices = np.zeros((n_items, width), dtype=np.int64)
    rows = np.repeat(np.arange(n_items), per_row)
    slots = np.arange(len(resp.data)) - np.repeat(resp.indptr[:-1], per_row)
    values[rows, slots] = resp.data
    indices[rows, slots] = resp.indices
    return values, indices


def column_sums(resp) -> np.ndarray:
    """``N_k = sum_n r_nk``, shape (K,)."""
    return np.asarray(resp.sum(axis=0)).ravel() if is_sparse(resp) else resp.sum(axis=0)


def weighted_sums(resp, X: np.ndarray) -> np.ndarray:
    """``sum_n r_nk x_n``, shape (K, D), a plain ndarray (O(N L D) when sparse)."""
    out = resp.T @ X
    return out.toarray() if sp.issparse(out) else np.asarray(out)


def column(resp, k: int) -> np.ndarray:
    """Column ``k`` as a dense (N,) array."""
    return resp[:, [k]].toarray().ravel() if is_sparse(resp) else resp[:, k]


def to_dense(resp) -> np.ndarray:
    return resp.toarray() if is_sparse(resp) else np.asarray(resp)


def row_argmax(resp) -> np.ndarray:
    """The most responsible component of each item (ties: the lower index), shape (N,)."""
    if not is_sparse(resp):
        return np.argmax(resp, axis=1)
    values, indices = top_l_parts(resp)
    if values.shape[1] == 0:
        return np.zeros(resp.shape[0], dtype=np.int64)
    return np.take_along_axis(indices, np.argmax(values, axis=1)[:, None], axis=1).ravel()


def column_sums_of_product(resp, values: np.ndarray) -> np.ndarray:
    """``sum_n r_nk M_nk`` for a dense (N, K) ``M = values``, shape (K,)."""
    if is_sparse(resp):
        return np.asarray(resp.multiply(values).sum(axis=0)).ravel()
    return (resp * values).sum(axis=0)


def entropy(resp, floor: float = RESP_FLOOR) -> np.ndarray:
    """``H_k = -sum_n r_nk log r_nk`` (sparse: over the non-zeros only), shape (K,)."""
    if is_sparse(resp):
        values, indices = top_l_parts(resp)
        return sparse_column_entropy(np.ascontiguousarray(values), np.ascontiguousarray(indices), resp.shape[1], floor)
    return column_entropy(np.ascontiguousarray(resp), floor)
