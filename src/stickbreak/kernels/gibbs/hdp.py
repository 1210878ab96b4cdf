"""The direct-assignment collapsed Gibbs sampler of the HDP topic model (Teh, Jordan, Beal & Blei
2006, §5.3): topics ``phi_k`` and document proportions integrated out, the global weights
``beta = (beta_1..beta_K, beta_u)`` kept, tables counted by Antoniak draws.

State (``K`` slots, some free): token topics ``z`` (``-1`` = not yet assigned), counts ``N_wk``
(W, K), ``N_jk`` (D, K), ``N_k`` (K), weights ``beta`` (K; zero on free slots) and ``rest`` (a
one-element array holding ``beta_u``). One token step (Teh et al. 2006, Eq. 37):

    p(z = k) ∝ (N_jk + alpha beta_k) (N_wk + eta) / (N_k + W eta),   p(z = new) ∝ alpha beta_u / W,

is SparseLDA's with ``alpha_k = alpha beta_k`` and a bucket for the new topic:
:func:`stickbreak.kernels.gibbs.buckets.bucket_sweep` sweeps the tokens (and creates and empties
topics). Here: the tables ``m_jk`` (Eq. 40), drawn by
:func:`~stickbreak.kernels.sampling.antoniak_tables` (``beta ~ Dir(m_.1, .., m_.K, gamma)``, Eq. 36,
is drawn by the caller), the predictive of held-out tokens, and the arrays' growth. Draws are
uniforms from numba's seeded generator, so the NumPy twin reproduces them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..sampling import antoniak_tables


@njit(cache=True, nogil=True)
def table_counts(Njk, beta, alpha, seed):
    """``m_.k = sum_j m_jk`` with ``m_jk`` the tables of ``N_jk`` customers in a CRP with
    concentration ``alpha beta_k`` (Teh et al. 2006, Eq. 40; Antoniak draws), shape (K,)."""
    np.random.seed(seed)
    n_docs, n_slots = Njk.shape
    m = np.zeros(n_slots)
    for j in range(n_docs):
        for k in range(n_slots):
            n = int(round(Njk[j, k]))
            if n > 0:
                m[k] += antoniak_tables(n, alpha * beta[k])
    return m


@njit(cache=True, nogil=True)
def predictive_probs(indptr, indices, Nwk, Njk, Nk, beta, rest, alpha, eta):
    """``p(w | j) = sum_k (N_jk + alpha beta_k)/(N_j + alpha) (N_wk + eta)/(N_k + W eta)
    + alpha beta_u / ((N_j + alpha) W)`` for every test pair (the HDP's analogue of Welling et al.
    2008, Eq. 30; rows of the test CSR are the training documents)."""
    n_words, n_slots = Nwk.shape
    inv_nk = 1.0 / (Nk + n_words * eta)
    out = np.empty(indices.size)
    for j in range(indptr.size - 1):
        scale = 1.0 / (Njk[j].sum() + alpha)
        for m in range(indptr[j], indptr[j + 1]):
            w = indices[m]
            s = alpha * rest / n_words
            for k in range(n_slots):
                s += (Njk[j, k] + alpha * beta[k]) * (Nwk[w, k] + eta) * inv_nk[k]
            out[m] = s * scale
    return out


def grow(Nwk, Njk, Nk, beta):
    """The count arrays and weights with twice the slots (the new ones free)."""
    def wider(a):
        out = np.zeros(a.shape[:-1] + (2 * a.shape[-1],))
        out[..., :a.shape[-1]] = a
        return out

    return wider(Nwk), wider(Njk), wider(Nk), wider(beta)
