"""Hidden Markov models (HDP-HMM, finite): state sequences as strips (with the true labels aligned
by the Hungarian matching of :func:`stickbreak.evaluate.align_states`), transitions, durations."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..data import Sequences
from ..evaluate import align_states
from ._figure import colours_by_size, largest, new_figure, plot_heatmap

#: Colour of true labels no predicted state is matched to.
UNMATCHED = (0.6, 0.6, 0.6, 1.0)


def segmentation(estimator, X, lengths=None, Xprev=None) -> tuple[np.ndarray, np.ndarray]:
    """``(states, offsets)``: the Viterbi path of every sequence and where each sequence starts."""
    states = estimator.predict(X, lengths, Xprev=Xprev)
    if isinstance(X, Sequences):
        return states, X.offsets
    if isinstance(X, (list, tuple)):
        lengths = [len(x) for x in X]
    return states, np.concatenate([[0], np.cumsum(lengths if lengths is not None else [len(states)])])


def _runs(states: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(state, length)`` of every run of one state, runs cut at sequence boundaries."""
    starts = np.union1d(np.flatnonzero(np.diff(states)) + 1, offsets[:-1])
    ends = np.append(starts[1:], len(states))
    return states[starts], ends - starts


def plot_state_sequences(estimator, X, lengths=None, Xprev=None, labels=None, n_sequences: int = 4) -> Figure:
    """The first ``n_sequences`` sequences as strips of their Viterbi states, with the true labels if given.

    States are coloured by size (the state with most frames gets the first colour). With true
    ``labels`` a second strip shows them, each label in the colour of the state matched to it by
    :func:`stickbreak.evaluate.align_states` (grey: no state matched).

    Parameters
    ----------
    estimator : fitted HDPHMM or FiniteHMM
        The model.
    X : Sequences, array-like of shape (n_frames, n_features) or list of array-like
        The sequences, as passed to ``estimator.predict``.
    lengths : array-like of int of shape (n_sequences,), optional
        Frames per sequence when ``X`` is one array of concatenated frames (hmmlearn style).
    Xprev : array-like of shape (n_frames, n_features), optional
        Each frame's predecessor, for autoregressive observation models.
    labels : array-like of shape (n_frames,), optional
        The true label of every frame, concatenated over sequences.
    n_sequences : int, default=4
        How many sequences to draw (the first ones), one axes each.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import HDPHMM, datasets, plot
    >>> mocap = datasets.load("mocap6")
    >>> hmm = HDPHMM(n_states=8, max_laps=3, random_state=0).fit(mocap.X)
    >>> fig = plot.plot_state_sequences(hmm, mocap.X, labels=mocap.labels, n_sequences=2)
    >>> type(fig).__name__, len(fig.axes)
    ('Figure', 2)
    """
    states, offsets = segmentation(estimator, X, lengths, Xprev)
    palette = colours_by_size(np.bincount(states, minlength=estimator.n_states_))
    rows = [("states", palette[states])]
    if labels is not None:
        labels = np.asarray(labels)
        matched = {label: state for state, label in align_states(labels, states).items() if label is not None}
        rows.append(("true labels", np.array([palette[matched[v]] if v in matched else UNMATCHED for v in labels])))
    shown = min(n_sequences, len(offsets) - 1)
    fig, axes = new_figure(shown, row_height=0.45 * len(rows) + 0.9)
    if labels is not None:
        fig.suptitle("True labels in the colour of the state matched to them (grey: no state matched)", fontsize=10)
    for s, ax in enumerate(axes):
        start, end = offsets[s], offsets[s + 1]
        ax.imshow(np.stack([rgba[start:end] for _, rgba in rows]), aspect="auto", interpolation="nearest")
        ax.set_yticks(np.arange(len(rows)), [name for name, _ in rows], fontsize=8)
        ax.set_title(f"sequence {s}: {end - start} frames", fontsize=9)
    axes[-1].set_xlabel("frame")
    return fig


def plot_transitions(estimator, max_states: int = 30) -> Figure:
    """The expected transition matrix among the used states (largest first) as a heatmap.

    Parameters
    ----------
    estimator : fitted HDPHMM or FiniteHMM
        The model (its ``transmat_`` among the states with the most expected frames).
    max_states : int, default=30
        The most states shown.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import HDPHMM, datasets, plot
    >>> mocap = datasets.load("mocap6")
    >>> hmm = HDPHMM(n_states=8, max_laps=3, random_state=0).fit(mocap.X)
    >>> type(plot.plot_transitions(hmm)).__name__
    'Figure'
    """
    ids = largest(estimator.state_counts_, estimator.n_active_states_, max_states)
    return plot_heatmap(estimator.transmat_[np.ix_(ids, ids)], ids, "to state", "from state",
                        f"Transition probabilities ({len(ids)} used states)", 7.0, 6.0, rows=ids, vmax=1)


def plot_durations(estimator, X, lengths=None, Xprev=None, max_states: int = 20) -> Figure:
    """How long the Viterbi path stays in each used state: a box of its run lengths per state.

    Runs are cut at sequence boundaries; states are ordered by their number of frames, most first,
    on a log scale of frames per visit.

    Parameters
    ----------
    estimator : fitted HDPHMM or FiniteHMM
        The model.
    X : Sequences, array-like of shape (n_frames, n_features) or list of array-like
        The sequences, as passed to ``estimator.predict``.
    lengths : array-like of int of shape (n_sequences,), optional
        Frames per sequence when ``X`` is one array of concatenated frames (hmmlearn style).
    Xprev : array-like of shape (n_frames, n_features), optional
        Each frame's predecessor, for autoregressive observation models.
    max_states : int, default=20
        The most states shown.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import HDPHMM, datasets, plot
    >>> mocap = datasets.load("mocap6")
    >>> hmm = HDPHMM(n_states=8, max_laps=3, random_state=0).fit(mocap.X)
    >>> type(plot.plot_durations(hmm, mocap.X)).__name__
    'Figure'
    """
    states, offsets = segmentation(estimator, X, lengths, Xprev)
    run_state, run_length = _runs(states, offsets)
    ids = largest(np.bincount(states, minlength=estimator.n_states_), len(np.unique(states)), max_states)
    fig, (ax,) = new_figure(1, row_height=3.4)
    ax.boxplot([run_length[run_state == k] for k in ids], tick_labels=[str(k) for k in ids])
    ax.set_yscale("log")
    ax.set_xlabel("state (most frames first)")
    ax.set_ylabel("frames per visit")
    ax.set_title("State durations")
    return fig
