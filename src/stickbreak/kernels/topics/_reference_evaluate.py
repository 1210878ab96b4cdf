"""NumPy twins of :mod:`stickbreak.kernels.topics.evaluate`, used only by the tests.

Vectorised over all documents at once: one sparse product per EM iteration; a document stops
updating as soon as it has converged, exactly as in the kernel.
"""

import numpy as np
import scipy.sparse as sp


def doc_topic_fixed_point(indptr, indices, counts, phi_t, prior, max_iter, tol):
    """NumPy twin of :func:`stickbreak.kernels.topics.evaluate.doc_topic_fixed_point`."""
    n_docs, n_comp = len(indptr) - 1, phi_t.shape[1]
    rows = np.repeat(np.arange(n_docs), np.diff(indptr))
    phi_w = phi_t[indices]  # (nnz, K)
    theta = np.full((n_docs, n_comp), 1.0 / n_comp)
    n_iter = np.full(n_docs, max_iter, dtype=np.int64)
    active = np.ones(n_docs, dtype=bool)
    for it in range(max_iter):
        denom = np.einsum("jk,jk->j", theta[rows], phi_w)
        possible = denom > 0
        scale = np.where(possible, counts / np.where(possible, denom, 1.0), 0.0)
        acc = sp.csr_matrix((scale, indices, indptr), shape=(n_docs, phi_t.shape[0])) @ phi_t
        n_tokens = np.bincount(rows, weights=counts * possible, minlength=n_docs)
        new = (prior[None, :] + theta * acc) / (prior.sum() + n_tokens)[:, None]
        delta = np.abs(new - theta).max(axis=1)
        theta[active] = new[active]
        done = active & (delta < tol)
        n_iter[done] = it + 1
        active &= ~done
        if not active.any():
            break
    return theta, n_iter


def doc_heldout_loglik(indptr, indices, counts, phi_t, theta):
    """NumPy twin of :func:`stickbreak.kernels.topics.evaluate.doc_heldout_loglik`."""
    n_docs = len(indptr) - 1
    rows = np.repeat(np.arange(n_docs), np.diff(indptr))
    with np.errstate(divide="ignore"):
        terms = counts * np.log(np.einsum("jk,jk->j", theta[rows], phi_t[indices]))
    return np.bincount(rows, weights=terms, minlength=n_docs)
