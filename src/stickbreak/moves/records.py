"""The move log: accepted moves as records, replayed on cached batch statistics (bnpy's MoveLog).

A batch's cached statistics were computed over the components that existed when it was last
visited. Before they are subtracted from the whole-data statistics, every move accepted since is
replayed on them, so that both refer to the same components (identified by stable uids). They
live where the batch lives, in parts (:mod:`stickbreak.learn.memo_parts`): a record's ``for_part``
is what the part's worker replays, the batch's replacement statistics (a delete's proposal, a
birth's expansion) in its first part and zeros in the others, so that the parts still add up to
the batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..core.suffstats import SuffStats
from ..parallel.parts import rows_of


def _first_only(stats: SuffStats, first: bool) -> SuffStats:
    """A batch's replacement statistics as one part's share: all of it in the first part, zeros in
    the others (statistics are additive, so the parts' caches still add up to the batch's)."""
    return stats if first else stats.scaled(0.0)


class Record:
    """What every record does: ``replay`` on a batch's cached statistics and ``replay_warm`` on its
    warm start; ``for_part``: what one part of the batch replays, where it lives; ``with_held``:
    that, with what the part holds of the record filled in (only a held delete has any)."""

    def with_held(self, held: Callable, batch: int) -> "Record":
        return self

    def held_laps(self, batch: int) -> tuple:
        """The laps whose proposals held by ``batch``'s parts this record replays."""
        return ()


@dataclass(frozen=True, eq=False)
class BirthRecord(Record):
    """Newborn components appended; each batch's target mass re-split over target and newborns.

    ``expansions`` maps a batch to the statistics of [target, newborns] there; a batch without one
    gets zero-padded newborns (Eq. 4.21). ``full_width``: each batch's expansion holds all the
    components (HMMs) and replaces the batch's statistics.
    """

    lap: int
    target: int
    new_uids: tuple[int, ...]
    expansions: dict
    full_width: bool = False

    def replay(self, stats: SuffStats, batch: int) -> SuffStats:
        if self.full_width:
            return self.expansions[batch]
        if batch in self.expansions:
            return stats.with_components(self.expansions[batch])
        return stats.insert_empty(list(self.new_uids))

    def replay_warm(self, warm, batch: int):
        return None  # the re-split of per-item counts is not kept: the next visit starts from scratch

    def for_part(self, batch: int, first: bool, start: int, stop: int) -> "BirthRecord":
        """The record as replayed on one part (items ``[start, stop)``) of ``batch``, where it lives."""
        expansions = {batch: _first_only(self.expansions[batch], first)} if batch in self.expansions else {}
        return BirthRecord(self.lap, self.target, self.new_uids, expansions, self.full_width)


@dataclass(frozen=True, eq=False)
class MergeRecord(Record):
    """Component ``removed`` merged into ``kept``, using each batch's cached pair entropy;
    ``bound_against``: the components kept by the lap's earlier merges (see :meth:`SuffStats.merge`)."""

    lap: int
    kept: int
    removed: int
    bound_against: tuple[int, ...] = ()

    def replay(self, stats: SuffStats, batch: int) -> SuffStats:
        return stats.merge(self.kept, self.removed, bound_against=self.bound_against)

    def replay_warm(self, warm, batch: int):
        uids, counts = warm
        kept, removed = int(np.flatnonzero(uids == self.kept)[0]), int(np.flatnonzero(uids == self.removed)[0])
        counts = counts.copy()
        counts[:, kept] += counts[:, removed]
        return np.delete(uids, removed), np.delete(counts, removed, axis=1)

    def for_part(self, batch: int, first: bool, start: int, stop: int) -> "MergeRecord":
        return self


def per_batch(values: tuple | dict) -> dict:
    """A record's per-batch values as a dict by batch (a tuple holds every batch's, in order)."""
    return dict(enumerate(values)) if isinstance(values, tuple) else dict(values)


@dataclass(frozen=True, eq=False)
class DeleteRecord(Record):
    """Components ``targets`` deleted; each batch's statistics replaced by its proposal of that lap.

    A proposal is carried (``proposals[batch]``, with ``warm[batch]`` the proposal's per-item
    counts for topic models) or, with ``held``, kept where the batch lives: each part of the
    batch holds its share from the lap's refinement (:class:`~stickbreak.moves.delete.DeleteRound`)
    and fills it in before replaying (:meth:`with_held`), so the driver never holds per-batch
    proposals. A checkpoint fetches the held ones into a carried record (a resumed run's workers
    hold nothing).
    """

    lap: int
    targets: tuple[int, ...]
    proposals: tuple | dict  # per batch, SuffStats over the remaining components
    warm: tuple | dict = ()  # per batch, the proposal's per-item counts (topic models), or None
    held: bool = False  # the batches without a carried proposal hold theirs where they live

    def replay(self, stats: SuffStats, batch: int) -> SuffStats:
        return self.proposals[batch]

    def replay_warm(self, warm, batch: int):
        if not self.warm or self.warm[batch] is None:
            return None
        return self.proposals[batch].uids, self.warm[batch]

    def carries(self, batch: int) -> bool:
        """The record carries ``batch``'s proposal (else the batch's parts hold it)."""
        return not self.held or batch in self.proposals

    def for_part(self, batch: int, first: bool, start: int, stop: int) -> "DeleteRecord":
        if not self.carries(batch):
            return DeleteRecord(self.lap, self.targets, {}, {}, held=True)
        warm = {batch: rows_of(self.warm[batch], start, stop)} if self.warm else ()
        return DeleteRecord(self.lap, self.targets, {batch: _first_only(self.proposals[batch], first)}, warm)

    def held_laps(self, batch: int) -> tuple:
        return () if self.carries(batch) else (self.lap,)

    def with_held(self, held: Callable, batch: int) -> "DeleteRecord":
        """The record as the part replays it: ``held(lap)`` is the part's share ``(stats, (uids,
        warm) or None)`` of its held proposal."""
        if self.carries(batch):
            return self
        stats, warm = held(self.lap)
        return DeleteRecord(self.lap, self.targets, {batch: stats}, {batch: None if warm is None else warm[1]})


@dataclass(frozen=True, eq=False)
class ReorderRecord(Record):
    """Components put in a new order (the shuffle move: largest first)."""

    lap: int
    order: tuple[int, ...]

    def replay(self, stats: SuffStats, batch: int) -> SuffStats:
        return stats.reorder(np.array(self.order))

    def replay_warm(self, warm, batch: int):
        uids, counts = warm
        position = {int(u): i for i, u in enumerate(uids)}
        columns = [position[u] for u in self.order]
        return np.asarray(self.order, dtype=np.int64), counts[:, columns]

    def for_part(self, batch: int, first: bool, start: int, stop: int) -> "ReorderRecord":
        return self


@dataclass(frozen=True, eq=False)
class PruneRecord(Record):
    """Empty components dropped from the end of the order (they held no mass in any batch)."""

    lap: int
    removed: tuple[int, ...]

    def replay(self, stats: SuffStats, batch: int) -> SuffStats:
        return stats.select(stats.uids[~np.isin(stats.uids, self.removed)])

    def replay_warm(self, warm, batch: int):
        uids, counts = warm
        keep = ~np.isin(uids, self.removed)
        return np.asarray(uids)[keep], counts[:, keep]

    def for_part(self, batch: int, first: bool, start: int, stop: int) -> "PruneRecord":
        return self


def fast_forward(stats: SuffStats, records: Sequence, batch: int) -> SuffStats:
    """``stats`` of ``batch`` with every record in ``records`` replayed, in order."""
    for record in records:
        stats = record.replay(stats, batch)
    return stats


def describe(record) -> dict:
    """A JSON-friendly summary of a record (for the trace)."""
    kind = {BirthRecord: "birth", MergeRecord: "merge", DeleteRecord: "delete", ReorderRecord: "reorder",
            PruneRecord: "prune"}[type(record)]
    out = {"kind": kind, "lap": record.lap}
    if kind == "birth":
        out.update(target=record.target, new=list(record.new_uids))
    elif kind == "merge":
        out.update(kept=record.kept, removed=record.removed)
    elif kind == "delete":
        out.update(targets=list(record.targets))
    elif kind == "prune":
        out.update(removed=list(record.removed))
    return out
