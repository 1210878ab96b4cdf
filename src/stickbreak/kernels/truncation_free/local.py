"""Locally collapsed local steps of truncation-free SVI (Wang & Blei 2012, §2.3 and supplement S.2.2).

The local step draws one sample of a minibatch's assignments from ``q(z) ∝ E_q(beta)[p(x, z | beta)]``
(Eq. 6): the global ``q`` plays the prior of a collapsed Gibbs sampler, jointly over the minibatch
(digest §2, "Local step, mini-batch"; factorising would let documents that open new components in
one batch switch labels). Every sampler keeps a "new component" option at the prior, so the
number of components grows on the fly; new ones get consecutive ids after the instantiated ``T``.

The global Dirichlet parameters are read lazily as ``lam[k, w] = eta + scale * M_t[w, k]`` with
row sums ``V eta + scale * M_sum[k]``; ``M_t`` is word-major so that a minibatch reads (and the
update writes) only its own word types. Sampling state is kept over the minibatch's word types:
``post[j, k] = lam[k, w_j] + (minibatch counts of w_j in k)``.

Randomness: each sampler seeds numba's own generator with its ``seed`` argument (drawn by the
caller from its ``numpy.random.Generator``), so a run is reproducible. The rising-factorial, stick,
per-item probability, Antoniak and index-sampling helpers are in :mod:`stickbreak.kernels.sampling`;
NumPy twins of the probability helpers of both modules are in
:mod:`stickbreak.kernels.truncation_free._reference`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..sampling import (sample_index, sample_log_index, add_log_word_products, antoniak_tables, dp_doc_log_probs,
                        hdp_token_probs, log_rising, stick_log_probs)

#: Columns opened per growth of a sampler's component arrays (at least).
GROW_BY = 8
#: Below this the lazy scale of ``lam - eta`` is folded into ``M_t`` (an ``O(V T)`` pass, rare).
SCALE_FLOOR = 1e-100


# ---------------------------------------------------------------------------------------------------- minibatch set-up
def batch_vocabulary(indptr, indices, counts, rows):
    """Rows ``rows`` of a CSR matrix over their own word types (NumPy: run once per minibatch).

    Returns ``word_ids`` (W_b,) sorted global ids, ``doc_ptr`` (D+1,), and per nonzero (document-major)
    the local word id ``locs`` and the count ``cnts``.
    """
    rows = np.asarray(rows, dtype=np.int64)
    starts, lengths = indptr[rows].astype(np.int64), (indptr[rows + 1] - indptr[rows]).astype(np.int64)
    doc_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=doc_ptr[1:])
    taken = np.repeat(starts - doc_ptr[:-1], lengths) + np.arange(doc_ptr[-1], dtype=np.int64)
    word_ids, locs = np.unique(indices[taken].astype(np.int64), return_inverse=True)
    return word_ids, doc_ptr, locs.astype(np.int64).ravel(), counts[taken].astype(np.float64)


@njit(cache=True, nogil=True)
def _setup(word_ids, M_t, M_sum, scale, eta, u, v, a, n_comp, capacity):
    """The sampler's component arrays over the minibatch's word types (:func:`batch_vocabulary`) with
    room for ``capacity``: ``post[j, k] = eta + scale M_t[w_j, k]``, its column sums and the sticks
    ``(u, v)`` for ``k < n_comp``; the prior (``eta``, ``1``, ``a``) after."""
    n_vocab = M_t.shape[0]
    post = np.full((len(word_ids), capacity), eta)
    for j in range(len(word_ids)):
        row = M_t[word_ids[j]]
        for k in range(n_comp):
            post[j, k] += scale * row[k]
    post_sum = np.full(capacity, n_vocab * eta)
    for k in range(n_comp):
        post_sum[k] += scale * M_sum[k]
    uu, vv = _grown(u[:n_comp], capacity, 1.0), _grown(v[:n_comp], capacity, a)
    return post, post_sum, uu, vv


@njit(cache=True, nogil=True)
def _grown_columns(a, capacity, fill):
    """``a`` with columns up to ``capacity``, the new ones at ``fill`` (loops: an array assignment
    compiles its error message, a second of first use)."""
    out = np.full((a.shape[0], capacity), fill)
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            out[i, k] = a[i, k]
    return out


@njit(cache=True, nogil=True)
def _grown(a, capacity, fill):
    out = np.full(capacity, fill)
    for k in range(len(a)):
        out[k] = a[k]
    return out


@njit(cache=True, nogil=True)
def _grow(post, post_sum, uu, vv, eta, n_vocab, a):
    """The component arrays with room for more new components (at the prior)."""
    capacity = len(post_sum) + max(GROW_BY, len(post_sum) // 2)
    return (_grown_columns(post, capacity, eta), _grown(post_sum, capacity, n_vocab * eta),
            _grown(uu, capacity, 1.0), _grown(vv, capacity, a))


@njit(cache=True, nogil=True)
def _summarise(n_words, item_loc, item_count, item_label, sizes, n_comp, n_total):
    """``word_stats[j, k]``: counts of word type ``j`` in component ``k`` from items (nonzeros or tokens) at
    word types ``item_loc`` with counts ``item_count`` and labels ``item_label`` (relabelled in place),
    after dropping the components opened in the minibatch (``k >= n_comp``) that ended empty
    (``sizes == 0``). Returns ``word_stats`` and the new index of every old label (``-1``: dropped)."""
    new_index = np.full(n_total, -1, dtype=np.int64)
    n_keep = 0
    for k in range(n_total):
        if k < n_comp or sizes[k] > 0:
            new_index[k] = n_keep
            n_keep += 1
    word_stats = np.zeros((n_words, n_keep))
    for i in range(len(item_loc)):
        item_label[i] = new_index[item_label[i]]
        word_stats[item_loc[i], item_label[i]] += item_count[i]
    return word_stats, new_index


@njit(cache=True, nogil=True)
def _kept(values, new_index, n_keep):
    out = np.zeros(n_keep)
    for k in range(len(new_index)):
        if new_index[k] >= 0:
            out[new_index[k]] = values[k]
    return out


# ---------------------------------------------------------------------------------------------------- DP mixture
@njit(cache=True, nogil=True)
def dp_plugin_loglik(post, post_sum, locs, cnts, doc_ptr, u, v, n_comp, n_vocab):
    """Plug-in log-likelihood of each minibatch document under the global posterior means (digest §5):
    ``log [sum_{k<T} pi_k prod_w theta_kw^c_w + pi_rest prod_w (1/V)^c_w]`` with ``theta_k = lam_k / sum lam_k``
    (``post`` holds ``lam``), ``pi_k = E[pi_k]`` and ``pi_rest`` the leftover stick at the prior mean;
    no multinomial coefficient."""
    n_docs = len(doc_ptr) - 1
    log_w = np.empty(n_comp + 1)
    stick_log_probs(u, v, np.zeros(n_comp), n_comp, log_w)
    log_norm = np.empty(n_comp)
    for k in range(n_comp):
        log_norm[k] = math.log(post_sum[k])
    out = np.empty(n_docs)
    joint = np.empty(n_comp + 1)
    for d in range(n_docs):
        n_tokens = 0.0
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            n_tokens += cnts[i]
        for k in range(n_comp):
            joint[k] = log_w[k] - n_tokens * log_norm[k]
        add_log_word_products(post, locs, cnts, doc_ptr[d], doc_ptr[d + 1], np.bool_(False), n_comp, joint)
        joint[n_comp] = log_w[n_comp] - n_tokens * math.log(n_vocab)
        top = joint.max()
        total = 0.0
        for k in range(n_comp + 1):
            total += math.exp(joint[k] - top)
        out[d] = top + math.log(total)
    return out


@njit(cache=True, nogil=True)
def _doc_totals(doc_ptr, cnts, eta, n_vocab):
    """Tokens per document and their log evidence under the prior, ``log DM(c_d | eta)`` (the "new" option)."""
    n_docs = len(doc_ptr) - 1
    n_tok, prior_evidence = np.zeros(n_docs), np.zeros(n_docs)
    for d in range(n_docs):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            n_tok[d] += cnts[i]
            prior_evidence[d] += log_rising(eta, cnts[i])
        prior_evidence[d] -= log_rising(n_vocab * eta, n_tok[d])
    return n_tok, prior_evidence


@njit(cache=True, nogil=True)
def _move_doc(post, post_sum, m, locs, cnts, start, stop, n_tok, k, sign):
    m[k] += sign
    post_sum[k] += sign * n_tok
    for i in range(start, stop):
        post[locs[i], k] += sign * cnts[i]


def dp_minibatch_gibbs(indptr, indices, counts, rows, M_t, M_sum, scale, eta, u, v, a, n_comp, n_sweeps, seed):
    """One sample of the minibatch's document labels from the locally collapsed ``q(z)`` (Wang & Blei
    2012, §2.3; digest §2): sequential initialisation (documents added one at a time), then ``n_sweeps``
    collapsed Gibbs sweeps (none for a single document: its conditional never changes). Components
    ``k < n_comp`` have ``lam_k = eta + scale M_t[:, k]`` and sticks ``(u_k, v_k)``; new ones start at the
    prior ``(eta, 1, a)`` with consecutive ids; those left empty are dropped.

    Returns ``labels`` (D,), ``word_ids`` (W_b,), ``word_stats`` (W_b, K) counts of each word type per
    component, ``item_stats`` (K,) documents per component, and the plug-in log-likelihood (D,) of
    each document under the global parameters before the step (:func:`dp_plugin_loglik`).
    """
    word_ids, doc_ptr, locs, cnts = batch_vocabulary(indptr, indices, counts, rows)
    labels, word_stats, item_stats, new_index, loglik = dp_minibatch_sample(
        word_ids, doc_ptr, locs, cnts, M_t, M_sum, float(scale), float(eta), u, v, float(a), int(n_comp),
        int(n_sweeps), int(seed))
    return new_index[labels], word_ids, word_stats, item_stats, loglik


@njit(cache=True, nogil=True)
def dp_minibatch_sample(word_ids, doc_ptr, locs, cnts, M_t, M_sum, scale, eta, u, v, a, n_comp, n_sweeps, seed):
    """:func:`dp_minibatch_gibbs` on the minibatch's own word types; returns the labels before
    relabelling, the statistics, and the new index of every old label."""
    np.random.seed(seed)
    n_vocab, n_docs = M_t.shape[0], len(doc_ptr) - 1
    post, post_sum, uu, vv = _setup(word_ids, M_t, M_sum, scale, eta, u, v, a, n_comp, n_comp + min(n_docs, GROW_BY))
    loglik = dp_plugin_loglik(post, post_sum, locs, cnts, doc_ptr, u, v, n_comp, n_vocab)
    n_tok, prior_evidence = _doc_totals(doc_ptr, cnts, eta, n_vocab)
    m = np.zeros(len(post_sum))
    labels = np.full(n_docs, -1, dtype=np.int64)
    log_p = np.empty(len(post_sum) + 1)
    n_total = n_comp
    for sweep in range(n_sweeps + 1 if n_docs > 1 else 1):
        for d in range(n_docs):
            start, stop = doc_ptr[d], doc_ptr[d + 1]
            if labels[d] >= 0:
                _move_doc(post, post_sum, m, locs, cnts, start, stop, n_tok[d], labels[d], -1.0)
            dp_doc_log_probs(post, post_sum, locs, cnts, start, stop, n_tok[d], prior_evidence[d], uu, vv, m,
                             n_total, log_p)
            k = sample_log_index(log_p, n_total + 1)
            if k == n_total:  # open a new component at the prior
                if n_total == len(post_sum):
                    post, post_sum, uu, vv = _grow(post, post_sum, uu, vv, eta, n_vocab, a)
                    m, log_p = _grown(m, len(post_sum), 0.0), np.empty(len(post_sum) + 1)
                n_total += 1
            labels[d] = k
            _move_doc(post, post_sum, m, locs, cnts, start, stop, n_tok[d], k, 1.0)
    nz_label = np.empty(len(locs), dtype=np.int64)
    for d in range(n_docs):
        nz_label[doc_ptr[d]:doc_ptr[d + 1]] = labels[d]
    word_stats, new_index = _summarise(len(word_ids), locs, cnts, nz_label, m, n_comp, n_total)
    return labels, word_stats, _kept(m, new_index, word_stats.shape[1]), new_index, loglik


# ---------------------------------------------------------------------------------------------------- HDP
@njit(cache=True, nogil=True)
def _sticks_to_weights(stick, n_comp, pi):
    """``pi_k = stick_k prod_{l<k} (1 - stick_l)``; returns the leftover ``prod_k (1 - stick_k)``."""
    rest = 1.0
    for k in range(n_comp):
        pi[k] = stick[k] * rest
        rest *= 1.0 - stick[k]
    return rest


@njit(cache=True, nogil=True)
def _table_totals(doc_topic, pi, b, n_comp):
    """``sum_t s_tk`` with ``s_tk`` drawn by :func:`antoniak_tables` given ``n_tk`` and ``b pi_k`` (S-Eq. 3)."""
    totals = np.zeros(n_comp)
    for d in range(doc_topic.shape[0]):
        for k in range(n_comp):
            n = int(doc_topic[d, k] + 0.5)
            if n > 0:
                totals[k] += antoniak_tables(n, b * pi[k])
    return totals


@njit(cache=True, nogil=True)
def _resample_sticks(uu, vv, tables, n_comp, stick):
    """``stick_k ~ Beta(u_k + sum_t s_tk, v_k + sum_t sum_{j>k} s_tj)`` (S.2.2 with the digest's erratum:
    the paper's density exponent ``v_k - a + ...`` is ``v_k - 1 + ...``)."""
    beyond = 0.0
    for k in range(n_comp - 1, -1, -1):
        stick[k] = np.random.beta(uu[k] + tables[k], vv[k] + beyond)
        beyond += tables[k]


@njit(cache=True, nogil=True)
def hdp_plugin_token_loglik(phi, log_w, b, tok_loc, tok_doc, z, doc_topic, doc_len, n_comp, n_vocab):
    """Leave-one-out plug-in log-likelihood of every token (summed per document) under the global
    posterior means (``phi[j, k] = theta_kw_j``, ``log_w`` = log E[pi] and the leftover, digest §5):

        log [ sum_{k<T} (n_tk^-n + b pi_k) theta_kw + (n_t,new^-n + b pi_rest) / W ] - log(n_t - 1 + b)

    where ``n^-n`` are the document's sampled counts without the token itself and ``new`` pools the
    topics opened in this minibatch (at the prior mean ``1/W``). Cheap (O(T) per token) and
    optimistic: the document's own other tokens choose its topic proportions."""
    out = np.zeros(doc_topic.shape[0])
    w = np.exp(log_w)
    for i in range(len(tok_loc)):
        d, j, k = tok_doc[i], tok_loc[i], z[i]
        p = 0.0
        for l in range(n_comp):
            p += (doc_topic[d, l] - (1.0 if l == k else 0.0) + b * w[l]) * phi[j, l]
        n_new = 0.0
        for l in range(n_comp, doc_topic.shape[1]):
            n_new += doc_topic[d, l]
        if k >= n_comp:
            n_new -= 1.0
        p += (n_new + b * w[n_comp]) / n_vocab
        out[d] += math.log(p) - math.log(doc_len[d] - 1.0 + b)
    return out


@njit(cache=True, nogil=True)
def _expand_tokens(doc_ptr, locs, cnts):
    """One entry per token: its word type and document; and the documents' lengths."""
    n_docs = len(doc_ptr) - 1
    doc_len = np.zeros(n_docs)
    for d in range(n_docs):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            doc_len[d] += cnts[i]
    tok_loc = np.empty(int(doc_len.sum() + 0.5), dtype=np.int64)
    tok_doc = np.empty(len(tok_loc), dtype=np.int64)
    t = 0
    for d in range(n_docs):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            for _ in range(int(cnts[i] + 0.5)):
                tok_loc[t], tok_doc[t] = locs[i], d
                t += 1
    return tok_loc, tok_doc, doc_len


def hdp_minibatch_gibbs(indptr, indices, counts, rows, M_t, M_sum, scale, eta, u, v, a, b, n_comp, n_sweeps,
                        seed):
    """One sample of the minibatch's topic assignments and table counts (Wang & Blei 2012, S.2.2).

    Sticks ``stick_k ~ Beta(u_k, v_k)``; tokens are expanded from the CSR counts and assigned
    sequentially (each sees the tokens before it), then ``n_sweeps`` sweeps of: table counts
    (:func:`antoniak_tables`), sticks (:func:`_resample_sticks`), every token's topic
    (:func:`hdp_token_probs`). A token choosing "new" opens topic ``K`` with ``stick_K ~ Beta(1, a)``
    and ``lam_K = eta``. Final table counts are drawn for the global step; empty new topics are dropped.

    Returns ``word_ids`` (W_b,), ``word_stats`` (W_b, K) token counts per word type and topic,
    ``item_stats`` (K,) table counts ``sum_t s_tk``, and per document the plug-in log-likelihood
    (:func:`hdp_plugin_token_loglik`) under the global parameters before the step.
    """
    word_ids, doc_ptr, locs, cnts = batch_vocabulary(indptr, indices, counts, rows)
    return (word_ids,) + hdp_minibatch_sample(word_ids, doc_ptr, locs, cnts, M_t, M_sum, float(scale), float(eta), u,
                                              v, float(a), float(b), int(n_comp), int(n_sweeps), int(seed))


@njit(cache=True, nogil=True)
def hdp_minibatch_sample(word_ids, doc_ptr, locs, cnts, M_t, M_sum, scale, eta, u, v, a, b, n_comp, n_sweeps, seed):
    """:func:`hdp_minibatch_gibbs` on the minibatch's own word types: ``(word_stats, item_stats, loglik)``."""
    np.random.seed(seed)
    n_vocab = M_t.shape[0]
    post, post_sum, uu, vv = _setup(word_ids, M_t, M_sum, scale, eta, u, v, a, n_comp, n_comp + GROW_BY)
    tok_loc, tok_doc, doc_len = _expand_tokens(doc_ptr, locs, cnts)
    phi = np.empty((len(word_ids), n_comp))  # posterior means before the step, for the plug-in
    for j in range(len(word_ids)):
        for k in range(n_comp):
            phi[j, k] = post[j, k] / post_sum[k]
    stick, pi = np.zeros(len(post_sum)), np.zeros(len(post_sum))
    for k in range(n_comp):
        stick[k] = np.random.beta(u[k], v[k])
    rest = _sticks_to_weights(stick, n_comp, pi)
    doc_topic = np.zeros((len(doc_ptr) - 1, len(post_sum)))
    z = np.full(len(tok_loc), -1, dtype=np.int64)
    prob = np.empty(len(post_sum) + 1)
    n_total = n_comp
    for sweep in range(n_sweeps + 1):
        if sweep > 0:
            _resample_sticks(uu, vv, _table_totals(doc_topic, pi, b, n_total), n_total, stick)
            rest = _sticks_to_weights(stick, n_total, pi)
        for i in range(len(tok_loc)):
            d, j, k = tok_doc[i], tok_loc[i], z[i]
            if k >= 0:
                doc_topic[d, k] -= 1.0
                post[j, k] -= 1.0
                post_sum[k] -= 1.0
            k = sample_index(prob, n_total + 1,
                              hdp_token_probs(doc_topic[d], pi, rest, b, post, post_sum, j, n_total, n_vocab, prob))
            if k == n_total:  # open a new topic at the prior with a fresh stick
                if n_total == len(post_sum):
                    post, post_sum, uu, vv = _grow(post, post_sum, uu, vv, eta, n_vocab, a)
                    doc_topic = _grown_columns(doc_topic, len(post_sum), 0.0)
                    stick, pi = _grown(stick, len(post_sum), 0.0), _grown(pi, len(post_sum), 0.0)
                    prob = np.empty(len(post_sum) + 1)
                stick[k] = np.random.beta(1.0, a)
                pi[k] = stick[k] * rest
                rest *= 1.0 - stick[k]
                n_total += 1
            z[i] = k
            doc_topic[d, k] += 1.0
            post[j, k] += 1.0
            post_sum[k] += 1.0
    log_w = np.empty(n_comp + 1)
    stick_log_probs(u, v, np.zeros(n_comp), n_comp, log_w)
    loglik = hdp_plugin_token_loglik(phi, log_w, b, tok_loc, tok_doc, z, doc_topic[:, :n_total], doc_len,
                                     n_comp, n_vocab)
    tables = _table_totals(doc_topic, pi, b, n_total)
    sizes = np.zeros(n_total)
    for d in range(doc_topic.shape[0]):
        for k in range(n_total):
            sizes[k] += doc_topic[d, k]
    word_stats, new_index = _summarise(len(word_ids), tok_loc, np.ones(len(tok_loc)), z, sizes, n_comp, n_total)
    return word_stats, _kept(tables, new_index, word_stats.shape[1]), loglik


# ---------------------------------------------------------------------------------------------------- global step
@njit(cache=True, nogil=True)
def stochastic_update(M_t, M_sum, scale, u, v, a, n_old, word_ids, word_stats, item_stats, rho, factor):
    """The natural-gradient step of size ``rho`` with statistics amplified by ``factor = n / |S|``
    (Wang & Blei 2012, §2.3 with the digest's corrected parentheses; S.2.1), in place, for the
    ``K = word_stats.shape[1]`` components of the sample (those from ``n_old`` on start at the
    prior ``lam = eta, u = 1, v = a``; their columns of ``M_t`` and ``M_sum`` must be zero):

        lam_kw <- lam_kw + rho (-lam_kw + eta + factor t_kw);  u_k <- u_k + rho (-u_k + 1 + factor t_k)
        v_k <- v_k + rho (-v_k + a + factor sum_{l>k} t_l)

    With ``lam = eta + scale M_t`` the shrinkage ``(1 - rho)`` of every ``lam - eta`` is a scalar, so the
    step touches only the minibatch's word types. Returns the new scale.
    """
    n_new = word_stats.shape[1]
    for k in range(n_old, n_new):
        u[k] = 1.0
        v[k] = a
    new_scale = (1.0 - rho) * scale
    if new_scale < SCALE_FLOOR:  # fold the scale into M (rho = 1 zeroes it)
        for w in range(M_t.shape[0]):
            for k in range(n_old):
                M_t[w, k] *= new_scale
        for k in range(n_old):
            M_sum[k] *= new_scale
        new_scale = 1.0
    step = rho * factor / new_scale
    for j in range(len(word_ids)):
        row = M_t[word_ids[j]]
        for k in range(n_new):
            x = word_stats[j, k]
            if x != 0.0:
                row[k] += step * x
                M_sum[k] += step * x
    beyond = 0.0
    for k in range(n_new - 1, -1, -1):
        u[k] += rho * (-u[k] + 1.0 + factor * item_stats[k])
        v[k] += rho * (-v[k] + a + factor * beyond)
        beyond += item_stats[k]
    return new_scale
