"""Memoized VI's lap-synchronous lap: every batch visited in one call against the lap's global
parameters, then one global step, then the moves (the schedule of executors whose
:attr:`~stickbreak.parallel.Executor.synchronous_laps` is set: worker processes and Dask by default).

Memoized VI as Hughes (2016, Alg. 3.3) writes it takes a global step after every batch. On worker
processes or Dask each batch then costs a round trip: the global parameters out to every worker,
a barrier, each worker's statistics back to the driver. A synchronous lap visits all the batches in
one call instead (:func:`~.memo_parts.memo_steps`): each worker runs, on every part it holds, the
visit of Alg. 3.3 (the moves accepted since replayed on the part's cache, the local step from its
warm start) under the same parameters, and sends back one sum of its parts' changes of statistics.
The whole-data statistics then hold every batch's fresh statistics and one global step follows.

Which algorithm runs: batch VB's coordinate ascent on the memoized caches (each local step
maximises the ELBO given the lap's parameters, the global step given every batch's local
parameters), so the exact whole-data ELBO never decreases from lap to lap; the moves are those of
Alg. 3.3 and §4, each accepted only if that exact ELBO rises. A planned delete is refined against
the whole data (Eq. 4.25-4.27), each round one call over every batch where it lives, from the local
parameters the lap's visits kept there; births advance with each batch's answer and are evaluated
once every batch has answered (:func:`~.memo_births.births_synchronous`). The lap costs one
global step where Alg. 3.3 takes one per batch, so it may need more laps: the scaling benchmark
(``benchmarks/scaling.py``) measures both schedules.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core.suffstats import SuffStats
from ..moves import delete
from .memo_births import births_synchronous
from .memo_lap import LapContext, visit_of, wants_births, whole, with_delta
from .memo_parts import memo_steps, memo_works
from .memo_state import MemoLap


def synchronous_lap(ctx: LapContext, lap: MemoLap, order: np.ndarray) -> MemoLap:
    """``lap`` after every batch's visit in one call under the lap's parameters, its one global
    step (its exact ELBO), the planned delete's refinement at each batch and the births' work;
    the lap's end (:func:`~.memoized._finish`) follows as for a lap of Alg. 3.3."""
    params = lap.params
    want_births = wants_births(ctx, lap)
    # a delete is refined against the whole data below: no batch's fresh statistics need to travel
    visits = [replace(visit_of(ctx, lap, int(b), params, kept_per_batch=True), keep_fresh=False) for b in order]
    deleting = bool(lap.plan.delete_targets) and not lap.births
    delta, answers = memo_steps(ctx.executor, ctx.model, params, ctx.batches, visits, lap.plan.merge_pairs,
                                keep_loglik=visits[0].work is not None)
    lap = _all_swapped_in(lap, order, delta)
    lap = ctx.rescored(lap, whole(lap))  # the lap's one global step, and its exact ELBO
    if deleting:
        lap = _delete_refined(ctx, lap, visits, params)
    if visits[0].work is not None:
        lap = births_synchronous(ctx, lap, visits, answers, params, want_births)
    return lap


def _delete_refined(ctx: LapContext, lap: MemoLap, visits, params) -> MemoLap:
    """``lap`` with the planned delete's proposal (Hughes 2016, §4.3, Eq. 4.25-4.27) refined against
    the whole data: each round re-assigns every batch's items over the remaining components where
    the batch lives, from the local parameters the lap's visits kept there, all batches in one
    call, and the remaining components are re-estimated from the round's whole-data proposal; the
    last round leaves each part's share held where it lives. (Batch by batch, each batch's
    proposal is refined against the rest of the data: :func:`~.memo_lap.delete_refined`.)"""
    keep_loglik = visits[0].work is not None

    def run_round(work):
        return memo_works(ctx.executor, ctx.model, params, ctx.batches, [replace(v, work=work) for v in visits],
                          lap.plan.merge_pairs, keep_loglik)

    stats = whole(lap)  # every batch's part of it: the rest of the data is empty
    proposal = delete.refined(ctx.model, run_round, lap.number, lap.params, lap.plan.delete_targets, stats, stats,
                              ctx.cfg.delete_refine_steps, lap.plan.merge_pairs)
    return replace(lap, delete_total=proposal)


def _all_swapped_in(lap: MemoLap, order: np.ndarray, delta: SuffStats) -> MemoLap:
    """``lap`` with the change of every batch's cached statistics added to the whole-data
    statistics, the pairs' merged terms gathered, and every batch's cache kept where it lives."""
    n = len(lap.memo)
    return replace(with_delta(lap, delta), memo=(None,) * n, warm=(None,) * n, placed=(True,) * n,
                   seen=(len(lap.log),) * n, visited=frozenset(int(b) for b in order), deferred=False)
