"""Memoized VI's state between laps (:class:`MemoState`) and within one (:class:`MemoLap`, the value
each visit of a batch advances; :class:`MemoLapInProgress`, what a checkpoint written in the middle
of a long lap holds), and how the batches' caches, kept where the batches live, are fetched into
them (:func:`fetched_caches`, :func:`carried_log`, :func:`fetched_lap`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..core.suffstats import SuffStats
from ..moves.planner import LapPlan, MoveHistory
from ..moves.records import DeleteRecord, per_batch
from .memo_parts import memo_caches


@dataclass(frozen=True, eq=False)
class MemoState:
    params: Any
    stats: SuffStats | None               # whole data: the sum of the cached batch statistics
    memo: tuple                           # per batch, a saved state's cache (installed at its next visit), or None
    seen: tuple                           # length of the move log when each batch was cached
    log: tuple = ()                       # accepted moves, in order
    lap: int = 0
    next_uid: int = 0
    history: MoveHistory = field(default_factory=MoveHistory)
    births_last_lap: int = 0
    elbo: float | None = None
    accepted: tuple = ()                  # every accepted move, described (kept for the user; log is trimmed)
    births: tuple = ()                    # birth proposals still being tracked through the batches
    delete_lap: int = -1                  # the last lap that tried a delete
    quiet_laps: int = 0                   # consecutive laps without an accepted move
    warm: tuple = ()                      # per batch: with memo, the carried cache's (uids, warm start), or None
    delete_group: int = 1                 # how many components the next delete targets together
    delete_wait: int = 1                  # laps from one delete lap to the next (doubles while they fail)
    placed: tuple = ()                    # per batch: its cache is kept where it lives (the executor's)
    synchronous: bool | None = None       # laps visit every batch in one call (memo_sync); None: the first
                                          # lap's executor decides, and the fit keeps it wherever it resumes


@dataclass(frozen=True, eq=False)
class MemoLap:
    """Memoized VI's lap ``number`` in progress: each visit of a batch, and each step at the lap's
    end, gives a new value (:mod:`stickbreak.learn.memoized`); :func:`new_state` makes the state
    after the lap from the last. Beside :class:`MemoState`'s fields: the lap's ``plan`` and move
    ``counts``, ``births`` accepted so far, whether the one global step waits for the lap's end
    (``deferred``) and whether the ELBO and ``terms`` lag the global parameters (``stale``), the
    planned pairs' merged terms gathered so far (``pair_entropy``, ``pair_fields``), the delete's
    proposals added up (``delete_total``; each held where its batch lives, or fetched into
    ``delete_carried`` by a checkpoint), the batches ``visited`` and whether the fit's laps are
    ``synchronous``."""

    number: int
    params: Any
    stats: SuffStats | None
    elbo: float | None
    terms: dict
    stale: bool
    deferred: bool
    plan: LapPlan
    memo: tuple
    warm: tuple
    placed: tuple
    seen: tuple
    log: tuple
    next_uid: int
    history: MoveHistory  # never changed in place: a lap that records a failure holds a copy
    accepted: tuple
    active: tuple
    births: int
    counts: dict
    delete_lap: int
    delete_group: int
    delete_wait: int
    quiet_laps: int
    pair_entropy: np.ndarray
    pair_fields: dict
    delete_total: SuffStats | None = None
    delete_carried: dict = field(default_factory=dict)
    visited: frozenset = frozenset()
    synchronous: bool = False


@dataclass(frozen=True, eq=False)
class MemoLapInProgress:
    """A memoized lap checkpointed after the first ``position`` batches of its ``order``: the lap
    so far, the batches' caches fetched into its ``memo`` and ``warm`` (:func:`fetched_lap`)."""

    order: np.ndarray
    position: int
    lap: MemoLap


def new_state(lap: MemoLap) -> MemoState:
    """The state after a complete lap; the records every batch has already replayed are dropped
    (a delete's proposals are held until then)."""
    done = min(lap.seen)
    quiet = not any(c["accepted"] for c in lap.counts.values())
    return MemoState(lap.params, lap.stats, lap.memo, tuple(s - done for s in lap.seen), lap.log[done:], lap.number,
                     lap.next_uid, lap.history, lap.births, lap.elbo, lap.accepted, lap.active, lap.delete_lap,
                     lap.quiet_laps + 1 if quiet else 0, lap.warm, lap.delete_group, lap.delete_wait, lap.placed,
                     lap.synchronous)


def fetched_caches(memo, warm, placed, batches, executor) -> tuple[tuple, tuple]:
    """``memo`` and ``warm`` with the caches of the ``placed`` batches fetched from ``executor``."""
    memo, warm = list(memo), list(warm or (None,) * len(batches))
    which = [b for b, p in enumerate(placed) if p]
    for b, (stats, start) in zip(which, memo_caches(executor, batches, which) if which else ()):
        memo[b], warm[b] = stats, start
    return tuple(memo), tuple(warm)


def carried_log(log, seen, placed, batches, executor) -> tuple:
    """The move log with the proposals of its held deletes (:class:`~stickbreak.moves.records.DeleteRecord`)
    fetched from where they live, for the ``placed`` batches that have yet to replay them."""
    out = []
    for i, record in enumerate(log):
        if isinstance(record, DeleteRecord) and record.held:
            which = [b for b in range(len(batches)) if placed[b] and seen[b] <= i and not record.carries(b)]
            fetched = held_proposals(batches, executor, which, record.lap)
            proposals = {**per_batch(record.proposals), **{b: p[0] for b, p in fetched.items()}}
            record = DeleteRecord(record.lap, record.targets, proposals,
                                  {**per_batch(record.warm), **{b: p[1] for b, p in fetched.items()}}, held=True)
        out.append(record)
    return tuple(out)


def held_proposals(batches, executor, which, lap: int) -> dict:
    """Batch -> ``(stats, per-item warm start or None)`` of lap ``lap``'s proposals held where the
    batches ``which`` live."""
    fetched = memo_caches(executor, batches, which, held=lap) if which else ()
    return {b: (stats, None if start is None else start[1]) for b, (stats, start) in zip(which, fetched)}


def fetched_lap(lap: MemoLap, batches, executor) -> MemoLap:
    """``lap`` with the caches and the proposals held where the batches live fetched into it (a
    checkpoint within the lap)."""
    placed = lap.placed
    carried = dict(lap.delete_carried)
    # this lap's delete proposals so far, unless a birth accepted this lap has dropped the delete
    # (the batches visited after it refined none)
    if lap.delete_total is not None and not lap.births:
        which = [b for b in sorted(lap.visited) if placed[b] and b not in carried]
        carried.update(held_proposals(batches, executor, which, lap.number))
    memo, warm = fetched_caches(lap.memo, lap.warm, placed, batches, executor)
    return replace(lap, log=carried_log(lap.log, lap.seen, placed, batches, executor), delete_carried=carried,
                   memo=memo, warm=warm, placed=(False,) * len(batches))
