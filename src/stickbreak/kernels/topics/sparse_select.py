"""Top-``L`` selection of the L-sparse topic step (Hughes 2016, thesis §7.3, Alg. 7.2 and 7.4):
choosing and re-weighting each word type's ``L`` topics. The per-document fixed point that calls
these is :mod:`stickbreak.kernels.topics.sparse`.

A selection is topic-major: each word type's previous topics enter its buffer first, which sets a
threshold (its ``L``-th product), and are hidden from the rest of the scan; then the active topics
are visited by weight ``p_k`` descending, each over the word types still live, and a word type
leaves once ``p_k max_k E[v_u, k]`` is below its threshold. Exact (the same top ``L`` as a full
sort), and a word type's scan ends after the few topics that can still enter it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..heap import sort_best_first



@njit(cache=True, nogil=True)
def _insert(value, k, n_held, size, best_value, best_index, offset):
    """Insert ``(value, k)`` into the buffer ``best_*[offset:offset + size]`` of the ``size`` best so
    far (``n_held`` held), ordered by value descending, then ``k`` ascending: a total order, so the
    result does not depend on the order the candidates come in (ties keep the lower topic)."""
    if n_held == size:
        position = size - 1
    else:
        position = n_held
        n_held += 1
    while position > 0 and (value > best_value[offset + position - 1]
                            or (value == best_value[offset + position - 1] and k < best_index[offset + position - 1])):
        best_value[offset + position] = best_value[offset + position - 1]
        best_index[offset + position] = best_index[offset + position - 1]
        position -= 1
    best_value[offset + position] = value
    best_index[offset + position] = k
    return n_held


@njit(cache=True, nogil=True)
def _admits(value, k, n_held, size, best_value, best_index, offset):
    """Whether ``(value, k)`` enters the buffer (see :func:`_insert`)."""
    if n_held < size:
        return True
    last = best_value[offset + size - 1]
    return value > last or (value == last and k < best_index[offset + size - 1])


@njit(cache=True, nogil=True)
def _finish(held, size, index, resp, offset):
    """Normalise the ``held`` selected weights of ``resp[offset:offset + size]``; mark the rest
    empty; returns ``log sum``."""
    total = 0.0
    for j in range(offset, offset + held):
        total += resp[j]
    for j in range(offset, offset + held):
        resp[j] /= total
    for j in range(offset + held, offset + size):
        index[j] = -1
        resp[j] = 0.0
    return math.log(total)


@njit(cache=True, nogil=True)
def top_l_of_row(log_row, log_p, active, n_active_topics, size, index, resp):
    """Top-``size`` responsibilities of one word type in the log domain: ``W_k = log_row[k] + log_p[k]``
    over ``active[:n_active_topics]`` (Alg. 7.2). Fills ``index`` and ``resp`` (-1 and 0 past the
    selected count) and returns ``log sum_selected exp W``."""
    held = np.int64(0)  # not a literal 0: numba would compile the callees for it too
    for j in range(n_active_topics):
        k = active[j]
        value = log_row[k] + log_p[k]
        if _admits(value, k, held, size, resp, index, np.int64(0)):
            held = _insert(value, k, held, size, resp, index, np.int64(0))
    top = resp[0]
    for j in range(held):
        resp[j] = math.exp(resp[j] - top)
    return top + _finish(held, size, index, resp, np.int64(0))


@njit(cache=True, nogil=True)
def order_by_weight(active, n_active_topics, p, order, order_p, position):
    """``order[:n]``: the active topics by ``p`` descending (ties: lower topic first), ``order_p``
    their weights and ``position[k]`` topic k's place there (-1: not active), for :func:`select_rows`."""
    position[:] = -1
    for j in range(n_active_topics):
        order[j] = active[j]
        order_p[j] = p[active[j]]
    sort_best_first(order_p, order, n_active_topics)
    for j in range(n_active_topics):
        position[order[j]] = j


@njit(cache=True, nogil=True)
def gather_topic_major(words, exp_loglik, row_max, local, word_max):
    """``local[k, u] = exp_loglik[words[u], k]``: a document's likelihood slice, topic-major, and
    ``word_max[u] = row_max[words[u]]`` (``row_max[v]``: word v's largest likelihood)."""
    n_topics = exp_loglik.shape[1]
    for u in range(words.size):
        row = exp_loglik[words[u]]
        for k in range(n_topics):
            local[k, u] = row[k]
        word_max[u] = row_max[words[u]]


@njit(cache=True, nogil=True)
def _seed(n_words, local, order_p, position, index, held, threshold, hidden, best_index, best_value):
    """Each word type's previous topics (``index[u]``, -1 for none) that are still active enter its
    buffer; ``threshold[u]`` is then its ``L``-th product (-1 while the buffer is not full). Their
    likelihoods in ``local`` are set to ``-inf`` (kept in ``hidden``, (U L)) so that the scan passes
    over them: :func:`_unhide` puts them back."""
    size = index.shape[1]
    for u in range(n_words):
        offset = u * size
        n_held = np.int64(0)  # not a literal 0: numba would compile the callees for it too
        for j in range(size):
            k = index[u, j]
            if k < 0:
                break
            if position[k] >= 0:
                hidden[offset + j] = local[k, u]
                n_held = _insert(local[k, u] * order_p[position[k]], k, n_held, size, best_value, best_index, offset)
                local[k, u] = -np.inf
        held[u] = n_held
        threshold[u] = best_value[offset + size - 1] if n_held == size else -1.0


@njit(cache=True, nogil=True)
def _unhide(n_words, local, position, index, hidden):
    """Undo :func:`_seed`'s hiding."""
    size = index.shape[1]
    for u in range(n_words):
        for j in range(size):
            k = index[u, j]
            if k < 0:
                break
            if position[k] >= 0:
                local[k, u] = hidden[u * size + j]


@njit(cache=True, nogil=True)
def _scan(local, word_max, order, order_p, n_topics, held, threshold, live, best_index, best_value):
    """Visit the active topics by weight (module docstring), each over the word types still live;
    fills their buffers. A word type leaves once its threshold exceeds the next topic's weight times
    its largest likelihood ``word_max[u]``: no later topic can enter its buffer (ties enter by index,
    so equality keeps it). ``live`` (U) is scratch."""
    size = best_index.size // max(held.size, 1)
    n_live = 0
    first_weight = order_p[0] if n_topics > 0 else 0.0
    for u in range(held.size):
        live[n_live] = u
        n_live += threshold[u] <= first_weight * word_max[u]
    for j in range(n_topics):
        if n_live == 0:
            break
        weight = order_p[j]
        next_weight = order_p[j + 1] if j + 1 < n_topics else 0.0
        k = order[j]
        row = local[k]
        n_kept = 0
        for i in range(n_live):
            u = live[i]
            value = row[u] * weight
            if value >= threshold[u]:
                offset = u * size
                if _admits(value, k, held[u], size, best_value, best_index, offset):
                    held[u] = _insert(value, k, held[u], size, best_value, best_index, offset)
                    if held[u] == size:
                        threshold[u] = best_value[offset + size - 1]
            live[n_kept] = u
            n_kept += threshold[u] <= next_weight * word_max[u]
        n_live = n_kept


@njit(cache=True, nogil=True)
def select_rows(words, local, word_max, active, order, order_p, n_topics, centered_loglik, log_p, index, resp, lik,
                 log_s, position, held, threshold, live, hidden, best_index, best_value):
    """Top-``L`` selection (Alg. 7.2) of every word type ``u < words.size`` by the products
    ``local[k, u] p_k`` over the active topics ``active[:n_topics]`` (ascending), also sorted by ``p``
    descending in ``order`` (``order_p`` their weights, ``position`` their places:
    :func:`order_by_weight`); ``local`` is the document's slice and ``word_max`` its word types' largest
    likelihoods (:func:`gather_topic_major`). No exps; logs for a word type whose products all
    underflow. Fills the rows ``u`` of ``index``, ``resp``, ``lik`` (the selected likelihoods) and
    ``log_s[u]``; ``held``, ``threshold``, ``live`` (U) and ``hidden``, ``best_index``, ``best_value``
    (U L) are scratch."""
    size = index.shape[1]
    n_words = words.size
    if n_topics <= size:  # every active topic is selected: nothing to rank
        for u in range(n_words):
            for j in range(n_topics):
                k = active[j]
                best_index[u * size + j] = k
                best_value[u * size + j] = local[k, u] * order_p[position[k]]
            held[u] = n_topics
    else:
        _seed(n_words, local, order_p, position, index, held, threshold, hidden, best_index, best_value)
        _scan(local, word_max, order, order_p, n_topics, held, threshold, live, best_index, best_value)
        _unhide(n_words, local, position, index, hidden)
    for u in range(n_words):
        offset = u * size
        n_held = held[u]
        largest = 0.0
        for j in range(n_held):
            largest = max(largest, best_value[offset + j])
        if n_held == 0:
            for j in range(offset, offset + size):
                best_index[j] = -1
                best_value[j] = 0.0
            log_s[u] = 0.0
        elif largest <= 0.0:  # every product underflowed: select again in the log domain (rare: views)
            log_row = centered_loglik[words[u]]
            log_s[u] = top_l_of_row(log_row, log_p, active, n_topics, size, best_index[offset:offset + size],
                                    best_value[offset:offset + size])
            for j in range(n_held):
                lik[u, j] = math.exp(log_row[best_index[offset + j]])
        else:
            for j in range(n_held):
                lik[u, j] = local[best_index[offset + j], u]
            log_s[u] = _finish(n_held, size, best_index, best_value, offset)
        for j in range(size):
            index[u, j] = best_index[offset + j]
            resp[u, j] = best_value[offset + j]


@njit(cache=True, nogil=True)
def reweight_rows(words, counts, p, centered_loglik, log_p, index, resp, lik, log_s, with_log, doc_topic):
    """Responsibilities of every word type over its current topics ``index[u]`` (Alg. 7.4 between
    selections) from the cached ``lik``: ``doc_topic[k] = sum_u c_u r_uk`` and, ``with_log``, ``resp``
    and ``log_s``. Only the last re-weighting of a fixed point needs those (they are read once the
    iterations end), so the others skip their stores and logs. No row views: numba
    reference-counts (atomically) every view, and one per word type would cost more than the
    re-weighting itself."""
    size = index.shape[1]
    doc_topic[:] = 0.0
    for u in range(words.size):
        held = size
        total = 0.0
        for j in range(size):
            k = index[u, j]
            if k < 0:
                held = j
                break
            total += lik[u, j] * p[k]
        if total <= 0.0:  # every product underflowed
            log_s[u] = _reweight_log(centered_loglik[words[u]], log_p, held, index[u], resp[u])
            for j in range(held):
                doc_topic[index[u, j]] += counts[u] * resp[u, j]
        elif with_log:
            log_s[u] = math.log(total)
            for j in range(held):
                resp[u, j] = lik[u, j] * p[index[u, j]] / total
                doc_topic[index[u, j]] += counts[u] * resp[u, j]
        else:
            scale = counts[u] / total
            for j in range(held):
                k = index[u, j]
                doc_topic[k] += lik[u, j] * p[k] * scale


@njit(cache=True, nogil=True)
def _reweight_log(log_row, log_p, held, index, resp):
    """:func:`reweight_rows` of one word type in the log domain; returns ``log s``."""
    top = -np.inf
    for j in range(held):
        top = max(top, log_row[index[j]] + log_p[index[j]])
    for j in range(held):
        resp[j] = math.exp(log_row[index[j]] + log_p[index[j]] - top)
    return top + _finish(held, index.size, index, resp, np.int64(0))
