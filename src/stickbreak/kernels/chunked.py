"""Run a kernel over contiguous chunks of items on threads: the parallel loop of every kernel family.

Each family's per-chunk kernel is ``@njit(nogil=True)`` and writes only its chunk's rows and its
own slice of the accumulators, so Python threads run the chunks truly in parallel and the results
do not depend on the thread count or on scheduling (the accumulators are summed in chunk order by
the caller). Threads from Python rather than numba's ``prange`` keep first use fast: a ``prange``
loop compiles a parallel region and its threading layer, seconds per kernel on a cold cache
(issue 26, ``benchmarks/results/cold_start.md``); a chunk loop compiles like any serial kernel.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def n_chunks_for(n_items: int, n_chunks: int) -> int:
    """The chunks actually used: at least 1, at most one per item."""
    return max(1, min(int(n_chunks), int(n_items)))


def even_bounds(n_items: int, n_chunks: int) -> np.ndarray:
    """(C+1,) int64 bounds of ``C = n_chunks_for(n_items, n_chunks)`` contiguous chunks of nearly equal size:
    chunk ``c`` is ``c * n // C`` to ``(c + 1) * n // C``."""
    count = n_chunks_for(n_items, n_chunks)
    return np.arange(count + 1, dtype=np.int64) * int(n_items) // count


def thread_budget() -> int:
    """The threads this thread may use: numba's ``get_num_threads()``, which the estimators set from
    ``n_jobs`` and worker processes set to 1 (by default ``NUMBA_NUM_THREADS``, every core). Also the
    chunk count of kernels whose results do not depend on it."""
    return numba.get_num_threads()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=numba.config.NUMBA_NUM_THREADS,  # type: ignore[attr-defined]
                                       thread_name_prefix="stickbreak")
        return _POOL


def over_chunks(run_chunk: Callable[[int, int, int], None], bounds: np.ndarray) -> None:
    """Call ``run_chunk(c, first, last)`` for every chunk ``c`` of ``bounds`` (C+1,), on at most
    :func:`thread_budget` threads at once (in this thread when that is 1 or there is one chunk);
    re-raises the first exception of a chunk."""
    n_chunks = len(bounds) - 1
    n_threads = min(n_chunks, thread_budget())
    if n_threads <= 1:
        for c in range(n_chunks):
            run_chunk(c, int(bounds[c]), int(bounds[c + 1]))
        return
    todo, lock = iter(range(n_chunks)), threading.Lock()

    def take_chunks():
        while True:
            with lock:
                c = next(todo, None)
            if c is None:
                return
            run_chunk(c, int(bounds[c]), int(bounds[c + 1]))

    for future in [_pool().submit(take_chunks) for _ in range(n_threads)]:
        future.result()
