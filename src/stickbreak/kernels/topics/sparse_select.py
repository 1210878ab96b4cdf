"""Top-``L`` selection of the L-sparse topic step (Hughes 2016, thesis §7.3, Alg. 7.2 and 7.4):
choosing and re-weighting each word type's ``L`` topics. The per-document fixed point that calls
these is :mod:`stickbreak.kernels.topics.sparse`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _insert(value, k, n_held, size, best_value, best_index):
    """Insert ``(value, k)`` into the buffer of the ``size`` best so far (``n_held`` held), ordered by
    value descending, then ``k`` ascending: a total order, so the result does not depend on the
    order the candidates come in (ties keep the lower topic)."""
    if n_held == size:
        position = size - 1
    else:
        position = n_held
        n_held += 1
    while position > 0 and (value > best_value[position - 1]
                            or (value == best_value[position - 1] and k < best_index[position - 1])):
        best_value[position] = best_value[position - 1]
        best_index[position] = best_index[position - 1]
        position -= 1
    best_value[position] = value
    best_index[position] = k
    return n_held


@njit(cache=True, nogil=True)
def _admits(value, k, n_held, size, best_value, best_index):
    """Whether ``(value, k)`` enters the buffer (see :func:`_insert`)."""
    if n_held < size:
        return True
    last = best_value[size - 1]
    return value > last or (value == last and k < best_index[size - 1])


@njit(cache=True, nogil=True)
def _finish(held, size, index, resp):
    """Normalise the ``held`` selected weights; mark the rest empty; returns ``log sum``."""
    total = 0.0
    for j in range(held):
        total += resp[j]
    for j in range(held):
        resp[j] /= total
    for j in range(held, size):
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
        if _admits(value, k, held, size, resp, index):
            held = _insert(value, k, held, size, resp, index)
    top = resp[0]
    for j in range(held):
        resp[j] = math.exp(resp[j] - top)
    return top + _finish(held, size, index, resp)


@njit(cache=True, nogil=True, inline="always")
def _rank(products, n_topics, size, index, u, position, seeded, seeds, best_index, best_value):
    """The ``size`` largest ``products[:n_topics]`` into ``best_index``/``best_value`` (columns, by value
    descending); word type ``u``'s previous topics ``index[u]`` (-1 for none; columns by ``position``)
    enter first, so nearly every other candidate is rejected by one comparison. Returns how many are
    held. Inlined: a call per word type would reference-count its array arguments."""
    n_seeds = 0
    for j in range(size):
        k = index[u, j]
        if k < 0:
            break
        column = position[k]
        if column >= 0:
            seeds[n_seeds] = column
            seeded[column] = True
            n_seeds += 1
    held = np.int64(0)  # not a literal 0: numba would compile the callees for it too
    for i in range(n_seeds):
        held = _insert(products[seeds[i]], seeds[i], held, size, best_value, best_index)
    for j in range(n_topics):
        if _admits(products[j], j, held, size, best_value, best_index) and not seeded[j]:
            held = _insert(products[j], j, held, size, best_value, best_index)
    for i in range(n_seeds):
        seeded[seeds[i]] = False
    return held


@njit(cache=True, nogil=True)
def _select_rows(words, local, topics, n_topics, p, centered_loglik, log_p, index, resp, lik, log_s, products,
                 position, seeded, seeds, best_index, best_value):
    """Top-``L`` selection (Alg. 7.2) of every word type ``u < words.size`` by the products
    ``local[u, j] p[topics[j]]`` over ``j < n_topics`` (no exps; logs for a word type whose products
    all underflow); fills the rows ``u`` of ``index``, ``resp``, ``lik`` (the selected ``local``
    values) and ``log_s[u]``.

    Each word type's previous topics (``index[u]``, -1 for none; mapped to columns by ``position``)
    enter first: the top set rarely changes, so nearly every other candidate is rejected by one
    comparison. ``seeded`` (all False), ``seeds`` and the row buffers ``best_index``, ``best_value``
    (L) are scratch. The loop over word types is in here and takes no row views (``index[u]``):
    numba reference-counts (atomically) every array argument of a call and every view, and a call
    or a view per word type cost several times the selection itself."""
    size = index.shape[1]
    weights = np.empty(n_topics)  # p over local's columns: the products below are then contiguous
    for j in range(n_topics):
        weights[j] = p[topics[j]]
    for u in range(words.size):
        for j in range(n_topics):
            products[j] = local[u, j] * weights[j]
        if n_topics <= size:  # every active topic is selected: nothing to rank
            held = n_topics
            largest = 0.0
            for j in range(n_topics):
                best_index[j] = j
                best_value[j] = products[j]
                largest = max(largest, products[j])
        else:
            held = _rank(products, n_topics, size, index, u, position, seeded, seeds, best_index, best_value)
            largest = best_value[0]
        if held == 0:
            best_index[:] = -1
            best_value[:] = 0.0
            log_s[u] = 0.0
        else:
            for j in range(held):
                lik[u, j] = local[u, best_index[j]]
                best_index[j] = topics[best_index[j]]
            if largest <= 0.0:  # every product underflowed: select again in the log domain
                log_row = centered_loglik[words[u]]
                log_s[u] = top_l_of_row(log_row, log_p, topics, n_topics, size, best_index, best_value)
                for j in range(held):
                    lik[u, j] = math.exp(log_row[best_index[j]])
            else:
                log_s[u] = _finish(held, size, best_index, best_value)
        for j in range(size):
            index[u, j] = best_index[j]
            resp[u, j] = best_value[j]


@njit(cache=True, nogil=True)
def _reweight_rows(words, p, centered_loglik, log_p, index, resp, lik, log_s, with_log):
    """Responsibilities of every word type over its current topics ``index[u]`` (Alg. 7.4 between
    selections) from the cached ``lik``; fills ``resp`` and, ``with_log``, ``log_s`` (no row views:
    see :func:`_select_rows`). ``log_s`` is read only once the iterations end, so intermediate
    re-weightings skip its logs and :func:`_iterate` redoes a final one with them (same values)."""
    size = index.shape[1]
    for u in range(words.size):
        held = size
        total = 0.0
        for j in range(size):
            k = index[u, j]
            if k < 0:
                held = j
                break
            resp[u, j] = lik[u, j] * p[k]
            total += resp[u, j]
        if total > 0.0:
            for j in range(held):
                resp[u, j] /= total
            if with_log:
                log_s[u] = math.log(total)
        else:  # every product underflowed
            log_s[u] = _reweight_log(centered_loglik[words[u]], log_p, held, index[u], resp[u])


@njit(cache=True, nogil=True)
def _reweight_log(log_row, log_p, held, index, resp):
    """:func:`_reweight_rows` of one word type in the log domain; returns ``log s``."""
    top = -np.inf
    for j in range(held):
        top = max(top, log_row[index[j]] + log_p[index[j]])
    for j in range(held):
        resp[j] = math.exp(log_row[index[j]] + log_p[index[j]] - top)
    return top + _finish(held, index.size, index, resp)
