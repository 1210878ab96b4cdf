"""What a worker process runs: a store of the batch parts placed on it, and the local step of a part.

Tasks and answers travel as pickled bytes (the transport between processes of one run, never a
file): the driver pickles the model and parameters once per call, sends each worker one task with
them and all its parts, and counts the bytes both ways. A part is placed by the first task that
carries it (its data, or where a shard store keeps it); a worker that lost its store (a restarted
process, a task moved to another Dask worker) answers :data:`MISSING` for it and the driver sends
the part again.
"""

from __future__ import annotations

import io
import pickle
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from threadpoolctl import threadpool_limits

from ..data.shards import ShardStore
from ..core.local_parts import local_summary
from ..core.protocols import FeatureSliced, declares
from .caches import PartVisit, drop_caches, drop_spill, fetch_part, part_work, visit_part

#: The answer of a worker that does not hold the part a task names.
MISSING = b"stickbreak-missing-part"

#: Parts placed on this process, by (placement key, batch, part).
_STORE: dict = {}
#: Memoized VI's caches of those parts (:mod:`.caches`), by the same keys.
_CACHES: dict = {}
#: The spill directory of each placement key whose caches are written through.
_SPILLS: dict = {}


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
class Placed:
    """A part as a worker keeps it: on the ``features`` it uses (of ``n_features``) when its model
    is :class:`~stickbreak.core.protocols.FeatureSliced`, else whole (``features`` None)."""

    data: Any
    features: np.ndarray | None = None
    n_features: int = 0


def placed(model, data) -> Placed:
    """``data`` as a worker keeps it for ``model``."""
    if not declares(model, FeatureSliced):
        return Placed(data)
    features = model.features_of(data)
    return Placed(model.on_features(data, features), features, data.n_features)


@dataclass(frozen=True, eq=False)
class PartTask:
    """The local step of part ``part`` of batch ``batch`` (placement ``key``), on its items ``rows``
    (None: all), started from ``warm``; ``source`` places the part if the worker lacks it;
    ``keep_loglik`` keeps in the local parameters what births work from."""

    key: str
    batch: int
    part: int
    rows: np.ndarray | None
    warm: Any
    source: PartSource | None = None
    keep_loglik: bool = False
    memo: PartVisit | None = None  # memoized VI's visit of the part (its cache is kept here)
    fetch: bool = False  # answer the part's memoized cache instead (a checkpoint)
    held: int | None = None  # with fetch: the part's share of this lap's held proposal instead
    sliced: bool = False  # the call's parameters are already on the part's features


def run_parts(payload: bytes) -> bytes:
    """Answer one call's task for this worker: ``payload`` is the pickled ``(common, parts, total)``,
    with ``common`` the pickled ``(model, params, merge_pairs)`` of the call and ``parts`` its
    :class:`PartTask` list; the answer is the pickled ``(answers, features)``: the list of each
    part's ``(stats, warm)`` (a memoized visit's :func:`~.caches.visit_part` answer, a follow-up's
    :func:`~.caches.part_work` one), or :data:`MISSING` for a part this worker does not hold, and
    the features of each part placed by this task, by ``(batch, part)`` (see :class:`Placed`).
    With ``total`` the first answered part carries the sum of the answered parts' statistics (in
    order) and the others None: one set of statistics per worker comes back. BLAS and numba run
    on one thread: the workers are the parallelism."""
    common, parts, total = pickle.loads(payload)
    model, params, merge_pairs = pickle.loads(common)
    numba.set_num_threads(1)
    answers, features = [], {}
    with threadpool_limits(limits=1, user_api="blas"):
        for part in parts:
            slot = (part.key, part.batch, part.part)
            if part.memo is not None and part.memo.spill is not None:
                _SPILLS[part.key] = part.memo.spill
            if part.fetch:
                answers.append(fetch_part(_CACHES, slot, part.memo.spill, part.held))
                continue
            if slot not in _STORE and part.source is not None:
                _STORE[slot] = placed(model, part.source.load())
                features[(part.batch, part.part)] = _STORE[slot].features
            if slot not in _STORE:
                answers.append(MISSING)
                continue
            kept = _STORE[slot]
            batch = kept.data if part.rows is None else kept.data.subset(part.rows)
            own = (params if kept.features is None or part.sliced or params is None
                   else model.params_on_features(params, kept.features))
            if part.memo is not None and part.memo.again:
                answers.append(part_work(_CACHES, slot, model, own, lambda: batch, part.memo, merge_pairs,
                                         part.keep_loglik, kept.features, kept.n_features))
                continue
            if part.memo is not None:
                answers.append(visit_part(_CACHES, slot, model, own, batch, part.memo, merge_pairs, part.keep_loglik,
                                          kept.features, kept.n_features))
                continue
            answers.append(local_summary(model, own, batch, part.warm, merge_pairs, part.keep_loglik,
                                         features=kept.features, n_features=kept.n_features))
    if total:
        answers = _totalled(answers)
    return dumps((answers, features))


#: Arrays with at least this many columns (rows) are sent as their non-zero columns (rows) when at
#: most this fraction of them is non-zero (the column indices cost 1/K of the values they save).
WIDE = 1024
SPARSE = 0.9


def _columns_back(shape: tuple, dtype: str, columns: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros(shape, dtype=dtype)
    out[:, columns] = values
    return out


def _rows_back(shape: tuple, dtype: str, rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros(shape, dtype=dtype)
    out[rows] = values
    return out


class _ColumnPickler(pickle.Pickler):
    """Pickles a wide 2-D array that is mostly zero columns (a part's topic-word counts: the words
    it does not hold) as its non-zero columns, and a tall one that is mostly zero rows (its
    word-topic counts) as its non-zero rows; unpickling restores the exact array."""

    def reducer_override(self, obj):
        if not (isinstance(obj, np.ndarray) and obj.ndim == 2 and obj.dtype.kind == "f"):
            return NotImplemented
        if obj.shape[1] >= WIDE:
            columns = np.flatnonzero(np.any(obj != 0, axis=0))
            if len(columns) <= SPARSE * obj.shape[1]:
                return _columns_back, (obj.shape, obj.dtype.str, columns, np.ascontiguousarray(obj[:, columns]))
        if obj.shape[0] >= WIDE:
            rows = np.flatnonzero(np.any(obj != 0, axis=1))
            if len(rows) <= SPARSE * obj.shape[0]:
                return _rows_back, (obj.shape, obj.dtype.str, rows, np.ascontiguousarray(obj[rows]))
        return NotImplemented


def dumps(obj) -> bytes:
    """``pickle.dumps`` with wide, mostly-zero arrays sent as their non-zero columns."""
    buffer = io.BytesIO()
    _ColumnPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def _totalled(answers: list) -> list:
    kept = [i for i, a in enumerate(answers) if not isinstance(a, bytes)]
    if not kept:
        return answers
    stats = sum((answers[i][0] for i in kept[1:]), answers[kept[0]][0])
    return [a if isinstance(a, bytes) else ((stats if i == kept[0] else None),) + tuple(a[1:])
            for i, a in enumerate(answers)]


def drop(key: str) -> int:
    """Forget every part of placement ``key`` (a fit's end); returns how many were dropped."""
    slots = [slot for slot in _STORE if slot[0] == key]
    for slot in slots:
        del _STORE[slot]
    drop_caches(_CACHES, key)
    drop_spill(_SPILLS.pop(key, None), key)
    return len(slots)
