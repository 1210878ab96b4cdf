"""What a worker process runs: a store of the batch parts placed on it, and the local step of a part.

Tasks and answers travel as pickled bytes (the transport between processes of one run, never a
file): the driver pickles the model and parameters once per call and every part's task reuses
them, and counts the bytes both ways. A part is placed by the first task that carries it (its
data, or where a shard store keeps it); a worker that lost its store (a restarted process, a task
moved to another Dask worker) answers :data:`MISSING` and the driver sends the part again.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from threadpoolctl import threadpool_limits

from ..data.shards import ShardStore
from .executors import local_summary

#: The answer of a worker that does not hold the part a task names.
MISSING = b"stickbreak-missing-part"

#: Parts placed on this process, by (placement key, batch, part).
_STORE: dict = {}
#: The last unpickled (model, params, merge_pairs), by the bytes' identity token.
_COMMON: dict = {}


@dataclass(frozen=True, eq=False)
class PartSource:
    """Where a part comes from when it is not yet on the worker: ``data`` (the part itself) or a
    shard store's ``directory`` and batch, with the part's item range ``[start, stop)``."""

    data: Any = None
    directory: str | None = None
    batch: int = 0
    start: int = 0
    stop: int = 0

    def load(self):
        """The part: a shard is read by the worker itself, so its bytes never pass through the driver."""
        if self.data is not None:
            return self.data
        return ShardStore.open(self.directory)[self.batch].subset(np.arange(self.start, self.stop))


@dataclass(frozen=True, eq=False)
class PartTask:
    """The local step of part ``part`` of batch ``batch`` (placement ``key``), on its items ``rows``
    (None: all), started from ``warm``; ``source`` places the part if the worker lacks it."""

    key: str
    batch: int
    part: int
    rows: np.ndarray | None
    warm: Any
    source: PartSource | None = None


def _common(token: str, common: bytes | None):
    """The call's (model, params, merge_pairs), unpickled once per call; None if never sent here."""
    if token not in _COMMON:
        if common is None:
            return None
        _COMMON.clear()
        _COMMON[token] = pickle.loads(common)
    return _COMMON[token]


def run_part(token: str, common: bytes | None, task: bytes) -> bytes:
    """Answer one pickled :class:`PartTask`: the pickled ``(stats, warm)`` of the part, or
    :data:`MISSING` if the worker lacks the part or the call's parameters (``common`` is None
    when an earlier task of the call brought them). BLAS and numba run on one thread: the workers are the parallelism."""
    part: PartTask = pickle.loads(task)
    slot = (part.key, part.batch, part.part)
    shared = _common(token, common)
    if shared is None or (slot not in _STORE and part.source is None):
        return MISSING
    if slot not in _STORE:
        _STORE[slot] = part.source.load()
    model, params, merge_pairs = shared
    batch = _STORE[slot] if part.rows is None else _STORE[slot].subset(part.rows)
    numba.set_num_threads(1)
    with threadpool_limits(limits=1, user_api="blas"):
        answer = local_summary(model, params, batch, part.warm, merge_pairs)
    return pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)


def drop(key: str) -> int:
    """Forget every part of placement ``key`` (a fit's end); returns how many were dropped."""
    slots = [slot for slot in _STORE if slot[0] == key]
    for slot in slots:
        del _STORE[slot]
    _COMMON.clear()
    return len(slots)
