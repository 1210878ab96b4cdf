"""NumPy twin of :mod:`stickbreak.kernels.topics.kmeans_l1`, used only by the tests (dense brute force)."""

import numpy as np


def assign_l1(X, centroids):
    """``(labels, distances)``: nearest row of ``centroids`` (K, V) to each row of the dense ``X`` (D, V)
    in L1; ``argmin`` picks the lowest index among ties."""
    dist = np.abs(X[:, None, :] - centroids[None, :, :]).sum(axis=2)
    labels = np.argmin(dist, axis=1)
    return labels, dist[np.arange(len(X)), labels]
