"""Frames paired with their predecessors: the items of first-order autoregressive models."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dense import FeatureColumns, as_float_matrix
from .errors import DataError
from .sequences import Sequences


@dataclass(frozen=True, eq=False)
class LaggedData(FeatureColumns):
    """``X`` (n_items, D) frames and ``Xprev`` (n_items, E) their predecessors, float64, finite.

    Item n is the pair ``(X[n], Xprev[n])``; the AR Gaussian model (``obs_model="ar_gauss"``)
    regresses ``X[n]`` on ``Xprev[n]``. Both arrays are validated (numeric, 2-D, finite, the same
    number of rows) when the object is built.
    """

    X: np.ndarray
    Xprev: np.ndarray

    def __post_init__(self):
        X = as_float_matrix(self.X, "X")
        Xprev = as_float_matrix(self.Xprev, "Xprev")
        if X.shape[0] != Xprev.shape[0]:
            raise DataError(
                f"X has {X.shape[0]} frames but Xprev has {Xprev.shape[0]}; pass one predecessor row per frame."
            )
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "Xprev", Xprev)

    @classmethod
    def _trusted(cls, X: np.ndarray, Xprev: np.ndarray) -> "LaggedData":
        """Build from arrays already validated (subsets), skipping the checks."""
        out = object.__new__(cls)
        object.__setattr__(out, "X", X)
        object.__setattr__(out, "Xprev", Xprev)
        return out

    @classmethod
    def from_sequences(cls, X, offsets, Xprev=None) -> "LaggedData":
        """Frames of concatenated sequences (``offsets`` as in :class:`Sequences`) with their predecessors.

        Without ``Xprev``, the predecessor of frame t is frame t-1 of the same sequence, and the
        predecessor of each sequence's *first* frame is that first frame itself (so every frame is
        an item and no sequence leaks into the next). Data sets that ship explicit predecessors
        (bnpy's mocap6 stores an ``Xprev`` array) pass them as ``Xprev`` instead.
        """
        seqs = Sequences.from_arrays(X, offsets)
        if Xprev is not None:
            return cls(seqs.X, Xprev)
        prev_rows = np.arange(seqs.n_frames) - 1
        prev_rows[seqs.offsets[:-1]] = seqs.offsets[:-1]
        return cls._trusted(seqs.X, np.ascontiguousarray(seqs.X[prev_rows]))

    @property
    def n_items(self) -> int:
        return self.X.shape[0]

    def subset(self, index) -> "LaggedData":
        return LaggedData._trusted(np.ascontiguousarray(self.X[index]), np.ascontiguousarray(self.Xprev[index]))
