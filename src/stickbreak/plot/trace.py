"""ELBO, K and held-out score over laps, with the laps where moves were accepted marked."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ._figure import new_figure

#: The colour of the laps where a move of each kind was accepted.
MOVE_COLOURS = {"birth": "tab:green", "merge": "tab:purple", "delete": "tab:red"}


def accepted_moves(trace) -> dict[str, np.ndarray]:
    """``{move kind: laps where at least one was accepted}`` from the per-lap records.

    Parameters
    ----------
    trace : list of dict
        The per-lap records of a fit (``estimator.trace_``): each has ``"lap"`` and, when moves
        ran, ``"moves"``: ``{kind: {"accepted": count, ...}}``.

    Returns
    -------
    dict of str to ndarray
        For each move kind accepted at least once, the laps where it was, in trace order.

    Examples
    --------
    >>> from stickbreak.plot import accepted_moves
    >>> trace = [{"lap": 1, "moves": {"birth": {"accepted": 2}, "merge": {"accepted": 0}}},
    ...          {"lap": 2, "moves": {"merge": {"accepted": 1}}},
    ...          {"lap": 3, "moves": {"birth": {"accepted": 1}}}]
    >>> accepted_moves(trace)
    {'birth': array([1, 3]), 'merge': array([2])}
    """
    out: dict[str, list] = {}
    for record in trace:
        for kind, counts in (record.get("moves") or {}).items():
            if counts.get("accepted"):
                out.setdefault(kind, []).append(record["lap"])
    return {kind: np.array(laps) for kind, laps in out.items()}


def plot_trace(estimator, heldout=None) -> Figure:
    """The ELBO and K (all components and those in use) after every lap, accepted moves marked.

    Laps where a birth, merge or delete move was accepted are marked by vertical lines on both axes.

    Parameters
    ----------
    estimator : fitted estimator
        Any fitted stickbreak model (its ``trace_``).
    heldout : array-like of shape (n_laps,), optional
        A held-out score per lap (e.g. a topic model's ``heldout_per_word_``), drawn on a third axes.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import DPMixture, datasets, plot
    >>> X = datasets.load("old_faithful").X
    >>> model = DPMixture(n_components=5, max_laps=5, random_state=0).fit(X)
    >>> fig = plot.plot_trace(model)
    >>> type(fig).__name__, len(fig.axes)
    ('Figure', 2)
    """
    trace = estimator.trace_
    laps = np.array([r["lap"] for r in trace])
    elbo = np.array([r["elbo"] for r in trace])
    has_heldout = heldout is not None and len(heldout) > 0
    fig, axes = new_figure(3 if has_heldout else 2, n_cols=3 if has_heldout else 2, row_height=3.4)
    axes[0].plot(laps, elbo, color="C0", marker=".")
    axes[0].set_title("ELBO over laps")
    axes[0].set_ylabel("ELBO (nats)")
    axes[1].step(laps, [r["n_components"] for r in trace], where="post", color="k", linestyle="--", linewidth=1,
                 label="K")
    axes[1].step(laps, [r["n_effective"] for r in trace], where="post", color="C1", label="K in use")
    axes[1].set_title("K over laps")
    axes[1].set_ylabel("components")
    moves = accepted_moves(trace)
    for kind, at in sorted(moves.items()):
        for ax in axes[:2]:
            ax.vlines(at, 0, 1, transform=ax.get_xaxis_transform(), colors=[MOVE_COLOURS.get(kind, "tab:brown")],
                      alpha=0.6, linewidth=1,
                      label=f"{kind} accepted" if ax is axes[1] else None)
    axes[1].legend(fontsize=7, loc="best")
    if has_heldout:
        axes[2].plot(np.arange(1, len(heldout) + 1), heldout, color="C2", marker=".")
        axes[2].set_title("Held-out score over laps")
        axes[2].set_ylabel("per-word log-likelihood")
    for ax in axes:
        ax.set_xlabel("lap")
    return fig
