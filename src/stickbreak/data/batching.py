"""Deterministic partition of items into batches."""

from __future__ import annotations

import numpy as np

from .errors import DataError
from .bow import BagOfWords
from .dense import DenseData
from .lagged import LaggedData


def batch_indices(n_items: int, n_batches: int, seed: int | None = 0) -> list[np.ndarray]:
    """Split ``range(n_items)`` into ``n_batches`` random, disjoint, nearly equal batches.

    The same ``seed`` gives the same partition. Indices within a batch are sorted, so that a
    batch reads its rows in storage order. With one batch the order is the identity.
    """
    if not isinstance(n_batches, (int, np.integer)) or n_batches < 1:
        raise DataError(f"n_batches must be a positive integer, got {n_batches!r}.")
    if n_batches > n_items:
        raise DataError(f"n_batches={n_batches} exceeds the number of items ({n_items}); use at most {n_items}.")
    if n_batches == 1:
        return [np.arange(n_items)]
    order = np.random.default_rng(seed).permutation(n_items)
    return [np.sort(part) for part in np.array_split(order, n_batches)]


def concat_items(parts):
    """One data set of the same kind from several (dense rows or word counts, in order)."""

    first = parts[0]
    if isinstance(first, DenseData):
        return DenseData(np.concatenate([np.asarray(p.X) for p in parts]))
    if isinstance(first, LaggedData):
        return LaggedData(np.concatenate([p.X for p in parts]), np.concatenate([p.Xprev for p in parts]))
    if isinstance(first, BagOfWords):
        import scipy.sparse as sp

        return BagOfWords(sp.vstack([p.counts for p in parts]).tocsr(), first.vocabulary)
    raise TypeError(f"cannot concatenate {type(first).__name__} items")
