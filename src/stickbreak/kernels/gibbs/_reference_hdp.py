"""NumPy twins of :mod:`stickbreak.kernels.gibbs.hdp`, written for clarity (loops, per token),
for the tests. Draws come from NumPy's legacy global generator, which numba's ``np.random``
reproduces draw for draw from the same seed."""

from __future__ import annotations

import numpy as np


def sweep(indptr, indices, token_start, z, Nwk, Njk, Nk, beta, rest, alpha, gamma, eta, first_token, seed):
    np.random.seed(seed)
    W, K = Nwk.shape
    for j in range(len(indptr) - 1):
        for m in range(indptr[j], indptr[j + 1]):
            w = indices[m]
            for t in range(token_start[m], token_start[m + 1]):
                if t < first_token:
                    continue
                if np.count_nonzero((Nk > 0) | (beta > 0)) == K:
                    return t
                old = z[t]
                if old >= 0:
                    Nwk[w, old] -= 1
                    Njk[j, old] -= 1
                    Nk[old] -= 1
                    if Nk[old] == 0:
                        rest[0] += beta[old]
                        beta[old] = 0.0
                p = (Njk[j] + alpha * beta) * (Nwk[w] + eta) * (1.0 / (Nk + W * eta))
                p_new = alpha / W * rest[0]
                total = p_new
                for weight in p:
                    total += weight
                u = np.random.random() * total - p_new
                new = -1
                if u >= 0:
                    new = K - 1
                    for k, weight in enumerate(p):
                        u -= weight
                        if u < 0:
                            new = k
                            break
                if new < 0 or (Nk[new] == 0 and beta[new] == 0):
                    new = int(np.flatnonzero((Nk == 0) & (beta == 0))[0])
                    b = 1.0 - (1.0 - np.random.random()) ** (1.0 / gamma)
                    beta[new] = b * rest[0]
                    rest[0] *= 1.0 - b
                z[t] = new
                Nwk[w, new] += 1
                Njk[j, new] += 1
                Nk[new] += 1
    return -1


def table_counts(Njk, beta, alpha, seed):
    np.random.seed(seed)
    m = np.zeros(Njk.shape[1])
    for j in range(Njk.shape[0]):
        for k in range(Njk.shape[1]):
            n = int(round(Njk[j, k]))
            if n > 0:
                a = alpha * beta[k]
                m[k] += 1 + sum(np.random.random() * (a + i) < a for i in range(1, n))
    return m


def predictive_probs(indptr, indices, Nwk, Njk, Nk, beta, rest, alpha, eta):
    W = Nwk.shape[0]
    phi = (Nwk + eta) / (Nk + W * eta)  # (W, K)
    weights = (Njk + alpha * beta) / (Njk.sum(axis=1, keepdims=True) + alpha)
    doc = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    new = alpha * rest / W / (Njk.sum(axis=1) + alpha)
    return np.einsum("nk,nk->n", weights[doc], phi[indices]) + new[doc]
