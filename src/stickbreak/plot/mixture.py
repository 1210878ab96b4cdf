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
    """Expected items per used cluster, largest first, as a bar chart.

    Parameters
    ----------
    estimator : fitted DPMixture or FiniteMixture
        The model (its ``component_counts_`` of the ``n_active_components_`` used clusters).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import DPMixture, datasets, plot
    >>> X = datasets.load("old_faithful").X
    >>> model = DPMixture(n_components=5, max_laps=5, random_state=0).fit(X)
    >>> type(plot.plot_cluster_sizes(model)).__name__
    'Figure'
    """
    return plot_sizes(estimator.component_counts_, estimator.n_active_components_, "cluster", "items")


def plot_cluster_means(estimator, X, image_shape, max_clusters: int = MAX_SHOWN) -> Figure:
    """The mean of each cluster's items drawn as an image, largest clusters first.

    Items are assigned to clusters by ``estimator.predict``; each non-empty cluster's mean item is
    reshaped to ``image_shape`` and drawn in grey levels, titled ``cluster: items``.

    Parameters
    ----------
    estimator : fitted DPMixture or FiniteMixture
        The model.
    X : array-like, sparse matrix, DenseData or BagOfWords of shape (n_items, n_features)
        The items (``n_features`` must equal the pixels of ``image_shape``).
    image_shape : tuple of int
        The shape of one image, e.g. ``(8, 8)`` for the digits.
    max_clusters : int, default=20
        The most clusters drawn.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Raises
    ------
    ValueError
        If ``image_shape`` does not hold ``n_features`` pixels.

    Examples
    --------
    >>> from stickbreak import DPMixture, datasets, plot
    >>> X = datasets.load("digits").X[:500]
    >>> model = DPMixture(n_components=10, max_laps=3, random_state=0).fit(X)
    >>> type(plot.plot_cluster_means(model, X, image_shape=(8, 8))).__name__
    'Figure'
    """
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
    """The items on their first two principal components, coloured by cluster.

    Clusters come from ``estimator.predict``; the principal axes from an SVD of the centred items
    (the first 20,000). At most ``max_points`` items are drawn, at random; the ten largest
    clusters are in the legend.

    Parameters
    ----------
    estimator : fitted DPMixture or FiniteMixture
        The model.
    X : array-like, sparse matrix, DenseData or BagOfWords of shape (n_items, n_features)
        The items.
    max_points : int, default=5000
        The most items drawn.
    seed : int, default=0
        Seed of the choice of items drawn.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import DPMixture, datasets, plot
    >>> X = datasets.load("old_faithful").X
    >>> model = DPMixture(n_components=5, max_laps=5, random_state=0).fit(X)
    >>> type(plot.plot_projection(model, X)).__name__
    'Figure'
    """
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
