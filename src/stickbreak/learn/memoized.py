"""Memoized variational inference with birth, merge and delete moves (Hughes 2016, Alg. 3.3 and §4, §6.4).

The data are split once into fixed batches. Each batch's statistics from its last visit are cached
where the batch lives (the executor's workers, :mod:`stickbreak.learn.memo_parts`); a visit computes
fresh ones there, replays on the cached ones every move accepted since (the move log), and sends
back their difference, which the driver adds to the whole-data statistics (the only statistics it
holds) before the global step. After the first lap the whole-data statistics cover every item, so
the ELBO is exact and (with warm-started local steps) never decreases, batch after batch and across
accepted moves (it is evaluated only when a move is judged against it or the lap ends: for topics
the O(K V) normalizers cost as much as a local step). With one batch and no moves this is batch VB.

Lap schedule (§6.4): plan merges (pairs) and a delete (a group of targets) from the whole-data
statistics at the start of the lap; try births at each batch; at the lap's end try the delete, then
merges, then reordering by size. Every move is accepted only if the exact whole-data ELBO rises.
Merges follow an accepted delete only when the delete's proposals carry the pairs' merged terms
(topic models); otherwise the pairs' cached terms are stale and merges wait for the next lap.

On an executor whose ``synchronous_laps`` is set (worker processes and Dask, by default), a lap
visits every batch in one call under the lap's parameters and takes one global step
(:mod:`.memo_sync`): batch VB's coordinate ascent on the caches, with the same moves.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core.protocols import Memoizable, Movable, require, total_elbo
from ..core.suffstats import SuffStats
from ..moves import delete, merge
from ..moves.planner import RETRY_LAPS, LapPlan, birth_shortlist
from ..moves.records import DeleteRecord, MergeRecord, PruneRecord, ReorderRecord
from ..parallel import LocalExecutor
from .base import LapResult, SavesWithinLaps
from .memo_births import births_at
from .memo_lap import (MONOTONE_TOLERANCE, LapContext, bound, counted, delete_refined, failed, recorded, set_at, sizes,
                       visit_of, wants_births, whole, with_delta)
from .memo_parts import memo_step
from .memo_sync import synchronous_lap
from .memo_state import MemoLap, MemoLapInProgress, MemoState, carried_log, fetched_caches, fetched_lap, new_state

#: Longest wait, in laps, between delete laps while single-target deletes keep failing (each
#: failure doubles it).
MAX_DELETE_WAIT = 4
#: Components at the end of the order with less expected mass than this (items) are dropped at a
#: lap's end: they hold nothing, so the ELBO does not change beyond round-off.
EMPTY_MASS = 1e-8


def _empty_counts(config) -> dict:
    return {kind: {"tried": 0, "accepted": 0} for kind in config.moves}


class MemoizedVI(SavesWithinLaps):
    """Memoized VI; ``moves`` is a :class:`~stickbreak.config.MovesConfig` (no moves by default).

    ``first_lap``: ``"streaming"`` runs the global step after every batch from the start;
    ``"full"`` keeps the initial global parameters for the whole first lap and steps once at its
    end, so that an informative initialisation is not overwritten by statistics of a few batches
    (the thesis's advice, bnpy's ``doFullPassBeforeMstep``); ``"auto"`` is full for more than one
    initial component and streaming from a single one (where births must grow K from lap 1).
    """

    name = "memoized"

    def __init__(self, moves, rng: np.random.Generator, first_lap: str = "auto"):
        if first_lap not in ("auto", "full", "streaming"):
            raise ValueError(f"first_lap={first_lap!r} is not valid; choose 'auto', 'full' or 'streaming'")
        self.moves = moves
        self.rng = rng
        self.first_lap = first_lap
        self._local = LocalExecutor()  # where the caches live when a lap is given no executor

    def defers_first_lap(self, params) -> bool:
        return self.first_lap == "full" or (self.first_lap == "auto" and params.n_components > 1)

    def start(self, model: Memoizable, batches, params) -> MemoState:
        """Memoized VI needs a :class:`~stickbreak.core.protocols.Memoizable` model, and with moves a
        :class:`~stickbreak.core.protocols.Movable` one."""
        require(model, Memoizable, "memoized VI")
        if self.moves.moves:
            require(model, Movable, f"memoized VI with moves {list(self.moves.moves)}")
        n = len(batches)
        return MemoState(params, None, (None,) * n, (0,) * n, next_uid=int(np.max(params.uids)) + 1)

    def lap(self, model: Memoizable, batches, state, executor=None, within=None) -> LapResult:
        """One lap (Alg. 3.3 with the moves of §6.4), or the rest of a :class:`MemoLapInProgress`;
        ``within`` (:class:`~.base.WithinLap`) is offered the lap in progress after every batch."""
        executor = executor or self._local
        ctx = LapContext(self.moves, self.rng, model, batches, executor)
        if isinstance(state, MemoLapInProgress):
            lap, order, position = state.lap, state.order, state.position
        else:
            synchronous = executor.synchronous_laps if state.synchronous is None else state.synchronous
            lap, order, position = self._begin(ctx, state, synchronous), self.rng.permutation(len(batches)), 0
        if lap.synchronous and position == 0:
            lap, position = synchronous_lap(ctx, lap, order), len(order)
            if within is not None:
                within.visited(position, len(order))
        for i in range(position, len(order)):
            lap = _visit(ctx, lap, int(order[i]))
            if within is not None:
                within.visited(i + 1, len(order))
            if within is not None and i + 1 < len(order) and within.due():
                within.save(MemoLapInProgress(order, i + 1, fetched_lap(lap, batches, executor)))
        lap = _finish(ctx, lap)
        state = new_state(lap)
        # with moves, settled only once failed targets have all had their retry: a target that failed in
        # the first quiet lap is blocked for RETRY_LAPS laps, retried from quiet lap RETRY_LAPS + 1 and,
        # tracked through every batch, judged by the end of the next
        settled = not self.moves.moves or state.quiet_laps >= RETRY_LAPS + 2
        return LapResult(state, lap.terms, exact=True, moves=lap.counts, settled=settled)

    def _begin(self, ctx: LapContext, state: MemoState, synchronous: bool) -> MemoLap:
        """The lap after ``state``, planned, before its first batch (``synchronous``: visiting
        every batch in one call, :mod:`.memo_sync`)."""
        n, number = len(ctx.batches), state.lap + 1
        deferred = number == 1 and self.defers_first_lap(state.params)
        history = state.history.copy()
        plan = _plan(ctx, state, number, deferred, history)
        return MemoLap(number, state.params, state.stats, state.elbo, {}, False, deferred, plan, tuple(state.memo),
                       tuple(state.warm) if state.warm else (None,) * n,
                       tuple(state.placed) if state.placed else (False,) * n, tuple(state.seen), tuple(state.log),
                       state.next_uid, history, tuple(state.accepted), tuple(state.births), 0,
                       _empty_counts(self.moves), state.delete_lap, state.delete_group, state.delete_wait,
                       state.quiet_laps, np.zeros(len(plan.merge_pairs)), {}, synchronous=synchronous)

    def saved_state(self, state: MemoState, batches, executor=None) -> MemoState:
        """``state`` with the batches' caches fetched from where they live (a checkpoint holds them;
        a run resumed from it installs each at the batch's next visit)."""
        if not any(state.placed):
            return state
        executor = executor or self._local
        log = carried_log(state.log, state.seen, state.placed, batches, executor)
        memo, warm = fetched_caches(state.memo, state.warm, state.placed, batches, executor)
        return replace(state, memo=memo, warm=warm, placed=(), log=log)


# ---------------------------------------------------------------------------------------------- planning
def _plan(ctx: LapContext, state: MemoState, lap: int, deferred: bool, history) -> LapPlan:
    """Births first (a shortlist of targets, left out of merges), then a delete, then merge pairs.

    A delete is planned only when no birth was accepted last lap and, with births on, at most
    every other lap; each failed single-target delete doubles the wait until the next delete
    lap (up to ``MAX_DELETE_WAIT`` laps), an accepted delete resets it. Births still being
    tracked do not hold deletes back (they would, forever, on data where births keep failing):
    their targets are not deleted and they go on being tracked; one that completes and is
    accepted in the delete's lap wins (the delete is dropped for the lap), and an accepted
    delete, which moves mass into every other component, restarts the created ones (their
    expansions are stale).
    """
    cfg, stats = ctx.cfg, state.stats
    pairs, targets = np.zeros((0, 2), dtype=np.int64), ()
    shortlist: frozenset | tuple = frozenset()
    births = cfg.enabled("birth") and lap >= cfg.birth_start_lap and not (lap == 1 and deferred)
    if stats is None:
        return LapPlan(pairs, (), births)
    in_flight = {p.target for p in state.births}
    if births:
        shortlist = birth_shortlist(stats, history, lap, cfg, in_flight)
    cadence = cfg.delete_every or (2 if cfg.enabled("birth") else 1)
    if (cfg.enabled("delete") and lap >= cfg.delete_start_lap and state.births_last_lap == 0
            and lap - state.delete_lap >= max(cadence, state.delete_wait)):
        targets = delete.choose_targets(stats, history, lap, cfg.delete_max_fraction,
                                        min(state.delete_group, cfg.delete_max_targets), exclude=in_flight)
        births = births and not targets  # one kind of move per component per lap
    if cfg.enabled("merge") and lap >= cfg.merge_start_lap:
        exclude = in_flight | set(shortlist) | set(targets)
        counts = sizes(stats)
        pairs = merge.plan_pairs(ctx.model, state.params, stats, cfg.merge_max_pairs, cfg.merge_pairs_per_component,
                                 exclude, skip=lambda p: history.merge_blocked(p, min(counts[p[0]], counts[p[1]]), lap))
    return LapPlan(pairs, targets, births)


# ---------------------------------------------------------------------------------------------- one batch
def _visit(ctx: LapContext, lap: MemoLap, b: int) -> MemoLap:
    """The lap after batch ``b``'s visit where it lives (its local step, the change of its cached
    statistics and the births' per-batch pieces: :func:`~.memo_parts.memo_step`) swapped in; a
    delete's proposal is then refined there, from the local parameters the visit kept
    (:func:`~stickbreak.moves.delete.refined`), and births advance (:mod:`.memo_births`)."""
    params_before = lap.params
    want_births = wants_births(ctx, lap)
    visit = visit_of(ctx, lap, b, params_before)
    lap = replace(lap, visited=lap.visited | {b})
    delta, fresh, answer = memo_step(ctx.executor, ctx.model, params_before, ctx.batches, visit,
                                     lap.plan.merge_pairs, keep_loglik=visit.work is not None)
    lap = _swapped_in(ctx, lap, b, delta)
    # once a birth has been accepted the components differ from the delete's plan and the delete waits
    if visit.keep_fresh:
        lap = delete_refined(ctx, lap, visit, fresh, params_before)
    if visit.work is not None:
        lap = births_at(ctx, lap, b, visit, answer, params_before, want_births)
    return lap


def _swapped_in(ctx: LapContext, lap: MemoLap, b: int, delta: SuffStats) -> MemoLap:
    """The change of the batch's cached statistics (fresh minus cached, moves replayed) added to
    the whole-data statistics, the pairs' merged terms gathered, and the global step taken."""
    lap = replace(with_delta(lap, delta), memo=set_at(lap.memo, b, None), warm=set_at(lap.warm, b, None),
                  placed=set_at(lap.placed, b, True), seen=set_at(lap.seen, b, len(lap.log)))
    if lap.deferred:
        return lap
    # the global step only; the ELBO (O(K) normalizers, e.g. K x V for topics) waits until a move
    # is judged against it (LapContext.current_elbo) or the lap ends
    return replace(lap, params=ctx.model.global_step(whole(lap), lap.params), stale=True)


# ---------------------------------------------------------------------------------------------- lap end
def _finish(ctx: LapContext, lap: MemoLap) -> MemoLap:
    """The lap's end: the ELBO of its last global step (the one global step of a full first lap),
    then the delete, the merges, reordering by size and the empty tail dropped."""
    lap = ctx.rescored(lap, whole(lap)) if lap.deferred else ctx.current_elbo(lap)
    lap, deleted = _after_delete(ctx, lap)
    merging = len(lap.plan.merge_pairs) > 0
    if merging and deleted:  # the pairs' terms gathered during the lap are stale
        with_terms = _pair_terms_from_delete(lap)
        merging = with_terms is not None
        lap = with_terms if with_terms is not None else lap
    if merging:
        lap = _merged(ctx, lap)
    if ctx.cfg.moves and ctx.cfg.reorder:
        lap = _reordered(ctx, lap)
    if ctx.cfg.moves:
        lap = _pruned(ctx, lap)
    return lap


def _after_delete(ctx: LapContext, lap: MemoLap) -> tuple[MemoLap, bool]:
    """The lap after its group delete, tried on the exact ELBO, and whether it was accepted; the
    next group doubles after a success. A birth accepted this lap goes first: the delete is
    planned again later."""
    targets = lap.plan.delete_targets
    if not targets or lap.births:
        return lap, False
    lap = counted(replace(lap, delete_lap=lap.number), "delete", tried=len(targets))
    accepted = ctx.if_better(lap, _delete_total(lap).without_merge_terms().clipped())
    if accepted is None:
        return _delete_failed(lap), False
    carried = accepted.delete_carried
    lap = recorded(accepted, DeleteRecord(lap.number, tuple(targets), {b: c[0] for b, c in carried.items()},
                                          {b: c[1] for b, c in carried.items()}, held=True))
    # created births' expansions predate the delete's transfer of mass: they restart (collected
    # items are only data and stay valid)
    return replace(counted(lap, "delete", accepted=len(targets)), delete_group=2 * len(targets), delete_wait=1,
                   active=tuple(p for p in lap.active if not p.created)), True


def _delete_failed(lap: MemoLap) -> MemoLap:
    """The lap after a refused delete: the next group halves, and a single target's failure
    doubles the wait (up to ``MAX_DELETE_WAIT`` laps) and enters the history."""
    targets = lap.plan.delete_targets
    lap = replace(lap, delete_group=max(1, len(targets) // 2))
    if len(targets) > 1:
        return lap
    lap = replace(lap, delete_wait=min(2 * lap.delete_wait, MAX_DELETE_WAIT))
    return failed(lap, "delete", targets[0], sizes(whole(lap)).get(targets[0], 0.0))


def _delete_total(lap: MemoLap) -> SuffStats:
    """The lap's delete proposals added up (every batch of a delete's lap refined one)."""
    if lap.delete_total is None:
        raise RuntimeError(f"memoized lap {lap.number} planned a delete that no batch refined")
    return lap.delete_total


def _pair_terms_from_delete(lap: MemoLap) -> MemoLap | None:
    """After an accepted delete the pairs' terms gathered during the lap are stale; the lap with
    them taken from the delete's proposals if they carry them (topic models), else None."""
    total = _delete_total(lap)
    if not np.array_equal(total.merge_pairs, lap.plan.merge_pairs):
        return None
    return replace(lap, pair_entropy=total.merge_entropy, pair_fields=dict(total.merge_fields))


def _merged(ctx: LapContext, lap: MemoLap) -> MemoLap:
    """The planned pairs tried greedily on the exact ELBO; a refused pair enters the history."""
    outcome = merge.try_merges(ctx.model, whole(lap), lap.params, lap.terms, lap.plan.merge_pairs, lap.pair_entropy,
                               lap.pair_fields)
    lap = counted(lap, "merge", tried=outcome.tried, accepted=len(outcome.accepted))
    accepted, counts = set(outcome.accepted), sizes(whole(lap))
    for pair in lap.plan.merge_pairs.tolist():
        if tuple(pair) not in accepted and pair[0] in counts and pair[1] in counts:
            lap = failed(lap, "merge", tuple(sorted(pair)), min(counts[pair[0]], counts[pair[1]]))
    for i, (kept, removed) in enumerate(outcome.accepted):
        lap = recorded(lap, MergeRecord(lap.number, kept, removed, tuple(k for k, _ in outcome.accepted[:i])))
    return ctx.rescored(lap, outcome.stats, outcome.params, outcome.terms) if outcome.accepted else lap


def _reordered(ctx: LapContext, lap: MemoLap) -> MemoLap:
    stats = whole(lap)
    order = stats.uids[np.argsort(-stats.counts, kind="stable")]
    if np.array_equal(order, stats.uids):
        return lap
    better = ctx.if_better(lap, stats.reorder(order))
    return lap if better is None else recorded(better, ReorderRecord(lap.number, tuple(int(u) for u in order)))


def _pruned(ctx: LapContext, lap: MemoLap) -> MemoLap:
    """The empty components at the end of the order dropped (deletes, which need a strict gain,
    leave them: removing nothing changes the ELBO by round-off only); K counts what is used."""
    stats, elbo = whole(lap), bound(lap)
    used = np.flatnonzero(stats.counts >= EMPTY_MASS)
    keep = used[-1] + 1 if len(used) else 0  # everything after the last used component is empty
    if keep in (0, stats.n_components):
        return lap
    removed = tuple(int(u) for u in stats.uids[keep:])
    candidate = stats.select(stats.uids[:keep])
    params, terms = ctx.model.score(candidate, lap.params)
    if not total_elbo(terms) >= elbo - MONOTONE_TOLERANCE * abs(elbo):
        return lap
    return recorded(ctx.rescored(lap, candidate, params, terms), PruneRecord(lap.number, removed))
