"""Synthetic data sets of the thesis's toy experiments (generators, not files)."""

from __future__ import annotations

import numpy as np


def edge_prototypes(side: int = 5, n_orientations: int = 8) -> np.ndarray:
    """Binary half-plane edges through the patch centre at ``n_orientations`` evenly spaced angles,
    shape (n_orientations, side * side)."""
    rows, cols = np.mgrid[0:side, 0:side] - (side - 1) / 2.0
    angles = 2 * np.pi * (np.arange(n_orientations) + 0.5) / n_orientations  # no pixel on an edge
    return np.stack([(np.cos(a) * cols + np.sin(a) * rows > 0).ravel().astype(float) for a in angles])


def make_edge_patches(n_items: int = 100_000, side: int = 5, noise: float = 0.05, seed: int = 0):
    """Zero-mean image patches from 8 equiprobable edge clusters (Hughes 2016, §4.4, Fig. 4.6).

    Cluster k draws ``x = a p_k + noise * e`` with a scalar ``a ~ N(0, 1)``, its edge prototype ``p_k``
    and white noise ``e``: a zero-mean Gaussian with covariance ``p_k p_k^T + noise^2 I``.
    Returns ``(X, labels)``.
    """
    rng = np.random.default_rng(seed)
    prototypes = edge_prototypes(side)
    labels = rng.integers(0, len(prototypes), n_items)
    X = rng.normal(size=(n_items, 1)) * prototypes[labels] + noise * rng.normal(size=(n_items, side * side))
    return X, labels
