"""Where the local step and summary of each batch run: one interface, four executors.

Additive statistics make the local step "embarrassingly parallel" (Hughes 2016, §3.3 and §8.1):
the driver sends the global parameters, each worker runs the local step on the items it holds and
returns their statistics, and the driver adds them up. Every learner asks an :class:`Executor`
for the statistics of some batches (:meth:`Executor.local_summaries`) and never touches the
workers itself.

* :class:`LocalExecutor`: the driver's own process, on one thread or a pool of threads (the numba
  kernels release the GIL), over the driver's batches.
* :class:`~stickbreak.parallel.sharded.ShardedExecutor` over worker processes
  (:mod:`.processes`) or a Dask cluster (:mod:`.dask_backend`): every batch is split into one
  part per worker, each part is sent to (or, for a shard store, read by) its worker once and stays
  there, and a batch's statistics are the sum of its parts' in part order, so a fit is the same on
  every executor up to round-off.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol, Sequence

import numpy as np

from ..core.suffstats import SuffStats


@dataclass(frozen=True, eq=False)
class Request:
    """The statistics of batch ``batch`` (or of its items ``rows``), its local step started from ``warm``."""

    batch: int
    rows: np.ndarray | None = None
    warm: Any = None


class Executor(Protocol):
    """What learners ask of an executor."""

    #: How many workers run local steps at once.
    n_workers: int

    def local_summaries(self, model, params, batches: Sequence, requests: Sequence[Request],
                        merge_pairs=None) -> list[tuple[SuffStats, Any]]:
        """For each request, ``(model.summarize(batch, local, params.uids), model.warm_start(local))``
        with ``local = model.local_step(params, batch, warm=request.warm)``; ``merge_pairs``
        (memoized VI) asks for the planned pairs' merged terms too."""

    def total_summary(self, model, params, batches: Sequence, requests: Sequence[Request]) -> tuple[SuffStats, tuple]:
        """The requests' statistics added up, and each request's warm start (batch VB, exact passes);
        workers may add up their own parts first, so only the round-off differs from the serial sum."""

    def local_step(self, model, params, batches: Sequence, request: Request, merge_pairs,
                   keep_loglik: bool = False) -> tuple[SuffStats, Any, Any]:
        """As :meth:`local_summaries` for one request of a :class:`~stickbreak.core.protocols.Movable`
        model, with the batch's local parameters too (what births and deletes start from):
        ``(stats, warm start, local)``."""

    def bytes_moved(self) -> int:
        """Bytes sent to and received from workers so far (0 for the driver's own process)."""

    def release(self) -> None:
        """Free the data placed on the workers (a fit's end); the workers stay up."""

    def close(self) -> None:
        """Stop the workers this executor started and free what it placed on the others."""


def local_summary(model, params, batch, warm=None, merge_pairs=None, keep_loglik: bool = False,
                  keep_local: bool = False) -> tuple:
    """One local step and summary, what every executor runs for a batch or a part of one:
    ``(stats, warm start)``, and the local parameters with ``keep_local``. ``merge_pairs`` and
    ``keep_loglik`` are memoized VI's (:class:`~stickbreak.core.protocols.Memoizable`)."""
    if merge_pairs is None:
        local = model.local_step(params, batch, warm=warm)
        stats = model.summarize(batch, local, params.uids)
    else:
        local = model.local_step(params, batch, warm=warm, keep_loglik=keep_loglik, merge_pairs=merge_pairs)
        stats = model.summarize(batch, local, params.uids, merge_pairs=merge_pairs)
    return (stats, model.warm_start(local), local) if keep_local else (stats, model.warm_start(local))


class LocalExecutor:
    """The driver's process: ``n_threads`` threads (1: no pool, the calling thread)."""

    def __init__(self, n_threads: int = 1):
        self.n_workers = int(n_threads)
        self._pool = (ThreadPoolExecutor(max_workers=self.n_workers, thread_name_prefix="stickbreak")
                      if self.n_workers > 1 else None)

    def map(self, fn: Callable, items: Iterable) -> list:
        if self._pool is None:
            return [fn(item) for item in items]
        return list(self._pool.map(fn, items))

    def local_summaries(self, model, params, batches, requests, merge_pairs=None):
        def one(request: Request):
            batch = batches[request.batch]
            if request.rows is not None:
                batch = batch.subset(request.rows)
            return local_summary(model, params, batch, request.warm, merge_pairs)

        return self.map(one, requests)

    def total_summary(self, model, params, batches, requests):
        parts = self.local_summaries(model, params, batches, requests)
        return sum((p[0] for p in parts[1:]), parts[0][0]), tuple(p[1] for p in parts)

    def local_step(self, model, params, batches, request, merge_pairs, keep_loglik=False):
        return local_summary(model, params, batches[request.batch], request.warm, merge_pairs, keep_loglik, True)

    def bytes_moved(self) -> int:
        return 0

    def __deepcopy__(self, memo):  # sklearn's clone copies constructor parameters: share the pool instead
        return self

    def release(self) -> None:
        pass

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def summarize_batches(model, params, batches: Sequence, executor: Executor | None = None, warm=None):
    """Whole-data statistics ``sum_b summarize(b, local_step(params, b))`` (added in batch order)
    and each batch's warm start for the next lap (``model.warm_start``; ``None`` where none).

    ``warm`` holds the previous lap's warm starts, one per batch, or is ``None``.
    """
    executor = executor or LocalExecutor()
    warm = warm if warm is not None else (None,) * len(batches)
    return executor.total_summary(model, params, batches, [Request(b, None, w) for b, w in enumerate(warm)])
