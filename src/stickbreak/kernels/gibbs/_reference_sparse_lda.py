"""NumPy twin of :mod:`stickbreak.kernels.gibbs.sparse_lda`, per token with Python lists, for the
tests: the same buckets, lists and walks, so the same draws from the same seed (NumPy's legacy
global generator, which numba's ``np.random`` reproduces)."""

from __future__ import annotations

import numpy as np


def _drop(topics, k):
    i = topics.index(k)
    topics[i] = topics[-1]
    topics.pop()


def _walk(u, terms, topics):
    for weight, k in zip(terms, topics):
        u -= weight
        if u < 0.0:
            return k
    return topics[-1]


def sparse_sweep(indptr, indices, token_start, z, Nwk, Njk, Nk, alpha, beta, seed):
    np.random.seed(seed)
    n_topics, w_beta = Nk.size, Nwk.shape[0] * beta
    word_topics = [[k for k in range(n_topics) if Nwk[w, k] > 0.5] for w in range(Nwk.shape[0])]
    for j in range(len(indptr) - 1):
        doc_topics = [k for k in range(n_topics) if Njk[j, k] > 0.5]
        for m in range(indptr[j], indptr[j + 1]):
            w = indices[m]
            for t in range(token_start[m], token_start[m + 1]):
                old = z[t]
                Nwk[w, old] -= 1
                Njk[j, old] -= 1
                Nk[old] -= 1
                if Nwk[w, old] < 0.5:
                    _drop(word_topics[w], old)
                if Njk[j, old] < 0.5:
                    _drop(doc_topics, old)
                inv = 1.0 / (Nk + w_beta)
                s_terms = alpha * beta * inv
                r_terms = [Njk[j, k] * beta * inv[k] for k in doc_topics]
                q_terms = [Nwk[w, k] * (Njk[j, k] + alpha[k]) * inv[k] for k in word_topics[w]]
                s, r, q = s_terms.sum(), sum(r_terms), float(np.cumsum(q_terms)[-1]) if q_terms else 0.0
                u = np.random.random() * (s + r + q)
                if u < q:  # the first topic whose cumulative sum (in order) passes u
                    new = word_topics[w][int(np.count_nonzero(np.cumsum(q_terms)[:-1] <= u))]
                elif u < q + r:
                    new = _walk(u - q, r_terms, doc_topics)
                else:
                    new = _walk(u - q - r, s_terms, list(range(n_topics)))
                z[t] = new
                if Nwk[w, new] < 0.5:
                    word_topics[w].append(new)
                if Njk[j, new] < 0.5:
                    doc_topics.append(new)
                Nwk[w, new] += 1
                Njk[j, new] += 1
                Nk[new] += 1
