"""Wide 2-D arrays that are mostly zero columns (a part's topic-word counts: the words it does not
hold), or tall ones that are mostly zero rows (its word-topic counts), kept as their non-zero
columns or rows where they travel (:mod:`.worker`) or are written through (memoized VI's spill
files); :func:`expanded` restores the exact array."""

from __future__ import annotations

import numpy as np

#: Arrays with at least this many columns (rows) are kept as their non-zero columns (rows) when at
#: most this fraction of them is non-zero (the indices cost 1/K of the values they save).
WIDE = 1024
SPARSE = 0.9


def compacted(array) -> tuple[int, np.ndarray, np.ndarray] | None:
    """``(axis, index, values)``: ``array``'s non-zero columns (axis 1) or rows (axis 0) and their
    indices, when it is a wide (tall) float array worth it; else None."""
    if not (isinstance(array, np.ndarray) and array.ndim == 2 and array.dtype.kind == "f"):
        return None
    for axis in (1, 0):
        if array.shape[axis] >= WIDE:
            index = np.flatnonzero(np.any(array != 0, axis=1 - axis))
            if len(index) <= SPARSE * array.shape[axis]:
                return axis, index, np.ascontiguousarray(np.take(array, index, axis=axis))
    return None


def expanded(shape: tuple, dtype: str, axis: int, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The array :func:`compacted` kept as ``(axis, index, values)``, of ``shape`` and ``dtype``."""
    out = np.zeros(shape, dtype=dtype)
    if axis == 1:
        out[:, index] = values
    else:
        out[index] = values
    return out
