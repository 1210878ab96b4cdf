"""The L-sparse per-document topic fixed point (Hughes 2016, thesis Ch. 7, §7.3, Alg. 7.2 and 7.4).

The dense step (:mod:`stickbreak.kernels.topics.dense`) gives every word type of a document a
responsibility for every topic. Here each word type ``u`` keeps at most ``L`` non-zero
responsibilities: the ``L`` topics with the largest weights ``W_uk = E log phi_{k v_u} + E log pi_dk``,
renormalised among themselves. That is the exact maximiser of the document ELBO over ``r_u`` under
the constraint (a swap argument: Alg. 7.2), so each iteration is still a coordinate step. Per
document:

* the active set ``A_d`` starts as all topics and only shrinks: a topic leaves once its count
  ``N_dk`` falls to ``ACTIVE_MIN_COUNT`` or below, and never returns (the "digamma problem" makes
  its weight negligible);
* the top-``L`` selection runs in the first ``FULL_FIRST`` iterations, then every ``FULL_EVERY``-th
  and in the last iteration; in between each word type's current ``L`` topics are only re-weighted
  (``O(L)``; a topic that left the active set meanwhile keeps its last weight there until the next
  selection);
* a SCRATCH start's first selection, from the prior weights, depends on the word alone: it is made
  once per vocabulary word (:func:`prior_selection`) and looked up;
* sparse restarts (Alg. 5.2) work as in the dense kernel, on the sparse state.

Weights are multiplied in the linear domain (``E[v, k] p_k`` with the dense kernel's centred
likelihoods), falling back to logs for a word type whose products all underflow. A selection is
topic-major and stops early (:mod:`~stickbreak.kernels.topics.sparse_select`); re-weighting reads
only the cached ``L`` likelihoods per word type. The document objective is the dense one,
``sum_u c_u log s_u - sum_k N_k log p_k - c_Dir(N + a)``, with ``s_u`` summed over the word type's
selected topics.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ..chunked import even_bounds, over_chunks
from ..special import digamma
from .dense import (LOG_P_FLOOR, P_FLOOR, SCRATCH, WARM, chunk_accumulators, copy_into, longest_row, next_restart,
                    sum_chunks)
from .doc_statistics import PAIR_MIN_COUNT
from .sparse_select import (reweight_rows, select_rows, gather_topic_major, order_by_weight,  # noqa: F401
                            top_l_of_row)  # (top_l_of_row: public here too)

#: A topic leaves a document's active set once its expected count is at most this.
ACTIVE_MIN_COUNT = 1e-8
#: Selection schedule (thesis §7.3): every iteration among the first ``FULL_FIRST``, then every ``FULL_EVERY``-th.
FULL_FIRST = 5
FULL_EVERY = 10
#: Vocabulary words per block of :func:`prior_selection`.
PRIOR_BLOCK = 256

#: One document's inputs: its ``words`` and ``counts``, its likelihood slice ``local`` (K, U)
#: topic-major and each word type's largest likelihood ``word_max`` (U)
#: (:func:`~stickbreak.kernels.topics.sparse_select.gather_topic_major`), and the step's
#: ``centered_loglik`` (V, K) and ``prior`` (K).
Doc = namedtuple("Doc", ["words", "counts", "local", "word_max", "centered_loglik", "prior"])

#: The selection from the prior weights ``max(prior_k, P_FLOOR)`` (``p``, ``log_p``) of every
#: vocabulary word: rows ``index``, ``resp``, ``lik`` (V, L) and ``log_s`` (V,).
PriorSelection = namedtuple("PriorSelection", ["index", "resp", "lik", "log_s", "p", "log_p"])

#: One document's working state (buffers sized for the longest document of a chunk, sliced per
#: document): ``doc_topic`` N_dk (K), ``p``/``log_p`` exp psi(theta) and its log (K), ``active``
#: topics in ascending order (K) with ``sizes[0]`` of them active (``sizes[1]``: how many were at
#: the last selection, -1 before the first), per word type the selected topics ``index`` (U, L) (-1
#: past the selection), ``resp`` and cached likelihoods ``lik`` (U, L) and ``log_s`` (U,), and a
#: scratch vector ``next_counts`` (K). ``order``, ``order_p`` and ``position`` (K) are the active
#: topics by weight (:func:`~stickbreak.kernels.topics.sparse_select.order_by_weight`); ``held``,
#: ``threshold``, ``live`` (U), ``hidden``, ``best_index`` and ``best_value`` (U L) are
#: :func:`select_rows`' scratch.
DocState = namedtuple("DocState", ["doc_topic", "p", "log_p", "active", "sizes", "index", "resp", "lik", "log_s",
                                   "next_counts", "order", "order_p", "position", "held", "threshold", "live",
                                   "hidden", "best_index", "best_value"])


@njit(cache=True, nogil=True)
def _select(doc, state):
    """A full selection over the active topics (fills ``state``'s rows)."""
    n_active_topics = state.sizes[0]
    state.sizes[1] = n_active_topics
    order_by_weight(state.active, n_active_topics, state.p, state.order, state.order_p, state.position)
    select_rows(doc.words, doc.local, doc.word_max, state.active, state.order, state.order_p, n_active_topics,
                 doc.centered_loglik, state.log_p, state.index, state.resp, state.lik, state.log_s, state.position,
                 state.held, state.threshold, state.live, state.hidden, state.best_index, state.best_value)


@njit(cache=True, nogil=True)
def r_step(doc, state, full, doc_topic):
    """One r-step over the document (full selection or re-weighting); refills ``doc_topic`` over all topics."""
    if full:
        _select(doc, state)
        _fill_counts(doc.counts, state, doc_topic)
    else:
        reweight_rows(doc.words, doc.counts, state.p, doc.centered_loglik, state.log_p, state.index, state.resp,
                       state.lik, state.log_s, np.bool_(False), doc_topic)


@njit(cache=True, nogil=True)
def _fill_counts(counts, state, doc_topic):
    """``doc_topic[k] = sum_u c_u r_uk`` over the selected entries."""
    index, resp = state.index, state.resp
    doc_topic[:] = 0.0
    for u in range(counts.size):
        for j in range(index.shape[1]):
            k = index[u, j]
            if k < 0:
                break
            doc_topic[k] += counts[u] * resp[u, j]


@njit(cache=True, nogil=True)
def _theta_step(state, prior):
    for j in range(state.sizes[0]):
        k = state.active[j]
        state.log_p[k] = max(digamma(state.doc_topic[k] + prior[k]), LOG_P_FLOOR)
        state.p[k] = math.exp(state.log_p[k])


@njit(cache=True, nogil=True)
def _shrink(state):
    """Drop active topics whose count is at most ``ACTIVE_MIN_COUNT``."""
    kept = 0
    for j in range(state.sizes[0]):
        k = state.active[j]
        if state.doc_topic[k] > ACTIVE_MIN_COUNT:
            state.active[kept] = k
            kept += 1
    state.sizes[0] = kept


@njit(cache=True, nogil=True)
def _iterate(doc, state, max_iter, tol, always_full, keep_first):
    """Theta and r steps from ``state``'s counts until ``max_k |Delta N_k| < tol`` (the last r-step
    always a full selection); ``keep_first``: no shrinking before the first (a warm start's counts
    may be zero for topics the document should regain). Returns the number of iterations."""
    force_full = False
    for it in range(max_iter):
        if not (keep_first and it == 0):
            _shrink(state)
        _theta_step(state, doc.prior)
        # with at most L active topics every word type holds them all: select again only after the
        # set shrank (a topic that left must lose its stale weight); otherwise a selection would give
        # each word type the topics it holds, so re-weighting them (with the logs) is the selection
        holds_all = state.index.shape[1] >= state.sizes[0]
        exact = holds_all and state.sizes[0] == state.sizes[1]
        full = (always_full or force_full or it < FULL_FIRST or it % FULL_EVERY == 0 or it == max_iter - 1
                or (holds_all and not exact))
        if full and exact:
            reweight_rows(doc.words, doc.counts, state.p, doc.centered_loglik, state.log_p, state.index, state.resp,
                           state.lik, state.log_s, np.bool_(True), state.next_counts)
        else:
            r_step(doc, state, full, state.next_counts)
        change = 0.0
        for k in range(state.doc_topic.size):
            change = max(change, abs(state.next_counts[k] - state.doc_topic[k]))
        state.doc_topic[:] = state.next_counts
        if change < tol:
            if full:
                return it + 1
            if holds_all:  # an exact re-weighting ends it: redo it with the logs (identical values)
                reweight_rows(doc.words, doc.counts, state.p, doc.centered_loglik, state.log_p, state.index,
                               state.resp, state.lik, state.log_s, np.bool_(True), state.next_counts)
                return it + 1
            force_full = True
    return max_iter


@njit(cache=True, nogil=True)
def _objective(counts, state, prior, prior_rest):
    """``L_d`` up to a constant (the dense kernel's, with ``s_u`` over the selected topics)."""
    value = 0.0
    for u in range(counts.size):
        value += counts[u] * state.log_s[u]
    total = prior_rest
    for k in range(state.doc_topic.size):
        theta = state.doc_topic[k] + prior[k]
        total += theta
        value += math.lgamma(theta)
        if state.doc_topic[k] > 0.0:
            value -= state.doc_topic[k] * state.log_p[k]
    if prior_rest > 0.0:
        value += math.lgamma(prior_rest)
    return value - math.lgamma(total)


@njit(cache=True, nogil=True)
def _copy_rows(target, source, n_rows):
    """The first ``n_rows`` rows of a 2-D ``source`` into ``target``, as loops (see :func:`copy_into`)."""
    for i in range(n_rows):
        for j in range(source.shape[1]):
            target[i, j] = source[i, j]


@njit(cache=True, nogil=True)
def _copy_state(source, target, n_words):
    """``target = source`` for the topic vectors and the first ``n_words`` word types' rows."""
    copy_into(target.doc_topic, source.doc_topic)
    copy_into(target.p, source.p)
    copy_into(target.log_p, source.log_p)
    copy_into(target.active, source.active)
    copy_into(target.sizes, source.sizes)
    _copy_rows(target.index, source.index, n_words)
    _copy_rows(target.resp, source.resp, n_words)
    _copy_rows(target.lik, source.lik, n_words)
    copy_into(target.log_s[:n_words], source.log_s[:n_words])


@njit(cache=True, nogil=True)
def prior_selection(exp_loglik, row_max, centered_loglik, prior, size):
    """The :data:`PriorSelection` of every vocabulary word, selected in blocks of ``PRIOR_BLOCK``
    words with all topics active."""
    n_words, n_topics = exp_loglik.shape
    block = max(1, min(PRIOR_BLOCK, n_words))
    table = PriorSelection(np.empty((n_words, size), dtype=np.int64), np.empty((n_words, size)),
                           np.empty((n_words, size)), np.empty(n_words), np.empty(n_topics), np.empty(n_topics))
    state = _new_state(n_topics, block, size)
    for k in range(n_topics):
        state.active[k] = k
        table.p[k] = state.p[k] = max(prior[k], P_FLOOR)
        table.log_p[k] = state.log_p[k] = math.log(state.p[k])
    state.sizes[0] = n_topics
    local, word_max = np.empty((n_topics, block)), np.empty(block)
    for first in range(0, n_words, block):
        words = np.arange(first, min(first + block, n_words), 1, np.int32)
        doc = Doc(words, np.empty(0), local, word_max, centered_loglik, prior)
        part = _for_doc(state, words.size)
        part.index[:] = -1  # no previous topics to seed the selection
        gather_topic_major(words, exp_loglik, row_max, local, word_max)
        _select(doc, part)
        _copy_rows(table.index[first:], part.index, words.size)
        _copy_rows(table.resp[first:], part.resp, words.size)
        _copy_rows(table.lik[first:], part.lik, words.size)
        copy_into(table.log_s[first:first + words.size], part.log_s)
    return table


@njit(cache=True, nogil=True)
def _start(doc, previous, start, state, table):
    """All topics active and the first counts: an r-step from the prior weights (SCRATCH, Alg. 5.1
    line 1; looked up in ``table``) or ``previous`` (WARM; its first iteration then must not shrink
    the active set)."""
    n_topics = doc.prior.size
    for k in range(n_topics):
        state.active[k] = k
    state.index[:] = -1
    state.sizes[0] = n_topics
    state.sizes[1] = n_topics
    if start == WARM:
        copy_into(state.doc_topic, previous)
        state.sizes[1] = -1  # no selection yet: the rows hold no topics
        return
    copy_into(state.p, table.p)
    copy_into(state.log_p, table.log_p)
    for u in range(doc.words.size):
        v = doc.words[u]
        copy_into(state.index[u], table.index[v])
        copy_into(state.resp[u], table.resp[v])
        copy_into(state.lik[u], table.lik[v])
        state.log_s[u] = table.log_s[v]
    _fill_counts(doc.counts, state, state.doc_topic)


@njit(cache=True, nogil=True)
def _restarts(doc, prior_rest, state, trial, n_restarts):
    """Alg. 5.2 on the sparse state: zero each of the ``n_restarts`` smallest used topics in turn
    (it leaves the active set), two full iterations, keep the trial if ``L_d`` rises."""
    doc_topic = state.doc_topic
    n_topics = doc_topic.size
    best = _objective(doc.counts, state, doc.prior, prior_rest)
    initial, visited = doc_topic.copy(), np.zeros(n_topics, dtype=np.bool_)
    accepted, tried = 0, 0
    while tried < n_restarts:
        j = next_restart(initial, visited, doc_topic)  # ties (L = 1 gives whole counts) by index
        if j < 0:
            break
        tried += 1
        _copy_state(state, trial, doc.words.size)
        trial.doc_topic[j] = 0.0
        _iterate(doc, trial, np.int64(2), -1.0, np.bool_(True), np.bool_(False))
        value = _objective(doc.counts, trial, doc.prior, prior_rest)
        if value > best:
            best = value
            _copy_state(trial, state, doc.words.size)
            accepted += 1
    return accepted


@njit(cache=True, nogil=True)
def _solve_doc(doc, prior_rest, previous, start, state, trial, table, max_iter, tol, n_restarts):
    """One document from SCRATCH, WARM or the better of both (BEST), then restarts; returns
    ``(iterations, accepted restarts)``."""
    first = np.int64(WARM if start == WARM else SCRATCH)
    _start(doc, previous, first, state, table)
    iters = _iterate(doc, state, max_iter, tol, np.bool_(False), start == WARM)
    if start != SCRATCH and start != WARM:  # BEST: also from the previous counts, keep the better
        _start(doc, previous, np.int64(WARM), trial, table)
        iters += _iterate(doc, trial, max_iter, tol, np.bool_(False), np.bool_(True))
        if _objective(doc.counts, trial, doc.prior, prior_rest) > _objective(doc.counts, state, doc.prior, prior_rest):
            _copy_state(trial, state, doc.words.size)
    accepted = 0
    if n_restarts > 0:
        accepted = _restarts(doc, prior_rest, state, trial, n_restarts)
        if accepted > 0:
            iters += _iterate(doc, state, max_iter, tol, np.bool_(False), np.bool_(False))
    return iters, accepted


@njit(cache=True, nogil=True)
def _accumulate(words, counts, centered_loglik, state, word_topic, entropy, doc_entropy, pairs, pair_entropy):
    """Add ``c_u r_uk`` to ``word_topic[v_u, k]`` and ``-c_u r_uk log r_uk`` to ``entropy[k]`` over the
    selected entries, and each merge pair's ``-c_u (r_ua + r_ub) log(r_ua + r_ub)``: the merged
    responsibilities are L-sparse too, so the merge is scored within the same family."""
    index, resp = state.index, state.resp
    size = index.shape[1]
    doc_entropy[:] = 0.0
    for u in range(words.size):
        v = words[u]
        for j in range(size):
            k = index[u, j]
            if k < 0:
                break
            mass = counts[u] * resp[u, j]
            if mass > 0.0:
                word_topic[v, k] += mass
                doc_entropy[k] += mass * (state.log_s[u] - state.log_p[k] - centered_loglik[v, k])
    for k in range(doc_entropy.size):
        entropy[k] += doc_entropy[k]
    for m in range(pairs.shape[0]):
        a, b = pairs[m, 0], pairs[m, 1]
        if state.doc_topic[a] < PAIR_MIN_COUNT or state.doc_topic[b] < PAIR_MIN_COUNT:
            pair_entropy[m] += doc_entropy[a] + doc_entropy[b]
            continue
        for u in range(words.size):
            merged = 0.0
            for j in range(size):
                k = index[u, j]
                if k == a or k == b:
                    merged += resp[u, j]
            if merged > 0.0:
                pair_entropy[m] -= counts[u] * merged * math.log(merged)


@njit(cache=True, nogil=True)
def _new_state(n_topics, longest, size):
    return DocState(np.zeros(n_topics), np.empty(n_topics), np.empty(n_topics), np.empty(n_topics, dtype=np.int64),
                    np.zeros(2, dtype=np.int64), np.empty((longest, size), dtype=np.int64), np.empty((longest, size)),
                    np.empty((longest, size)), np.empty(longest), np.empty(n_topics),
                    np.empty(n_topics, dtype=np.int64), np.empty(n_topics), np.empty(n_topics, dtype=np.int64),
                    np.empty(longest, dtype=np.int64), np.empty(longest), np.empty(longest, dtype=np.int64),
                    np.empty(longest * size), np.empty(longest * size, dtype=np.int64), np.empty(longest * size))


@njit(cache=True, nogil=True)
def _for_doc(state, n_words):
    """The state's per-word buffers cut to a document of ``n_words`` word types."""
    size = state.index.shape[1]
    return DocState(state.doc_topic, state.p, state.log_p, state.active, state.sizes, state.index[:n_words],
                    state.resp[:n_words], state.lik[:n_words], state.log_s[:n_words], state.next_counts, state.order,
                    state.order_p, state.position, state.held[:n_words], state.threshold[:n_words], state.live,
                    state.hidden[:n_words * size], state.best_index[:n_words * size], state.best_value[:n_words * size])


@njit(cache=True, nogil=True)
def sparse_topic_chunk(indptr, indices, counts, exp_loglik, row_max, centered_loglik, prior, prior_rest, doc_topic,
                       start, table, n_active, max_iter, tol, n_restarts, pairs, first, last, word_topic, entropy,
                       pair_entropy, n_iters, n_accepted, doc_weight):
    """The L-sparse fixed point of documents ``first:last`` (:func:`sparse_topic_local_step`),
    accumulating into this chunk's ``word_topic``, ``entropy`` and ``pair_entropy``; ``row_max[v]`` is
    ``max_k exp_loglik[v, k]`` and ``table`` the :func:`prior_selection` (unused for WARM)."""
    n_topics = prior.size
    longest = longest_row(indptr, first, last)
    state, trial = _new_state(n_topics, longest, n_active), _new_state(n_topics, longest, n_active)
    local, word_max = np.empty((n_topics, longest)), np.empty(longest)
    doc_entropy = np.empty(n_topics)
    for d in range(first, last):
        words, cnts = indices[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]]
        gather_topic_major(words, exp_loglik, row_max, local, word_max)
        doc = Doc(words, cnts, local, word_max, centered_loglik, prior)
        doc_state = _for_doc(state, words.size)
        n_iters[d], n_accepted[d] = _solve_doc(doc, prior_rest, doc_topic[d], start, doc_state,
                                               _for_doc(trial, words.size), table, max_iter, tol, n_restarts)
        doc_topic[d] = state.doc_topic
        _accumulate(words, cnts, centered_loglik, doc_state, word_topic, entropy, doc_entropy, pairs, pair_entropy)
        if doc_weight.shape[0] > 0:
            doc_weight[d] = 0.0
            for j in range(state.sizes[0]):
                doc_weight[d, state.active[j]] = state.p[state.active[j]]


def sparse_topic_local_step(indptr, indices, counts, exp_loglik, centered_loglik, prior, prior_rest, doc_topic,
                            start, n_active, max_iter, tol, n_restarts, pairs, n_chunks, doc_weight):
    """:func:`~stickbreak.kernels.topics.dense.topic_local_step` with at most ``n_active`` (L) non-zero
    responsibilities per word type; the same arguments, plus ``n_active``, and the same outputs
    (``doc_topic`` in any layout, as there).

    ``doc_weight`` receives each document's final weights ``p_dk`` on its active topics and 0 on
    the others: :func:`sparse_token_share` rebuilds the exact sparse responsibilities from them.
    """
    state = np.ascontiguousarray(doc_topic)
    bounds = even_bounds(state.shape[0], n_chunks)
    word_topic, entropy, pair_entropy, n_iters, n_accepted = chunk_accumulators(
        bounds, exp_loglik.shape[0], state.shape, pairs.shape[0])
    row_max = _row_max(exp_loglik)
    vocabulary = exp_loglik if int(start) != WARM else exp_loglik[:0]  # WARM never looks the table up
    table = prior_selection(vocabulary, row_max, centered_loglik, prior, np.int64(n_active))

    def run(c, first, last):
        sparse_topic_chunk(indptr, indices, counts, exp_loglik, row_max, centered_loglik, prior, float(prior_rest),
                           state, int(start), table, int(n_active), int(max_iter), float(tol), int(n_restarts), pairs,
                           first, last, word_topic[c], entropy[c], pair_entropy[c], n_iters, n_accepted, doc_weight)

    over_chunks(run, bounds)
    doc_topic[:] = state
    return sum_chunks(word_topic, entropy, pair_entropy) + (n_iters, n_accepted)


def _row_max(exp_loglik):
    """Each word's largest likelihood (V,): the bound of the selection's early stop."""
    return exp_loglik.max(axis=1) if exp_loglik.shape[1] else np.zeros(exp_loglik.shape[0])


def sparse_token_share(indptr, indices, exp_loglik, centered_loglik, doc_weight, column, n_active):
    """Each token's responsibility for topic ``column`` under the sparse step's final state,
    rebuilt from ``doc_weight`` (D, K) of :func:`sparse_topic_local_step` by the same selection (a
    birth's target share). Shape (nnz,)."""
    return token_share(indptr, indices, exp_loglik, _row_max(exp_loglik), centered_loglik, doc_weight,
                        np.int64(column), np.int64(n_active))


@njit(cache=True, nogil=True)
def token_share(indptr, indices, exp_loglik, row_max, centered_loglik, doc_weight, column, n_active):
    n_docs, n_topics = doc_weight.shape
    share = np.zeros(indices.size)
    longest = longest_row(indptr, np.int64(0), n_docs)
    state, local, word_max = _new_state(n_topics, longest, n_active), np.empty((n_topics, longest)), np.empty(longest)
    for d in range(n_docs):
        held = np.int64(0)
        for k in range(n_topics):
            if doc_weight[d, k] > 0.0:
                state.active[held] = k
                held += 1
                state.log_p[k] = math.log(doc_weight[d, k])
                state.p[k] = doc_weight[d, k]
        state.sizes[0] = held
        tokens = indices[indptr[d]:indptr[d + 1]]
        gather_topic_major(tokens, exp_loglik, row_max, local, word_max)
        part = _for_doc(state, tokens.size)
        part.index[:] = -1  # no previous topics to seed the selection
        _select(Doc(tokens, np.empty(0), local, word_max, centered_loglik, doc_weight[d]), part)
        for t in range(tokens.size):
            for j in range(n_active):
                if part.index[t, j] == column:
                    share[indptr[d] + t] = part.resp[t, j]
    return share
