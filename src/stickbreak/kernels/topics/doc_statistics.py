"""A document's share of the topic step's statistics, from its converged ``(p, s)``
(:mod:`~stickbreak.kernels.topics.dense`; Hughes 2016, §5.3 and §5.5.1 for the merge pairs).

With ``r_uk = E_uk p_k / s_u`` the responsibilities are never stored: the topic-word counts, the
per-topic entropy ``-sum c r log r`` and each planned merge pair's entropy are accumulated, most of
it per document and the rest once per chunk of documents (:func:`finish_chunk`).
"""

from __future__ import annotations

import math

from numba import njit

from ..special import FAST, log_positive

#: A merge pair's entropy is gathered token by token only where both topics hold this many tokens.
PAIR_MIN_COUNT = 1e-10


@njit(cache=True, nogil=True)
def accumulate_document(words, counts, local, centered_loglik, p, log_p, s, word_topic, entropy, doc_entropy):
    """Add ``c_u r_uk`` to ``word_topic[v_u, k]`` and ``-c_u r_uk log r_uk`` to ``entropy[k]``, with the
    document's own per-topic entropy in ``doc_entropy`` (DILN's per-document bound needs it; the
    topic step itself uses the cheaper :func:`accumulate`)."""
    doc_entropy[:] = 0.0
    for u in range(words.size):
        v = words[u]
        log_row = centered_loglik[v]
        weight = counts[u] / s[u]
        log_s = math.log(s[u])
        for k in range(p.size):
            mass = local[k, u] * p[k] * weight
            if mass > 0.0:
                word_topic[v, k] += mass
                doc_entropy[k] += mass * (log_s - log_p[k] - log_row[k])
    for k in range(p.size):
        entropy[k] += doc_entropy[k]


@njit(cache=True, nogil=True, fastmath=FAST, error_model="numpy")
def accumulate(words, counts, local, doc_topic, p, log_p, s, log_weight, word_scale, entropy):
    """One document's share of the statistics, without a pass over its ``(u, k)`` log-likelihoods.

    With ``r_uk = E_uk p_k / s_u``: ``word_topic[v, k] = E_vk sum c_u p_k / s_u`` over the tokens of
    word ``v``, so ``c_u p_k / s_u`` is added to ``word_scale[v_u]`` (a contiguous row) and
    :func:`finish_chunk` multiplies by ``E`` once per chunk. The entropy
    ``-sum_u c_u r_uk log r_uk = sum_u c_u r_uk log s_u - N_k log p_k - sum_u c_u r_uk log E_uk``:
    the first two terms are added here, the last, ``sum_v word_topic[v, k] log E_vk``, per chunk."""
    for u in range(words.size):
        log_weight[u] = counts[u] / s[u] * log_positive(s[u])
    for u in range(words.size):
        weight = counts[u] / s[u]
        row = word_scale[words[u]]
        for k in range(p.size):
            row[k] += weight * p[k]
    for k in range(p.size):
        row = local[k]
        total = 0.0
        for u in range(words.size):
            total += row[u] * log_weight[u]
        entropy[k] += p[k] * total - doc_topic[k] * log_p[k]


@njit(cache=True, nogil=True)
def pair_gains(words, counts, local, centered_loglik, doc_topic, p, log_p, s, pairs, pair_entropy):
    """For each planned merge pair ``(a, b)`` used by the document (both above ``PAIR_MIN_COUNT``
    tokens), add the merged entropy ``-sum c_u r_u,ab log r_u,ab`` minus the two topics' own;
    :func:`finish_chunk` adds the topics' entropies over the chunk, so a pair unused by a
    document counts the two topics separately (its difference is below ``PAIR_MIN_COUNT (1 + |log r|)``)."""
    for m in range(pairs.shape[0]):
        a, b = pairs[m, 0], pairs[m, 1]
        if doc_topic[a] < PAIR_MIN_COUNT or doc_topic[b] < PAIR_MIN_COUNT:
            continue
        for u in range(words.size):
            log_s = math.log(s[u])
            log_a = centered_loglik[words[u], a] + log_p[a]
            log_b = centered_loglik[words[u], b] + log_p[b]
            high, low = max(log_a, log_b), min(log_a, log_b)
            log_mass = high + math.log1p(math.exp(low - high))  # log(E_a p_a + E_b p_b)
            weight = counts[u] / s[u]
            mass = weight * math.exp(log_mass)
            mass_a, mass_b = local[a, u] * p[a] * weight, local[b, u] * p[b] * weight
            gain = 0.0
            if mass > 0.0:
                gain += mass * (log_s - log_mass)
            if mass_a > 0.0:
                gain -= mass_a * (log_s - log_a)
            if mass_b > 0.0:
                gain -= mass_b * (log_s - log_b)
            pair_entropy[m] += gain


@njit(cache=True, nogil=True)
def finish_chunk(touched, n_touched, exp_loglik, centered_loglik, word_scale, entropy, pairs, pair_entropy):
    """``word_topic = word_scale * E`` on the chunk's words, the entropy's ``-sum c r log E`` term
    and the pairs' separate entropies (:func:`accumulate`, :func:`pair_gains`)."""
    for i in range(n_touched):
        v = touched[i]
        row, e_row, log_row = word_scale[v], exp_loglik[v], centered_loglik[v]
        for k in range(row.size):
            mass = row[k] * e_row[k]
            row[k] = mass
            if mass > 0.0:
                entropy[k] -= mass * log_row[k]
    for m in range(pairs.shape[0]):
        pair_entropy[m] += entropy[pairs[m, 0]] + entropy[pairs[m, 1]]
