"""Sequences: frames of all sequences concatenated, with offsets marking where each starts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dense import _as_float_matrix
from .errors import DataError, describe_rows


@dataclass(frozen=True, eq=False)
class Sequences:
    """``X`` (n_frames, n_features) and ``offsets`` (n_sequences + 1,): sequence s is ``X[offsets[s]:offsets[s+1]]``.

    ``Xprev`` (optional, same shape as ``X``) is each frame's predecessor for autoregressive
    models, when the data supply one (bnpy's mocap6 does); without it, autoregressive models use
    the previous frame of the same sequence, and the first frame as its own predecessor.
    """

    X: np.ndarray
    offsets: np.ndarray
    Xprev: np.ndarray | None = None

    @classmethod
    def from_arrays(cls, X, offsets, what: str = "X", Xprev=None) -> "Sequences":
        X = _as_float_matrix(X, what)
        if Xprev is not None:
            Xprev = _as_float_matrix(Xprev, "Xprev")
            if Xprev.shape != X.shape:
                raise DataError(f"Xprev has shape {Xprev.shape} but {what} has shape {X.shape}; they must match.")
        offsets = np.asarray(offsets)
        if offsets.ndim != 1 or offsets.dtype.kind not in "iu" or len(offsets) < 2:
            raise DataError("offsets must be a 1-D integer array [0, end_1, ..., n_frames] with at least two entries.")
        offsets = offsets.astype(np.int64)
        if offsets[0] != 0 or offsets[-1] != X.shape[0]:
            raise DataError(
                f"offsets must start at 0 and end at the number of frames ({X.shape[0]}); "
                f"got {offsets[0]} ... {offsets[-1]}."
            )
        lengths = np.diff(offsets)
        if (lengths <= 0).any():
            raise DataError(
                f"sequences {describe_rows(np.flatnonzero(lengths <= 0))} are empty or offsets decrease; "
                "offsets must be strictly increasing."
            )
        return cls(X, offsets, Xprev)

    @classmethod
    def from_list(cls, sequences, what: str = "sequences") -> "Sequences":
        arrays = [_as_float_matrix(s, f"{what}[{i}]") for i, s in enumerate(sequences)]
        if not arrays:
            raise DataError(f"{what} is empty; pass at least one sequence.")
        widths = {a.shape[1] for a in arrays}
        if len(widths) != 1:
            raise DataError(f"all sequences must have the same number of features, got {sorted(widths)}.")
        offsets = np.concatenate([[0], np.cumsum([len(a) for a in arrays])])
        return cls(np.concatenate(arrays), offsets)

    @property
    def n_items(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_frames(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def subset(self, index) -> "Sequences":
        """The sequences at ``index`` (sequence numbers), in that order."""
        index = np.atleast_1d(np.asarray(index, dtype=np.int64))
        rows = np.concatenate([np.arange(self.offsets[s], self.offsets[s + 1]) for s in index])
        offsets = np.concatenate([[0], np.cumsum(self.lengths[index])])
        Xprev = None if self.Xprev is None else np.ascontiguousarray(self.Xprev[rows])
        return Sequences(np.ascontiguousarray(self.X[rows]), offsets, Xprev)

    def frame_sequence(self) -> np.ndarray:
        """The sequence number of every frame, shape (n_frames,)."""
        return np.repeat(np.arange(self.n_items), self.lengths)
