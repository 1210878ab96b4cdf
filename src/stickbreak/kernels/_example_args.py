"""Example arguments for the ``_examples`` modules (:mod:`stickbreak.kernels.warm`): arrays of the
dtypes and layouts the library passes. Only their types matter; their values are never used."""

import numpy as np


def f8(*shape, order="C"):
    """float64 array, C-ordered unless ``order="F"`` (then at least 2 x 2, or numba would see C)."""
    return np.zeros(shape, order=order)


def i8(*shape):
    """int64 array (token arrays, sequence offsets, merge pairs, seeds)."""
    return np.zeros(shape, dtype=np.int64)


def b1(*shape):
    """bool array."""
    return np.zeros(shape, dtype=np.bool_)


def csr():
    """``(indptr, indices, data)`` of a scipy CSR matrix: int32 index arrays, float64 values."""
    return np.zeros(2, dtype=np.int32), np.zeros(1, dtype=np.int32), np.zeros(1)


def csr64():
    """``(indptr, indices, data)`` with int64 index arrays (built by the library, not by scipy)."""
    return i8(2), i8(1), f8(1)
