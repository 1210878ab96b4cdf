"""The direct-assignment collapsed Gibbs sampler of the HDP topic model (Teh, Jordan, Beal & Blei
2006, §5.3): topics ``phi_k`` and document proportions integrated out, the global weights
``beta = (beta_1..beta_K, beta_u)`` kept, tables counted by Antoniak draws.

State (``K`` slots, some free): token topics ``z`` (``-1`` = not yet assigned), counts ``N_wk``
(W, K), ``N_jk`` (D, K), ``N_k`` (K), weights ``beta`` (K; zero on free slots) and ``rest`` (a
one-element array holding ``beta_u``). A free slot has ``N_k = 0`` and ``beta_k = 0``, so its weight
below is zero without a test. One token step (Teh et al. 2006, Eq. 37):

    p(z = k) ∝ (N_jk + alpha beta_k) (N_wk + eta) / (N_k + W eta),   p(z = new) ∝ alpha beta_u / W,

a topic left empty returns its weight to ``beta_u``; a new topic takes a free slot and splits
``beta_u`` by ``b ~ Beta(1, gamma)`` (``beta_new = b beta_u``, ``beta_u <- (1 - b) beta_u``). A sweep
from ``z = -1`` is the usual sequential initialisation. The tables ``m_jk`` (Eq. 40) are drawn by
:func:`~stickbreak.kernels.sampling.antoniak_tables`; ``beta ~ Dir(m_.1, .., m_.K, gamma)``
(Eq. 36) is drawn by the caller. All draws are uniforms from numba's seeded generator, so the NumPy
twin reproduces them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..sampling import antoniak_tables


@njit(cache=True, nogil=True)
def _first_free_slot(Nk, beta):
    for k in range(Nk.size):
        if Nk[k] == 0.0 and beta[k] == 0.0:
            return k
    return -1


@njit(cache=True, nogil=True)
def sweep(indptr, indices, token_start, z, Nwk, Njk, Nk, beta, rest, alpha, gamma, eta, first_token, seed):
    """Resample every token from ``first_token`` on, document by document, in place. Returns ``-1``
    when the sweep is complete, or the token at which it stopped because every slot was in use (grow
    the arrays with :func:`grow` and call again from there with a new seed)."""
    np.random.seed(seed)
    n_slots = Nk.size
    w_eta = Nwk.shape[0] * eta
    new_scale = alpha / Nwk.shape[0]
    p = np.empty(n_slots)
    inv_nk = np.empty(n_slots)
    n_used = 0
    for k in range(n_slots):
        inv_nk[k] = 1.0 / (Nk[k] + w_eta)
        if Nk[k] > 0.0 or beta[k] > 0.0:
            n_used += 1
    first_pair = np.searchsorted(token_start, first_token, side="right") - 1
    first_doc = np.searchsorted(indptr, first_pair, side="right") - 1
    for j in range(first_doc, indptr.size - 1):
        n_j = Njk[j]
        for m in range(max(indptr[j], first_pair), indptr[j + 1]):
            n_w = Nwk[indices[m]]
            for t in range(max(token_start[m], first_token), token_start[m + 1]):
                if n_used == n_slots:
                    return t
                k_old = z[t]
                if k_old >= 0:
                    n_w[k_old] -= 1.0
                    n_j[k_old] -= 1.0
                    Nk[k_old] -= 1.0
                    inv_nk[k_old] = 1.0 / (Nk[k_old] + w_eta)
                    if Nk[k_old] == 0.0:  # the topic is gone: its weight returns to beta_u
                        rest[0] += beta[k_old]
                        beta[k_old] = 0.0
                        n_used -= 1
                for k in range(n_slots):
                    p[k] = (n_j[k] + alpha * beta[k]) * (n_w[k] + eta) * inv_nk[k]
                p_new = new_scale * rest[0]
                total = p_new
                for k in range(n_slots):
                    total += p[k]
                u = np.random.random() * total - p_new
                k_new = -1
                if u >= 0.0:
                    k_new = n_slots - 1
                    for k in range(n_slots):
                        u -= p[k]
                        if u < 0.0:
                            k_new = k
                            break
                if k_new < 0 or (Nk[k_new] == 0.0 and beta[k_new] == 0.0):  # a new topic
                    k_new = _first_free_slot(Nk, beta)
                    b = 1.0 - (1.0 - np.random.random()) ** (1.0 / gamma)  # Beta(1, gamma) by inversion
                    beta[k_new] = b * rest[0]
                    rest[0] *= 1.0 - b
                    n_used += 1
                z[t] = k_new
                n_w[k_new] += 1.0
                n_j[k_new] += 1.0
                Nk[k_new] += 1.0
                inv_nk[k_new] = 1.0 / (Nk[k_new] + w_eta)
    return -1


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
