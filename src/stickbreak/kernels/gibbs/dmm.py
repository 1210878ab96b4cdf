"""Collapsed Gibbs sweeps of the DP mixture of multinomials (the Dirichlet-multinomial mixture with
K learned): each document's cluster drawn given every other document's, the topics and the weights
integrated out (Neal 2000, Algorithm 3; for short texts Yin & Wang 2016's GSDPMM, the DP form of
GSDMM, Yin & Wang 2014, Eq. 4):

    p(z_d = k   | z_-d) ∝ m_k,-d · DM(x_d | beta + n_k,-d)     an occupied cluster k
    p(z_d = new | z_-d) ∝ alpha · DM(x_d | beta)               a new one

with ``DM`` the Dirichlet-multinomial evidence (:func:`~stickbreak.kernels.sampling.doc_log_evidence`).
State: ``post[w, k] = beta + n_wk`` (word-major, so a word's row runs over the clusters),
``post_sum[k] = V beta + n_k``, ``sizes[k] = m_k`` documents, over the first ``n_used`` columns of
arrays of ``capacity`` columns; a cluster that empties keeps its column (``sizes[k] = 0``) until a new
cluster takes it or the caller compacts the state between sweeps. The draws come from numba's
generator, seeded by the caller. NumPy twin: :mod:`stickbreak.kernels.gibbs._reference_dmm`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..sampling import doc_log_evidence, log_rising, sample_log_index


@njit(cache=True, nogil=True)
def sweep(indptr, indices, counts, n_tokens, prior_evidence, z, post, post_sum, sizes, n_used, concentration,
          first, seed):
    """Documents ``first, first + 1, ...`` resampled in turn; ``prior_evidence[d] = log DM(x_d | beta)``.

    Returns ``(n_used, stopped)``: ``stopped`` is the number of documents (a complete sweep) or the
    document at which every column was in use, before it was touched; the caller widens the arrays
    and continues from there."""
    np.random.seed(seed)
    capacity = post.shape[1]
    log_probs = np.empty(capacity + 1)
    for d in range(first, len(indptr) - 1):
        old = z[d]
        start, stop = indptr[d], indptr[d + 1]
        sizes[old] -= 1.0
        post_sum[old] -= n_tokens[d]
        for i in range(start, stop):
            post[indices[i], old] -= counts[i]
        free = -1
        for k in range(n_used):
            if sizes[k] == 0.0:
                free = k
                break
        if free < 0 and n_used == capacity:  # no column for a new cluster: put the document back
            sizes[old] += 1.0
            post_sum[old] += n_tokens[d]
            for i in range(start, stop):
                post[indices[i], old] += counts[i]
            return n_used, d
        doc_log_evidence(post, post_sum, indices, counts, start, stop, n_tokens[d], n_used, log_probs)
        for k in range(n_used):
            log_probs[k] = log_probs[k] + math.log(sizes[k]) if sizes[k] > 0.0 else -math.inf
        log_probs[n_used] = math.log(concentration) + prior_evidence[d]
        new = sample_log_index(log_probs, n_used + 1)
        if new == n_used:  # a new cluster: the first free column, else the next one
            if free >= 0:
                new = free
            else:
                n_used += 1
        z[d] = new
        sizes[new] += 1.0
        post_sum[new] += n_tokens[d]
        for i in range(start, stop):
            post[indices[i], new] += counts[i]
    return n_used, len(indptr) - 1


@njit(cache=True, nogil=True)
def prior_evidences(indptr, counts, n_tokens, beta, n_words):
    """``log DM(x_d | beta)`` of every document under the symmetric prior alone (a new cluster's
    evidence): ``sum_w log rising(beta, c_w) - log rising(V beta, n_d)``."""
    out = np.zeros(len(indptr) - 1)
    for d in range(len(indptr) - 1):
        for i in range(indptr[d], indptr[d + 1]):
            out[d] += log_rising(beta, counts[i])
        out[d] -= log_rising(n_words * beta, n_tokens[d])
    return out
