"""The thread runner of the kernels' chunk loops (:mod:`stickbreak.kernels.chunked`)."""

import threading

import numba
import numpy as np
import pytest

from stickbreak.kernels.chunked import even_bounds, over_chunks


@pytest.mark.parametrize("n_items, n_chunks, expected", [(10, 3, [0, 3, 6, 10]), (2, 5, [0, 1, 2]), (0, 4, [0, 0]),
                                                         (7, 0, [0, 7])])
def test_even_bounds_cover_every_item_once_in_at_most_one_chunk_per_item(n_items, n_chunks, expected):
    assert even_bounds(n_items, n_chunks).tolist() == expected


def _record(bounds):
    seen, threads, lock = [], set(), threading.Lock()

    def run(c, first, last):
        with lock:
            seen.append((c, first, last))
            threads.add(threading.get_ident())

    over_chunks(run, bounds)
    return sorted(seen), threads


def test_every_chunk_runs_once_with_its_bounds():
    bounds = even_bounds(11, 5)
    seen, _ = _record(bounds)
    assert seen == [(c, bounds[c], bounds[c + 1]) for c in range(5)]


def test_a_budget_of_one_thread_runs_the_chunks_in_the_calling_thread():
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        _, threads = _record(even_bounds(8, 4))
    finally:
        numba.set_num_threads(old)
    assert threads == {threading.get_ident()}


def test_a_failing_chunk_raises_in_the_caller():
    def run(c, first, last):
        if c == 2:
            raise ValueError(f"chunk {c} failed")

    with pytest.raises(ValueError, match="chunk 2 failed"):
        over_chunks(run, np.array([0, 1, 2, 3, 4]))
