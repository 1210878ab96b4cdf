"""Kernels for held-out document completion of topic models (CSR triplets, chunks of documents on
threads, :mod:`~stickbreak.kernels.chunked`).

Each document is handled by one thread from start to finish and writes only its own row, so the
results do not depend on the number of chunks or on scheduling. NumPy twins live in
:mod:`stickbreak.kernels.topics._reference_evaluate`.
"""

import numpy as np
from numba import njit

from ..chunked import even_bounds, over_chunks, thread_budget


@njit(cache=True, nogil=True)
def _fixed_point_one_doc(start, stop, indices, counts, phi_t, prior, max_iter, tol, theta):
    """EM fixed point for one document, in place on ``theta`` (started uniform); returns iterations."""
    n_comp = phi_t.shape[1]
    prior_total = prior.sum()
    acc = np.empty(n_comp)
    for k in range(n_comp):
        theta[k] = 1.0 / n_comp
    for it in range(max_iter):
        acc[:] = 0.0
        n_tokens = 0.0
        for j in range(start, stop):
            w = indices[j]
            denom = 0.0
            for k in range(n_comp):
                denom += theta[k] * phi_t[w, k]
            if denom > 0.0:  # words impossible under every topic carry no information on theta
                scale = counts[j] / denom
                n_tokens += counts[j]
                for k in range(n_comp):
                    acc[k] += scale * phi_t[w, k]
        norm = prior_total + n_tokens
        delta = 0.0
        for k in range(n_comp):
            new = (prior[k] + theta[k] * acc[k]) / norm
            diff = abs(new - theta[k])
            if diff > delta:
                delta = diff
            theta[k] = new
        if delta < tol:
            return it + 1
    return max_iter


@njit(cache=True, nogil=True)
def fixed_point_chunk(indptr, indices, counts, phi_t, prior, max_iter, tol, first, last, theta, n_iter):
    """:func:`doc_topic_fixed_point` for documents ``first:last``."""
    for d in range(first, last):
        n_iter[d] = _fixed_point_one_doc(indptr[d], indptr[d + 1], indices, counts, phi_t, prior, max_iter, tol,
                                         theta[d])


def doc_topic_fixed_point(indptr, indices, counts, phi_t, prior, max_iter, tol, n_chunks=None):
    """MAP document-topic proportions with the topics fixed (peers.md §3.2; Hughes 2016, Eq. 5.59).

    Iterates ``theta_dk <- (a_k + theta_dk sum_w n_dw phi_kw / sum_j theta_dj phi_jw) / (sum_k a_k + N_d)``
    from uniform until ``max_k |delta theta_dk| < tol`` or ``max_iter`` iterations. The fixed point
    maximises ``sum_k a_k log theta_k + sum_w n_dw log sum_k theta_k phi_kw`` on the simplex (the MAP
    under Dirichlet(1 + a)). Words with ``phi_kw = 0`` for every k are skipped (not counted in N_d).

    ``phi_t`` is (V, K), the row-normalised topic-word matrix transposed; ``prior`` is (K,) > 0;
    ``n_chunks`` threads (default: every core). Returns ``theta`` (D, K) and the iterations used per
    document (D,).
    """
    n_docs = len(indptr) - 1
    theta = np.empty((n_docs, phi_t.shape[1]))
    n_iter = np.empty(n_docs, dtype=np.int64)

    def run(c, first, last):
        fixed_point_chunk(indptr, indices, counts, phi_t, prior, int(max_iter), float(tol), first, last, theta, n_iter)

    over_chunks(run, even_bounds(n_docs, thread_budget() if n_chunks is None else n_chunks))
    return theta, n_iter


@njit(cache=True, nogil=True)
def heldout_loglik_chunk(indptr, indices, counts, phi_t, theta, first, last, out):
    """:func:`doc_heldout_loglik` for documents ``first:last``."""
    n_comp = phi_t.shape[1]
    for d in range(first, last):
        total = 0.0
        for j in range(indptr[d], indptr[d + 1]):
            w = indices[j]
            p = 0.0
            for k in range(n_comp):
                p += theta[d, k] * phi_t[w, k]
            total += counts[j] * np.log(p)
        out[d] = total


def doc_heldout_loglik(indptr, indices, counts, phi_t, theta, n_chunks=None):
    """``out[d] = sum_w n_dw log sum_k theta_dk phi_kw`` (Hughes 2016, Eq. 5.59; ``-inf`` if a word has p = 0).

    ``phi_t`` is (V, K), the topic-word matrix transposed; ``theta`` is (D, K); ``n_chunks`` threads
    (default: every core).
    """
    n_docs = len(indptr) - 1
    out = np.zeros(n_docs)

    def run(c, first, last):
        heldout_loglik_chunk(indptr, indices, counts, phi_t, theta, first, last, out)

    over_chunks(run, even_bounds(n_docs, thread_budget() if n_chunks is None else n_chunks))
    return out
