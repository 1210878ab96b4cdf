"""The HMM estimators' input: hmmlearn-style ``(X, lengths)``, lists of sequences or
:class:`~stickbreak.data.Sequences`, validated into :class:`~stickbreak.data.Sequences`, and the
parameters that describe it in every method's docstring (:data:`INPUT_PARAMETERS`)."""

from __future__ import annotations

import numpy as np

from ..data import DataError, Sequences
from ..data.dense import as_float_matrix
from ..data.errors import describe_rows

#: numpydoc text of the input every HMM method takes, by its ``$name`` in the docstrings
#: (:func:`._common.composed`): ``$x``, ``$lengths`` (with ``Xprev``) and ``$input`` (both).
INPUT_PARAMETERS = {"x": """X : array-like of shape (n_frames, n_features), list of array-like, or Sequences
            The frames of all sequences stacked, one sequence after the other (with ``lengths``), a
            list of 2-D arrays (one per sequence), or a :class:`~stickbreak.data.Sequences`.""",
                    "lengths": """lengths : array-like of int, shape (n_sequences,), optional
            Frames per sequence, in order, summing to ``n_frames`` (stacked ``X`` only); default: ``X``
            is one sequence.
        Xprev : array-like of shape (n_frames, n_features), optional
            ``obs_model="ar_gauss"`` only: each frame's predecessor, laid out like ``X`` (a list when
            ``X`` is one); default: the previous frame of the same sequence, the first frame being its
            own predecessor. A ``Sequences`` may carry its own."""}
INPUT_PARAMETERS["input"] = INPUT_PARAMETERS["x"] + "\n        " + INPUT_PARAMETERS["lengths"]


def _lengths_offsets(lengths, n_frames: int) -> np.ndarray:
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or len(lengths) == 0 or lengths.dtype.kind not in "iuf" or \
            not np.array_equal(lengths, np.round(lengths)):
        raise DataError(f"lengths must be a 1-D list of whole numbers (frames per sequence), got {lengths!r}; "
                        "pass e.g. lengths=[len(x) for x in sequences].")
    short = np.flatnonzero(lengths < 1)
    if len(short):
        raise DataError(f"lengths {describe_rows(short)} are below 1 frame; every sequence needs at least one "
                        "frame: drop the empty sequences from X and lengths.")
    if lengths.sum() != n_frames:
        raise DataError(f"lengths add up to {int(lengths.sum())} frames but X has {n_frames}; lengths must count "
                        "every frame of X, sequences in order.")
    return np.concatenate([[0], np.cumsum(lengths.astype(np.int64))])


def as_sequences(X, lengths=None, Xprev=None, what: str = "X") -> Sequences:
    """Validated :class:`Sequences` from hmmlearn-style ``(X, lengths)``, a list of 2-D arrays (one
    per sequence) or a :class:`Sequences`; ``Xprev`` (same layout as ``X``) gives each frame's
    predecessor for autoregressive models. Raises :class:`DataError` naming the problem and the fix."""
    if isinstance(X, Sequences):
        if lengths is not None:
            raise DataError(f"{what} is a Sequences, which already marks where each sequence starts; drop lengths=.")
        if Xprev is not None and X.Xprev is not None:
            raise DataError(f"Xprev is given twice (as {what}.Xprev and as Xprev=); drop one of them.")
        return Sequences.from_arrays(X.X, X.offsets, what, Xprev=X.Xprev if Xprev is None else Xprev)
    if isinstance(X, (list, tuple)) and len(X) and all(np.ndim(x) == 2 for x in X):
        if lengths is not None:
            raise DataError(f"{what} is a list of sequences, so lengths= is not needed; drop it (lengths go with "
                            "one 2-D array holding the frames of all sequences).")
        seqs = Sequences.from_list(X, what)
        if Xprev is not None:
            if not isinstance(Xprev, (list, tuple)) or len(Xprev) != len(X):
                raise DataError(f"{what} is a list of {len(X)} sequences, so Xprev must be a list of as many arrays "
                                "(each sequence's predecessor frames).")
            Xprev = np.concatenate([as_float_matrix(p, f"Xprev[{i}]") for i, p in enumerate(Xprev)])
        return Sequences.from_arrays(seqs.X, seqs.offsets, what, Xprev=Xprev)
    frames = as_float_matrix(X, what)
    offsets = np.array([0, len(frames)]) if lengths is None else _lengths_offsets(lengths, len(frames))
    return Sequences.from_arrays(frames, offsets, what, Xprev=Xprev)


def without_targets(y, seqs: Sequences, method: str) -> Sequences:
    """``seqs``, after checking ``y``: scikit-learn passes targets as the second argument of ``fit``
    and ``score``, which an HMM ignores (unsupervised), one per frame; the frames per sequence go by
    keyword, ``lengths=``. A second argument of another length is lengths passed by position
    (hmmlearn's ``fit(X, lengths)``), refused rather than read as one long sequence."""
    if y is not None and np.ndim(y) >= 1 and len(y) != seqs.n_frames:
        raise DataError(f"the second argument of {method} is y (targets, ignored as in scikit-learn), but it has "
                        f"{len(y)} entries for {seqs.n_frames} frames; pass the frames per sequence by keyword: "
                        f"{method}(X, lengths=...).")
    return seqs


def checked_frames(family, seqs: Sequences, what: str = "X"):
    """What ``family`` scores (frames, with predecessors for AR models, word counts for the
    multinomial), validated by the family."""
    return family.check_data(family.frames_of(seqs), what)
