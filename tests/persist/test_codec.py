"""The state codec: every registered type round-trips exactly; nothing unregistered is stored or built."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak.core.suffstats import SuffStats
from stickbreak.data import BagOfWords, DenseData, LaggedData, Sequences
from stickbreak.learn.batch import BatchState
from stickbreak.learn.memo_state import MemoLap, MemoLapInProgress, MemoState
from stickbreak.learn.stochastic import StochasticLapInProgress, StochasticState
from stickbreak.models.hmm.params import HMMParams
from stickbreak.models.mixture.params import MixtureParams
from stickbreak.models.topics.model import TopicParams
from stickbreak.moves.birth import TrackedBirth
from stickbreak.moves.planner import LapPlan, MoveHistory
from stickbreak.moves.records import BirthRecord, DeleteRecord, MergeRecord, PruneRecord, ReorderRecord
from stickbreak.persist import STATE_TYPES, CheckpointError, decode, encode, register_state_type


def assert_same(a, b, where="value"):
    """``a`` and ``b`` equal in type, dtype and every value (dataclasses field by field)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True), where
    elif isinstance(a, sp.csr_matrix):
        assert a.shape == b.shape and (a != b).nnz == 0, where
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    else:
        assert a == b or (a != a and b != b), f"{where}: {a!r} != {b!r}"


def round_trip(value):
    tree, arrays = encode(value)
    tree = json.loads(json.dumps(tree))  # what a file holds
    return decode(tree, {k: np.array(v) for k, v in arrays.items()})


def _stats(uids=(3, 5), pairs=True):
    k = len(uids)
    return SuffStats(np.array(uids), {"N": np.arange(1.0, k + 1), "x": np.ones((k, 2)), "M": np.eye(k)},
                     {"entropy": np.full(k, 0.5)}, {"n_items": 7.0, "log_base": np.float64(-1.5)},
                     merge_pairs=np.array([uids[:2]]) if pairs else np.zeros((0, 2)),
                     merge_entropy=np.array([0.25]) if pairs else np.zeros(0), square=("M",))


def _history():
    return MoveHistory({3: (2, 10.5)}, {(3, 5): (1, np.float64(2.0))}, {5: (4, 0.0)})


SAMPLES = {
    "SuffStats": _stats,
    "MoveHistory": _history,
    "MixtureParams": lambda: MixtureParams(np.array([0, 2]), {"nu": np.ones(2), "B": np.ones((2, 3, 3))},
                                           {"eta1": np.ones(2), "eta0": np.ones(2)}),
    "TopicParams": lambda: TopicParams(np.array([1, 4]), {"lam": np.full((2, 5), 0.3)},
                                       {"u": np.ones(1), "v": np.ones(1), "learned": {"alpha": 0.5}}),
    "HMMParams": lambda: HMMParams(np.array([0, 1]), {"nu": np.ones(2)},
                                   {"rho": np.array([0.3]), "theta": np.ones((3, 2))}),
    "DenseData": lambda: DenseData(np.arange(6.0).reshape(3, 2)),
    "BagOfWords": lambda: BagOfWords(sp.csr_matrix(np.array([[0.0, 2.0, 1.0], [3.0, 0.0, 0.0]])), ("a", "b", "c")),
    "Sequences": lambda: Sequences(np.arange(10.0).reshape(5, 2), np.array([0, 2, 5])),
    "LaggedData": lambda: LaggedData(np.ones((3, 2)), np.zeros((3, 2))),
    "BatchState": lambda: BatchState(SAMPLES["TopicParams"](), _stats(), (np.ones((2, 2)), None)),
    "StochasticState": lambda: StochasticState(SAMPLES["MixtureParams"](), None, 17),
    "BirthRecord": lambda: BirthRecord(2, 3, (7, 8), {0: _stats((3, 7, 8)), 2: _stats((3, 7, 8))}),
    "MergeRecord": lambda: MergeRecord(2, 3, 5, (1,)),
    "DeleteRecord": lambda: DeleteRecord(4, (5,), (_stats((3,), False), None), (np.ones((2, 1)), None)),
    "ReorderRecord": lambda: ReorderRecord(4, (5, 3)),
    "PruneRecord": lambda: PruneRecord(6, (9, 10)),
    "TrackedBirth": lambda: TrackedBirth(3, (7, 8), 3, pool=(SAMPLES["DenseData"](),), pool_size=3,
                                         collected_from=frozenset({0, 2}), born=np.array([7, 8]),
                                         centers={"nu": np.ones(3)}, log_weights=np.log([0.5, 0.25, 0.25]),
                                         expansions={0: _stats((3, 7, 8))}, remaining=frozenset({1}), passes_left=1),
    "MemoState": lambda: MemoState(SAMPLES["MixtureParams"](), _stats(), (_stats(), None), (0, 1),
                                   (SAMPLES["MergeRecord"](), SAMPLES["BirthRecord"]()), 3, 11, _history(), 1, -12.5,
                                   ({"kind": "merge", "lap": 2},), (SAMPLES["TrackedBirth"](),), 2, 0,
                                   ((np.array([3, 5]), np.ones((4, 2))), None), 2, 1, (False, True)),
    "StochasticLapInProgress": lambda: StochasticLapInProgress(np.random.default_rng(5).bit_generator.state, 2,
                                                               SAMPLES["MixtureParams"](), _stats(), 2, 40),
    "LapPlan": lambda: LapPlan(np.array([[3, 5]]), (7,), True, frozenset({2})),
    "MemoLap": lambda: MemoLap(4, SAMPLES["MixtureParams"](), _stats(), -12.5, {"loglik": -12.0}, True, False,
                               SAMPLES["LapPlan"](), (None, _stats()), (None, None), (True, False), (0, 1),
                               (SAMPLES["MergeRecord"](),), 11, _history(), ({"kind": "merge", "lap": 2},),
                               (SAMPLES["TrackedBirth"](),), 0, {"merge": {"tried": 1, "accepted": 0}}, 2, 1, 1, 0,
                               np.array([0.5]), {}, _stats(), {1: (_stats(), None)}, frozenset({2})),
    "MemoLapInProgress": lambda: MemoLapInProgress(np.array([2, 0, 1]), 1, SAMPLES["MemoLap"]()),
}


def test_every_registered_type_has_a_sample():
    assert set(SAMPLES) == set(STATE_TYPES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_registered_type_round_trips_exactly(name):
    value = SAMPLES[name]()
    assert type(value) is STATE_TYPES[name]
    assert_same(value, round_trip(value))


def test_cached_properties_are_not_stored_and_come_back():
    params = SAMPLES["TopicParams"]()
    expected = params.exp_loglik  # fills the cache
    tree, _ = encode(params)
    assert set(tree["fields"]) == {"uids", "obs", "weights", "row_sums", "word_likelihoods"}
    assert tree["fields"]["word_likelihoods"] is None  # whole parameters: the likelihoods are derived
    assert np.array_equal(round_trip(params).exp_loglik, expected)


def test_scalars_keys_and_shared_arrays():
    shared = np.arange(3)
    value = {1: np.float32(0.1), (2, "a"): [True, None, 2**70, "s"], frozenset({1, 2}): np.int64(-4),
             "x": shared, "y": (shared, np.bool_(True))}
    back = round_trip(value)
    assert_same(value, back)
    assert back["x"] is back["y"][0]  # stored once, shared again


def test_unstorable_values_are_named():
    with pytest.raises(TypeError, match=r"state\.births\[0\]: cannot store a value of type function"):
        encode(MemoState(None, None, (), (), births=(lambda: 0,)))
    with pytest.raises(TypeError, match="array of Python objects"):
        encode(np.array([object()]))


def test_unknown_types_and_tags_are_refused():
    tree, arrays = encode(SAMPLES["PruneRecord"]())
    tree["@type"] = "os.system"
    with pytest.raises(CheckpointError, match="'os.system', which is not a known state type"):
        decode(tree, arrays)
    with pytest.raises(CheckpointError, match="tagged '@pickle'"):
        decode({"@pickle": "..."}, {})
    with pytest.raises(CheckpointError, match="array 'a9'"):
        decode({"@array": "a9"}, {})


def test_a_registered_dataclass_round_trips_and_names_stay_unique(monkeypatch):
    monkeypatch.setattr("stickbreak.persist.codec.STATE_TYPES", dict(STATE_TYPES))

    @dataclasses.dataclass(frozen=True)
    class IncrementalState:
        params: object
        cached: tuple = ()

    register_state_type(IncrementalState)
    value = IncrementalState(SAMPLES["HMMParams"](), (_stats(), None))
    assert_same(value, round_trip(value))
    with pytest.raises(ValueError, match="already registered as 'SuffStats'"):
        register_state_type(dataclasses.make_dataclass("SuffStats", ["uids"]))
