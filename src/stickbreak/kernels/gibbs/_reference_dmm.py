"""NumPy twin of :mod:`stickbreak.kernels.gibbs.dmm`, written from the formulas (per document, the
evidence as sums of log rising factorials), for the tests. The draws use NumPy's legacy global
generator, which numba's ``np.random`` reproduces draw for draw from the same seed."""

from __future__ import annotations

import numpy as np

from ..truncation_free._reference import doc_log_evidence, log_rising


def sweep(indptr, indices, counts, n_tokens, prior_evidence, z, post, post_sum, sizes, n_used, concentration,
          first, seed):
    np.random.seed(seed)
    capacity = post.shape[1]
    for d in range(first, len(indptr) - 1):
        old, rows = z[d], slice(indptr[d], indptr[d + 1])
        sizes[old] -= 1.0
        post_sum[old] -= n_tokens[d]
        post[indices[rows], old] -= counts[rows]
        empty = np.flatnonzero(sizes[:n_used] == 0.0)
        free = int(empty[0]) if len(empty) else -1
        if free < 0 and n_used == capacity:
            sizes[old] += 1.0
            post_sum[old] += n_tokens[d]
            post[indices[rows], old] += counts[rows]
            return n_used, d
        log_probs = np.empty(n_used + 1)
        doc_log_evidence(post, post_sum, indices, counts, indptr[d], indptr[d + 1], n_tokens[d], n_used, log_probs)
        with np.errstate(divide="ignore"):
            log_probs[:n_used] += np.log(sizes[:n_used])
        log_probs[n_used] = np.log(concentration) + prior_evidence[d]
        weights = np.exp(log_probs - log_probs.max())
        u = np.random.random() * weights.sum()
        new = int(np.count_nonzero(np.cumsum(weights)[:-1] <= u))  # the first option whose running sum passes u
        if new == n_used:
            if free >= 0:
                new = free
            else:
                n_used += 1
        z[d] = new
        sizes[new] += 1.0
        post_sum[new] += n_tokens[d]
        post[indices[rows], new] += counts[rows]
    return n_used, len(indptr) - 1


def prior_evidences(indptr, counts, n_tokens, beta, n_words):
    return np.array([np.sum(log_rising(beta, counts[indptr[d]:indptr[d + 1]])) - log_rising(n_words * beta, n_tokens[d])
                     for d in range(len(indptr) - 1)])
