"""Sequences: frames of all sequences concatenated, with offsets marking where each starts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dense import FeatureColumns, as_float_matrix
from .errors import DataError, describe_rows


@dataclass(frozen=True, eq=False)
class Sequences(FeatureColumns):
    """Sequences of frames, concatenated: sequence s is ``X[offsets[s]:offsets[s+1]]``.

    ``Xprev`` (optional, same shape as ``X``) is each frame's predecessor for autoregressive
    models, when the data supply one (bnpy's mocap6 does); without it, autoregressive models use
    the previous frame of the same sequence, and the first frame as its own predecessor.

    Parameters
    ----------
    X : ndarray of shape (n_frames, n_features)
        The frames of all sequences, one after the other, taken as given (no checks); build from
        user data with :meth:`from_arrays` or :meth:`from_list`, which validate them.
    offsets : ndarray of shape (n_sequences + 1,)
        Where each sequence starts, then ``n_frames``: ``[0, end_0, end_1, ..., n_frames]``.
    Xprev : ndarray of shape (n_frames, n_features), optional
        Each frame's predecessor, for autoregressive observation models.

    See Also
    --------
    Sequences.from_list : Validated construction from one array per sequence.
    Sequences.from_arrays : Validated construction from concatenated frames and offsets.

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak import Sequences
    >>> rng = np.random.default_rng(0)
    >>> seqs = Sequences.from_list([rng.normal(size=(5, 2)), rng.normal(size=(3, 2))])
    >>> seqs.n_items, seqs.n_frames, seqs.n_features
    (2, 8, 2)
    >>> seqs.offsets, seqs.lengths
    (array([0, 5, 8]), array([5, 3]))
    >>> seqs.frame_sequence()
    array([0, 0, 0, 0, 0, 1, 1, 1])
    """

    X: np.ndarray
    offsets: np.ndarray
    Xprev: np.ndarray | None = None

    @classmethod
    def from_arrays(cls, X, offsets, what: str = "X", Xprev=None) -> "Sequences":
        """Validated sequences from the concatenated frames and the offsets where each sequence starts.

        Parameters
        ----------
        X : array-like of shape (n_frames, n_features)
            The frames of all sequences, one after the other (finite numbers).
        offsets : array-like of int of shape (n_sequences + 1,)
            ``[0, end_0, ..., n_frames]``, strictly increasing (no empty sequence).
        what : str, default="X"
            The name of ``X`` in error messages.
        Xprev : array-like of shape (n_frames, n_features), optional
            Each frame's predecessor, for autoregressive observation models.

        Returns
        -------
        Sequences
            The frames as contiguous float64, the offsets as int64.

        Raises
        ------
        DataError
            If the frames are not a finite numeric 2-D array, ``Xprev`` does not match them, or
            the offsets do not run strictly increasing from 0 to ``n_frames``.
        """
        X = as_float_matrix(X, what)
        if Xprev is not None:
            Xprev = as_float_matrix(Xprev, "Xprev")
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
        """Validated sequences from one 2-D array per sequence.

        Parameters
        ----------
        sequences : iterable of array-like of shape (n_frames_s, n_features)
            The sequences, each a non-empty finite numeric array, all with the same number of features.
        what : str, default="sequences"
            The name of the input in error messages.

        Returns
        -------
        Sequences
            The frames concatenated (float64) with their offsets, without ``Xprev``.

        Raises
        ------
        DataError
            If there is no sequence, one is not a valid finite 2-D array, or their widths differ.
        """
        arrays = [as_float_matrix(s, f"{what}[{i}]") for i, s in enumerate(sequences)]
        if not arrays:
            raise DataError(f"{what} is empty; pass at least one sequence.")
        widths = {a.shape[1] for a in arrays}
        if len(widths) != 1:
            raise DataError(f"all sequences must have the same number of features, got {sorted(widths)}.")
        offsets = np.concatenate([[0], np.cumsum([len(a) for a in arrays])])
        return cls(np.concatenate(arrays), offsets)

    @property
    def n_items(self) -> int:
        """The number of sequences."""
        return len(self.offsets) - 1

    @property
    def n_frames(self) -> int:
        """The number of frames of all sequences together."""
        return self.X.shape[0]

    @property
    def lengths(self) -> np.ndarray:
        """The number of frames of each sequence, shape (n_sequences,)."""
        return np.diff(self.offsets)

    def __getitem__(self, index) -> "Sequences":
        """``seqs[i]``, ``seqs[2:5]``, ``seqs[[0, 3]]`` or ``seqs[mask]``: :meth:`subset` (a single
        sequence stays a Sequences of one)."""
        return self.subset(index)

    def subset(self, index) -> "Sequences":
        """The sequences at ``index`` (sequence numbers), in that order.

        Parameters
        ----------
        index : int, slice, array-like of int or boolean mask of shape (n_sequences,)
            The sequences to keep.

        Returns
        -------
        Sequences
            The selected sequences, frames (and ``Xprev``) copied, offsets rebuilt from 0.
        """
        index = np.arange(self.n_items)[index] if isinstance(index, slice) else np.atleast_1d(np.asarray(index))
        if index.dtype == bool:
            if index.shape != (self.n_items,):
                raise DataError(f"a boolean mask of sequences needs {self.n_items} entries, got {index.shape[0]}")
            index = np.flatnonzero(index)
        if index.size and not np.issubdtype(index.dtype, np.integer):
            raise DataError(f"sequences are selected by integer numbers, a slice or a boolean mask, got {index.dtype} "
                            "values")
        index = index.astype(np.int64)
        outside = index[(index < -self.n_items) | (index >= self.n_items)]
        if outside.size:
            raise IndexError(f"sequence {outside[0]} is out of range for {self.n_items} sequences")
        index = index % max(self.n_items, 1)  # (negative numbers count from the end, as in numpy)
        rows = np.concatenate([np.arange(self.offsets[s], self.offsets[s + 1]) for s in index] or [np.zeros(0, int)])
        offsets = np.concatenate([[0], np.cumsum(self.lengths[index])])
        Xprev = None if self.Xprev is None else np.ascontiguousarray(self.Xprev[rows])
        return Sequences(np.ascontiguousarray(self.X[rows]), offsets, Xprev)

    def frame_sequence(self) -> np.ndarray:
        """The sequence number of every frame.

        Returns
        -------
        ndarray of int of shape (n_frames,)
            ``s`` for every frame of sequence ``s``.
        """
        return np.repeat(np.arange(self.n_items), self.lengths)
