"""Collapsed inference for LDA on unique (document, word) pairs: collapsed Gibbs, standard VB,
collapsed VB, CVB0 and the hybrids of Welling, Teh & Kappen (2008), all in one sweep kernel.

The corpus is a CSR matrix (documents x words): pair ``m`` is document ``j``, word ``w = indices[m]``
with count ``c_m = counts[m]``. Pairs with ``c_m <= r`` are *sampled*: each of their tokens has a
topic ``z`` (tokens ``token_start[m]..token_start[m+1]``); the other pairs are *variational*, one
distribution ``Q[m]`` shared by their tokens. Both feed one set of float count arrays (Eqs. 16-19)

    N_wk = sum_VB c Q + sum_CG 1[z = k],   N_jk likewise,   N_k likewise,

plus, for CVB, their variances ``V = sum_VB c Q (1 - Q)`` (sampled tokens add none). ``r = inf``
gives collapsed Gibbs, ``r < 1`` pure variational inference, ``r = 1`` the paper's hybrids.

* Gibbs token (Eq. 12/25): remove its topic, ``p_k ∝ (N_wk + beta)/(N_k + W beta) (N_jk + alpha_k)``,
  draw, add back (``1/(N_k + W beta)`` is kept as an array updated with ``N_k``).
* ``SVB`` pair (Eq. 11/21): ``Q_k ∝ exp{psi(N_wk + beta) - psi(N_k + W beta) + psi(N_jk + alpha_k)}``,
  counts including the pair itself.
* ``CVB`` pair (Teh, Newman & Welling 2006; digest §4): one token removed (``E - Q``,
  ``V - Q(1 - Q)``), ``Q_k ∝ (E_jk + alpha_k)(E_wk + beta)/(E_k + W beta) exp{-V_jk/2(E_jk + alpha_k)^2
  - V_wk/2(E_wk + beta)^2 + V_k/2(E_k + W beta)^2}``; ``CVB0`` drops the exponential (Asuncion et
  al. 2009; not in the 2008 paper).

Pairs are visited document by document, in place (the usual sequential schedule of CVB); a
variational pair moves the counts by ``c (Q_new - Q_old)``. Counts below zero from round-off are
clamped to zero where they are used.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..special import digamma

#: Variational pair updates.
SVB, CVB, CVB0 = 0, 1, 2


@njit(cache=True, nogil=True)
def token_layout(counts, threshold):
    """``(sampled, token_start)``: which pairs are sampled (``count <= threshold``) and where each
    pair's tokens start in the token arrays (``token_start[-1]`` = number of sampled tokens)."""
    n_pairs = counts.size
    sampled = np.zeros(n_pairs, dtype=np.bool_)
    token_start = np.zeros(n_pairs + 1, dtype=np.int64)
    for m in range(n_pairs):
        c = int(round(counts[m]))
        sampled[m] = c <= threshold
        token_start[m + 1] = token_start[m] + (c if sampled[m] else 0)
    return sampled, token_start


@njit(cache=True, nogil=True)
def build_counts(indptr, indices, counts, sampled, token_start, z, Q, n_words, vb_kind):
    """The count arrays ``(N_wk, N_jk, N_k, V_wk, V_jk, V_k)`` of the current ``z`` and ``Q``
    (variances only for ``vb_kind == CVB``; zero otherwise)."""
    n_docs, n_topics = indptr.size - 1, Q.shape[1]
    Nwk, Njk, Nk = np.zeros((n_words, n_topics)), np.zeros((n_docs, n_topics)), np.zeros(n_topics)
    Vwk, Vjk, Vk = np.zeros((n_words, n_topics)), np.zeros((n_docs, n_topics)), np.zeros(n_topics)
    for j in range(n_docs):
        for m in range(indptr[j], indptr[j + 1]):
            w = indices[m]
            if sampled[m]:
                for t in range(token_start[m], token_start[m + 1]):
                    k = z[t]
                    Nwk[w, k] += 1.0
                    Njk[j, k] += 1.0
                    Nk[k] += 1.0
                continue
            c = counts[m]
            for k in range(n_topics):
                q = Q[m, k]
                Nwk[w, k] += c * q
                Njk[j, k] += c * q
                Nk[k] += c * q
                if vb_kind == CVB:
                    v = c * q * (1.0 - q)
                    Vwk[w, k] += v
                    Vjk[j, k] += v
                    Vk[k] += v
    return Nwk, Njk, Nk, Vwk, Vjk, Vk


@njit(cache=True, nogil=True)
def _variational_pair(m, w, j, c, Q, Nwk, Njk, Nk, inv_nk, Vwk, Vjk, Vk, alpha, beta, w_beta, vb_kind, q):
    """Update ``Q[m]`` by SVB, CVB or CVB0 and move the counts (and variances, and ``inv_nk``)."""
    n_topics = q.size
    if vb_kind == SVB:
        top = -np.inf
        for k in range(n_topics):
            q[k] = (digamma(max(Nwk[w, k], 0.0) + beta) - digamma(max(Nk[k], 0.0) + w_beta)
                    + digamma(max(Njk[j, k], 0.0) + alpha[k]))
            top = max(top, q[k])
        for k in range(n_topics):
            q[k] = np.exp(q[k] - top)
    else:
        for k in range(n_topics):
            old = Q[m, k]
            ejk = max(Njk[j, k] - old, 0.0) + alpha[k]
            ewk = max(Nwk[w, k] - old, 0.0) + beta
            ek = max(Nk[k] - old, 0.0) + w_beta
            q[k] = ejk * ewk / ek
            if vb_kind == CVB:
                own = old * (1.0 - old)
                vjk, vwk, vk = max(Vjk[j, k] - own, 0.0), max(Vwk[w, k] - own, 0.0), max(Vk[k] - own, 0.0)
                q[k] *= np.exp(-0.5 * vjk / (ejk * ejk) - 0.5 * vwk / (ewk * ewk) + 0.5 * vk / (ek * ek))
    total = q.sum()
    for k in range(n_topics):
        new, old = q[k] / total, Q[m, k]
        d = c * (new - old)
        Nwk[w, k] += d
        Njk[j, k] += d
        Nk[k] += d
        inv_nk[k] = 1.0 / (max(Nk[k], 0.0) + w_beta)
        if vb_kind == CVB:
            dv = c * (new * (1.0 - new) - old * (1.0 - old))
            Vwk[w, k] += dv
            Vjk[j, k] += dv
            Vk[k] += dv
        Q[m, k] = new


@njit(cache=True, nogil=True)
def sweep(indptr, indices, counts, sampled, token_start, z, Q, Nwk, Njk, Nk, Vwk, Vjk, Vk, alpha, beta,
          vb_kind, seed):
    """One pass over every pair, document by document: sampled pairs token by token (Gibbs, Eq. 12),
    variational pairs by ``vb_kind``. Updates ``z``, ``Q`` and the count arrays in place.

    A Gibbs token's weights are formed and summed cumulatively in one loop over the rows ``N_wk``,
    ``N_jk`` of its word and document, with ``inv_nk = 1/(N_k + W beta)`` kept in step with ``N_k``
    (no division per topic); the draw is the number of cumulative sums at most ``u * total``, a
    count without branches rather than a walk that stops. The token code is written out
    here rather than called: a numba call passing the arrays costs about as much as the draw."""
    np.random.seed(seed)
    n_topics = Q.shape[1]
    w_beta = Nwk.shape[0] * beta
    p = np.empty(n_topics)
    inv_nk = np.empty(n_topics)
    for k in range(n_topics):
        inv_nk[k] = 1.0 / (max(Nk[k], 0.0) + w_beta)
    for j in range(indptr.size - 1):
        n_j = Njk[j]
        for m in range(indptr[j], indptr[j + 1]):
            w = indices[m]
            if sampled[m]:
                n_w = Nwk[w]
                for t in range(token_start[m], token_start[m + 1]):
                    k_old = z[t]
                    n_w[k_old] -= 1.0
                    n_j[k_old] -= 1.0
                    Nk[k_old] -= 1.0
                    inv_nk[k_old] = 1.0 / (max(Nk[k_old], 0.0) + w_beta)
                    total = 0.0
                    for k in range(n_topics):
                        total += (max(n_w[k], 0.0) + beta) * inv_nk[k] * (max(n_j[k], 0.0) + alpha[k])
                        p[k] = total
                    u = np.random.random() * total
                    k_new = 0
                    for k in range(n_topics - 1):
                        k_new += p[k] <= u
                    z[t] = k_new
                    n_w[k_new] += 1.0
                    n_j[k_new] += 1.0
                    Nk[k_new] += 1.0
                    inv_nk[k_new] = 1.0 / (max(Nk[k_new], 0.0) + w_beta)
            else:
                _variational_pair(m, w, j, counts[m], Q, Nwk, Njk, Nk, inv_nk, Vwk, Vjk, Vk, alpha, beta,
                                  w_beta, vb_kind, p)


@njit(cache=True, nogil=True)
def predictive_probs(indptr, indices, Nwk, Njk, Nk, alpha, beta):
    """``p(w | j) = sum_k (alpha_k + N_jk)/(sum alpha + N_j) (beta + N_wk)/(W beta + N_k)`` for every
    test pair (Eqs. 13, 30; rows of the test CSR are the training documents)."""
    n_topics = Nk.size
    w_beta = Nwk.shape[0] * beta
    alpha_sum = alpha.sum()
    out = np.empty(indices.size)
    inv = np.empty(n_topics)
    for k in range(n_topics):
        inv[k] = 1.0 / (max(Nk[k], 0.0) + w_beta)
    for j in range(indptr.size - 1):
        n_j = 0.0
        for k in range(n_topics):
            n_j += max(Njk[j, k], 0.0)
        scale = 1.0 / (alpha_sum + n_j)
        for m in range(indptr[j], indptr[j + 1]):
            w = indices[m]
            s = 0.0
            for k in range(n_topics):
                s += (alpha[k] + max(Njk[j, k], 0.0)) * (beta + max(Nwk[w, k], 0.0)) * inv[k]
            out[m] = s * scale
    return out
