"""A safe codec for learner states: a value becomes ``(tree, arrays)``, a JSON-able tree with the
numpy arrays set aside by name, and is rebuilt only through :data:`STATE_TYPES`, an explicit
registry of the dataclasses a state may hold. Nothing named by a file is ever imported.

Stored: dataclasses of the registry (their fields only: cached properties are recomputed), dicts
(any keys of these kinds), lists, tuples, frozensets, numpy arrays (not of objects), numpy
scalars, CSR matrices, ``bool``, ``int``, ``float``, ``str`` and ``None``. An array referenced
twice is stored once and shared again after decoding.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from ..core.suffstats import SuffStats
from ..data import BagOfWords, DenseData, LaggedData, Sequences
from ..learn.batch import BatchState
from ..learn.memo_state import MemoLap, MemoLapInProgress, MemoState
from ..learn.stochastic import StochasticLapInProgress, StochasticState
from ..models.hmm.params import HMMParams
from ..models.mixture.params import MixtureParams
from ..models.topics.model import TopicParams
from ..moves.birth import TrackedBirth
from ..moves.planner import LapPlan, MoveHistory
from ..moves.records import BirthRecord, DeleteRecord, MergeRecord, PruneRecord, ReorderRecord


class CheckpointError(ValueError):
    """A checkpoint that cannot be read or does not belong to this fit.

    Raised by :func:`stickbreak.resume` (and ``fit(..., checkpoint=...)`` resuming) for a missing,
    truncated, corrupt or foreign checkpoint, or one written by another format version. A
    subclass of :class:`ValueError`.

    Examples
    --------
    >>> import numpy as np
    >>> import stickbreak
    >>> try:
    ...     stickbreak.resume("no_such_run", np.zeros((3, 2)))
    ... except stickbreak.CheckpointError as err:
    ...     print(str(err).startswith("no checkpoint at"))
    True
    """


#: The dataclasses a learner state may hold, by name: the states of batch VB, stochastic VI and
#: memoized VI (and its lap in progress), the statistics, the move log and history, birth proposals (with the data items
#: they pool) and the global parameters of mixtures, direct-family topic models and HMMs.
STATE_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    BatchState, StochasticState, StochasticLapInProgress, MemoState, MemoLap, MemoLapInProgress, LapPlan, SuffStats,
    MoveHistory, TrackedBirth,
    BirthRecord, MergeRecord, DeleteRecord, ReorderRecord, PruneRecord,
    MixtureParams, TopicParams, HMMParams, DenseData, BagOfWords, Sequences, LaggedData)}

_SCALARS = (bool, int, float, str, type(None))


def register_state_type(cls: type) -> type:
    """Allow instances of the dataclass ``cls`` in checkpointed states (e.g. a new learner's state)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} is not a dataclass; only dataclasses can be registered")
    if STATE_TYPES.get(cls.__name__, cls) is not cls:
        raise ValueError(f"another state type is already registered as {cls.__name__!r}")
    STATE_TYPES[cls.__name__] = cls
    return cls


def encode(value) -> tuple[object, dict[str, np.ndarray]]:
    """``(tree, arrays)`` of ``value``; a TypeError names the first part that cannot be stored."""
    arrays: dict[str, np.ndarray] = {}
    names: dict[int, str] = {}
    keep = []  # the arrays named so far stay alive, so that their ids are not reused

    def array(a: np.ndarray, where: str) -> dict:
        if a.dtype.hasobject:
            raise TypeError(f"{where}: cannot store an array of Python objects")
        if id(a) not in names:
            names[id(a)] = f"a{len(arrays)}"
            arrays[names[id(a)]] = a
            keep.append(a)
        return {"@array": names[id(a)]}

    def walk(v, where: str):
        if isinstance(v, np.generic):  # before Python scalars: np.float64 is a float
            return {"@scalar": v.dtype.str, "value": v.item()} if v.dtype.kind in "biuf" else _refuse(v, where)
        if isinstance(v, _SCALARS):
            return v
        if isinstance(v, np.ndarray):
            return array(v, where)
        if isinstance(v, sp.csr_matrix):
            return {"@csr": [list(v.shape), array(v.data, where), array(v.indices, where), array(v.indptr, where)]}
        if isinstance(v, list):
            return [walk(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, tuple):
            return {"@tuple": [walk(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if isinstance(v, frozenset):
            return {"@frozenset": [walk(x, f"{where}{{}}") for x in sorted(v, key=repr)]}
        if isinstance(v, dict):
            return {"@dict": [[walk(k, f"{where} key"), walk(x, f"{where}[{k!r}]")] for k, x in v.items()]}
        if dataclasses.is_dataclass(v) and STATE_TYPES.get(type(v).__name__) is type(v):
            return {"@type": type(v).__name__,
                    "fields": {f.name: walk(getattr(v, f.name), f"{where}.{f.name}") for f in dataclasses.fields(v)}}
        return _refuse(v, where)

    return walk(value, "state"), arrays


def _refuse(value, where: str):
    raise TypeError(f"{where}: cannot store a value of type {type(value).__name__} in a checkpoint "
                    "(register its dataclass with stickbreak.persist.register_state_type, or keep it out of the state)")


def decode(tree, arrays) -> object:
    """The value :func:`encode` turned into ``(tree, arrays)``; a CheckpointError for anything unknown."""

    def walk(v):
        if isinstance(v, list):
            return [walk(x) for x in v]
        if not isinstance(v, dict):
            return v
        tag = next(iter(v), None)
        body = v.get(tag)
        if tag == "@array":
            if body not in arrays:
                raise CheckpointError(f"the checkpoint refers to an array {body!r} it does not hold")
            return arrays[body]
        if tag == "@scalar" and np.dtype(body).kind in "biuf":
            return np.dtype(body).type(v["value"])
        if tag == "@csr":
            shape, data, indices, indptr = body
            return sp.csr_matrix((walk(data), walk(indices), walk(indptr)), shape=tuple(shape))
        if tag == "@tuple":
            return tuple(walk(x) for x in body)
        if tag == "@frozenset":
            return frozenset(walk(x) for x in body)
        if tag == "@dict":
            return {walk(k): walk(x) for k, x in body}
        if tag == "@type":
            if body not in STATE_TYPES:
                raise CheckpointError(f"the checkpoint holds a {body!r}, which is not a known state type; "
                                      "it was written by another version of stickbreak or is not a checkpoint")
            return STATE_TYPES[body](**{name: walk(x) for name, x in v["fields"].items()})
        raise CheckpointError(f"the checkpoint holds an entry tagged {tag!r}, which this stickbreak cannot read")

    return walk(tree)
