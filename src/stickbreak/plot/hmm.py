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
    """The first ``n_sequences`` sequences as strips of their Viterbi states; with true ``labels``
    (one per frame) a second strip of the labels, each drawn in the colour of the state matched to it."""
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
    """The expected transition matrix among the used states (largest first) as a heatmap."""
    ids = largest(estimator.state_counts_, estimator.n_active_states_, max_states)
    return plot_heatmap(estimator.transmat_[np.ix_(ids, ids)], ids, "to state", "from state",
                        f"Transition probabilities ({len(ids)} used states)", 7.0, 6.0, rows=ids, vmax=1)


def plot_durations(estimator, X, lengths=None, Xprev=None, max_states: int = 20) -> Figure:
    """How long the Viterbi path stays in each used state: a box of its run lengths per state."""
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
