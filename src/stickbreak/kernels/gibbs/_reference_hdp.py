"""NumPy twins of :mod:`stickbreak.kernels.gibbs.hdp`, written for clarity (loops, per token),
for the tests. Draws come from NumPy's legacy global generator, which numba's ``np.random``
reproduces draw for draw from the same seed."""

from __future__ import annotations

import numpy as np


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
