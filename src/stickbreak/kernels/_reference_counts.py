"""NumPy twin of :mod:`stickbreak.kernels.counts`, used only by the tests."""

import numpy as np
from scipy.special import gammaln


def sparse_lgamma_ratio(indptr, indices, values, lam_t):
    """NumPy twin of :func:`stickbreak.kernels.counts.sparse_lgamma_ratio`."""
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    terms = gammaln(lam_t[indices] + values[:, None]) - gammaln(lam_t[indices])
    out = np.zeros((len(indptr) - 1, lam_t.shape[1]))
    np.add.at(out, rows, terms)
    return out


def lgamma_gain(counts, prior):
    """NumPy twin of :func:`stickbreak.kernels.counts.lgamma_gain`: ``(total, row_sums)``."""
    N = np.maximum(counts, 0)
    return float((gammaln(N + prior) - gammaln(prior)).sum()), N.sum(axis=1)


def merged_dirichlet_normalizers(counts, prior, first, second):
    """NumPy twin of :func:`stickbreak.kernels.counts.merged_dirichlet_normalizers` over every pair."""
    padded = np.vstack([counts, np.zeros((1, counts.shape[1]))])  # index -1: the zero row
    lam = prior[None] + padded[first] + padded[second]
    return gammaln(lam.sum(axis=1)) - gammaln(lam).sum(axis=1)
