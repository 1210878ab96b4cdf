"""Every executor gives the same fit (issue 25): the driver's thread, 2 threads, 2 worker processes and
2 Dask workers of a LocalCluster, for batch VB, stochastic VI and memoized VI with moves, over
mixtures, topics and HMMs; a worker killed in the middle of a task costs a retry, not the run."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time
import warnings
from dataclasses import replace

import numpy as np
import pytest

from stickbreak import DILN, LDA, DPMixture, HDPHMM, HDPTopicModel
from stickbreak.data import BagOfWords, DenseData, ShardStore
from stickbreak.datasets import load
from stickbreak.core.local_parts import local_summary
from stickbreak.moves import delete
from stickbreak.moves.birth_work import BirthWork, Collect, Expand
from stickbreak.obs import expfam
from stickbreak.learn.memo_parts import MemoVisit, PartVisit, memo_caches, memo_step, memo_work, part_work, visit_part
from stickbreak.moves.part_work import KEPT_LOST
from stickbreak.parallel import LocalExecutor, Request, check_executor, make_executor
from stickbreak.parallel import dask_backend
from stickbreak.parallel.processes import ProcessBackend
from stickbreak.parallel.parts import part_bounds
from stickbreak.parallel.sharded import ShardedExecutor
from stickbreak.parallel.worker import dumps, placed

from conftest import assert_same_stats

distributed = pytest.importorskip("distributed")

RELATIVE = 1e-10


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def processes():
    executor = make_executor("processes", 2)
    yield executor
    executor.close()


def _digits():
    return load("digits").X[:600]


def _digits_data():
    return DenseData.from_array(_digits())


def _ap():
    corpus = load("ap").X
    return corpus.subset(np.arange(500))


def _mocap():
    return load("mocap6").X


#: name -> (estimator, data); each is fitted by every executor and compared with the driver's own thread.
FITS = {
    "dp_mixture_memoized_moves": (lambda: DPMixture(obs_model="diag_gauss", n_batches=3, max_laps=6), _digits),
    "dp_mixture_vb": (lambda: DPMixture(n_components=6, obs_model="diag_gauss", algorithm="vb", max_laps=5), _digits),
    "lda_stochastic": (lambda: LDA(n_topics=8, algorithm="stochastic", batch_size=150, max_laps=3), _ap),
    "hdp_memoized_moves": (lambda: HDPTopicModel(n_topics=10, n_batches=3, max_laps=4), _ap),
    "hdp_hmm_memoized_moves": (lambda: HDPHMM(n_states=6, n_batches=2, max_laps=4), _mocap),
    "diln_vb": (lambda: DILN(n_topics=6, algorithm="vb", max_laps=3), lambda: _ap().subset(np.arange(200))),
}
_REFERENCE: dict = {}


def _fit(name, **settings):
    make, data = FITS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # too few laps to converge, on purpose
        return make().set_params(random_state=0, **settings).fit(data())


def _reference(name, synchronous_laps=False):
    """The fit on the driver's thread (memoized VI batch by batch), or with ``synchronous_laps`` on
    two threads (the parts of worker processes and Dask, whose laps are synchronous by default)."""
    if (name, synchronous_laps) not in _REFERENCE:
        executor = LocalExecutor(2, synchronous_laps=True) if synchronous_laps else None
        try:
            _REFERENCE[name, synchronous_laps] = _fit(name, n_jobs=2 if synchronous_laps else 1, executor=executor)
        finally:
            if executor is not None:
                executor.close()
    return _REFERENCE[name, synchronous_laps]


def _assert_same_fit(fitted, reference):
    assert fitted.lower_bound_ == pytest.approx(reference.lower_bound_, rel=RELATIVE)
    assert len(fitted.trace_) == len(reference.trace_)
    for ours, theirs in zip(fitted.trace_, reference.trace_):
        assert ours["n_components"] == theirs["n_components"]
        assert ours["elbo"] == pytest.approx(theirs["elbo"], rel=RELATIVE)
        assert ours["moves"] == theirs["moves"]


@pytest.mark.parametrize("name", list(FITS))
@pytest.mark.parametrize("where", ["threads", "processes", "dask"])
def test_every_executor_gives_the_same_fit(name, where, request):
    executor = {"threads": "threads", "processes": None, "dask": None}[where]
    if where == "processes":
        executor = request.getfixturevalue("processes")
    elif where == "dask":
        executor = request.getfixturevalue("client")
    fitted = _fit(name, n_jobs=2, executor=executor)
    _assert_same_fit(fitted, _reference(name, synchronous_laps=where != "threads"))
    moved = [record["bytes_moved"] > 0 for record in fitted.trace_]
    assert all(moved) if where != "threads" else not any(moved)


def test_a_process_executor_named_by_string_starts_and_stops_its_workers():
    fitted = _fit("dp_mixture_vb", n_jobs=2, executor="processes")
    _assert_same_fit(fitted, _reference("dp_mixture_vb"))


class _KillingBackend(ProcessBackend):
    """Kills worker 0 (SIGKILL) right after handing it its ``after``-th task: it dies mid-task; with
    ``every``, kills every worker then."""

    def __init__(self, n_workers, after, every=False):
        super().__init__(n_workers)
        self.after, self.sent, self.every = after, 0, every

    def submit(self, worker, shipment):
        handle = super().submit(worker, shipment)
        if worker == 0:
            self.sent += 1
            if self.sent == self.after:
                for pid in self.pids() if self.every else self.pids()[:1]:
                    os.kill(pid, signal.SIGKILL)
        return handle


# hdp_memoized_moves sends worker 0 tasks 4-12 in lap 2, where a delete is refined and accepted
# (task 9: a last round whose part must be rebuilt from the earlier rounds), and 13-19 in lap 3, which
# replays it (task 14: the replaced worker reads the held proposal from the spill directory)
# (memoized laps batch by batch); synchronous laps send worker 0 one visit call per lap, then the
# follow-ups of a delete's refinement and of births (tasks 2 and 4: lap 2's visits and its refinement)
@pytest.mark.parametrize("name, after, synchronous", [
    ("hdp_memoized_moves", 2, False), ("hdp_memoized_moves", 9, False), ("hdp_memoized_moves", 14, False),
    ("lda_stochastic", 7, False), ("hdp_memoized_moves", 2, True), ("hdp_memoized_moves", 4, True)])
def test_a_worker_killed_mid_task_costs_a_retry_not_the_run(name, after, synchronous):
    backend = _KillingBackend(2, after)
    executor = ShardedExecutor(backend, synchronous_laps=synchronous)
    try:
        fitted = _fit(name, n_jobs=2, executor=executor)
    finally:
        executor.close()
    assert backend.restarts == 1
    _assert_same_fit(fitted, _reference(name, synchronous))


def test_every_worker_process_killed_at_once_costs_a_retry_not_the_run():
    backend = _KillingBackend(2, 5, every=True)
    executor = ShardedExecutor(backend)
    try:
        fitted = _fit("dp_mixture_memoized_moves", n_jobs=2, executor=executor)
    finally:
        executor.close()
    assert backend.restarts == 2
    _assert_same_fit(fitted, _reference("dp_mixture_memoized_moves", synchronous_laps=True))


def test_a_dask_cluster_that_lost_every_worker_stops_the_fit_with_a_clear_error(monkeypatch):
    """No worker comes back (the cluster is scaled to none in lap 2): the fit stops after
    WORKERLESS_SECONDS instead of waiting for ever."""
    monkeypatch.setattr(dask_backend, "WORKERLESS_SECONDS", 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
        client = distributed.Client(cluster)
    try:
        def lose_every_worker(record, params):
            if record.lap == 1:
                cluster.scale(0)
                while client.scheduler_info()["workers"]:
                    time.sleep(0.1)

        with pytest.raises(dask_backend.WorkersGone, match="has had no workers for 2 s.*dask worker"):
            _fit("dp_mixture_memoized_moves", n_jobs=2, executor=client, callbacks=[lose_every_worker])
    finally:
        client.close()
        cluster.close()


def test_a_dask_worker_killed_during_the_fit_costs_a_retry(client):
    victim = sorted(client.scheduler_info()["workers"])[0]
    killed = []

    def kill_after_first_lap(record, params):
        if record.lap == 1 and not killed:
            killed.append(victim)
            try:
                client.run(os._exit, 1, workers=[victim])
            except Exception:  # the worker dies before it can answer
                pass

    fitted = _fit("dp_mixture_memoized_moves", n_jobs=2, executor=client, callbacks=[kill_after_first_lap])
    assert killed
    _assert_same_fit(fitted, _reference("dp_mixture_memoized_moves", synchronous_laps=True))
    client.wait_for_workers(2)


def test_workers_read_their_own_shards(tmp_path, processes):
    """In-memory batches go to the workers in lap 1; shards are read by the workers, never sent."""
    corpus = _ap()
    store = ShardStore.write(corpus, tmp_path / "shards", n_batches=3, seed=0)
    settings = dict(n_topics=8, max_laps=3, moves=(), n_batches=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        here = HDPTopicModel(**settings, executor=LocalExecutor(1, synchronous_laps=True)).fit(store)
        from_shards = HDPTopicModel(**settings, executor=processes).fit(store)
        from_memory = HDPTopicModel(**settings, executor=processes).fit(corpus)
    assert from_shards.lower_bound_ == pytest.approx(here.lower_bound_, rel=RELATIVE)
    data_bytes = corpus.counts.data.nbytes + corpus.counts.indices.nbytes
    shards = [r["bytes_moved"] for r in from_shards.trace_]
    memory = [r["bytes_moved"] for r in from_memory.trace_]
    assert memory[0] - shards[0] > 0.9 * data_bytes  # the same parameters and statistics, but no data
    assert abs(memory[1] - shards[1]) < data_bytes / 4


def test_a_task_that_fails_raises_its_own_error_on_the_driver(processes):
    fitted = _reference("dp_mixture_vb")
    words = [_ap()]  # a mixture over 64 pixels asked for the statistics of documents: fails inside the worker
    with pytest.raises((AttributeError, TypeError, ValueError)):
        processes.local_summaries(fitted.model_, fitted.params_, words, [Request(0)])
    # the workers are still up for the next task
    stats, _ = processes.local_summaries(fitted.model_, fitted.params_, [_digits_data()], [Request(0)])[0]
    assert stats.counts.sum() == pytest.approx(600)


@pytest.mark.parametrize("value", ["thread", 3, "dask://host"])
def test_an_unknown_executor_is_refused_before_any_work(value):
    with pytest.raises(ValueError, match="executor"):
        check_executor(value)
    with pytest.raises(ValueError, match="executor"):
        DPMixture(executor=value).fit(_digits())


def test_parts_cover_every_item_once():
    for n, parts in [(10, 3), (2, 5), (1, 2), (1000, 7)]:
        bounds = part_bounds(n, parts)
        assert len(bounds) == parts and bounds[0][0] == 0 and bounds[-1][1] == n
        assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
        sizes = [hi - lo for lo, hi in bounds]
        assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("name", ["dp_mixture_memoized_moves", "hdp_memoized_moves", "hdp_hmm_memoized_moves"])
def test_a_batch_birth_work_is_its_parts_joined(name):
    """A birth's per-batch pieces run on each part where it lives (a topic model's on the words it
    holds): joined, they are the whole batch's: the same owned items and pooled items (sampled by
    keys of the rows, whatever the split), the same expansion up to round-off."""
    fitted = _reference(name)
    data = _digits_data() if name.startswith("dp") else fitted._as_bow(_ap()) if name.startswith("hdp_m") else _mocap()
    model, params = fitted.model_, fitted.params_
    pairs = np.zeros((0, 2), dtype=np.int64)
    asks = [Collect(0, 7, 0.2, 11), Collect(1, 10 ** 6, 0.2, 12)]
    if not name.startswith("hdp_hmm"):  # an HMM's births are expanded on every batch at once, on the driver
        centers = expfam.select_components(params.obs, [0, 1, 1])
        asks.append(Expand(0, centers, np.log([1e-300, 0.3, 0.7]), np.array([0, 90, 91])))
    work = BirthWork(True, 0.2, tuple(asks))
    whole_local = local_summary(model, params, data, None, pairs, True, True)[2]
    whole = work.joined([work.on_part(model, params, data, whole_local, 0)])
    for cut in (False, True):
        answers = []
        for lo, hi in part_bounds(data.n_items, 3):
            kept = placed(model, data.subset(np.arange(lo, hi)))
            own = params if kept.features is None else model.params_on_features(params, kept.features)
            local = local_summary(model, own, kept.data, None, pairs, True, False, kept.features, kept.n_features,
                                  keep_own_local=True)[-1]
            sent = work.on_features(model, kept.features) if cut and kept.features is not None else work
            answers.append(sent.on_part(model, own, kept.data, local, lo, kept.features, kept.n_features))
        joined = work.joined(answers)
        assert np.array_equal(joined.owned, whole.owned)
        assert (joined.scores is None) == (whole.scores is None)
        if whole.scores is not None:
            np.testing.assert_allclose(joined.scores, whole.scores, rtol=1e-12)
        for ours, theirs in zip(joined.results[:2], whole.results[:2]):
            assert ours.size == theirs.size > 0
            assert _items_array(ours.items).tobytes() == _items_array(theirs.items).tobytes()
        assert whole.results[0].size == 7  # sampled down to its room
        for ours, theirs in zip(joined.results[2:], whole.results[2:]):
            for field, value in theirs.fields.items():
                np.testing.assert_allclose(ours.fields[field], value, rtol=1e-10, atol=1e-10, err_msg=field)


def _items_array(items) -> np.ndarray:
    """Pooled items as one dense array (word counts or rows)."""
    return items.counts.toarray() if isinstance(items, BagOfWords) else np.asarray(items.X)


def test_a_scheduler_address_connects_to_that_cluster(client):
    """What a user of a remote cluster passes: the scheduler's address (a string, so clone() and
    save() keep it)."""
    fitted = _fit("lda_stochastic", n_jobs=2, executor=client.scheduler.address)
    _assert_same_fit(fitted, _reference("lda_stochastic"))
    assert fitted.get_params()["executor"] == client.scheduler.address


@pytest.mark.parametrize("make", [lambda: LDA(n_topics=3, algorithm="gibbs"),
                                  lambda: HDPTopicModel(n_topics=3, algorithm="truncation_free")])
def test_sequential_algorithms_refuse_workers_with_the_reason(make):
    with pytest.raises(ValueError, match="driver's process only.*sequential|driver's process only.*conditions"):
        make().set_params(executor="processes").fit(_ap())


def _delete_case(name):
    fitted = _reference(name)
    data = _digits_data() if name.startswith("dp") else _ap() if name.startswith("hdp_m") else _mocap()
    model, params = fitted.model_, fitted.params_
    pairs = np.array([params.uids[:2]], dtype=np.int64)
    targets = tuple(int(u) for u in params.uids[-2:])
    return model, params, data, pairs, targets


@pytest.mark.parametrize("name", ["dp_mixture_memoized_moves", "hdp_memoized_moves", "hdp_hmm_memoized_moves"])
@pytest.mark.parametrize("where", ["threads-1", "threads-2", "processes-2"])
def test_a_delete_refined_where_the_batch_lives_is_the_serial_one(name, where):
    """A delete's rounds run as follow-ups of the batch's visit on its parts, which keep their warm
    starts between rounds and hold their share of the proposal after the last: the proposal, and
    the held shares fetched back, are those computed here on the whole batch."""
    model, params, data, pairs, targets = _delete_case(name)
    kind, workers = where.split("-")
    executor = LocalExecutor(int(workers)) if kind == "threads" else make_executor(kind, int(workers))
    whole, _, local = local_summary(model, params, data, None, pairs, keep_local=True)
    expected, expected_warm = delete.proposal_here(model, params, data, local, targets, whole, whole, 2, pairs)
    visit, batches = MemoVisit(0, 3, keep_fresh=True, follow_ups=True), [data]
    try:
        _, fresh, _ = memo_step(executor, model, params, batches, visit, pairs)
        got = delete.refined(model, lambda work: memo_work(executor, model, params, batches, replace(visit, work=work),
                                                           pairs), 3, params, targets, fresh, fresh, 2, pairs)
        held, held_warm = memo_caches(executor, batches, [0], held=3)[0]
    finally:
        executor.close()
    assert np.array_equal(got.uids, expected.uids) and np.array_equal(got.merge_pairs, expected.merge_pairs)
    for stats in (got, held):
        for field, value in expected.fields.items():
            np.testing.assert_allclose(stats.fields[field], value, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(stats.merge_entropy, expected.merge_entropy, rtol=1e-9, atol=1e-9)
    if expected_warm is None:
        assert held_warm is None
    else:
        assert np.array_equal(held_warm[0], expected.uids)
        np.testing.assert_allclose(held_warm[1], expected_warm, rtol=1e-9, atol=1e-9)


def test_a_delete_round_on_a_replaced_worker_is_rebuilt_from_the_rounds_before():
    """The topics' refinement warm-starts each round from the last: a part whose worker lost it
    answers that it lacks it when sent the round alone, and rebuilds it from the visit and the
    earlier rounds' parameters when sent those; the proposal is the uninterrupted one."""
    model, params, data, pairs, targets = _delete_case("hdp_memoized_moves")
    whole, _, local = local_summary(model, params, data, None, pairs, keep_local=True)
    expected, _ = delete.proposal_here(model, params, data, local, targets, whole, whole, 3, pairs)
    store, slot = {}, ("key", 0, 0)
    visit = PartVisit((), False, None, False, 3, follow_ups=True)
    visit_part(store, slot, model, params, data, visit, pairs)
    rounds = []

    def run_round(work):
        rounds.append(work)
        if work.step < 2:
            return part_work(store, slot, model, params, lambda: data, replace(visit, work=work), pairs)
        assert part_work({}, slot, model, None, lambda: data, replace(visit, work=work.travelling()),
                         pairs) == KEPT_LOST
        return part_work({}, slot, model, params, lambda: data, replace(visit, work=work), pairs)

    got = delete.refined(model, run_round, 3, params, targets, whole, whole, 3, pairs)
    assert len(rounds[-1].earlier) == 2
    assert_same_stats(got, expected)


def test_worker_processes_need_no_main_guard_in_a_script(tmp_path):
    """A user's script without `if __name__ == "__main__":` (multiprocessing's spawn would import it
    again in every worker, which would start workers of their own)."""
    script = tmp_path / "fit.py"
    script.write_text("from stickbreak import DPMixture, datasets\n"
                      "X = datasets.load('old_faithful').X\n"
                      "model = DPMixture(executor='processes', n_jobs=2, max_laps=5, random_state=0).fit(X)\n"
                      "print('K', model.n_active_components_)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("K ")


def test_answers_send_wide_mostly_zero_arrays_as_their_columns_exactly():
    """A part's topic-word counts are zero for the words it does not hold: they travel as the others."""
    rng = np.random.default_rng(0)
    counts = np.zeros((4, 5000))
    counts[:, rng.choice(5000, 300, replace=False)] = rng.random((4, 300))
    dense = rng.random((4, 5000))
    back = pickle.loads(dumps({"counts": counts, "dense": dense, "again": [counts]}))
    assert np.array_equal(back["counts"], counts) and back["counts"].dtype == counts.dtype
    assert np.array_equal(back["dense"], dense) and np.array_equal(back["again"][0], counts)
    assert len(dumps(counts)) < len(pickle.dumps(counts)) / 10



class _ItemsHeld:
    """A job answering how many items its part holds."""

    reads_data = True

    def run(self, model, params, part):
        return part.data().n_items

    def on_features(self, model, features):
        return self


def test_a_fit_whose_calls_spread_over_batches_keeps_each_batch_whole():
    """A fit whose first call visits at least as many batches as there are workers keeps each batch
    whole, batch b on worker b mod n_workers; one that starts with one batch, or has fewer batches
    than workers, splits every batch over the workers; ``whole_batches`` forces either."""
    from stickbreak.parallel import LocalExecutor
    from stickbreak.parallel.sharded import ShardedExecutor
    from stickbreak.parallel.threads import ThreadBackend

    data = DenseData(np.arange(40.0).reshape(20, 2))
    four = [data.subset(np.arange(5 * b, 5 * b + 5)) for b in range(4)]
    asks = [(b, lambda index, start, stop: _ItemsHeld()) for b in range(4)]
    executors = [LocalExecutor(2) for _ in range(3)] + [ShardedExecutor(ThreadBackend(2), whole_batches=False)]
    spread, stepwise, few, forced = executors
    try:
        assert spread.whole_batches is None
        assert spread.on_parts(None, None, four, asks) == [{0: 5}] * 4
        assert [spread.parts(four, b) for b in range(4)] == [[(0, 5)]] * 4
        placement = spread._placement(four)
        assert [spread._worker(placement, b, 0) for b in range(4)] == [0, 1, 0, 1]
        stepwise.on_parts(None, None, four, asks[:1])
        assert [sum(a.values()) for a in stepwise.on_parts(None, None, four, asks)] == [5] * 4
        assert all(len(stepwise.parts(four, b)) == 2 for b in range(4))
        few.on_parts(None, None, [data], [(0, lambda index, start, stop: _ItemsHeld())])
        assert len(few.parts([data], 0)) == 2
        forced.on_parts(None, None, four, asks)
        assert all(len(forced.parts(four, b)) == 2 for b in range(4))
    finally:
        for executor in executors:
            executor.close()
