"""Where the work on each batch runs: one interface, three places to run.

Additive statistics make the local step "embarrassingly parallel" (Hughes 2016, §3.3 and §8.1):
the driver sends the global parameters, each worker runs the local step on the items it holds and
returns their statistics, and the driver adds them up. An :class:`Executor` is a map over placed
parts: it places each batch's parts on its workers once and runs there the jobs a caller names
(:mod:`.jobs`), knowing nothing of what they compute. Learners ask it for local steps
(:meth:`Executor.local_summaries`) and run their own jobs where the parts live
(:meth:`Executor.on_parts`: memoized VI's visits, a delete's refinement, a birth's pieces).

* :class:`~.threads.LocalExecutor`: the driver's own process, on one thread or a pool of threads.
* :class:`~.sharded.ShardedExecutor` over worker processes (:mod:`.processes`) or a Dask cluster
  (:mod:`.dask_backend`): each part of a batch is sent to (or, for a shard store, read by) its
  worker once and stays there.

Every executor with ``n`` workers splits a batch into the same ``n`` parts (:mod:`.parts`), or
keeps each batch whole on one worker when the fit's calls spread over batches
(:attr:`Executor.whole_batches`), and adds their statistics in part order, so a fit is the same
on every executor up to round-off (for memoized VI: with the same :attr:`Executor.synchronous_laps`).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

from ..core.suffstats import SuffStats
from .jobs import Request
from .sharded import Ask
from .threads import LocalExecutor


class Executor(Protocol):
    """What learners ask of an executor (implemented by :class:`~.sharded.ShardedExecutor`)."""

    #: How many workers run at once; every batch is split into this many parts, unless kept whole.
    n_workers: int
    #: Memoized VI visits every batch of a lap in one call, against the lap's global parameters
    #: (:mod:`stickbreak.learn.memo_sync`), instead of one batch after another with a global step
    #: after each (Hughes 2016, Alg. 3.3). True by default for worker processes and Dask, where a
    #: call per batch costs sending the parameters and receiving the statistics per batch. A fit
    #: takes it from the executor of its first lap and keeps it when resumed elsewhere.
    synchronous_laps: bool
    #: Each batch is one part, on worker ``b mod n_workers`` (given at least as many batches as
    #: workers): True, False (every batch split over the workers), or None, decided by each fit's
    #: first call: whole if it visits at least as many batches as workers. A part's statistics span
    #: every feature however few items it holds, so splitting every batch over every worker
    #: multiplies that cost by the workers (``benchmarks/cost_model.py``).
    whole_batches: bool | None

    def parts(self, batches: Sequence, b: int) -> list[tuple[int, int]]:
        """Batch ``b``'s parts' item ranges ``[start, stop)``, by part index."""

    def on_parts(self, model, params, batches: Sequence, asks: Sequence[Ask],
                 reduce: Callable | None = None) -> list[dict]:
        """Each ask ``(batch, job_for)``'s answers ``{part index: answer}``: ``job_for(index,
        start, stop)`` names the :class:`~.jobs.PartJob` run on that part where it lives."""

    def local_summaries(self, model, params, batches: Sequence, requests: Sequence[Request],
                        merge_pairs=None) -> list[tuple[SuffStats, Any]]:
        """For each request, ``(model.summarize(batch, local, params.uids), model.warm_start(local))``
        with ``local = model.local_step(params, batch, warm=request.warm)``."""

    def total_summary(self, model, params, batches: Sequence, requests: Sequence[Request]) -> tuple[SuffStats, tuple]:
        """The requests' statistics added up, and each request's warm start (batch VB, exact passes)."""

    def bytes_moved(self) -> int:
        """Bytes sent to and received from workers so far (0 for the driver's own process)."""

    def release(self) -> None:
        """Free the data placed on the workers (a fit's end); the workers stay up."""

    def close(self) -> None:
        """Stop the workers this executor started and free what it placed on the others."""


def summarize_batches(model, params, batches: Sequence, executor: Executor | None = None, warm=None):
    """Whole-data statistics ``sum_b summarize(b, local_step(params, b))`` (added in batch order)
    and each batch's warm start for the next lap (``model.warm_start``; ``None`` where none).

    ``warm`` holds the previous lap's warm starts, one per batch, or is ``None``.
    """
    executor = executor or LocalExecutor()
    warm = warm if warm is not None else (None,) * len(batches)
    return executor.total_summary(model, params, batches, [Request(b, None, w) for b, w in enumerate(warm)])
