"""Collapsed Gibbs for LDA by SparseLDA's three buckets (Yao, Mimno & McCallum 2009, §3): the same
conditional as :func:`stickbreak.kernels.gibbs.lda.sweep` (Griffiths & Steyvers 2004; Welling et al.
2008, Eq. 12) with the work per token proportional to the topics its word and document hold, not
to K. With ``inv_k = 1/(N_k + W beta)``,

    p(z = k) ∝ (N_wk + beta)(N_jk + alpha_k) inv_k
             = alpha_k beta inv_k            (s: every topic; a sum kept in step with N_k)
             + N_jk beta inv_k               (r: the document's topics; kept per document)
             + N_wk (N_jk + alpha_k) inv_k   (q: the word's topics; summed per token).

A uniform draw on ``s + r + q`` picks the bucket, then the topic: for q (where most of the mass is
when beta is small) by counting the word's cumulative sums below the draw, without branches; for r
by a walk over the document's topics, for s over all K. Each word and each document keeps the list
of topics it holds (a topic leaves when its count reaches 0, by a search of the list, which the q
sum reads anyway). The lists are built from the counts at the start of a sweep and of each document;
``s`` is recomputed at each document, ``r`` at its start, so round-off cannot accumulate past one
document. The sweep stays one function (71 lines of code): the same draws from an inlined helper
took 40% more CPU time (AP, K = 100, 50 sweeps: 2.4 -> 3.4 s; the first case of
``benchmarks/refactor_timing.py``, issue 46).

Only for sweeps where every pair is sampled (collapsed Gibbs, ``r = inf``); the hybrids keep the
dense kernel. Counts stay the float arrays the rest of the collapsed learner reads, indexed
in two dimensions: a row view per pair would cost numba an (atomic) reference count each.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _word_lists(Nwk):
    """Per word the topics with ``N_wk > 0`` (rows of ``lists``, ``sizes`` of them; int32: half the
    memory of int64, and 12% faster sweeps at K=200 on wiki)."""
    n_words, n_topics = Nwk.shape
    lists = np.empty((n_words, n_topics), dtype=np.int32)
    sizes = np.zeros(n_words, dtype=np.int64)
    for w in range(n_words):
        for k in range(n_topics):
            if Nwk[w, k] > 0.5:
                lists[w, sizes[w]] = k
                sizes[w] += 1
    return lists, sizes


@njit(cache=True, nogil=True, inline="always")
def _drop(lists, sizes, row, k):
    """Remove topic ``k`` from list ``row`` (swap with the last)."""
    n = sizes[row]
    for i in range(n):
        if lists[row, i] == k:
            lists[row, i] = lists[row, n - 1]
            sizes[row] = n - 1
            return


@njit(cache=True, nogil=True, inline="always")
def _shift(j, w, k, delta, Nwk, Njk, Nk, inv, coef, alpha, beta, w_beta):
    """Add ``delta`` (+-1) to topic ``k``'s counts of word ``w`` and document ``j``; update ``inv_k``
    and ``coef_k``; returns the changes of the buckets ``s`` and ``r``."""
    s_old, r_old = alpha[k] * beta * inv[k], Njk[j, k] * beta * inv[k]
    Nwk[w, k] += delta
    Njk[j, k] += delta
    Nk[k] += delta
    inv[k] = 1.0 / (Nk[k] + w_beta)
    coef[k] = (Njk[j, k] + alpha[k]) * inv[k]
    return alpha[k] * beta * inv[k] - s_old, Njk[j, k] * beta * inv[k] - r_old


@njit(cache=True, nogil=True)
def sparse_sweep(indptr, indices, token_start, z, Nwk, Njk, Nk, alpha, beta, seed):
    """One collapsed Gibbs sweep over every token, document by document, by the three buckets (module
    docstring); the same arguments as :func:`~stickbreak.kernels.gibbs.lda.sweep` where every pair is
    sampled. Updates ``z`` and the counts in place."""
    np.random.seed(seed)
    n_topics = Nk.size
    w_beta = Nwk.shape[0] * beta
    inv = np.empty(n_topics)
    coef = np.empty(n_topics)  # (N_jk + alpha_k) inv_k of the current document
    for k in range(n_topics):
        inv[k] = 1.0 / (Nk[k] + w_beta)
    word_topics, word_sizes = _word_lists(Nwk)
    doc_topics = np.empty((1, n_topics), dtype=np.int32)  # one row: the word lists' layout
    doc_size = np.zeros(1, dtype=np.int64)
    q_terms = np.empty(n_topics)
    for j in range(indptr.size - 1):
        doc_size[0] = 0
        s = 0.0
        r = 0.0
        for k in range(n_topics):
            s += alpha[k] * beta * inv[k]
            coef[k] = (Njk[j, k] + alpha[k]) * inv[k]
            if Njk[j, k] > 0.5:
                doc_topics[0, doc_size[0]] = k
                doc_size[0] += 1
                r += Njk[j, k] * beta * inv[k]
        for m in range(indptr[j], indptr[j + 1]):
            w = indices[m]
            for t in range(token_start[m], token_start[m + 1]):
                k = z[t]
                ds, dr = _shift(j, w, k, -1.0, Nwk, Njk, Nk, inv, coef, alpha, beta, w_beta)
                s += ds
                r += dr
                if Nwk[w, k] < 0.5:
                    _drop(word_topics, word_sizes, w, k)
                if Njk[j, k] < 0.5:
                    _drop(doc_topics, doc_size, 0, k)
                q = 0.0
                held = word_sizes[w]
                for i in range(held):
                    q += Nwk[w, word_topics[w, i]] * coef[word_topics[w, i]]
                    q_terms[i] = q  # cumulative
                u = np.random.random() * (s + r + q)
                if u < q:  # the first of the word's topics whose cumulative sum passes u (no branches)
                    position = 0
                    for i in range(held - 1):
                        position += q_terms[i] <= u
                    k = word_topics[w, position]
                elif u < q + r:
                    u -= q
                    k = doc_topics[0, doc_size[0] - 1]
                    for i in range(doc_size[0]):
                        u -= Njk[j, doc_topics[0, i]] * beta * inv[doc_topics[0, i]]
                        if u < 0.0:
                            k = doc_topics[0, i]
                            break
                else:
                    u -= q + r
                    k = n_topics - 1
                    for kk in range(n_topics):
                        u -= alpha[kk] * beta * inv[kk]
                        if u < 0.0:
                            k = kk
                            break
                z[t] = k
                if Nwk[w, k] < 0.5:
                    word_topics[w, word_sizes[w]] = k
                    word_sizes[w] += 1
                if Njk[j, k] < 0.5:
                    doc_topics[0, doc_size[0]] = k
                    doc_size[0] += 1
                ds, dr = _shift(j, w, k, 1.0, Nwk, Njk, Nk, inv, coef, alpha, beta, w_beta)
                s += ds
                r += dr
