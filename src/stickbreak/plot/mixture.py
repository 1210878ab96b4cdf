"""Mixtures (DP, finite): cluster sizes, cluster means as images, a 2-D PCA projection by cluster."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from matplotlib.figure import Figure

from ..data import BagOfWords, DenseData
from ._figure import MAX_SHOWN, colours_by_size, largest, new_figure, plot_sizes


def _dense(X) -> np.ndarray:
    """The items as a dense float array (from an array, a sparse matrix, DenseData or BagOfWords)."""
    X = X.counts if isinstance(X, BagOfWords) else X.X if isinstance(X, DenseData) else X
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=float)


def plot_cluster_sizes(estimator) -> Figure:
    """Expected items per used cluster, largest first."""
    return plot_sizes(estimator.component_counts_, estimator.n_active_components_, "cluster", "items")


def plot_cluster_means(estimator, X, image_shape, max_clusters: int = MAX_SHOWN) -> Figure:
    """The mean of each cluster's items (hard assignment by ``predict``) drawn as an image of
    ``image_shape`` (e.g. ``(8, 8)`` for the digits), largest clusters first."""
    X = _dense(X)
    if int(np.prod(image_shape)) != X.shape[1]:
        raise ValueError(f"image_shape={tuple(image_shape)} holds {int(np.prod(image_shape))} pixels but X has "
                         f"{X.shape[1]} features")
    labels = estimator.predict(X)
    counts = np.bincount(labels, minlength=estimator.n_components_)
    order = [k for k in largest(counts, int(np.sum(counts > 0)), max_clusters)]
    fig, axes = new_figure(max(len(order), 1), n_cols=10, width=12.0, row_height=1.5)
    for ax, k in zip(axes, order):
        ax.imshow(X[labels == k].mean(axis=0).reshape(image_shape), cmap="gray_r")
        ax.set_title(f"{k}: {counts[k]}", fontsize=8)
        ax.set_axis_off()
    return fig


def plot_projection(estimator, X, max_points: int = 5000, seed: int = 0) -> Figure:
    """The items on their first two principal components, coloured by cluster (at most
    ``max_points`` drawn at random), the ten largest clusters in the legend."""
    X = _dense(X)
    labels = estimator.predict(X)
    centred = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(centred[: min(len(X), 20_000)], full_matrices=False)
    xy = centred @ vt[:2].T if vt.shape[0] >= 2 else np.column_stack([centred @ vt[:1].T, np.zeros(len(X))])
    shown = np.random.default_rng(seed).permutation(len(X))[:max_points]
    counts = np.bincount(labels, minlength=estimator.n_components_)
    order = largest(counts, len(counts), limit=len(counts))
    palette = colours_by_size(counts)
    fig, (ax,) = new_figure(1, width=8.0, row_height=6.0)
    ax.scatter(xy[shown, 0], xy[shown, 1], c=palette[labels[shown]], s=8, linewidths=0)
    for k in order[:10]:
        ax.scatter([], [], color=palette[k], label=f"cluster {k} ({counts[k]})")
    ax.legend(fontsize=7, markerscale=2, loc="best")
    ax.set_xlabel("principal component 1")
    ax.set_ylabel("principal component 2")
    ax.set_title(f"Items by cluster on 2 principal components ({len(shown)} of {len(X)} shown)")
    return fig
