"""Memoized VI's batch caches, kept where the batches live (Hughes 2016, Alg. 3.3; thesis §8.1).

Each part of a batch (:mod:`stickbreak.parallel.parts`) keeps, on the worker (or thread) that
holds it, the statistics of its last visit and the warm start of its next one. A visit
(:func:`memo_step`, run on each part as a :class:`VisitJob` by the executor) replays on them the
moves accepted since (the move log, each record cut to the part: ``for_part``), runs the local
step from the warm start, caches the fresh statistics and sends back only their difference from
the cached ones: the driver adds the parts' differences to its whole-data statistics and holds
one set of them, whatever the number of batches.

Where workers can be lost, each part's cache is written through to the executor's spill directory
after every visit (:mod:`.memo_spill`), so a replaced worker reads it back. A saved state (a
checkpoint) fetches the caches to the driver (:func:`memo_caches`) and a resumed run installs
them at each batch's next visit.

A move's per-batch proposal can be held there too (a delete's refinement:
:class:`~stickbreak.moves.delete.DeleteRound`): the work answers
:class:`~stickbreak.moves.part_work.Held`, the part keeps the proposal's share by lap
(:func:`keep_held`, written through like the caches) and a held record fills it in where it is
replayed (:func:`read_held`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np

from ..core.local_parts import local_summary
from ..moves.part_work import KEPT_LOST, Held
from ..parallel import Executor, PartContext
from ..parallel.jobs import totalled
from ..parallel.parts import added, joined_rows, rows_of
from .memo_spill import read_spill, spill_files, write_spill


@dataclass(frozen=True, eq=False)
class MemoVisit:
    """Memoized VI's visit of batch ``batch``: ``records`` are the moves accepted since its last
    visit; ``cached``: its parts hold caches where they live; ``install``: a cache ``(stats, warm)``
    of the whole batch carried by a resumed state, to place (instead) before the records replay;
    ``keep_fresh``: send back the fresh statistics too (a delete's proposal starts from them);
    ``version``: increases from visit to visit of a batch (the lap), so that a retried visit finds
    the cache its first try replaced; ``work``: a :class:`~stickbreak.moves.part_work.LocalWork`
    to run on the parts' local parameters; ``follow_ups``: the parts keep those local parameters
    for follow-up work (:func:`part_work`) until the part's next visit, one set per part index, or
    with ``kept_per_batch`` one per batch and part (a lap-synchronous lap visits every batch in one
    call and follows up on any of them)."""

    batch: int
    version: int
    records: tuple = ()
    cached: bool = False
    install: Any = None
    keep_fresh: bool = False
    work: Any = None
    follow_ups: bool = False
    kept_per_batch: bool = False


@dataclass(frozen=True, eq=False)
class PartVisit:
    """A :class:`MemoVisit` as one part receives it: the records cut to the part, its share of an
    installed cache, where its worker writes the cache through (None: nowhere; set where the part
    lives) and the part's first item ``start`` in the batch."""

    records: tuple
    cached: bool
    install: Any
    keep_fresh: bool
    version: int = 0
    spill: str | None = None
    work: Any = None
    start: int = 0
    follow_ups: bool = False
    kept_per_batch: bool = False


def part_visit(visit: MemoVisit, index: int, start: int, stop: int) -> PartVisit:
    """Part ``index`` (items ``[start, stop)``) of ``visit``."""
    first = index == 0
    records = tuple(record.for_part(visit.batch, first, start, stop) for record in visit.records)
    install = None
    if visit.install is not None:
        stats, warm = visit.install
        install = (stats if first else stats.scaled(0.0),
                   None if warm is None else (warm[0], rows_of(warm[1], start, stop)))
    return PartVisit(records, visit.cached or install is not None, install, visit.keep_fresh, visit.version, None,
                     visit.work, start, follow_ups=visit.follow_ups, kept_per_batch=visit.kept_per_batch)


def visit_part(store: dict, slot: tuple, model, params, batch, visit: PartVisit, merge_pairs,
               keep_loglik: bool = False, features=None, n_features: int = 0) -> tuple:
    """One part's visit (``slot``: its key in ``store``): ``(delta, fresh or None, work's answer or
    None)`` with ``delta`` the fresh statistics minus the cached ones replayed,
    carrying the fresh merge terms (``features``, ``n_features``: as
    :func:`~stickbreak.core.local_parts.local_summary`'s).

    The cache is that of the part's last visit before this one (``visit.version``): the store's if
    older, else (a retried visit, or a replaced worker) the spill file's. With ``visit.follow_ups``
    the part's local parameters are kept in ``store`` (one set per part index) for follow-up work,
    else the part's kept ones are dropped."""
    cached = visit.install
    if cached is None and visit.cached:
        kept = store.get(slot)
        cached = kept[1] if kept is not None and kept[0] < visit.version else read_spill(visit.spill, slot,
                                                                                         before=visit.version)
    old, warm = None, None
    if cached is not None:
        old, warm = cached
        b = slot[1]
        for record in visit.records:
            record = record.with_held(lambda lap: read_held(store, slot, lap, visit.spill), b)
            old = record.replay(old, b)
            warm = None if warm is None else record.replay_warm(warm, b)
        warm = warm[1] if warm is not None and np.array_equal(warm[0], params.uids) else None
    working = visit.work is not None
    answer = local_summary(model, params, batch, warm, merge_pairs, keep_loglik, features=features,
                           n_features=n_features, keep_own_local=working or visit.follow_ups)
    fresh = answer[0]
    store[slot] = (visit.version, (fresh, None if answer[1] is None else (np.asarray(params.uids), answer[1])))
    if visit.spill is not None:
        write_spill(visit.spill, slot, visit.version, store[slot][1])
    # held proposals no record of this visit replays, and older than its lap, are replayed or rejected
    needed = {lap for record in visit.records for lap in record.held_laps(slot[1])}
    release_held(store, slot, lambda lap: lap >= visit.version or lap in needed, visit.spill)
    new = fresh.without_merge_terms()
    delta = new if old is None else new - old.without_merge_terms()
    delta = delta.with_merge_terms(fresh.merge_pairs, fresh.merge_entropy, fresh.merge_fields)
    kept = {}
    if visit.follow_ups:
        store[_kept_slot(slot, visit.kept_per_batch)] = (slot[1], visit.version, params, batch, answer[-1], kept)
    else:
        store.pop(_kept_slot(slot, visit.kept_per_batch), None)
    work = None
    if working:
        work = _held(store, slot, visit.spill, visit.work.on_part(model, params, batch, answer[-1], visit.start,
                                                                  features, n_features, kept))
    return delta, fresh if visit.keep_fresh else None, work


def _kept_slot(slot: tuple, per_batch: bool) -> tuple:
    """Where a part's local parameters are kept for follow-up work: one set per placement and part
    index, or ``per_batch``, one per placement, batch and part."""
    return ("kept-local", slot[0], slot[1], slot[2]) if per_batch else ("kept-local", slot[0], slot[2])


def part_work(store: dict, slot: tuple, model, params, part_data: Callable, visit: PartVisit, merge_pairs,
              keep_loglik: bool = False, features=None, n_features: int = 0):
    """``visit.work``'s answer on the local parameters that this visit of the part kept; if they are
    gone (a replaced worker), the visit is run again first, as a retried visit (the same cache,
    the same local parameters), or :data:`KEPT_LOST` is answered if ``params`` is None;
    ``part_data()`` gives the part's data, only read then."""
    kept = store.get(_kept_slot(slot, visit.kept_per_batch))
    if kept is None or kept[:2] != (slot[1], visit.version):
        if params is None:  # asked without the parameters, which the visit needs
            return KEPT_LOST
        visit_part(store, slot, model, params, part_data(), replace(visit, work=None, follow_ups=True),
                   merge_pairs, keep_loglik, features, n_features)
        kept = store[_kept_slot(slot, visit.kept_per_batch)]
    _, _, params, batch, local, state = kept
    return _held(store, slot, visit.spill, visit.work.on_part(model, params, batch, local, visit.start, features,
                                                              n_features, state))


def _held(store: dict, slot: tuple, spill: str | None, answer):
    """A work's answer, its :class:`Held` cache left here (:func:`keep_held`)."""
    if isinstance(answer, Held):
        keep_held(store, slot, answer.lap, answer.cache, spill)
        return answer.answer
    return answer


def _held_slot(slot: tuple) -> tuple:
    """Where a part's held proposals are kept (and spilled: a folder inside the placement's)."""
    return (f"{slot[0]}/held", slot[1], slot[2])


def keep_held(store: dict, slot: tuple, lap: int, cache, spill: str | None = None) -> None:
    """Keep a part's share of lap ``lap``'s proposal (written through to ``spill``)."""
    store.setdefault(_held_slot(slot), {})[lap] = cache
    if spill is not None:
        write_spill(spill, _held_slot(slot), lap, cache)


def release_held(store: dict, slot: tuple, keep: Callable[[int], bool], spill: str | None = None) -> None:
    """Drop the part's held proposals of the laps ``keep`` refuses, and their spill files (a
    part's visit releases those no record it replays names: replayed, or never accepted)."""
    held = store.get(_held_slot(slot), {})
    for lap in [lap for lap in held if not keep(lap)]:
        del held[lap]
    if spill is not None:
        for lap, path in spill_files(spill, _held_slot(slot)).items():
            if not keep(lap):
                path.unlink(missing_ok=True)


def read_held(store: dict, slot: tuple, lap: int, spill: str | None = None):
    """A part's share of lap ``lap``'s held proposal (from ``spill`` if this process lost it);
    :class:`CacheLost` if it is gone."""
    held = store.get(_held_slot(slot), {})
    if lap in held:
        return held[lap]
    return read_spill(spill, _held_slot(slot), exact=lap)


def fetch_part(store: dict, slot: tuple, spill: str | None = None, held: int | None = None):
    """A part's cache ``(stats, (uids, warm) or None)`` as it is now (not replayed), or with
    ``held`` its share of that lap's held proposal."""
    if held is not None:
        return read_held(store, slot, held, spill)
    kept = store.get(slot)
    return kept[1] if kept is not None else read_spill(spill, slot)


def joined_caches(parts: list):
    """A batch's cache from its parts' (statistics added in part order, warm starts stacked)."""
    stats = added(parts)
    warms = [p[1] for p in parts]
    if any(w is None for w in warms) or any(not np.array_equal(w[0], warms[0][0]) for w in warms):
        return stats, None
    return stats, (warms[0][0], joined_rows([w[1] for w in warms]))


@dataclass(frozen=True, eq=False)
class VisitJob:
    """A part's visit (:func:`visit_part`), run where the part lives."""

    visit: PartVisit
    merge_pairs: Any = None
    keep_loglik: bool = False
    reads_data = True

    def run(self, model, params, part: PartContext):
        return visit_part(part.state, part.slot, model, params, part.data(), replace(self.visit, spill=part.spill),
                          self.merge_pairs, self.keep_loglik, part.features, part.n_features)

    def on_features(self, model, features) -> "VisitJob":
        if self.visit.work is None:
            return self
        return replace(self, visit=replace(self.visit, work=self.visit.work.on_features(model, features)))


class FollowUpJob(VisitJob):
    """A follow-up of the part's latest visit (:func:`part_work`): its work on the local parameters
    that visit kept; the part's items are read only if the visit must run again."""

    def run(self, model, params, part: PartContext):
        return part_work(part.state, part.slot, model, params, part.data, replace(self.visit, spill=part.spill),
                         self.merge_pairs, self.keep_loglik, part.features, part.n_features)


@dataclass(frozen=True, eq=False)
class FetchJob:
    """A part's cache as it is now (:func:`fetch_part`), or with ``held`` its share of that lap's
    held proposal; reads no data."""

    held: int | None = None
    reads_data = False

    def run(self, model, params, part: PartContext):
        return fetch_part(part.state, part.slot, part.spill, self.held)

    def on_features(self, model, features) -> "FetchJob":
        return self


def memo_step(executor: Executor, model, params, batches, visit: MemoVisit, merge_pairs,
              keep_loglik: bool = False) -> tuple:
    """Memoized VI's visit of a batch where its parts and their caches live: ``(delta, fresh,
    work)``, the change of the batch's cached statistics (with the fresh merge terms), the fresh
    statistics if ``visit.keep_fresh`` (else None), and the answer of ``visit.work`` (else None):
    the local parameters themselves stay where the parts live."""
    answers = executor.on_parts(model, params, batches, [(visit.batch, lambda index, start, stop: VisitJob(
        part_visit(visit, index, start, stop), merge_pairs, keep_loglik))])[0]
    return joined_visits(list(answers.values()), visit.work)


def memo_steps(executor: Executor, model, params, batches, visits: Sequence[MemoVisit], merge_pairs,
               keep_loglik: bool = False) -> tuple:
    """Memoized VI's visits of many batches in one call, all under ``params`` (a lap-synchronous
    lap; none keeps its fresh statistics): ``(delta, [work's answer or None per visit])``, with
    ``delta`` the change of all their cached statistics, each worker's parts' added where they live
    (in ask order), then the workers' in order."""
    asks = [(visit.batch, lambda index, start, stop, visit=visit: VisitJob(part_visit(visit, index, start, stop),
                                                                          merge_pairs, keep_loglik))
            for visit in visits]
    answers = executor.on_parts(model, params, batches, asks, reduce=totalled)
    totals = [a[0] for parts in answers for a in parts.values() if a[0] is not None]
    works = [None if visit.work is None else visit.work.joined([parts[i][2] for i in sorted(parts)])
             for visit, parts in zip(visits, answers)]
    return sum(totals[1:], totals[0]), works


def _follow_ups(visit: MemoVisit, merge_pairs, keep_loglik: bool, only=None):
    """A follow-up of ``visit`` for each of its parts (or only those in ``only``)."""
    return visit.batch, lambda index, start, stop: (
        FollowUpJob(part_visit(visit, index, start, stop), merge_pairs, keep_loglik)
        if only is None or index in only else None)


def _travelling(visit: MemoVisit) -> MemoVisit:
    """What a follow-up sends first: what only running the visit again, or rebuilding what it
    kept, needs stays on the driver."""
    return replace(visit, records=(), install=None, work=visit.work.travelling())


def _lost(answers: dict) -> set:
    """The parts that answered :data:`~stickbreak.moves.part_work.KEPT_LOST`."""
    return {index for index, answer in answers.items() if isinstance(answer, bytes) and answer == KEPT_LOST}


def memo_work(executor: Executor, model, params, batches, visit: MemoVisit, merge_pairs,
              keep_loglik: bool = False) -> Any:
    """The answer of ``visit.work`` on the local parameters that ``visit`` (the batch's latest, with
    the same arguments and some work) kept where the parts live: a follow-up sent without the
    parameters; a part that lost them (:data:`~stickbreak.moves.part_work.KEPT_LOST`) is asked
    again with them, and runs the visit again."""
    answers = executor.on_parts(model, None, batches, [_follow_ups(_travelling(visit), merge_pairs, keep_loglik)])[0]
    lost = _lost(answers)
    if lost:
        answers.update(executor.on_parts(model, params, batches, [_follow_ups(visit, merge_pairs, keep_loglik,
                                                                               lost)])[0])
    return visit.work.joined(list(answers.values()))


def summed(answers: list) -> list:
    """A worker's follow-up answers that are statistics, added up (in order) in the first of them
    and None in the others; other answers (a part that lost its state) are left as they are."""
    kept = [i for i, a in enumerate(answers) if not isinstance(a, bytes)]
    if not kept:
        return answers
    total = sum((answers[i] for i in kept[1:]), answers[kept[0]])
    return [a if isinstance(a, bytes) else (total if i == kept[0] else None) for i, a in enumerate(answers)]


def memo_works(executor: Executor, model, params, batches, visits: Sequence[MemoVisit], merge_pairs,
               keep_loglik: bool = False):
    """The sum over ``visits`` (each its batch's latest, under ``params``, with a work whose answers
    are statistics: a delete's round) of their works' answers, in one call: each worker adds up
    its parts' answers before they travel. As :func:`memo_work`, the follow-ups go without the
    parameters, and a part that lost what its visit kept is asked again with them."""
    answers = executor.on_parts(model, None, batches,
                                [_follow_ups(_travelling(v), merge_pairs, keep_loglik) for v in visits], reduce=summed)
    asks = [_follow_ups(visit, merge_pairs, keep_loglik, lost) for visit, lost in
            ((visit, _lost(parts)) for visit, parts in zip(visits, answers)) if lost]
    if asks:
        answers = answers + executor.on_parts(model, params, batches, asks, reduce=summed)
    totals = [a for parts in answers for a in parts.values() if a is not None and not isinstance(a, bytes)]
    return sum(totals[1:], totals[0])


def memo_caches(executor: Executor, batches, which: Sequence[int], held: int | None = None) -> list:
    """The caches ``(stats, (uids, warm) or None)`` of batches ``which``, as they are now, or with
    ``held`` their proposals of that lap held where they live."""
    fetch = FetchJob(held)
    answers = executor.on_parts(None, None, batches, [(b, lambda index, start, stop: fetch) for b in which])
    return [joined_caches(list(parts.values())) for parts in answers]


def joined_visits(answers: Sequence, work=None) -> tuple:
    """One memoized visit's answer from its parts' (:func:`visit_part`): ``(delta, fresh or None,
    work's answer or None)``, the statistics added in part order, the answers of the visit's
    ``work`` joined by it."""
    delta = added(answers)
    fresh = None if answers[0][1] is None else sum((a[1] for a in answers[1:]), answers[0][1])
    return delta, fresh, None if work is None else work.joined([a[2] for a in answers])
