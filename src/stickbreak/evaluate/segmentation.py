"""Scores of a predicted state sequence against a true segmentation (Hughes 2016 thesis, §6.6).

Predicted states are matched one-to-one to true labels by the assignment that maximises the
total number of frames they share (Hungarian algorithm on the contingency table of all frames of
all sequences pooled); the Hamming distance is then the fraction of frames whose matched label
differs from the true one. Predicted states left without a partner count as errors.

Labels may be one 1-D array over the concatenated frames or a list with one array per sequence.
For speaker diarization, ``foreground_only=True`` scores only frames whose true label is
non-negative (in the AMI data -1 marks no speech and -2 overlapping speech).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..data.errors import DataError
from ..core.docstrings import composed

#: numpydoc text of the labels every score takes, their ``$labels`` (:func:`._docstrings.composed`).
LABELS = """true_labels : array-like of shape (n_frames,) or list of array-like
        The true label of every frame: one 1-D array over the concatenated frames, or a list
        with one 1-D array per sequence.
    pred_labels : array-like of shape (n_frames,) or list of array-like
        The predicted state of every frame (e.g. ``estimator.predict(X)``), laid out as
        ``true_labels``."""


def _concat_labels(labels, what: str) -> tuple[np.ndarray, list[int] | None]:
    """The labels of all frames as one 1-D array, plus the per-sequence lengths when given as a list."""
    if isinstance(labels, (list, tuple)) and any(np.ndim(item) >= 1 for item in labels):
        parts = [np.asarray(item) for item in labels]
        for i, part in enumerate(parts):
            if part.ndim != 1:
                raise DataError(f"{what}[{i}] has shape {part.shape}; each sequence's labels must be a 1-D array.")
        if not parts or sum(len(p) for p in parts) == 0:
            raise DataError(f"{what} is empty; pass at least one labelled frame.")
        return np.concatenate(parts), [len(p) for p in parts]
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise DataError(f"{what} has shape {arr.shape}; pass a 1-D array of per-frame labels "
                        "or a list of 1-D arrays, one per sequence.")
    if arr.size == 0:
        raise DataError(f"{what} is empty; pass at least one labelled frame.")
    return arr, None


def _scored_frames(true_labels, pred_labels, foreground_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(true, pred)`` over the frames that are scored, after checking the two line up."""
    true, true_lengths = _concat_labels(true_labels, "true_labels")
    pred, pred_lengths = _concat_labels(pred_labels, "pred_labels")
    if true_lengths is not None and pred_lengths is not None and true_lengths != pred_lengths:
        raise DataError(f"true_labels and pred_labels have different sequence lengths ({true_lengths} vs "
                        f"{pred_lengths}); pass one predicted label per frame of every sequence.")
    if len(true) != len(pred):
        raise DataError(f"true_labels has {len(true)} frames but pred_labels has {len(pred)}; "
                        "pass one predicted label per frame, sequences in the same order.")
    if foreground_only:
        if true.dtype.kind not in "iuf":
            raise DataError("foreground_only needs numeric true labels (negative = background); got dtype "
                            f"{true.dtype}.")
        keep = true >= 0
        if not keep.any():
            raise DataError("foreground_only=True but every true label is negative (background); "
                            "there are no foreground frames to score.")
        true, pred = true[keep], pred[keep]
    return true, pred


def _assignment(true: np.ndarray, pred: np.ndarray):
    """Predicted states, true labels, the optimal pairs ``(rows, cols)`` and their overlaps."""
    true_values, true_index = np.unique(true, return_inverse=True)
    pred_values, pred_index = np.unique(pred, return_inverse=True)
    table = np.bincount(pred_index * len(true_values) + true_index,
                        minlength=len(pred_values) * len(true_values)).reshape(len(pred_values), len(true_values))
    rows, cols = linear_sum_assignment(table, maximize=True)
    return pred_values, true_values, rows, cols, table[rows, cols]


def _mapping(pred_values, true_values, rows, cols, overlap) -> dict:
    mapping = {p.item(): None for p in pred_values}
    for r, c, n in zip(rows, cols, overlap):
        if n > 0:
            mapping[pred_values[r].item()] = true_values[c].item()
    return mapping


@composed(labels=LABELS)
def align_states(true_labels, pred_labels, foreground=None) -> dict:
    """``{predicted state: true label}`` by the one-to-one matching that shares the most frames.

    The matching maximises the total overlap over all frames pooled (Hungarian algorithm,
    ``scipy.optimize.linear_sum_assignment``; Hughes 2016, §6.6). Predicted states that get no
    partner (more predicted states than true labels), or whose partner they share no frame with,
    map to ``None``: all their frames count as errors.

    Parameters
    ----------
    $labels
    foreground : array-like of bool of shape (n_frames,) or list of array-like, optional
        A mask over frames (1-D, or a list per sequence): only those frames are used, and only
        the predicted states seen there are keys.

    Returns
    -------
    dict
        ``{predicted state: matched true label or None}`` for every predicted state used, as
        Python scalars.

    Raises
    ------
    DataError
        If the labels are empty, not 1-D or of different lengths, or the mask does not fit them.

    Examples
    --------
    >>> from stickbreak.evaluate import align_states
    >>> align_states([0, 0, 0, 1, 1, 2], [7, 7, 3, 3, 3, 9])
    {3: 1, 7: 0, 9: 2}
    """
    true, pred = _scored_frames(true_labels, pred_labels, False)
    if foreground is not None:
        mask, _ = _concat_labels(foreground, "foreground")
        if mask.dtype != bool or len(mask) != len(true):
            raise DataError(f"foreground must be a boolean mask with one entry per frame ({len(true)}); "
                            f"got dtype {mask.dtype} and {len(mask)} entries.")
        if not mask.any():
            raise DataError("foreground selects no frames; pass a mask with at least one True entry.")
        true, pred = true[mask], pred[mask]
    return _mapping(*_assignment(true, pred))


@composed(labels=LABELS)
def hamming_distance(true_labels, pred_labels, foreground_only: bool = False, normalize: bool = True) -> float:
    """Fraction of frames (their number if ``normalize=False``) whose aligned predicted label is wrong.

    Predicted states are first matched one-to-one to true labels as by :func:`align_states`
    (Hughes 2016, §6.6); frames of unmatched states count as errors.

    Parameters
    ----------
    $labels
    foreground_only : bool, default=False
        Leave out frames whose true label is negative (background, e.g. -1 no speech and -2
        overlapping speech in speaker diarization) from both the alignment and the count.
    normalize : bool, default=True
        Return the fraction of scored frames in error; ``False`` returns their number.

    Returns
    -------
    float
        The Hamming distance: a fraction in [0, 1], or a number of frames.

    Examples
    --------
    >>> from stickbreak.evaluate import hamming_distance
    >>> hamming_distance([0, 0, 0, 1, 1, 1], [5, 5, 4, 4, 4, 4])
    0.16666666666666666
    >>> hamming_distance([0, 0, 0, 1, 1, 1], [5, 5, 4, 4, 4, 4], normalize=False)
    1.0
    """
    true, pred = _scored_frames(true_labels, pred_labels, foreground_only)
    errors = len(true) - int(_assignment(true, pred)[-1].sum())
    return errors / len(true) if normalize else float(errors)


@composed(labels=LABELS)
def segmentation_report(true_labels, pred_labels, foreground_only: bool = False) -> dict:
    """Hamming distance, error and frame counts, states used, true labels and the alignment.

    Parameters
    ----------
    $labels
    foreground_only : bool, default=False
        Leave out frames whose true label is negative (background), as in :func:`hamming_distance`.

    Returns
    -------
    dict
        ``hamming`` (fraction of scored frames in error), ``n_errors``, ``n_frames`` (frames
        scored), ``n_pred_states`` (distinct predicted states on those frames),
        ``n_true_labels`` (distinct true labels on them) and ``mapping`` (as :func:`align_states`).

    Examples
    --------
    >>> from stickbreak.evaluate import segmentation_report
    >>> report = segmentation_report([0, 0, 0, 1, 1, 1], [5, 5, 4, 4, 4, 4])
    >>> report["n_errors"], report["n_frames"], report["mapping"]
    (1, 6, {4: 1, 5: 0})
    """
    true, pred = _scored_frames(true_labels, pred_labels, foreground_only)
    pred_values, true_values, rows, cols, overlap = _assignment(true, pred)
    errors = len(true) - int(overlap.sum())
    return {
        "hamming": errors / len(true),
        "n_errors": errors,
        "n_frames": len(true),
        "n_pred_states": len(pred_values),
        "n_true_labels": len(true_values),
        "mapping": _mapping(pred_values, true_values, rows, cols, overlap),
    }
