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
caller from its ``numpy.random.Generator``), so a run is reproducible. NumPy twins of the
probability helpers are in :mod:`stickbreak.kernels._reference_collapsed_local`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: Rising factorials ``Gamma(x + c) / Gamma(x)`` of at most this many factors are one product and one
#: log (more accurate than a difference of two lgammas at large ``x``, and cheaper).
RISING_PRODUCT_MAX = 16
#: ... provided the product cannot overflow: ``(1e15 + 16)^16 < 1e241``.
RISING_PRODUCT_BASE_MAX = 1e15
#: From here on log-rising factorials use Stirling's series.
STIRLING_MIN = 20.0
#: Per-word factors of counts up to ``SMALL_COUNT`` and parameters in ``[FACTOR_MIN, FACTOR_MAX]`` (so
#: within ``e^+-221``) are multiplied into running products (:func:`add_log_word_products`), folded into
#: logs before a bound on their log could pass ``LOG_FOLD``.
SMALL_COUNT = 8
FACTOR_MIN, FACTOR_MAX = 1e-12, 1e12
LOG_FOLD = 600.0
#: Rising factorials of up to this many factors are multiplied out across components (:func:`add_log_rising`).
RISING_VECTOR_MAX = 256
#: The leftover stick is folded into its log below this.
PRODUCT_MIN = 1e-250
#: Columns opened per growth of a sampler's component arrays (at least).
GROW_BY = 8
#: Below this the lazy scale of ``lam - eta`` is folded into ``M_t`` (an ``O(V T)`` pass, rare).
SCALE_FLOOR = 1e-100


# ---------------------------------------------------------------------------------------------------- helpers
@njit(cache=True, nogil=True)
def _stirling_tail(y):
    """``log Gamma(y) - [(y - 1/2) log y - y + log(2 pi)/2]`` for ``y >= STIRLING_MIN`` (error < 1e-16)."""
    r = 1.0 / (y * y)
    return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680 - r / 1188)))) / y


@njit(cache=True, nogil=True)
def log_rising(x, c):
    """``log Gamma(x + c) - log Gamma(x)`` for ``x > 0``, ``c >= 0``, accurate at any ``x``: one product for
    small whole ``c``, Stirling's series in ``log1p`` form for large ``x`` (a difference of two lgammas
    would lose ``eps * x log x`` there), else the lgamma difference."""
    n = int(c)
    if n == c and n <= RISING_PRODUCT_MAX and x < RISING_PRODUCT_BASE_MAX:
        if n == 0:
            return 0.0
        p = x
        for i in range(1, n):
            p *= x + i
        return math.log(p)
    if x >= STIRLING_MIN:
        return (x - 0.5) * math.log1p(c / x) + c * math.log(x + c) - c + _stirling_tail(x + c) - _stirling_tail(x)
    return math.lgamma(x + c) - math.lgamma(x)


@njit(cache=True, nogil=True)
def add_log_word_products(post, locs, cnts, start, stop, rising, n_comp, out):
    """``out[k] += sum_i log f(post[locs[i], k], cnts[i])`` for every ``k < n_comp``, where ``f(x, c)`` is the
    rising factorial ``x (x + 1) ... (x + c - 1)`` (``rising``) or the power ``x^c``.

    Words whose counts are small and whose parameters all lie in ``[FACTOR_MIN, FACTOR_MAX]`` are
    multiplied into running products, one vectorisable pass over the components per word; the
    products are folded into logs only when a bound on their size says they might leave the floating
    range. So a document costs about one log per component instead of one per (component, word).
    """
    if n_comp == 0:
        return
    prod = np.ones(n_comp)
    log_hi, log_lo = 0.0, 0.0  # bounds on log prod[k] since the last fold
    for i in range(start, stop):
        row, c = post[locs[i]], cnts[i]
        n = int(c)
        lo, hi = math.inf, 0.0
        for k in range(n_comp):
            lo, hi = min(lo, row[k]), max(hi, row[k])
        if n == c and 1 <= n <= SMALL_COUNT and lo >= FACTOR_MIN and hi <= FACTOR_MAX:
            word_hi = n * math.log(hi + (n - 1.0 if rising else 0.0))
            word_lo = n * math.log(lo)
            if log_hi + word_hi > LOG_FOLD or log_lo + word_lo < -LOG_FOLD:
                for k in range(n_comp):
                    out[k] += math.log(prod[k])
                    prod[k] = 1.0
                log_hi, log_lo = 0.0, 0.0
            log_hi += word_hi
            log_lo += word_lo
            if n == 1:
                for k in range(n_comp):
                    prod[k] *= row[k]
            else:
                step = 1.0 if rising else 0.0
                for k in range(n_comp):
                    x = row[k]
                    f = x
                    for r in range(1, n):
                        f *= x + step * r
                    prod[k] *= f
        elif rising:
            for k in range(n_comp):
                out[k] += log_rising(row[k], c)
        else:
            for k in range(n_comp):
                out[k] += c * math.log(row[k])
    for k in range(n_comp):
        out[k] += math.log(prod[k])


@njit(cache=True, nogil=True)
def add_log_rising(row, c, n_comp, sign, out):
    """``out[k] += sign * log_rising(row[k], c)`` for every ``k < n_comp``: for a whole ``c`` up to
    ``RISING_VECTOR_MAX`` and parameters in range, as products over the factors (one vectorisable pass
    per factor, one log per component and chunk of factors); else component by component."""
    if n_comp == 0:
        return
    n = int(c)
    lo, hi = math.inf, 0.0
    for k in range(n_comp):
        lo, hi = min(lo, row[k]), max(hi, row[k])
    if n != c or n > RISING_VECTOR_MAX or lo < FACTOR_MIN or hi > FACTOR_MAX:
        for k in range(n_comp):
            out[k] += sign * log_rising(row[k], c)
        return
    chunk = max(1, int(LOG_FOLD / math.log(hi + n + 1.0)))  # factors per product that cannot overflow
    prod = np.empty(n_comp)
    for first in range(0, n, chunk):
        prod[:] = 1.0
        for r in range(first, min(n, first + chunk)):
            for k in range(n_comp):
                prod[k] *= row[k] + r
        for k in range(n_comp):
            out[k] += sign * math.log(prod[k])


@njit(cache=True, nogil=True)
def doc_log_evidence(post, post_sum, locs, cnts, start, stop, n_tokens, n_comp, out):
    """``out[k] = log DM(c_d | post[:, k])`` for every ``k < n_comp``, over the document's nonzeros
    ``start:stop`` (local word ids ``locs``): ``log Gamma(P_k)/Gamma(P_k + |x|) + sum_w log Gamma(post_wk +
    c_w)/Gamma(post_wk)`` with ``P_k = post_sum[k]``, no multinomial coefficient (Wang & Blei 2012, Eq.
    after §2.3; digest §7: cost O(unique words) per component)."""
    out[:n_comp] = 0.0
    add_log_rising(post_sum, n_tokens, n_comp, -1.0, out)
    add_log_word_products(post, locs, cnts, start, stop, True, n_comp, out)


@njit(cache=True, nogil=True)
def dm_log_evidence(lam_words, lam_total, counts):
    """``log DM(x | lam)`` of a document with nonzero counts ``counts`` at words with Dirichlet
    parameters ``lam_words`` (``lam_total = sum_w lam_w`` over the whole vocabulary); the
    locally collapsed evidence of Eq. 6 (Fig. 2 toy example), by :func:`doc_log_evidence`."""
    n = len(counts)
    post = np.empty((n, 1))
    post[:, 0] = lam_words
    out = np.empty(1)
    doc_log_evidence(post, np.full(1, lam_total), np.arange(n), counts, 0, n, counts.sum(), 1, out)
    return out[0]


@njit(cache=True, nogil=True)
def stick_log_probs(u, v, m, n_comp, out):
    """Collapsed Beta-stick log-probabilities of the first ``n_comp`` components given counts ``m``
    (digest §2, mini-batch local step): with ``m_>k = sum_{l>k} m_l``,

        out[k] = log (u_k + m_k)/(u_k + v_k + m_k + m_>k) + sum_{l<k} log (v_l + m_>l)/(u_l + v_l + m_l + m_>l)

    and ``out[n_comp]`` the log-mass of every component beyond (the "new" option). With ``m = 0``
    these are ``log E[pi_k]`` and the leftover stick (Wang & Blei 2012, §2.3 and §S.3; digest §5),
    accumulated in log space so that long products do not underflow. ``out`` has ``n_comp + 1`` slots."""
    beyond = 0.0
    for k in range(n_comp - 1, -1, -1):
        out[k] = beyond
        beyond += m[k]
    prefix, log_prefix = 1.0, 0.0  # prod_{l<k} of the stick remainders = prefix * exp(log_prefix)
    for k in range(n_comp):
        after = out[k]
        total = u[k] + v[k] + m[k] + after
        out[k] = log_prefix + math.log(prefix * (u[k] + m[k]) / total)
        prefix *= (v[k] + after) / total
        if prefix < PRODUCT_MIN:
            log_prefix += math.log(prefix)
            prefix = 1.0
    out[n_comp] = log_prefix + math.log(prefix)


@njit(cache=True, nogil=True)
def log_stick_weights(u, v):
    """``(log E[pi_k] for k < T, log(1 - sum_k E[pi_k]))`` of Beta sticks ``(u, v)`` (digest §5)."""
    out = np.empty(len(u) + 1)
    stick_log_probs(u, v, np.zeros(len(u)), len(u), out)
    return out[:len(u)].copy(), out[len(u)]


@njit(cache=True, nogil=True)
def dp_doc_log_probs(post, post_sum, locs, cnts, start, stop, n_tokens, prior_evidence, u, v, m, n_comp, out):
    """Unnormalised log ``p(z_d = k | z_-d)`` of the minibatch collapsed Gibbs sampler for the DP
    mixture (digest §2): Dirichlet-multinomial evidence against ``post[:, k]`` (``lam_k`` plus the
    counts of the other minibatch documents in ``k``) times the collapsed stick probability; slot
    ``n_comp`` is a new component: the prior evidence ``prior_evidence`` times the leftover stick."""
    evidence = np.empty(n_comp)
    doc_log_evidence(post, post_sum, locs, cnts, start, stop, n_tokens, n_comp, evidence)
    stick_log_probs(u, v, m, n_comp, out)
    for k in range(n_comp):
        out[k] += evidence[k]
    out[n_comp] += prior_evidence


@njit(cache=True, nogil=True)
def hdp_token_probs(doc_topic, pi, rest, b, post, post_sum, j, n_comp, n_vocab, out):
    """Unnormalised ``p(z_tn = k | .)`` of the HDP token sampler (Wang & Blei 2012, S.2.2) for word ``j``:
    ``(n_tk + b pi_k) (n_kw + lam_kw) / (n_k + sum_w lam_kw)`` for ``k < n_comp`` (minibatch-local counts
    inside ``doc_topic`` and ``post``), and ``out[n_comp] = b (1 - sum_k pi_k) / W`` with ``rest`` the
    leftover stick. Returns the total."""
    total = 0.0
    for k in range(n_comp):
        p = (doc_topic[k] + b * pi[k]) * post[j, k] / post_sum[k]
        out[k] = p
        total += p
    out[n_comp] = b * rest / n_vocab
    return total + out[n_comp]


@njit(cache=True, nogil=True)
def antoniak_tables(n, alpha):
    """Number of tables of a CRP(``alpha``) after ``n`` customers (S-Eq. 3 by simulation, digest §3):
    ``sum_{i=1}^n Bernoulli(alpha / (alpha + i - 1))``; the first customer always opens one."""
    if n <= 0:
        return 0
    tables = 1
    for i in range(1, n):
        if np.random.random() * (alpha + i) < alpha:
            tables += 1
    return tables


@njit(cache=True, nogil=True)
def antoniak_draws(n, alpha, n_draws, seed):
    """``n_draws`` seeded draws of :func:`antoniak_tables` (for tests and diagnostics)."""
    np.random.seed(seed)
    out = np.empty(n_draws, dtype=np.int64)
    for i in range(n_draws):
        out[i] = antoniak_tables(n, alpha)
    return out


@njit(cache=True, nogil=True)
def _sample_index(weights, n, total):
    """An index ``< n`` drawn with probabilities ``weights[:n] / total`` (inverse CDF)."""
    r = np.random.random() * total
    last = 0
    for k in range(n):
        if weights[k] > 0.0:
            last = k
            r -= weights[k]
            if r < 0.0:
                return k
    return last  # round-off: the last option with positive weight


@njit(cache=True, nogil=True)
def _sample_log_index(log_weights, n):
    """An index ``< n`` drawn with probabilities ``softmax(log_weights[:n])`` (overwrites the weights)."""
    top = -math.inf
    for k in range(n):
        top = max(top, log_weights[k])
    total = 0.0
    for k in range(n):
        log_weights[k] = math.exp(log_weights[k] - top)
        total += log_weights[k]
    return _sample_index(log_weights, n, total)


# ---------------------------------------------------------------------------------------------------- minibatch set-up
@njit(cache=True, nogil=True)
def batch_vocabulary(indptr, indices, counts, rows):
    """Rows ``rows`` of a CSR matrix over their own word types.

    Returns ``word_ids`` (W_b,) sorted global ids, ``doc_ptr`` (D+1,), and per nonzero (document-major)
    the local word id ``locs`` and the count ``cnts``.
    """
    n_docs = len(rows)
    doc_ptr = np.zeros(n_docs + 1, dtype=np.int64)
    for d in range(n_docs):
        doc_ptr[d + 1] = doc_ptr[d] + indptr[rows[d] + 1] - indptr[rows[d]]
    nnz = doc_ptr[n_docs]
    glob = np.empty(nnz, dtype=np.int64)
    cnts = np.empty(nnz)
    for d in range(n_docs):
        offset = indptr[rows[d]] - doc_ptr[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            glob[i] = indices[offset + i]
            cnts[i] = counts[offset + i]
    order = np.argsort(glob)
    locs = np.empty(nnz, dtype=np.int64)
    word_ids = np.empty(nnz, dtype=np.int64)
    n_words = 0
    for i in range(nnz):
        e = order[i]
        if n_words == 0 or glob[e] != word_ids[n_words - 1]:
            word_ids[n_words] = glob[e]
            n_words += 1
        locs[e] = n_words - 1
    return word_ids[:n_words].copy(), doc_ptr, locs, cnts


@njit(cache=True, nogil=True)
def _setup(indptr, indices, counts, rows, M_t, M_sum, scale, eta, u, v, a, n_comp, capacity):
    """The minibatch over its word types (:func:`batch_vocabulary`) and the sampler's component arrays
    with room for ``capacity``: ``post[j, k] = eta + scale M_t[w_j, k]``, its column sums and the sticks
    ``(u, v)`` for ``k < n_comp``; the prior (``eta``, ``1``, ``a``) after."""
    word_ids, doc_ptr, locs, cnts = batch_vocabulary(indptr, indices, counts, rows)
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
    return word_ids, doc_ptr, locs, cnts, post, post_sum, uu, vv


@njit(cache=True, nogil=True)
def _grown_columns(a, capacity, fill):
    out = np.full((a.shape[0], capacity), fill)
    out[:, :a.shape[1]] = a
    return out


@njit(cache=True, nogil=True)
def _grown(a, capacity, fill):
    out = np.full(capacity, fill)
    out[:len(a)] = a
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
        add_log_word_products(post, locs, cnts, doc_ptr[d], doc_ptr[d + 1], False, n_comp, joint)
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


@njit(cache=True, nogil=True)
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
    np.random.seed(seed)
    n_vocab, n_docs = M_t.shape[0], len(rows)
    word_ids, doc_ptr, locs, cnts, post, post_sum, uu, vv = _setup(
        indptr, indices, counts, rows, M_t, M_sum, scale, eta, u, v, a, n_comp, n_comp + min(n_docs, GROW_BY))
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
            k = _sample_log_index(log_p, n_total + 1)
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
    item_stats = _kept(m, new_index, word_stats.shape[1])
    return new_index[labels], word_ids, word_stats, item_stats, loglik


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


@njit(cache=True, nogil=True)
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
    np.random.seed(seed)
    n_vocab = M_t.shape[0]
    word_ids, doc_ptr, locs, cnts, post, post_sum, uu, vv = _setup(
        indptr, indices, counts, rows, M_t, M_sum, scale, eta, u, v, a, n_comp, n_comp + GROW_BY)
    tok_loc, tok_doc, doc_len = _expand_tokens(doc_ptr, locs, cnts)
    phi = post[:, :n_comp] / post_sum[:n_comp]  # posterior means before the step, for the plug-in
    stick, pi = np.zeros(len(post_sum)), np.zeros(len(post_sum))
    for k in range(n_comp):
        stick[k] = np.random.beta(u[k], v[k])
    rest = _sticks_to_weights(stick, n_comp, pi)
    doc_topic = np.zeros((len(rows), len(post_sum)))
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
            k = _sample_index(prob, n_total + 1,
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
    word_stats, new_index = _summarise(len(word_ids), tok_loc, np.ones(len(tok_loc)), z,
                                       doc_topic[:, :n_total].sum(axis=0), n_comp, n_total)
    return word_ids, word_stats, _kept(tables, new_index, word_stats.shape[1]), loglik


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
