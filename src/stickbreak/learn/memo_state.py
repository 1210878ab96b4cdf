"""Memoized VI's state between laps (:class:`MemoState`) and within one (:class:`MemoLapInProgress`,
what a checkpoint written in the middle of a long lap holds), and how the batches' caches, kept
where the batches live, are fetched into them (:func:`fetched_caches`, :func:`carried_log`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.suffstats import SuffStats
from ..moves.planner import MoveHistory
from ..moves.records import DeleteRecord
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


#: The working values of a lap in progress that a checkpoint within the lap keeps (:class:`MemoLapInProgress`).
LAP_VALUES = ("number", "params", "stats", "elbo", "memo", "seen", "log", "warm", "placed", "next_uid", "history",
              "accepted", "active", "delete_lap", "delete_group", "delete_wait", "quiet_laps", "counts", "births",
              "deferred", "stale", "terms", "plan", "pair_entropy", "pair_fields", "delete_total", "delete_carried",
              "visited")
_LISTS = ("memo", "seen", "log", "warm", "placed", "accepted", "active")


@dataclass(frozen=True, eq=False)
class MemoLapInProgress:
    """A memoized lap checkpointed after the first ``position`` batches of its ``order``: the lap's
    working values (:data:`LAP_VALUES`, the batches' caches fetched into ``memo`` and ``warm``)."""

    order: np.ndarray
    position: int
    values: dict


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
            proposals = {**record.proposals, **{b: p[0] for b, p in fetched.items()}}
            record = DeleteRecord(record.lap, record.targets, proposals,
                                  {**record.warm, **{b: p[1] for b, p in fetched.items()}}, held=True)
        out.append(record)
    return tuple(out)


def held_proposals(batches, executor, which, lap: int) -> dict:
    """Batch -> ``(stats, per-item warm start or None)`` of lap ``lap``'s proposals held where the
    batches ``which`` live."""
    fetched = memo_caches(executor, batches, which, held=lap) if which else ()
    return {b: (stats, None if start is None else start[1]) for b, (stats, start) in zip(which, fetched)}


def saved_values(working: dict, batches, executor) -> dict:
    """The :data:`LAP_VALUES` of a lap's ``working`` values, copied, with the caches and the
    proposals held where the batches live fetched."""
    values = {name: working[name] for name in LAP_VALUES}
    values.update({name: tuple(values[name]) for name in _LISTS}, visited=tuple(sorted(values["visited"])),
                  history=values["history"].copy(), counts={k: dict(v) for k, v in values["counts"].items()},
                  pair_fields=dict(values["pair_fields"]), delete_carried=dict(values["delete_carried"]))
    placed = values["placed"]
    values["log"] = carried_log(values["log"], values["seen"], placed, batches, executor)
    # this lap's delete proposals so far, unless a birth accepted this lap has dropped the delete
    # (the batches visited after it refined none)
    if values["delete_total"] is not None and not values["births"]:
        which = [b for b in values["visited"] if placed[b] and b not in values["delete_carried"]]
        values["delete_carried"].update(held_proposals(batches, executor, which, values["number"]))
    values["memo"], values["warm"] = fetched_caches(values["memo"], values["warm"], placed, batches, executor)
    values["placed"] = (False,) * len(batches)
    return values


def working_values(values: dict) -> dict:
    """A lap's working values from saved ones (:func:`saved_values`), ready to change."""
    working = {name: list(values[name]) if name in _LISTS else values[name] for name in LAP_VALUES}
    working.update(visited=set(values["visited"]), history=values["history"].copy(),
                   counts={k: dict(v) for k, v in values["counts"].items()}, pair_fields=dict(values["pair_fields"]))
    return working
