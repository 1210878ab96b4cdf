"""What runs where the parts live: a store of the batch parts placed there, and one call's tasks.

A worker process (:mod:`.processes`, :mod:`.dask_backend`) keeps one :class:`PartStore` for its
life; the driver's threads (:mod:`.threads`) keep one per executor. A call sends each worker the
model and parameters once with its :class:`PartTask` list, one :class:`~.jobs.PartJob` per part.
A part is placed by the first task that carries it (its data, or where a shard store keeps it); a
worker that lost its store (a restarted process, a task moved to another Dask worker) answers
:data:`MISSING` for it and the driver sends the part again.

Between processes, tasks and answers travel as pickled bytes (the transport of one run, never a
file): the driver pickles the model and parameters once per call (:class:`Call`) and counts the
bytes both ways.
"""

from __future__ import annotations

import io
import pickle
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numba
import numpy as np
from threadpoolctl import threadpool_limits

from ..core.protocols import FeatureSliced, declares
from ..data.shards import ShardStore
from .compact import compacted, expanded
from .jobs import PartContext

#: The answer of a worker that does not hold the part a task names.
MISSING = b"stickbreak-missing-part"


@dataclass(frozen=True, eq=False)
class PartSource:
    """Where a part comes from when it is not yet on the worker: ``data`` (the part itself), or a
    shard store's batch ``batch`` (``shards``, the store itself, in the driver's process; else its
    ``directory``), with the part's item range ``[start, stop)``."""

    data: Any = None
    directory: str | None = None
    shards: ShardStore | None = None
    batch: int = 0
    start: int = 0
    stop: int = 0

    def load(self):
        """The part: a shard is read by the worker itself, so its bytes never pass through the driver."""
        if self.data is not None:
            return self.data
        shards = self.shards if self.shards is not None else ShardStore.open(self.directory)
        batch = shards[self.batch]
        return batch if (self.start, self.stop) == (0, batch.n_items) else batch.subset(np.arange(self.start,
                                                                                                  self.stop))

    @property
    def on_disk(self) -> bool:
        return self.data is None


@dataclass(frozen=True, eq=False)
class Placed:
    """A part as a worker keeps it: on the ``features`` it uses (of ``n_features``) when its model
    is :class:`~stickbreak.core.protocols.FeatureSliced` and the store slices, else whole."""

    data: Any
    features: np.ndarray | None = None
    n_features: int = 0


def placed(model, data) -> Placed:
    """``data`` as a worker process keeps it for ``model``."""
    if not declares(model, FeatureSliced):
        return Placed(data)
    features = model.features_of(data)
    return Placed(model.on_features(data, features), features, data.n_features)


@dataclass(frozen=True, eq=False)
class PartTask:
    """Job ``job`` on part ``part`` (items ``[start, stop)``) of batch ``batch`` of placement
    ``key``; ``source`` places the part if the worker lacks it; ``sliced``: the call's parameters
    are already on the part's features; ``spill``: where jobs may write state through."""

    key: str
    batch: int
    part: int
    start: int
    job: Any
    source: PartSource | None = None
    sliced: bool = False
    spill: str | None = None


@dataclass(eq=False)
class PartStore:
    """The parts placed on one worker and the state their jobs keep, by placement key. A store
    that ``keeps_shards`` keeps what it reads from a shard store (a worker process; the driver's
    threads read it at each task, so the driver's memory holds no shard); one that
    ``slices_features`` keeps a :class:`~stickbreak.core.protocols.FeatureSliced` model's parts
    on their own features (:func:`placed`)."""

    keeps_shards: bool = True
    slices_features: bool = True
    parts: dict = field(default_factory=dict)  # (key, batch, part) -> Placed
    states: dict = field(default_factory=dict)  # key -> the jobs' state
    spills: dict = field(default_factory=dict)  # key -> its spill directory

    def run(self, model, params, tasks: list, reduce: Callable | None = None) -> tuple[list, dict]:
        """Each task's answer (or :data:`MISSING`), then ``reduce`` of them if given, and the
        features of each part this call placed, by ``(batch, part)``."""
        answers, features = [], {}
        cut_derived = self._cuts_cover(tasks)
        for task in tasks:
            slot = (task.key, task.batch, task.part)
            if task.spill is not None:
                self.spills[task.key] = task.spill
            kept, load = self.parts.get(slot), None
            if kept is None and task.source is not None:
                if self.keeps_shards or not task.source.on_disk:
                    kept = self.parts[slot] = (placed(model, task.source.load()) if self.slices_features
                                               else Placed(task.source.load()))
                    features[(task.batch, task.part)] = kept.features
                else:
                    load = task.source.load
            if kept is None and load is None and task.job.reads_data:
                answers.append(MISSING)
                continue
            own, n_features = params, 0
            if kept is not None:
                load, n_features = (lambda kept=kept: kept.data), kept.n_features
                if kept.features is not None and not task.sliced and params is not None:
                    own = model.params_on_features(params, kept.features, cut_derived)
            context = PartContext(task.key, task.batch, task.part, task.start, self.states.setdefault(task.key, {}),
                                  task.spill, load or _nothing, None if kept is None else kept.features, n_features)
            answers.append(task.job.run(model, own, context))
        return (answers if reduce is None else reduce(answers)), features

    def _cuts_cover(self, tasks: list) -> bool:
        """Whether the parts of ``tasks`` kept on their features use, together, at least as many
        features as there are: the parameters' per-feature quantities are then cheaper computed
        once whole and cut for each part than computed on each part's cut."""
        kept = [self.parts.get((task.key, task.batch, task.part)) for task in tasks if not task.sliced]
        on_features = [p for p in kept if p is not None and p.features is not None]
        return bool(on_features) and sum(len(p.features) for p in on_features) >= on_features[0].n_features

    def drop(self, key: str) -> int:
        """Forget placement ``key``: its parts, its jobs' state and its spill files (a fit's end)."""
        slots = [slot for slot in self.parts if slot[0] == key]
        for slot in slots:
            del self.parts[slot]
        self.states.pop(key, None)
        spill = self.spills.pop(key, None)
        if spill is not None:
            shutil.rmtree(Path(spill) / key, ignore_errors=True)
        return len(slots)


def _nothing():
    raise RuntimeError("this part's items are not held here")


#: This process's store, when it is a worker process.
_STORE = PartStore()


@dataclass(eq=False)
class Call:
    """One call's model and parameters, pickled once for the workers that get them whole, and for
    each worker that gets only its part's features (:meth:`pickled`)."""

    model: Any
    params: Any
    _whole: bytes | None = None

    def pickled(self, features: np.ndarray | None = None) -> bytes:
        if features is not None:
            return dumps((self.model, self.model.params_on_features(self.params, features)))
        if self._whole is None:
            self._whole = dumps((self.model, self.params))
        return self._whole


def run_parts(payload: bytes) -> bytes:
    """A worker process's answer to one call: ``payload`` is the pickled ``(common, tasks, reduce)``
    with ``common`` the pickled ``(model, params)`` (:class:`Call`); the answer is the pickled
    ``(answers, features)`` of :meth:`PartStore.run`. BLAS and numba run on one thread: the workers
    are the parallelism."""
    common, tasks, reduce = pickle.loads(payload)
    model, params = pickle.loads(common)
    numba.set_num_threads(1)
    with threadpool_limits(limits=1, user_api="blas"):
        return dumps(_STORE.run(model, params, tasks, reduce))


def drop(key: str) -> int:
    """Forget placement ``key`` in this process's store."""
    return _STORE.drop(key)


class _ColumnPickler(pickle.Pickler):
    """Pickles a wide 2-D array that is mostly zero columns, or a tall one that is mostly zero rows,
    as those (:func:`~.compact.compacted`); unpickling restores the exact array."""

    def reducer_override(self, obj):
        kept = compacted(obj)
        if kept is None:
            return NotImplemented
        return expanded, (obj.shape, obj.dtype.str) + kept


def dumps(obj) -> bytes:
    """``pickle.dumps`` with wide, mostly-zero arrays sent as their non-zero columns."""
    buffer = io.BytesIO()
    _ColumnPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


@dataclass(frozen=True, eq=False)
class Shipment:
    """What one worker gets in one call: the call's model and parameters (cut to ``features`` when
    not None), its tasks, and what it reduces their answers with (None: nothing)."""

    call: Call
    tasks: list
    reduce: Callable | None = None
    features: np.ndarray | None = None

    def run_here(self, store: PartStore) -> tuple[list, dict]:
        """The shipment's answers, run in this process on ``store``."""
        return store.run(self.call.model, self.call.params, self.tasks, self.reduce)


@dataclass(eq=False)
class Wire:
    """How shipments travel to worker processes and answers come back, and the bytes moved."""

    moved: int = 0

    def packed(self, shipment: Shipment) -> bytes:
        payload = dumps((shipment.call.pickled(shipment.features), shipment.tasks, shipment.reduce))
        self.moved += len(payload)
        return payload

    def unpacked(self, answer: bytes) -> tuple[list, dict]:
        self.moved += len(answer)
        return pickle.loads(answer)
