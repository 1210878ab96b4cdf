"""The assignment step of k-means with the L1 distance on documents' word distributions (the
initialisation of Paisley, Wang & Blei 2012, §5.2), over CSR triplets.

For a sparse distribution ``x`` and a dense centroid ``c``,
``|x - c|_1 = |c|_1 + sum_{v in supp x} (|x_v - c_v| - c_v)``, so one document costs its nonzeros times K.
Centroids are stored (V, K) so each word reads one contiguous row. Ties go to the lowest index.
NumPy twin: :mod:`._reference_kmeans_l1`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def assign_l1(indptr, indices, values, centroids_t, centroid_norms, n_chunks):
    """``(labels (D,), distances (D,))``: each row's nearest centroid in L1 and the distance."""
    n_docs = len(indptr) - 1
    n_clusters = centroids_t.shape[1]
    labels = np.empty(n_docs, dtype=np.int64)
    distances = np.empty(n_docs)
    n_chunks = max(1, min(n_chunks, n_docs))
    for c in prange(n_chunks):
        dist = np.empty(n_clusters)
        for d in range(c * n_docs // n_chunks, (c + 1) * n_docs // n_chunks):
            dist[:] = centroid_norms
            for i in range(indptr[d], indptr[d + 1]):
                row, x = centroids_t[indices[i]], values[i]
                for k in range(n_clusters):
                    dist[k] += abs(x - row[k]) - row[k]
            best = 0
            for k in range(1, n_clusters):
                if dist[k] < dist[best]:
                    best = k
            labels[d], distances[d] = best, dist[best]
    return labels, distances
