"""Collapsed Gibbs by SparseLDA's buckets (Yao, Mimno & McCallum 2009, §3), for LDA (Griffiths &
Steyvers 2004; Welling et al. 2008, Eq. 12) and for the HDP's direct assignment (Teh et al. 2006,
Eq. 37): the work per token proportional to the topics its word and document hold, not to K.

With topic priors ``alpha_k = scale * weights_k`` (LDA: the Dirichlet's ``alpha_k``, scale 1; the
HDP: ``alpha beta_k``) and ``inv_k = 1/(N_k + W eta)``,

    p(z = k) ∝ (N_wk + eta)(N_jk + alpha_k) inv_k
             = alpha_k eta inv_k            (s: every topic; a sum kept in step with N_k)
             + N_jk eta inv_k               (r: the document's topics; kept per document)
             + N_wk (N_jk + alpha_k) inv_k  (q: the word's topics; summed per token),
    p(z = new) ∝ scale beta_u / W           (the HDP only: ``rest`` = ``beta_u`` > 0).

A uniform draw on ``s + r + q (+ new)`` picks the bucket, then the topic: for q (where most of the
mass is when eta is small) by counting the word's cumulative sums below the draw, without branches;
for r by a walk over the document's topics, for s over all K. Each word and each document keeps the
list of topics it holds (a topic leaves when its count reaches 0, by a search of the list, which the
q sum reads anyway). The lists are built from the counts at the start of a call and of each
document; ``s`` is recomputed at each document, ``r`` at its start, so round-off cannot accumulate
past one document. The sweep stays one function: the same draws from an inlined helper took 40%
more CPU time (AP, K = 100, 50 sweeps: 2.4 -> 3.4 s; the first case of
``benchmarks/refactor_timing.py``, issue 46).

When new topics have mass (``rest[0] > 0``, the HDP) topics come and go as in the direct-assignment
sampler: a topic left empty returns its weight to ``beta_u``; a new topic takes a free slot (``N_k
= 0``, weight 0) and splits ``beta_u`` by ``b ~ Beta(1, gamma)``; a token with ``z = -1`` is not yet
assigned (the first sweep is Teh et al.'s sequential initialisation); and the sweep stops at the
token where every slot is in use, for the caller to grow the arrays and call again from there. With
``rest[0] = 0`` (LDA) the K topics are fixed.

Only for sweeps where every pair is sampled (collapsed Gibbs, ``r = inf``); LDA's hybrids keep the
dense kernel. Counts stay the float arrays the rest of the collapsed learners read, indexed in two
dimensions: a row view per pair would cost numba an (atomic) reference count each.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: ``rest`` of a sampler without new topics (LDA): ``beta_u = 0``.
NO_NEW_TOPICS = np.zeros(1)


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
def _shift(j, w, k, delta, Nwk, Njk, Nk, inv, coef, weights, scale, eta, w_eta):
    """Add ``delta`` (+-1) to topic ``k``'s counts of word ``w`` and document ``j``; update ``inv_k``
    and ``coef_k``; returns the changes of the buckets ``s`` and ``r``."""
    s_old, r_old = scale * weights[k] * eta * inv[k], Njk[j, k] * eta * inv[k]
    Nwk[w, k] += delta
    Njk[j, k] += delta
    Nk[k] += delta
    inv[k] = 1.0 / (Nk[k] + w_eta)
    coef[k] = (Njk[j, k] + scale * weights[k]) * inv[k]
    return scale * weights[k] * eta * inv[k] - s_old, Njk[j, k] * eta * inv[k] - r_old


@njit(cache=True, nogil=True)
def _first_free_slot(Nk, weights):
    for k in range(Nk.size):
        if Nk[k] == 0.0 and weights[k] == 0.0:
            return k
    return -1


@njit(cache=True, nogil=True)
def _run_holding(starts, i):
    """The run ``r`` with ``starts[r] <= i < starts[r + 1]`` (a bisection; ``np.searchsorted`` would
    cost numba a second of compiling on first use)."""
    low, high = 0, starts.size - 1
    while high - low > 1:
        middle = (low + high) // 2
        if starts[middle] <= i:
            low = middle
        else:
            high = middle
    return low


@njit(cache=True, nogil=True)
def bucket_sweep(indptr, indices, token_start, z, Nwk, Njk, Nk, weights, scale, eta, rest, gamma, first_token, seed):
    """Resample every token from ``first_token`` on, document by document, by the buckets (module
    docstring), in place: ``z``, the counts and, for the HDP, ``weights`` (``beta``) and ``rest``.
    Returns ``-1`` when the sweep is complete, or the token at which it stopped because every slot
    was in use (grow the arrays and call again from there with a new seed)."""
    np.random.seed(seed)
    n_slots = Nk.size
    w_eta = Nwk.shape[0] * eta
    open_ended = rest[0] > 0.0
    new_scale = scale / Nwk.shape[0]
    inv = np.empty(n_slots)
    coef = np.empty(n_slots)  # (N_jk + alpha_k) inv_k of the current document
    n_used = 0
    for k in range(n_slots):
        inv[k] = 1.0 / (Nk[k] + w_eta)
        if Nk[k] > 0.0 or weights[k] > 0.0:
            n_used += 1
    word_topics, word_sizes = _word_lists(Nwk)
    doc_topics = np.empty((1, n_slots), dtype=np.int32)  # one row: the word lists' layout
    doc_size = np.zeros(1, dtype=np.int64)
    q_terms = np.empty(n_slots)
    first_pair = _run_holding(token_start, first_token)
    first_doc = _run_holding(indptr, first_pair)
    for j in range(first_doc, indptr.size - 1):
        doc_size[0] = 0
        s = 0.0
        r = 0.0
        for k in range(n_slots):
            s += scale * weights[k] * eta * inv[k]
            coef[k] = (Njk[j, k] + scale * weights[k]) * inv[k]
            if Njk[j, k] > 0.5:
                doc_topics[0, doc_size[0]] = k
                doc_size[0] += 1
                r += Njk[j, k] * eta * inv[k]
        for m in range(max(indptr[j], first_pair), indptr[j + 1]):
            w = indices[m]
            for t in range(max(token_start[m], first_token), token_start[m + 1]):
                if open_ended and n_used == n_slots:
                    return t
                k = z[t]
                if k >= 0:
                    ds, dr = _shift(j, w, k, -1.0, Nwk, Njk, Nk, inv, coef, weights, scale, eta, w_eta)
                    s += ds
                    r += dr
                    if Nwk[w, k] < 0.5:
                        _drop(word_topics, word_sizes, w, k)
                    if Njk[j, k] < 0.5:
                        _drop(doc_topics, doc_size, 0, k)
                    if open_ended and Nk[k] < 0.5:  # the topic is gone: its weight returns to beta_u
                        s -= scale * weights[k] * eta * inv[k]
                        rest[0] += weights[k]
                        weights[k] = 0.0
                        coef[k] = 0.0
                        n_used -= 1
                q = 0.0
                held = word_sizes[w]
                for i in range(held):
                    q += Nwk[w, word_topics[w, i]] * coef[word_topics[w, i]]
                    q_terms[i] = q  # cumulative
                u = np.random.random() * (s + r + q + new_scale * rest[0])
                if u < q:  # the first of the word's topics whose cumulative sum passes u (no branches)
                    position = 0
                    for i in range(held - 1):
                        position += q_terms[i] <= u
                    k = word_topics[w, position]
                elif u < q + r:
                    u -= q
                    k = doc_topics[0, doc_size[0] - 1]
                    for i in range(doc_size[0]):
                        u -= Njk[j, doc_topics[0, i]] * eta * inv[doc_topics[0, i]]
                        if u < 0.0:
                            k = doc_topics[0, i]
                            break
                elif u < q + r + s or not open_ended:
                    u -= q + r
                    k = n_slots - 1
                    for kk in range(n_slots):
                        u -= scale * weights[kk] * eta * inv[kk]
                        if u < 0.0:
                            k = kk
                            break
                else:
                    k = -1
                if open_ended and (k < 0 or (Nk[k] == 0.0 and weights[k] == 0.0)):  # a new topic
                    k = _first_free_slot(Nk, weights)
                    b = 1.0 - (1.0 - np.random.random()) ** (1.0 / gamma)  # Beta(1, gamma) by inversion
                    weights[k] = b * rest[0]
                    rest[0] *= 1.0 - b
                    s += scale * weights[k] * eta * inv[k]
                    coef[k] = (Njk[j, k] + scale * weights[k]) * inv[k]
                    n_used += 1
                z[t] = k
                if Nwk[w, k] < 0.5:
                    word_topics[w, word_sizes[w]] = k
                    word_sizes[w] += 1
                if Njk[j, k] < 0.5:
                    doc_topics[0, doc_size[0]] = k
                    doc_size[0] += 1
                ds, dr = _shift(j, w, k, 1.0, Nwk, Njk, Nk, inv, coef, weights, scale, eta, w_eta)
                s += ds
                r += dr
    return -1
