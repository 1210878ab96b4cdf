"""Word occurrences in boolean sliding windows (Röder, Both & Hinneburg 2015, §3.2, "P_sw"): the
probability estimate of the c_v coherence, counted exactly as gensim's ``WordOccurrenceAccumulator``
counts it, so that c_v matches gensim's ``CoherenceModel(coherence="c_v")``.

Each document (token ids: ``0 .. n_words - 1`` for the words that matter, ``n_words`` for any
other token, which still takes its place in a window) gives its windows of ``window_size``
consecutive tokens; a document no longer than the window is one window (an empty one counts as
a window holding nothing). The words present in a window are kept as a set updated as the window
slides: the token leaving is removed, then the token entering is added, as gensim does, so a word
that leaves while another of its occurrences stays inside counts as absent until it enters again.
For every window, each present word's count and each present pair's count rise by one.
NumPy twin: :mod:`._reference_windows`.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _add(word, n_words, members, where, size):
    if word < n_words and where[word] < 0:
        where[word] = size
        members[size] = word
        return size + 1
    return size


@njit(cache=True, nogil=True)
def _remove(word, n_words, members, where, size):
    if word < n_words and where[word] >= 0:
        at, last = where[word], members[size - 1]
        members[at], where[last] = last, at
        where[word] = -1
        return size - 1
    return size


@njit(cache=True, nogil=True)
def _count(members, size, occurrences, co_occurrences):
    for a in range(size):
        first = members[a]
        occurrences[first] += 1
        for b in range(a + 1, size):
            second = members[b]
            if first < second:
                co_occurrences[first, second] += 1
            else:
                co_occurrences[second, first] += 1


@njit(cache=True, nogil=True)
def window_occurrences(tokens, starts, n_words, window_size, occurrences, co_occurrences):
    """Add each word's window count to ``occurrences`` (n_words,) and each pair's to the upper
    triangle of ``co_occurrences`` (n_words, n_words); documents are ``tokens[starts[d]:starts[d + 1]]``.
    Returns the number of windows."""
    members = np.empty(n_words, np.int64)
    where = np.full(n_words, -1, np.int64)
    size, n_windows = 0, 0
    for d in range(len(starts) - 1):
        lo, hi = starts[d], starts[d + 1]
        for a in range(size):  # a new document starts from an empty set
            where[members[a]] = -1
        size = 0
        n_windows += 1
        if hi == lo:
            continue
        for t in range(lo, min(hi, lo + window_size)):
            size = _add(tokens[t], n_words, members, where, size)
        _count(members, size, occurrences, co_occurrences)
        for t in range(lo + window_size, hi):  # the window slides: tokens[t - window_size] leaves, tokens[t] enters
            size = _remove(tokens[t - window_size], n_words, members, where, size)
            size = _add(tokens[t], n_words, members, where, size)
            _count(members, size, occurrences, co_occurrences)
            n_windows += 1
    return n_windows
