"""The assignment step of k-means with the L1 distance on documents' word distributions (the
initialisation of Paisley, Wang & Blei 2012, §5.2), over CSR triplets.

For a sparse distribution ``x`` and a dense centroid ``c``,
``|x - c|_1 = |c|_1 + sum_{v in supp x} (|x_v - c_v| - c_v)``, so one document costs its nonzeros times K.
Centroids are stored (V, K) so each word reads one contiguous row. Ties go to the lowest index.
NumPy twin: :mod:`._reference_kmeans_l1`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..chunked import even_bounds, over_chunks


@njit(cache=True, nogil=True)
def assign_chunk(indptr, indices, values, centroids_t, centroid_norms, first, last, labels, distances):
    """:func:`assign_l1` for rows ``first:last``."""
    n_clusters = centroids_t.shape[1]
    dist = np.empty(n_clusters)
    for d in range(first, last):
        for k in range(n_clusters):
            dist[k] = centroid_norms[k]
        for i in range(indptr[d], indptr[d + 1]):
            row, x = centroids_t[indices[i]], values[i]
            for k in range(n_clusters):
                dist[k] += abs(x - row[k]) - row[k]
        best = 0
        for k in range(1, n_clusters):
            if dist[k] < dist[best]:
                best = k
        labels[d], distances[d] = best, dist[best]


def assign_l1(indptr, indices, values, centroids_t, centroid_norms, n_chunks):
    """``(labels (D,), distances (D,))``: each row's nearest centroid in L1 and the distance
    (``n_chunks`` chunks of rows on threads)."""
    n_docs = len(indptr) - 1
    labels, distances = np.empty(n_docs, dtype=np.int64), np.empty(n_docs)

    def run(c, first, last):
        assign_chunk(indptr, indices, values, centroids_t, centroid_norms, first, last, labels, distances)

    over_chunks(run, even_bounds(n_docs, n_chunks))
    return labels, distances
