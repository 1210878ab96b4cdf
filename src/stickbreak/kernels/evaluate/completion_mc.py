"""Monte Carlo document completion (Paisley, Wang & Blei 2012, §5.1, Eq. 40): the per-document kernels.

For one draw ``(Z, eta)`` from the variational posterior, document ``d`` with held-out word types ``v_u``
and counts ``c_u`` scores ``sum_u c_u log sum_k eta_{k v_u} pi_k`` with ``pi = Z / sum_k Z``. The caller
averages ``exp`` of it over draws in log space.

``Z_k ~ Gamma(a_k, b_k)`` is drawn as ``log Z_k = log G - log b_k``, ``G ~ Gamma(a_k)``, and for ``a_k < 1``
``log G = log Gamma(a_k + 1) + log(U) / a_k`` (Marsaglia & Tsang's boost), so tiny shapes cost no
underflow: ``pi`` is a softmax of ``log Z``. Randomness: document ``d`` re-seeds numba's generator with
``seeds[d]`` (one seed per document and draw, from the caller's numpy Generator), so results depend
neither on the chunking nor on the thread count. NumPy twin: :mod:`._reference_completion_mc`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..chunked import even_bounds, over_chunks


@njit(cache=True, nogil=True)
def _log_gamma_draw(shape, rate):
    """``log Z`` for ``Z ~ Gamma(shape, rate)``."""
    if shape < 1.0:
        return math.log(np.random.gamma(shape + 1.0, 1.0)) + math.log(np.random.random()) / shape - math.log(rate)
    return math.log(np.random.gamma(shape, 1.0)) - math.log(rate)


@njit(cache=True, nogil=True)
def _doc_loglik(words, counts, eta_t, log_z, weights):
    """``sum_u c_u log sum_k eta_t[v_u, k] pi_k`` with ``pi = softmax(log_z)`` (``weights`` is scratch)."""
    top = -math.inf
    for k in range(log_z.size):
        top = max(top, log_z[k])
    total = 0.0
    for k in range(log_z.size):
        weights[k] = math.exp(log_z[k] - top)
        total += weights[k]
    value = 0.0
    for u in range(words.size):
        row = eta_t[words[u]]
        mix = 0.0
        for k in range(log_z.size):
            mix += row[k] * weights[k]
        value += counts[u] * math.log(mix / total)
    return value


@njit(cache=True, nogil=True)
def loglik_given_draws(indptr, words, counts, eta_t, log_z):
    """The score of every document (D,) for given draws ``log Z`` (D, K) and ``eta_t`` (W, K)."""
    n_docs = len(indptr) - 1
    out = np.empty(n_docs)
    weights = np.empty(log_z.shape[1])
    for d in range(n_docs):
        out[d] = _doc_loglik(words[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]], eta_t, log_z[d], weights)
    return out


@njit(cache=True, nogil=True)
def sampled_chunk(indptr, words, counts, eta_t, shape, rate, seeds, first, last, out):
    """:func:`sampled_loglik` for documents ``first:last``."""
    n_topics = shape.shape[1]
    log_z, weights = np.empty(n_topics), np.empty(n_topics)
    for d in range(first, last):
        np.random.seed(seeds[d])
        for k in range(n_topics):
            log_z[k] = _log_gamma_draw(shape[d, k], rate[d, k])
        out[d] = _doc_loglik(words[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]], eta_t, log_z, weights)


def sampled_loglik(indptr, words, counts, eta_t, shape, rate, seeds, n_chunks):
    """One draw of ``Z_d ~ q(Z_d)`` per document (shape, rate (D, K)) and its score (D,) under ``eta_t``
    (``n_chunks`` chunks of documents on threads)."""
    out = np.empty(shape.shape[0])

    def run(c, first, last):
        sampled_chunk(indptr, words, counts, eta_t, shape, rate, seeds, first, last, out)

    over_chunks(run, even_bounds(shape.shape[0], n_chunks))
    return out


@njit(cache=True)
def log_gamma_draws(shape, rate, seed, n_draws):
    """``n_draws`` draws of ``log Z`` for each entry of ``shape``/``rate`` (K,): (n_draws, K), for the tests."""
    np.random.seed(seed)
    out = np.empty((n_draws, shape.size))
    for s in range(n_draws):
        for k in range(shape.size):
            out[s, k] = _log_gamma_draw(shape[k], rate[k])
    return out
