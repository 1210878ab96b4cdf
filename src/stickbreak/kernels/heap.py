"""A binary min-heap over ``(weight, index)`` pairs whose root is the worst entry (smaller weight,
or equal weight and higher index): the top-``L`` selections of the L-sparse steps (Hughes 2016,
thesis §7.1-7.3) keep their best ``L`` in one, and :func:`sort_best_first` orders a list by it.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def worse(w_a, i_a, w_b, i_b):
    """Entry a ranks below entry b: smaller weight, or equal weight and higher index."""
    return w_a < w_b or (w_a == w_b and i_a > i_b)


@njit(cache=True, nogil=True)
def sift_down(heap_w, heap_i, size, pos):
    """Restore the min-heap (root = worst entry) of ``heap_*[:size]`` below ``pos``."""
    while True:
        left = 2 * pos + 1
        if left >= size:
            return
        child = left
        right = left + 1
        if right < size and worse(heap_w[right], heap_i[right], heap_w[left], heap_i[left]):
            child = right
        if worse(heap_w[child], heap_i[child], heap_w[pos], heap_i[pos]):
            heap_w[pos], heap_w[child] = heap_w[child], heap_w[pos]
            heap_i[pos], heap_i[child] = heap_i[child], heap_i[pos]
            pos = child
        else:
            return


@njit(cache=True, nogil=True)
def sort_best_first(heap_w, heap_i, n):
    """Heapsort ``heap_*[:n]`` in place, best first (weight descending, then index ascending): no
    ``np.argsort``, whose quicksort costs a second of compilation on a cold cache."""
    for pos in range(n // 2 - 1, -1, -1):
        sift_down(heap_w, heap_i, n, pos)
    for end in range(n - 1, 0, -1):
        heap_w[0], heap_w[end] = heap_w[end], heap_w[0]
        heap_i[0], heap_i[end] = heap_i[end], heap_i[0]
        sift_down(heap_w, heap_i, end, np.int64(0))
