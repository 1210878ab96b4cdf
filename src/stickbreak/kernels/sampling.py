"""Pure math and sampling helpers of the locally collapsed local steps of truncation-free SVI (Wang & Blei
2012, §2.3 and supplement S.2.2), used by :mod:`stickbreak.kernels.truncation_free.local`.

Log rising factorials and the Dirichlet-multinomial evidence of a document (accurate at any parameter
size, about one log per component), collapsed Beta-stick log-probabilities, the unnormalised
conditionals of the DP document sampler and of the HDP token sampler (S.2.2), Antoniak table counts
(S-Eq. 3), and index draws from (log-)weights. ``post[j, k]`` is component ``k``'s Dirichlet parameter
of the minibatch's word type ``j``. The samplers draw from numba's own generator, seeded by the caller.
NumPy twins of the probability helpers are in :mod:`stickbreak.kernels.truncation_free._reference`.
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
    add_log_word_products(post, locs, cnts, start, stop, np.bool_(True), n_comp, out)


@njit(cache=True, nogil=True)
def dm_log_evidence(lam_words, lam_total, counts):
    """``log DM(x | lam)`` of a document with nonzero counts ``counts`` at words with Dirichlet
    parameters ``lam_words`` (``lam_total = sum_w lam_w`` over the whole vocabulary); the
    locally collapsed evidence of Eq. 6 (Fig. 2 toy example), by :func:`doc_log_evidence`."""
    n = len(counts)
    post = np.empty((n, 1))
    for i in range(n):  # (a loop: a column assignment compiles numba's shape-error message, a second)
        post[i, 0] = lam_words[i]
    out = np.empty(1)
    doc_log_evidence(post, np.full(1, lam_total), np.arange(n), counts, np.int64(0), n, counts.sum(), np.int64(1), out)
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
def sample_index(weights, n, total):
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
def sample_log_index(log_weights, n):
    """An index ``< n`` drawn with probabilities ``softmax(log_weights[:n])`` (overwrites the weights)."""
    top = -math.inf
    for k in range(n):
        top = max(top, log_weights[k])
    total = 0.0
    for k in range(n):
        log_weights[k] = math.exp(log_weights[k] - top)
        total += log_weights[k]
    return sample_index(log_weights, n, total)
