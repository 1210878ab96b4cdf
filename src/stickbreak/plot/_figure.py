"""What every plot shares: a figure built without pyplot (Agg, no window, no global state),
a bar chart of sizes, and the colours of components."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

#: Components drawn in a grid or coloured at most (the largest first).
MAX_SHOWN = 20


def new_figure(n_axes: int, n_cols: int = 1, width: float = 10.0, row_height: float = 3.0,
               **subplot_kw) -> tuple[Figure, list]:
    """A Figure with ``n_axes`` axes on a grid of ``n_cols`` columns (unused grid cells removed)."""
    n_rows = max(1, -(-n_axes // n_cols))
    fig = Figure(figsize=(width, row_height * n_rows), layout="constrained")
    axes = [fig.add_subplot(n_rows, n_cols, i + 1, **subplot_kw) for i in range(n_axes)]
    return fig, axes


#: Categorical colours: tab10's then tab20's light shades, without the greys (grey means "none").
PALETTE = np.concatenate([colormaps["tab10"](np.delete(np.arange(10), 7)),
                          colormaps["tab20"](np.delete(np.arange(1, 20, 2), 7))])


def colours(n: int) -> np.ndarray:
    """``n`` categorical RGBA colours (repeated past 18)."""
    return PALETTE[np.arange(n) % len(PALETTE)]


def colours_by_size(sizes) -> np.ndarray:
    """One colour per component, given in order of size (the largest gets the first colour)."""
    palette = np.empty((len(sizes), 4))
    palette[largest(sizes, len(sizes), len(sizes))] = colours(len(sizes))
    return palette


def largest(sizes, n_used: int, limit: int = MAX_SHOWN) -> np.ndarray:
    """Indices of the ``min(n_used, limit)`` largest sizes, largest first."""
    return np.argsort(-np.asarray(sizes), kind="stable")[: min(n_used, limit)]


def plot_sizes(sizes, n_used: int, noun: str, unit: str) -> Figure:
    """Bar chart of the ``n_used`` largest components' sizes, largest first."""
    order = largest(sizes, n_used, limit=len(sizes))
    fig, (ax,) = new_figure(1, row_height=3.2)
    ax.bar(np.arange(len(order)), np.asarray(sizes)[order], color=colours(len(order)))
    ax.set_xticks(np.arange(len(order)), [str(k) for k in order], fontsize=7, rotation=90 if len(order) > 30 else 0)
    ax.set_xlabel(f"{noun} (largest first)")
    ax.set_ylabel(unit)
    ax.set_title(f"{noun.capitalize()} sizes: {len(order)} used")
    return fig


def plot_heatmap(values, columns, xlabel: str, ylabel: str, title: str, width: float, height: float,
                 rows=None, **imshow) -> Figure:
    """``values`` as a heatmap with a colour bar, columns (and rows, when given) labelled by component ids."""
    fig, (ax,) = new_figure(1, width=width, row_height=height)
    image = ax.imshow(values, cmap="viridis", vmin=0, **imshow)
    ax.set_xticks(np.arange(len(columns)), [str(k) for k in columns], fontsize=7)
    if rows is not None:
        ax.set_yticks(np.arange(len(rows)), [str(k) for k in rows], fontsize=7)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig
