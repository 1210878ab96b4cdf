"""NumPy twin of :mod:`stickbreak.kernels.gibbs.buckets`, per token with Python lists, for the
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


def bucket_sweep(indptr, indices, token_start, z, Nwk, Njk, Nk, weights, scale, eta, rest, gamma, first_token, seed):
    np.random.seed(seed)
    n_slots, w_eta = Nk.size, Nwk.shape[0] * eta
    open_ended = rest[0] > 0.0
    word_topics = [[k for k in range(n_slots) if Nwk[w, k] > 0.5] for w in range(Nwk.shape[0])]
    for j in range(len(indptr) - 1):
        doc_topics = [k for k in range(n_slots) if Njk[j, k] > 0.5]
        for m in range(indptr[j], indptr[j + 1]):
            w = indices[m]
            for t in range(token_start[m], token_start[m + 1]):
                if t < first_token:
                    continue
                if open_ended and np.count_nonzero((Nk > 0) | (weights > 0)) == n_slots:
                    return t
                old = z[t]
                if old >= 0:
                    Nwk[w, old] -= 1
                    Njk[j, old] -= 1
                    Nk[old] -= 1
                    if Nwk[w, old] < 0.5:
                        _drop(word_topics[w], old)
                    if Njk[j, old] < 0.5:
                        _drop(doc_topics, old)
                    if open_ended and Nk[old] < 0.5:  # the topic's weight returns to beta_u
                        rest[0] += weights[old]
                        weights[old] = 0.0
                prior = scale * weights
                inv = 1.0 / (Nk + w_eta)
                s_terms = prior * eta * inv
                r_terms = [Njk[j, k] * eta * inv[k] for k in doc_topics]
                q_terms = [Nwk[w, k] * (Njk[j, k] + prior[k]) * inv[k] for k in word_topics[w]]
                s, r, q = s_terms.sum(), sum(r_terms), float(np.cumsum(q_terms)[-1]) if q_terms else 0.0
                u = np.random.random() * (s + r + q + scale / Nwk.shape[0] * rest[0])
                if u < q:  # the first topic whose cumulative sum (in order) passes u
                    new = word_topics[w][int(np.count_nonzero(np.cumsum(q_terms)[:-1] <= u))]
                elif u < q + r:
                    new = _walk(u - q, r_terms, doc_topics)
                elif u < q + r + s or not open_ended:
                    new = _walk(u - q - r, s_terms, list(range(n_slots)))
                else:
                    new = -1
                if open_ended and (new < 0 or (Nk[new] == 0 and weights[new] == 0)):
                    new = int(np.flatnonzero((Nk == 0) & (weights == 0))[0])
                    b = 1.0 - (1.0 - np.random.random()) ** (1.0 / gamma)
                    weights[new] = b * rest[0]
                    rest[0] *= 1.0 - b
                z[t] = new
                if Nwk[w, new] < 0.5:
                    word_topics[w].append(new)
                if Njk[j, new] < 0.5:
                    doc_topics.append(new)
                Nwk[w, new] += 1
                Njk[j, new] += 1
                Nk[new] += 1
    return -1
