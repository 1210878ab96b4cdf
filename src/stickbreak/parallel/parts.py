"""How a batch is split among workers and how its parts' answers are put back together.

Every executor with ``n`` workers splits a batch into ``n`` contiguous parts of items (sizes
differing by at most one), runs the local step of each part, adds the parts' statistics in part
order and stacks their warm starts (and local parameters) in item order. Executors with the same
number of workers therefore do the same arithmetic, wherever the parts run.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from ..data.shards import ShardStore


class Part(NamedTuple):
    """Part ``index`` of a request: items ``[start, stop)`` of the batch, of which ``rows`` (relative
    to ``start``; None: all) are asked for, started from ``warm`` (its rows of the request's)."""

    index: int  # type: ignore[assignment]  # (a field named like tuple.index, which parts never call)
    start: int
    stop: int
    rows: np.ndarray | None
    warm: Any


def part_bounds(n_items: int, n_parts: int) -> list[tuple[int, int]]:
    """``n_parts`` contiguous item ranges covering ``range(n_items)``, sizes differing by at most one."""
    edges = np.linspace(0, n_items, n_parts + 1).round().astype(np.int64)
    return list(zip(edges[:-1].tolist(), edges[1:].tolist()))


def filled_parts(n_items: int, n_parts: int) -> list[tuple[int, int, int]]:
    """``(index, start, stop)`` of the non-empty parts of a batch of ``n_items``."""
    return [(index, start, stop) for index, (start, stop) in enumerate(part_bounds(n_items, n_parts)) if stop > start]


def rows_of(value, start: int, stop: int):
    """Rows ``[start, stop)`` of a per-item warm start (an array, a tuple of arrays, or None)."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(v[start:stop] for v in value)
    return value[start:stop]


def split(n_items: int, n_parts: int, rows: np.ndarray | None, warm) -> list[Part]:
    """The non-empty parts of a request for ``rows`` (None: every item; else increasing) of a batch
    of ``n_items``; ``warm`` has a row per requested item."""
    parts = []
    for index, (start, stop) in enumerate(part_bounds(n_items, n_parts)):
        if rows is None:
            if stop > start:
                parts.append(Part(index, start, stop, None, rows_of(warm, start, stop)))
            continue
        mask = (rows >= start) & (rows < stop)
        if mask.any():
            first, last = np.flatnonzero(mask)[[0, -1]]
            parts.append(Part(index, start, stop, rows[mask] - start, rows_of(warm, first, last + 1)))
    return parts


def added(answers: Sequence):
    """The answers' statistics (their first entries) added in order."""
    return sum((a[0] for a in answers[1:]), answers[0][0])


def batch_size(batches, b: int) -> int:
    """How many items batch ``b`` holds (a shard store says so without reading the batch)."""
    if isinstance(batches, ShardStore):
        return int(batches.meta["sizes"][b])
    return int(batches[b].n_items)


def joined(answers: Sequence) -> tuple:
    """One request's answer ``(stats, warm)`` from its parts'."""
    return added(answers), joined_rows([a[1] for a in answers])


def joined_rows(parts: Sequence):
    """The parts' per-item warm starts stacked in order (None if any part has none)."""
    if not parts or any(p is None for p in parts):
        return None
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(len(parts[0])))
    return np.concatenate(parts)

