"""ELBO, K and held-out score over laps, with the laps where moves were accepted marked."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ._figure import new_figure

#: The colour of the laps where a move of each kind was accepted.
MOVE_COLOURS = {"birth": "tab:green", "merge": "tab:purple", "delete": "tab:red"}


def accepted_moves(trace) -> dict[str, np.ndarray]:
    """``{move kind: laps where at least one was accepted}`` from the per-lap records."""
    out: dict[str, list] = {}
    for record in trace:
        for kind, counts in (record.get("moves") or {}).items():
            if counts.get("accepted"):
                out.setdefault(kind, []).append(record["lap"])
    return {kind: np.array(laps) for kind, laps in out.items()}


def plot_trace(estimator, heldout=None) -> Figure:
    """The ELBO and K (all components and those in use) after every lap; laps with accepted moves
    are marked on both. ``heldout``: a held-out score per lap (e.g. ``heldout_per_word_``), a third axes."""
    trace = estimator.trace_
    laps = np.array([r["lap"] for r in trace])
    elbo = np.array([r["elbo"] for r in trace])
    has_heldout = heldout is not None and len(heldout) > 0
    fig, axes = new_figure(3 if has_heldout else 2, n_cols=3 if has_heldout else 2, row_height=3.4)
    axes[0].plot(laps, elbo, color="C0", marker=".")
    axes[0].set_title("ELBO over laps")
    axes[0].set_ylabel("ELBO (nats)")
    axes[1].step(laps, [r["n_components"] for r in trace], where="post", color="k", linestyle="--", linewidth=1, label="K")
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
