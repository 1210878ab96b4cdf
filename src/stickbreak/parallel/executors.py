"""Where the local step and summary of each batch run: one interface, three places to run.

Additive statistics make the local step "embarrassingly parallel" (Hughes 2016, §3.3 and §8.1):
the driver sends the global parameters, each worker runs the local step on the items it holds and
returns their statistics, and the driver adds them up. Every learner asks an :class:`Executor`
for the statistics of some batches (:meth:`Executor.local_summaries`) and never touches the
workers itself.

* :class:`LocalExecutor`: the driver's own process, on one thread or a pool of threads (numba
  kernels and BLAS release the GIL), over the driver's batches.
* :class:`~stickbreak.parallel.sharded.ShardedExecutor` over worker processes
  (:mod:`.processes`) or a Dask cluster (:mod:`.dask_backend`): each part of a batch is sent to
  (or, for a shard store, read by) its worker once and stays there.

Every executor with ``n`` workers splits a batch into the same ``n`` parts (:mod:`.parts`) and adds
their statistics in part order, so a fit is the same on every executor up to round-off.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol, Sequence

import numpy as np

from ..core.suffstats import SuffStats
from ..data.shards import ShardStore
from ..core.local_parts import local_summary
from .caches import MemoVisit, fetch_part, joined_caches, part_visit, part_work, visit_part
from .parts import Part, added, batch_size, filled_parts, joined, joined_visits, split


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

    def memo_step(self, model, params, batches: Sequence, visit: MemoVisit, merge_pairs,
                  keep_loglik: bool = False) -> tuple:
        """Memoized VI's visit of a batch where its parts and their caches live (:mod:`.caches`):
        ``(delta, fresh, work)``, the change of the batch's cached statistics (with the fresh merge
        terms), the fresh statistics if ``visit.keep_fresh`` (else None), and the answer of
        ``visit.work`` (else None): the local parameters themselves stay where the parts live."""

    def memo_work(self, model, params, batches: Sequence, visit: MemoVisit, merge_pairs,
                  keep_loglik: bool = False) -> Any:
        """The answer of ``visit.work`` on the local parameters that ``visit`` (the batch's latest,
        with the same arguments and some work) kept where the parts live: a follow-up that sends
        no local parameters anywhere."""

    def memo_caches(self, batches: Sequence, which: Sequence[int], held: int | None = None) -> list:
        """The caches ``(stats, (uids, warm) or None)`` of batches ``which``, as they are now, or
        with ``held`` their proposals of that lap held where they live (:class:`~.caches.Held`)."""

    def bytes_moved(self) -> int:
        """Bytes sent to and received from workers so far (0 for the driver's own process)."""

    def release(self) -> None:
        """Free the data placed on the workers (a fit's end); the workers stay up."""

    def close(self) -> None:
        """Stop the workers this executor started and free what it placed on the others."""


class LocalExecutor:
    """The driver's process on ``n_threads`` threads: each batch is split into one part per thread
    (:mod:`.parts`), as a worker process would hold it, so threads and processes do the same sums.
    One thread runs each batch whole. Parts of in-memory batches are cut once and kept; a shard
    store's are read at each visit (its batches stay on disk)."""

    def __init__(self, n_threads: int = 1):
        self.n_workers = int(n_threads)
        self._pool = (ThreadPoolExecutor(max_workers=self.n_workers, thread_name_prefix="stickbreak")
                      if self.n_workers > 1 else None)
        self._parts: dict[tuple[int, int], tuple[Any, dict[int, Any]]] = {}  # -> (batches, {part index: data})
        self._caches: dict = {}  # memoized VI's: (id(batches), batch, part) -> (stats, warm)

    def map(self, fn: Callable, items: Iterable) -> list:
        if self._pool is None:
            return [fn(item) for item in items]
        return list(self._pool.map(fn, items))

    def _part_data(self, batches, b: int, part: Part):
        if self.n_workers == 1:
            return batches[b]
        if isinstance(batches, ShardStore):
            return batches[b].subset(np.arange(part.start, part.stop))
        kept = self._parts.get((id(batches), b))
        if kept is None or kept[0] is not batches:
            kept = self._parts[(id(batches), b)] = (batches, {})
        if part.index not in kept[1]:
            kept[1][part.index] = batches[b].subset(np.arange(part.start, part.stop))
        return kept[1][part.index]

    def _answers(self, model, params, batches, requests, merge_pairs):
        """Each request's parts' answers, in part order."""
        jobs = []
        for i, request in enumerate(requests):
            if self.n_workers == 1:  # the whole batch, as it is
                jobs.append((i, request.batch, Part(0, 0, 0, request.rows, request.warm)))
                continue
            parts = split(batch_size(batches, request.batch), self.n_workers, request.rows, request.warm)
            jobs.extend((i, request.batch, part) for part in parts)

        def one(job):
            _, b, part = job
            batch = self._part_data(batches, b, part)
            if part.rows is not None:
                batch = batch.subset(part.rows)
            return local_summary(model, params, batch, part.warm, merge_pairs)

        answers: list[list] = [[] for _ in requests]
        for job, answer in zip(jobs, self.map(one, jobs)):
            answers[job[0]].append(answer)
        return answers

    def local_summaries(self, model, params, batches, requests, merge_pairs=None):
        return [joined(parts) for parts in self._answers(model, params, batches, requests, merge_pairs)]

    def total_summary(self, model, params, batches, requests):
        parts = self.local_summaries(model, params, batches, requests)
        return added(parts), tuple(p[1] for p in parts)

    def memo_step(self, model, params, batches, visit, merge_pairs, keep_loglik=False):
        answers = self._memo_parts(batches, visit, lambda slot, part_data, part: visit_part(
            self._caches, slot, model, params, part_data(), part, merge_pairs, keep_loglik))
        return joined_visits(answers, visit.work)

    def memo_work(self, model, params, batches, visit, merge_pairs, keep_loglik=False):
        answers = self._memo_parts(batches, visit, lambda slot, part_data, part: part_work(
            self._caches, slot, model, params, part_data, part, merge_pairs, keep_loglik))
        return visit.work.joined(answers)

    def _memo_parts(self, batches, visit: MemoVisit, run) -> list:
        """``run(slot, part_data, part's visit)`` on each part of the visited batch, in part order;
        ``part_data()`` reads the part's data (a follow-up reads it only if it must run the visit again)."""
        def one(job):
            index, start, stop = job

            def part_data():
                return self._part_data(batches, visit.batch, Part(index, start, stop, None, None))

            return run((id(batches), visit.batch, index), part_data, part_visit(visit, index, start, stop))

        return self.map(one, filled_parts(batch_size(batches, visit.batch), self.n_workers))

    def memo_caches(self, batches, which, held=None):
        return [joined_caches([fetch_part(self._caches, (id(batches), b, index), held=held)
                               for index, _, _ in filled_parts(batch_size(batches, b), self.n_workers)])
                for b in which]

    def bytes_moved(self) -> int:
        return 0

    def __deepcopy__(self, memo):  # sklearn's clone copies constructor parameters: share the pool instead
        return self

    def release(self) -> None:
        self._parts.clear()
        self._caches.clear()

    def close(self) -> None:
        self.release()
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
