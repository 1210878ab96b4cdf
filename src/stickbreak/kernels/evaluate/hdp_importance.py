"""Importance-sampled held-out likelihood of the HDP topic model (Wang & Blei 2012, supplement S.3).

For a test document with word types ``v_u`` and counts ``c_u`` (N tokens), topics ``theta`` fixed
and document prior ``a_k = b pi_k`` over the K plugged-in topics,

    p(x) = int Dir(phi | a) prod_u (sum_k phi_k theta_{k, v_u})^{c_u} dphi,

estimated as in S.3: collapsed Gibbs on the token assignments,
``p(z_j = k | z_-j) ∝ (n_{k,-j} + a_k) theta_{k, x_j}`` (sequential initialisation, then
``n_sweeps`` sweeps), proposal ``q = Dir(a + n)`` from the final counts ``n``, and
``p ≈ mean_s w_s`` with ``w_s = Dir(phi_s | a) prod_u (...)^{c_u} / q(phi_s)``, ``phi_s ~ q``.

The Dirichlet ratio telescopes (digest §5): with ``A = sum a``,

    log w = log Polya(n | a) + sum_u c_u log sum_k g_k theta_{k, v_u} - sum_k n_k log g_k,
    log Polya(n | a) = lgamma(A) - lgamma(A + N) + sum_k [lgamma(a_k + n_k) - lgamma(a_k)],

for any positive rescaling ``g = G phi`` (the ``log G`` terms cancel because sum_u c_u = sum_k n_k = N).
So the unnormalised Gamma draws ``g_k ~ Gamma(a_k + n_k)`` are used directly, and only topics with
``n_k > 0`` (shape >= 1, never underflowing) need ``log g_k``: tiny ``a_k`` are harmless.

The estimate is unbiased for p but its weights are heavy-tailed: near ``phi_k -> 0`` the weight grows
like ``phi_k^{-n_k}`` while q has density ``~ phi_k^{a_k + n_k - 1}``, so ``P(w > t) ~ t^{-(1 + a_k/n_k)}``
and the variance is infinite as soon as some topic has ``n_k >= a_k`` (nearly always for b ~ 1). The
sample mean then mostly falls short of p, and log mean w creeps up with the number of draws: the
underestimate Wallach et al. (2009) report for this family of estimators.

Randomness: document d draws from ``np.random.seed(doc_seeds[d])`` (numba's per-thread generator,
re-seeded per document), so the result depends neither on the chunking nor on the thread count.
NumPy twin of the weights: :mod:`stickbreak.kernels.evaluate._reference_hdp_importance`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..chunked import even_bounds, over_chunks


@njit(cache=True, nogil=True)
def _log_polya(prior, doc_topic):
    """``log Polya(n | a)``: the Dirichlet-multinomial probability of one assignment sequence with counts n."""
    total_prior, n_tokens, value = 0.0, 0.0, 0.0
    for k in range(prior.size):
        total_prior += prior[k]
        if doc_topic[k] > 0:
            n_tokens += doc_topic[k]
            value += math.lgamma(prior[k] + doc_topic[k]) - math.lgamma(prior[k])
    return value + math.lgamma(total_prior) - math.lgamma(total_prior + n_tokens)


@njit(cache=True, nogil=True)
def _log_weight(words, word_counts, theta_t, doc_topic, log_polya, g):
    """``log w`` for one draw ``g`` (normalised or not) given the proposal counts ``doc_topic``."""
    value = log_polya
    for k in range(g.size):
        if doc_topic[k] > 0:
            value -= doc_topic[k] * math.log(g[k])
    for u in range(words.size):
        row = theta_t[words[u]]
        mix = 0.0
        for k in range(g.size):
            mix += g[k] * row[k]
        value += word_counts[u] * math.log(mix)
    return value


@njit(cache=True)
def importance_log_weights(words, word_counts, theta_t, prior, doc_topic, phi):
    """``log w_s`` for given samples ``phi`` (S, K) of one document (S.3; see the module docstring).

    ``words`` (U,) word ids, ``word_counts`` (U,), ``theta_t`` (V, K) topic-word transposed,
    ``prior`` (K,) = ``b pi_k`` > 0, ``doc_topic`` (K,) the proposal's token counts ``n``.
    """
    log_polya = _log_polya(prior, doc_topic)
    out = np.empty(phi.shape[0])
    for s in range(phi.shape[0]):
        out[s] = _log_weight(words, word_counts, theta_t, doc_topic, log_polya, phi[s])
    return out


@njit(cache=True, nogil=True)
def _draw_topic(row, doc_topic, prior, cumulative):
    """Sample k with probability ∝ ``(n_k + a_k) row[k]``."""
    total = 0.0
    for k in range(prior.size):
        total += (doc_topic[k] + prior[k]) * row[k]
        cumulative[k] = total
    target = np.random.random() * total
    for k in range(prior.size):
        if target < cumulative[k]:
            return k
    return prior.size - 1  # rounding at the top end


@njit(cache=True, nogil=True)
def _gibbs(words, tokens, theta_t, prior, n_sweeps, assignment, doc_topic, cumulative):
    """Sequential initialisation then ``n_sweeps`` collapsed Gibbs sweeps on the token assignments."""
    doc_topic[:] = 0.0
    for j in range(tokens.size):
        k = _draw_topic(theta_t[words[tokens[j]]], doc_topic, prior, cumulative)
        assignment[j] = k
        doc_topic[k] += 1.0
    for _ in range(n_sweeps):
        for j in range(tokens.size):
            doc_topic[assignment[j]] -= 1.0
            k = _draw_topic(theta_t[words[tokens[j]]], doc_topic, prior, cumulative)
            assignment[j] = k
            doc_topic[k] += 1.0


@njit(cache=True, nogil=True)
def _possible(words, theta_t):
    """False when some word has probability zero under every topic (then p(x) = 0)."""
    for u in range(words.size):
        if theta_t[words[u]].max() <= 0.0:
            return False
    return True


@njit(cache=True, nogil=True)
def _one_doc(words, word_counts, theta_t, prior, n_sweeps, n_samples, tokens, assignment, doc_topic, cumulative, g,
             log_w):
    n_tokens = 0
    for u in range(words.size):
        for _ in range(int(word_counts[u])):
            tokens[n_tokens] = u
            n_tokens += 1
    if n_tokens == 0:
        return 0.0
    if not _possible(words, theta_t):
        return -np.inf
    _gibbs(words, tokens[:n_tokens], theta_t, prior, n_sweeps, assignment[:n_tokens], doc_topic, cumulative)
    log_polya = _log_polya(prior, doc_topic)
    for s in range(n_samples):
        for k in range(prior.size):
            g[k] = np.random.gamma(prior[k] + doc_topic[k], 1.0)
        log_w[s] = _log_weight(words, word_counts, theta_t, doc_topic, log_polya, g)
    top = log_w.max()
    total = 0.0
    for s in range(n_samples):
        total += math.exp(log_w[s] - top)
    return top + math.log(total / n_samples)


@njit(cache=True, nogil=True)
def importance_chunk(indptr, indices, counts, theta_t, prior, n_sweeps, n_samples, doc_seeds, first, last, out):
    """:func:`hdp_importance_loglik` for documents ``first:last``."""
    longest = 1
    for d in range(first, last):
        n_tokens = 0.0
        for j in range(indptr[d], indptr[d + 1]):
            n_tokens += counts[j]
        longest = max(longest, int(n_tokens))
    tokens, assignment = np.empty(longest, dtype=np.int64), np.empty(longest, dtype=np.int64)
    doc_topic, cumulative, g = np.empty(prior.size), np.empty(prior.size), np.empty(prior.size)
    log_w = np.empty(n_samples)
    for d in range(first, last):
        np.random.seed(doc_seeds[d])
        lo, hi = indptr[d], indptr[d + 1]
        out[d] = _one_doc(indices[lo:hi], counts[lo:hi], theta_t, prior, n_sweeps, n_samples, tokens, assignment,
                          doc_topic, cumulative, g, log_w)


def hdp_importance_loglik(indptr, indices, counts, theta_t, prior, n_sweeps, n_samples, doc_seeds, n_chunks):
    """``log p(x_d | theta, pi)`` for every document by S.3 importance sampling (module docstring).

    CSR triplets (integer-valued ``counts``); ``theta_t`` (V, K) the row-normalised topic-word matrix
    transposed; ``prior`` (K,) = ``b pi_k`` > 0; ``n_sweeps`` >= 0 Gibbs sweeps after the sequential
    initialisation; ``n_samples`` >= 1 proposal draws; ``doc_seeds`` (D,) integers in [0, 2**32).
    ``n_chunks`` contiguous chunks of documents on threads. Returns (D,): 0 for an empty
    document, ``-inf`` if a word has probability zero under every topic.
    """
    n_docs = len(indptr) - 1
    out = np.zeros(n_docs)

    def run(c, first, last):
        importance_chunk(indptr, indices, counts, theta_t, prior, int(n_sweeps), int(n_samples), doc_seeds, first, last,
                         out)

    over_chunks(run, even_bounds(n_docs, n_chunks))
    return out
