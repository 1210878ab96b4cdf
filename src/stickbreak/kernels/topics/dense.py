"""The per-document topic fixed point over CSR triplets (Hughes 2016, Alg. 5.1-5.2; Ch. 7 §7.3).

Every topic model (LDA, HDP) shares one local step: given the word likelihoods
``E[v, k] = exp(E log phi_kv - max_j E log phi_jv)`` and the document prior pseudo-counts ``a_k``
(LDA: ``alpha``; HDP: ``alpha pi^G_k``), iterate

    p_k = exp psi(N_dk + a_k);   s_u = sum_k E[v_u, k] p_k;   N_dk = p_k sum_u c_u E[v_u, k] / s_u

until ``max_k |Delta N_dk| < tol``. Each iteration is a theta-step followed by an r-step, so it
never lowers the document's ELBO. Word types, not tokens (§5.3.5); the responsibilities ``r_uk =
E[v_u,k] p_k / s_u`` are never stored (the SVI trick, Hoffman et al. 2013 §6): the topic-word
statistics and the entropy are accumulated from ``(p, s)`` once the document has converged.

Sparse restarts (Alg. 5.2): the smallest used topics are tried one by one at zero count, run two
iterations, and kept when the document objective ``L_d`` (Eq. in §1.5 of the digest) rises.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..chunked import even_bounds, over_chunks
from ..special import FAST, digamma_positive, exp_bounded, log_positive
from .doc_statistics import accumulate, finish_chunk, pair_gains

#: Smallest ``p_k = exp psi(theta_k)``: keeps every ``s_u`` positive when a prior weight underflows.
P_FLOOR = 1e-280
LOG_P_FLOOR = math.log(P_FLOOR)
#: A topic counts as used in a document (a restart candidate) above this expected count (bnpy).
RESTART_MIN_COUNT = 1e-3
#: SQUAREM's extrapolated count never falls below this share of the smaller of its two plain
#: steps: clamped at 0 instead, topics left a document for good and the fits ended 0.02-0.06 nats
#: per token lower in ELBO on AP (``benchmarks/squarem_ap.py``).
EXTRAPOLATION_FLOOR = 0.5
#: Where each document's fixed point starts.
SCRATCH, WARM, BEST = 0, 1, 2

# Constant arguments between kernels are passed as ``np.int64(...)`` / ``np.bool_(...)``: numba
# compiles a callee once more for every literal value it is called with (seconds of first use).


@njit(cache=True, nogil=True)
def copy_into(target, source):
    """``target[:] = source`` for 1-D arrays of equal size, as a loop: array assignment compiles
    its shape check's error message, about a second of first use."""
    for i in range(target.size):
        target[i] = source[i]


@njit(cache=True, nogil=True, fastmath=FAST, error_model="numpy")
def _theta_step(doc_topic, prior, p, log_p):
    """``log p_k = max(psi(N_k + a_k), LOG_P_FLOOR)`` and ``p_k = exp(log p_k)``, vectorised
    (:func:`~stickbreak.kernels.special.digamma_positive`, :func:`~stickbreak.kernels.special.exp_bounded`)."""
    for k in range(p.size):
        log_p[k] = max(digamma_positive(doc_topic[k] + prior[k]), LOG_P_FLOOR)
        p[k] = exp_bounded(log_p[k])


@njit(cache=True, nogil=True, fastmath=FAST, error_model="numpy")
def r_step(local, counts, p, s, weight, doc_topic):
    """``N_k = p_k sum_u c_u E[v_u,k] / s_u``, filling ``s_u = sum_k E[v_u,k] p_k``.

    ``local[k, u] = E[v_u, k]`` is the document's slice of the likelihood, topic-major, so every
    inner loop runs over the document's word types and vectorises whatever the number of topics.
    Topics go four at a time: one pass over ``s`` (or ``weight``) serves four rows, which keeps the
    loop from being bound by loads and stores of ``s`` (0.16 -> 0.12 s per wiki pass at K=20).
    """
    n_topics, n_words = p.size, s.size
    s[:] = 0.0
    k = 0
    while k + 4 <= n_topics:
        p0, p1, p2, p3 = p[k], p[k + 1], p[k + 2], p[k + 3]
        r0, r1, r2, r3 = local[k], local[k + 1], local[k + 2], local[k + 3]
        for u in range(n_words):
            s[u] += r0[u] * p0 + r1[u] * p1 + r2[u] * p2 + r3[u] * p3
        k += 4
    for j in range(k, n_topics):
        p_j, row = p[j], local[j]
        for u in range(n_words):
            s[u] += row[u] * p_j
    for u in range(n_words):
        weight[u] = counts[u] / s[u]
    k = 0
    while k + 4 <= n_topics:
        r0, r1, r2, r3 = local[k], local[k + 1], local[k + 2], local[k + 3]
        t0, t1, t2, t3 = 0.0, 0.0, 0.0, 0.0
        for u in range(n_words):
            w = weight[u]
            t0 += r0[u] * w
            t1 += r1[u] * w
            t2 += r2[u] * w
            t3 += r3[u] * w
        doc_topic[k], doc_topic[k + 1] = t0 * p[k], t1 * p[k + 1]
        doc_topic[k + 2], doc_topic[k + 3] = t2 * p[k + 2], t3 * p[k + 3]
        k += 4
    for j in range(k, n_topics):
        row = local[j]
        total = 0.0
        for u in range(n_words):
            total += row[u] * weight[u]
        doc_topic[j] = total * p[j]


@njit(cache=True, nogil=True)
def topic_major_slice(words, exp_loglik):
    """The document's topic-major likelihood slice ``local[k, u] = exp_loglik[words[u], k]`` (a new
    array: a reshaped slice of one buffer would compile reshape's error path, a second of first use)."""
    n_topics = exp_loglik.shape[1]
    local = np.empty((n_topics, words.size))
    for u in range(words.size):
        row = exp_loglik[words[u]]
        for k in range(n_topics):
            local[k, u] = row[k]
    return local


@njit(cache=True, nogil=True, fastmath=FAST, error_model="numpy")
def _sum_log_s(counts, s):
    """``sum_u c_u log s_u`` (every ``s_u >= P_FLOOR``: normal, so :func:`log_positive` vectorises it)."""
    total = 0.0
    for u in range(s.size):
        total += counts[u] * log_positive(s[u])
    return total


@njit(cache=True, nogil=True)
def _objective(counts, s, doc_topic, prior, prior_rest, log_p):
    """``L_d`` up to a constant: ``sum_u c_u log s_u - sum_k N_k log p_k - c_Dir(N + a)``, where
    ``(p, s)`` produced ``N`` in the last r-step (digest §1.5)."""
    value = _sum_log_s(counts, s)
    total = prior_rest
    for k in range(doc_topic.size):
        theta = doc_topic[k] + prior[k]
        total += theta
        value += math.lgamma(theta)
        if doc_topic[k] > 0.0:
            value -= doc_topic[k] * log_p[k]
    if prior_rest > 0.0:
        value += math.lgamma(prior_rest)
    return value - math.lgamma(total)


@njit(cache=True, nogil=True)
def _iterate(local, counts, prior, doc_topic, p, log_p, s, weight, scratch, n_iters, tol):
    """Up to ``n_iters`` theta/r steps from ``doc_topic``; returns the number of iterations."""
    for it in range(n_iters):
        _theta_step(doc_topic, prior, p, log_p)
        r_step(local, counts, p, s, weight, scratch)
        change = 0.0
        for k in range(p.size):
            change = max(change, abs(scratch[k] - doc_topic[k]))
            doc_topic[k] = scratch[k]
        if change < tol:
            return it + 1
    return n_iters


@njit(cache=True, nogil=True)
def _accelerated(local, counts, prior, prior_rest, doc_topic, p, log_p, s, weight, scratch, acc, max_evals, tol):
    """The fixed point by SQUAREM (Varadhan & Roland 2008, scheme S3) over the theta/r map ``F``:
    from ``N0``, ``N1 = F(N0)`` and ``N2 = F(N1)``; with ``r = N1 - N0``, ``v = N2 - 2 N1 + N0`` and
    the steplength ``alpha = min(-||r|| / ||v||, -1)``, the extrapolated
    ``max(N0 - 2 alpha r + alpha^2 v, EXTRAPOLATION_FLOOR min(N1, N2))`` is mapped once more and kept
    when its ``L_d`` is at least
    ``N2``'s, else ``N2`` is: no cycle ends below the plain two steps, so warm starts still never
    lower ``L_d``. Stops when a step moves the counts by less than ``tol``; returns the evaluations
    of ``F`` (at most ``max_evals``). Where it runs by default and what it was measured to do:
    :func:`stickbreak.estimators._topic_plans.accelerated`. ``acc``: six work arrays (K, K, K, K,
    longest, K)."""
    start, first, keep_p, keep_log_p, keep_s = acc[0], acc[1], acc[2], acc[3], acc[4][: s.size]
    second = acc[5]
    evals = 0
    while evals < max_evals:
        copy_into(start, doc_topic)
        _theta_step(start, prior, p, log_p)
        r_step(local, counts, p, s, weight, first)
        _theta_step(first, prior, p, log_p)
        r_step(local, counts, p, s, weight, second)
        evals += 2
        change, rr, vv = 0.0, 0.0, 0.0
        for k in range(p.size):
            change = max(change, abs(second[k] - first[k]))
            r = first[k] - start[k]
            v = second[k] - 2.0 * first[k] + start[k]
            rr += r * r
            vv += v * v
        copy_into(doc_topic, second)
        if change < tol or evals >= max_evals or vv == 0.0:
            return evals
        alpha = min(-math.sqrt(rr / vv), -1.0)
        plain = _objective(counts, s, second, prior, prior_rest, log_p)
        copy_into(keep_p, p)
        copy_into(keep_log_p, log_p)
        copy_into(keep_s, s)
        for k in range(p.size):
            r = first[k] - start[k]
            v = second[k] - 2.0 * first[k] + start[k]
            floor = EXTRAPOLATION_FLOOR * min(first[k], second[k])
            doc_topic[k] = max(start[k] - 2.0 * alpha * r + alpha * alpha * v, floor)
        _theta_step(doc_topic, prior, p, log_p)
        r_step(local, counts, p, s, weight, scratch)
        evals += 1
        if _objective(counts, s, scratch, prior, prior_rest, log_p) >= plain:
            change = 0.0
            for k in range(p.size):
                change = max(change, abs(scratch[k] - doc_topic[k]))
            copy_into(doc_topic, scratch)
            if change < tol:
                return evals
        else:
            copy_into(doc_topic, second)
            copy_into(p, keep_p)
            copy_into(log_p, keep_log_p)
            copy_into(s, keep_s)
    return evals


@njit(cache=True, nogil=True)
def _keep_better(counts, prior, prior_rest, doc_topic, p, log_p, s, trial, trial_p, trial_log_p, trial_s, best):
    """Adopt the trial state when its ``L_d`` beats ``best``; returns the new best and whether it did."""
    value = _objective(counts, trial_s, trial, prior, prior_rest, trial_log_p)
    if value > best:
        copy_into(doc_topic, trial)
        copy_into(p, trial_p)
        copy_into(log_p, trial_log_p)
        copy_into(s, trial_s)
        return value, True
    return best, False


@njit(cache=True, nogil=True)
def next_smallest(values, visited):
    """The unvisited topic with the smallest value above ``RESTART_MIN_COUNT`` (ties: the lowest
    index), now marked visited; -1 when none is left. Restarts visit topics in this order, a
    selection rather than a sort, which is one more kernel to compile on first use."""
    best, best_value = -1, math.inf
    for k in range(values.size):
        if not visited[k] and RESTART_MIN_COUNT < values[k] < best_value:
            best, best_value = k, values[k]
    if best >= 0:
        visited[best] = True
    return best


@njit(cache=True, nogil=True)
def next_restart(initial, visited, doc_topic):
    """The next topic a restart zeroes (Alg. 5.2): by :func:`next_smallest` of the counts ``initial``
    before any restart, the first still used in ``doc_topic``; -1 when none is left or fewer than two
    topics are used."""
    n_topics = doc_topic.size
    while True:
        j = next_smallest(initial, visited)
        if j < 0:
            return -1
        if doc_topic[j] <= RESTART_MIN_COUNT:
            continue
        used = 0
        for k in range(n_topics):
            used += doc_topic[k] > RESTART_MIN_COUNT
        if used < 2:
            return -1
        return j


@njit(cache=True, nogil=True)
def _restarts(local, counts, prior, prior_rest, doc_topic, p, log_p, s, weight, n_restarts, work):
    """Try zeroing the ``n_restarts`` smallest used topics (Alg. 5.2); returns the number accepted."""
    n_topics = p.size
    trial, trial_p, trial_log_p, trial_s, scratch = work[0], work[1], work[2], work[3][: s.size], work[4]
    best = _objective(counts, s, doc_topic, prior, prior_rest, log_p)
    initial, visited = doc_topic.copy(), np.zeros(n_topics, dtype=np.bool_)
    accepted, tried = 0, 0
    while tried < n_restarts:
        j = next_restart(initial, visited, doc_topic)  # smallest used first, in their order before any restart
        if j < 0:
            break
        tried += 1
        copy_into(trial, doc_topic)
        trial[j] = 0.0
        _iterate(local, counts, prior, trial, trial_p, trial_log_p, trial_s, weight, scratch, np.int64(2), -1.0)
        best, better = _keep_better(counts, prior, prior_rest, doc_topic, p, log_p, s,
                                    trial, trial_p, trial_log_p, trial_s, best)
        accepted += better
    return accepted


@njit(cache=True, nogil=True)
def _fixed_point(local, counts, prior, prior_rest, doc_topic, p, log_p, s, weight, scratch, acc, max_iter, tol,
                 accelerate):
    if accelerate:
        return _accelerated(local, counts, prior, prior_rest, doc_topic, p, log_p, s, weight, scratch, acc, max_iter,
                            tol)
    return _iterate(local, counts, prior, doc_topic, p, log_p, s, weight, scratch, max_iter, tol)


@njit(cache=True, nogil=True)
def _solve_doc(local, cnts, prior, prior_rest, state, start, p, log_p, s, weight, scratch, work, acc,
               max_iter, tol, n_restarts, accelerate):
    """One document: the fixed point from ``start`` (SCRATCH, WARM or BEST of both; by
    :func:`_accelerated` when ``accelerate``, else plain iterations), then restarts. Returns
    ``(evaluations of the map, accepted restarts)``;
    ``state``, ``p``, ``log_p`` and ``s`` hold the result."""
    warm_copy = work[5]
    if start != SCRATCH:
        copy_into(warm_copy, state)
    if start != WARM:  # initialise from the likelihood and the prior weights (Alg. 5.1, line 1)
        for k in range(prior.size):
            p[k] = max(prior[k], P_FLOOR)
        r_step(local, cnts, p, s, weight, state)
    iters = _fixed_point(local, cnts, prior, prior_rest, state, p, log_p, s, weight, scratch, acc, max_iter, tol,
                         accelerate)
    if start == BEST:  # also from the previous counts; keep the better (never below last lap's)
        trial, trial_p, trial_log_p, trial_s = work[0], work[1], work[2], work[3][: s.size]
        copy_into(trial, warm_copy)
        iters += _fixed_point(local, cnts, prior, prior_rest, trial, trial_p, trial_log_p, trial_s, weight, scratch,
                              acc, max_iter, tol, accelerate)
        best = _objective(cnts, s, state, prior, prior_rest, log_p)
        _keep_better(cnts, prior, prior_rest, state, p, log_p, s, trial, trial_p, trial_log_p, trial_s, best)
    accepted = 0
    if n_restarts > 0:
        accepted = _restarts(local, cnts, prior, prior_rest, state, p, log_p, s, weight, n_restarts, work)
        if accepted > 0:
            iters += _fixed_point(local, cnts, prior, prior_rest, state, p, log_p, s, weight, scratch, acc, max_iter,
                                  tol, accelerate)
    return iters, accepted


@njit(cache=True, nogil=True)
def longest_row(indptr, first, last):
    """The most entries of any row ``first <= d < last`` of a CSR matrix (at least 1): buffer sizes."""
    longest = 1
    for d in range(first, last):
        longest = max(longest, indptr[d + 1] - indptr[d])
    return longest


@njit(cache=True, nogil=True)
def topic_chunk(indptr, indices, counts, exp_loglik, centered_loglik, prior, prior_rest, doc_topic, start,
                max_iter, tol, n_restarts, pairs, first, last, word_topic, entropy, pair_entropy, n_iters, n_accepted,
                doc_weight, accelerate):
    """The fixed point of documents ``first:last`` (:func:`topic_local_step`), accumulating into
    this chunk's ``word_topic`` (V, K), ``entropy`` (K,) and ``pair_entropy`` (M,)."""
    n_topics = prior.size
    longest = longest_row(indptr, first, last)
    p, log_p, scratch = np.empty(n_topics), np.empty(n_topics), np.empty(n_topics)
    s, weight = np.empty(longest), np.empty(longest)
    work = (np.empty(n_topics), np.empty(n_topics), np.empty(n_topics), np.empty(longest), np.empty(n_topics),
            np.empty(n_topics))
    acc = (np.empty(n_topics), np.empty(n_topics), np.empty(n_topics), np.empty(n_topics), np.empty(longest),
           np.empty(n_topics))
    seen = np.zeros(exp_loglik.shape[0], dtype=np.bool_)
    touched = np.empty(min(exp_loglik.shape[0], indptr[last] - indptr[first]), dtype=np.int64)
    n_touched = np.int64(0)  # (not a literal 0: finish_chunk would compile once more for it)
    for d in range(first, last):
        words, cnts = indices[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]]
        local = topic_major_slice(words, exp_loglik)
        s_doc, weight_doc = s[: words.size], weight[: words.size]
        n_iters[d], n_accepted[d] = _solve_doc(local, cnts, prior, prior_rest, doc_topic[d], start, p, log_p,
                                               s_doc, weight_doc, scratch, work, acc, max_iter, tol, n_restarts,
                                               accelerate)
        accumulate(words, cnts, local, doc_topic[d], p, log_p, s_doc, weight_doc, word_topic, entropy)
        pair_gains(words, cnts, local, centered_loglik, doc_topic[d], p, log_p, s_doc, pairs, pair_entropy)
        for u in range(words.size):
            if not seen[words[u]]:
                seen[words[u]] = True
                touched[n_touched] = words[u]
                n_touched += 1
        if doc_weight.shape[0] > 0:
            copy_into(doc_weight[d], p)
    finish_chunk(touched, n_touched, exp_loglik, centered_loglik, word_topic, entropy, pairs, pair_entropy)


def topic_local_step(indptr, indices, counts, exp_loglik, centered_loglik, prior, prior_rest, doc_topic, start,
                     max_iter, tol, n_restarts, pairs, n_chunks, doc_weight, accelerate=False):
    """Run the fixed point for every document, over ``n_chunks`` contiguous chunks on threads
    (:mod:`~stickbreak.kernels.chunked`).

    ``doc_topic`` (D, K) holds the previous counts unless ``start`` is SCRATCH, and receives the
    final ones. ``start``: SCRATCH (from the likelihood), WARM (from the previous counts: never
    lowers a document's ELBO) or BEST (both, keeping the higher ``L_d``: monotone too).
    ``pairs`` (M, 2): topic columns whose merged entropy to gather (Hughes 2016, §5.5.1).
    ``doc_weight`` (D, K), or (0, K) to skip: receives each document's final topic weights ``p``
    (``exp E log pi_dk`` up to a per-document factor), so that a token's responsibilities
    ``r_uk = E_vk p_k / sum_j E_vj p_j`` can be rebuilt exactly (the birth move needs them).
    ``accelerate``: SQUAREM (:func:`_accelerated`), else the plain iteration (stochastic steps).
    Returns ``word_topic`` (V, K) = ``sum_d sum_u c_u r_duk [v_u = v]``, the per-topic entropy
    ``-sum c r log r`` (K,), the per-pair merged entropy (M,), the iterations and the accepted
    restarts per document.

    A ``doc_topic`` in another layout (a warm start's columns picked by a move arrive F-ordered) is
    solved in a C-ordered copy and written back, so the document loop compiles once, for C arrays.
    """
    state = np.ascontiguousarray(doc_topic)
    bounds = even_bounds(state.shape[0], n_chunks)
    word_topic, entropy, pair_entropy, n_iters, n_accepted = chunk_accumulators(
        bounds, exp_loglik.shape[0], state.shape, pairs.shape[0])

    def run(c, first, last):
        topic_chunk(indptr, indices, counts, exp_loglik, centered_loglik, prior, float(prior_rest), state, int(start),
                    int(max_iter), float(tol), int(n_restarts), pairs, first, last, word_topic[c], entropy[c],
                    pair_entropy[c], n_iters, n_accepted, doc_weight, np.bool_(accelerate))

    over_chunks(run, bounds)
    doc_topic[:] = state
    return sum_chunks(word_topic, entropy, pair_entropy) + (n_iters, n_accepted)


def chunk_accumulators(bounds, n_words, doc_topic_shape, n_pairs):
    """Zeroed ``word_topic`` (C, V, K), ``entropy`` (C, K), ``pair_entropy`` (C, M) for the chunks of
    ``bounds``, and the per-document iterations and accepted restarts (D,)."""
    (n_docs, n_topics), n_chunks = doc_topic_shape, len(bounds) - 1
    return (np.zeros((n_chunks, n_words, n_topics)), np.zeros((n_chunks, n_topics)), np.zeros((n_chunks, n_pairs)),
            np.zeros(n_docs, dtype=np.int64), np.zeros(n_docs, dtype=np.int64))


def sum_chunks(word_topic, entropy, pair_entropy):
    """The chunks' accumulators summed in chunk order: ``(word_topic[0] + ..., entropy[0] + ..., ...)``."""
    total_word_topic, total_entropy, total_pair_entropy = word_topic[0], entropy[0], pair_entropy[0]
    for c in range(1, word_topic.shape[0]):
        total_word_topic += word_topic[c]
        total_entropy += entropy[c]
        total_pair_entropy += pair_entropy[c]
    return total_word_topic, total_entropy, total_pair_entropy


@njit(cache=True, nogil=True)
def dense_token_share(indptr, indices, exp_loglik, doc_weight, column):
    """Each token's responsibility for topic ``column`` under the dense step's final weights,
    ``r_uk = E_vk p_dk / sum_j E_vj p_dj`` (a birth's target share), shape (nnz,). Each token's
    sum runs over the topics in order, so a document's shares do not depend on the documents
    around it (a batch split among workers pools the same items, to the bit)."""
    n_docs, n_topics = doc_weight.shape
    share = np.zeros(indices.size)
    for d in range(n_docs):
        for t in range(indptr[d], indptr[d + 1]):
            word = indices[t]
            norm = 0.0
            for k in range(n_topics):
                norm += exp_loglik[word, k] * doc_weight[d, k]
            share[t] = exp_loglik[word, column] * doc_weight[d, column] / norm
    return share
