"""NumPy twins of :mod:`stickbreak.kernels.gibbs.lda`, written for clarity (loops, per token),
for the tests. The Gibbs draws use NumPy's legacy global generator, which numba's ``np.random``
reproduces draw for draw from the same seed."""

from __future__ import annotations

import numpy as np
from scipy.special import digamma

SVB, CVB, CVB0 = 0, 1, 2


def sweep(indptr, indices, counts, sampled, token_start, z, Q, Nwk, Njk, Nk, Vwk, Vjk, Vk, alpha, beta,
          vb_kind, seed):
    np.random.seed(seed)
    W = Nwk.shape[0]
    for j in range(len(indptr) - 1):
        for m in range(indptr[j], indptr[j + 1]):
            w = indices[m]
            if sampled[m]:
                for t in range(token_start[m], token_start[m + 1]):
                    old = z[t]
                    Nwk[w, old] -= 1
                    Njk[j, old] -= 1
                    Nk[old] -= 1
                    p = ((np.maximum(Nwk[w], 0) + beta) * (1.0 / (np.maximum(Nk, 0) + W * beta))
                         * (np.maximum(Njk[j], 0) + alpha))
                    cumulative = np.cumsum(p)  # summed in order, as the kernel does
                    u = np.random.random() * cumulative[-1]
                    new = int(np.count_nonzero(cumulative[:-1] <= u))  # the first topic whose sum passes u
                    z[t] = new
                    Nwk[w, new] += 1
                    Njk[j, new] += 1
                    Nk[new] += 1
                continue
            c, old = counts[m], Q[m].copy()
            if vb_kind == SVB:
                log_q = (digamma(np.maximum(Nwk[w], 0) + beta) - digamma(np.maximum(Nk, 0) + W * beta)
                         + digamma(np.maximum(Njk[j], 0) + alpha))
                q = np.exp(log_q - log_q.max())
            else:
                ejk = np.maximum(Njk[j] - old, 0) + alpha
                ewk = np.maximum(Nwk[w] - old, 0) + beta
                ek = np.maximum(Nk - old, 0) + W * beta
                q = ejk * ewk / ek
                if vb_kind == CVB:
                    own = old * (1 - old)
                    vjk, vwk, vk = (np.maximum(V - own, 0) for V in (Vjk[j], Vwk[w], Vk))
                    q = q * np.exp(-vjk / (2 * ejk**2) - vwk / (2 * ewk**2) + vk / (2 * ek**2))
            q = q / q.sum()
            for N in (Nwk[w], Njk[j], Nk):
                N += c * (q - old)
            if vb_kind == CVB:
                for V in (Vwk[w], Vjk[j], Vk):
                    V += c * (q * (1 - q) - old * (1 - old))
            Q[m] = q


def predictive_probs(indptr, indices, Nwk, Njk, Nk, alpha, beta):
    W = Nwk.shape[0]
    phi = (beta + np.maximum(Nwk, 0)) / (W * beta + np.maximum(Nk, 0))  # (W, K)
    theta = (alpha + np.maximum(Njk, 0)) / (alpha.sum() + np.maximum(Njk, 0).sum(axis=1, keepdims=True))
    doc = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return np.einsum("nk,nk->n", theta[doc], phi[indices])
