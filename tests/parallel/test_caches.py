"""Memoized VI's batch caches live where the batches live (issue 25): the driver keeps only the
whole-data statistics; the workers' caches, replayed through the move log, add up to them; a
retried visit (its worker replaced after writing its cache through) gives the same answer; a lost
cache without a spill file is a clear error."""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from stickbreak.config import LearnConfig, MovesConfig
from stickbreak.driver import ELBODecreaseWarning, fit, split_batches
from stickbreak.learn import MemoizedVI
from stickbreak.models import make_mixture_model
from stickbreak.config import MixtureConfig
from stickbreak.models.mixture.init import initial_params
from stickbreak import obs
from stickbreak.parallel import LocalExecutor, make_executor
from stickbreak.moves.birth_work import BirthWork, Collect
from stickbreak.learn.memo_state import MemoLap, fetched_lap
from stickbreak.moves.planner import LapPlan, MoveHistory
from stickbreak.moves.records import DeleteRecord
from stickbreak.learn.memo_parts import MemoVisit, PartVisit, keep_held, memo_step, memo_work, part_work, visit_part
from stickbreak.learn.memo_spill import CacheLost
from stickbreak.moves.part_work import KEPT_LOST

from conftest import assert_cache_consistent, assert_same_stats, real_data_for


def _mixture(n_items=600, n_batches=3):
    data = obs.get("diag_gauss").check_data(real_data_for("diag_gauss", n_items))
    model = make_mixture_model(MixtureConfig(obs_model="diag_gauss", n_components=2), data)
    params = initial_params(model, data, 2, "kmeans++", np.random.default_rng(0))
    return model, params, split_batches(data, n_batches, 0).data


@pytest.mark.parametrize("where, laps", [("threads", 8), ("processes", 8), ("processes-synchronous", 12)])
def test_the_driver_holds_no_batch_cache_and_the_workers_caches_add_up(where, laps):
    """After laps of births, merges and deletes, the driver's state holds no batch statistics; the
    caches fetched from the two workers (or threads), fast-forwarded through the move log, sum to
    the whole-data statistics (memoized laps batch by batch, or synchronous)."""
    model, params, batches = _mixture()
    executor = (LocalExecutor(2) if where == "threads" else
                make_executor("processes", 2, synchronous_laps=where == "processes-synchronous"))
    learner = MemoizedVI(MovesConfig(moves=("birth", "merge", "delete"), birth_max_new=10), np.random.default_rng(0))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ELBODecreaseWarning)
            result = fit(model, batches, params, learner, LearnConfig(algorithm="memoized", max_laps=laps, tol=0),
                         executor=executor)
        state = result.state
        assert all(m is None for m in state.memo) and all(w is None for w in state.warm) and all(state.placed)
        accepted = {kind: sum(r.moves[kind]["accepted"] for r in result.trace) for kind in ("birth", "merge", "delete")}
        assert accepted["birth"] > 0 and accepted["merge"] + accepted["delete"] > 0, accepted
        saved = learner.saved_state(state, batches, executor)
        assert all(m is not None for m in saved.memo) and not saved.placed
        assert_cache_consistent(saved)
        if where != "threads":  # the workers wrote their caches through; a fit's end frees them
            spill = Path(executor.spill)
            assert len(list(spill.rglob("*.npys"))) >= len(batches)
            executor.release()
            assert not spill.exists()
    finally:
        executor.close()


def test_a_retried_visit_finds_the_cache_its_first_try_replaced(tmp_path):
    """A worker replaced after writing visit 2's cache through (its answer lost) is asked for visit
    2 again: it reads visit 1's cache from the spill directory and answers the same difference."""
    model, params, batches = _mixture(300, 1)
    batch, spill, slot = batches[0], str(tmp_path), ("key", 0, 0)
    later = model.global_step(model.summarize(batch, model.local_step(params, batch), params.uids).scaled(0.5), params)
    store: dict = {}
    visit_part(store, slot, model, params, batch, PartVisit((), False, None, False, 1, spill), None)
    answered = visit_part(store, slot, model, later, batch, PartVisit((), True, None, False, 2, spill), None)
    retried = visit_part({}, slot, model, later, batch, PartVisit((), True, None, False, 2, spill), None)
    assert np.abs(answered[0].counts).sum() > 1.0  # the parameters changed: a real difference
    assert_same_stats(retried[0], answered[0])
    assert sorted(p.name for p in (tmp_path / "key").iterdir()) == ["b0-p0-v1.npys", "b0-p0-v2.npys"]


def test_a_lost_cache_without_a_spill_file_is_a_clear_error(tmp_path):
    model, params, batches = _mixture(300, 1)
    with pytest.raises(CacheLost, match="part 0 of batch 0 were lost with the worker.*resume the fit"):
        visit_part({}, ("key", 0, 0), model, params, batches[0], PartVisit((), True, None, False, 3, str(tmp_path)),
                   None)


def test_follow_up_work_on_a_replaced_worker_runs_the_visit_again(tmp_path):
    """A birth's follow-up at a batch works on the local parameters its visit kept where the part
    lives; a replaced worker has lost them: asked without the parameters it says so, asked with
    them it runs the visit again from the spilled cache and gives the same answer."""
    model, params, batches = _mixture(300, 1)
    batch, spill, slot = batches[0], str(tmp_path), ("key", 0, 0)
    work = BirthWork(True, 0.2, (Collect(0, 20, 0.2, 5),))
    store, pairs = {}, np.zeros((0, 2), dtype=np.int64)  # memoized VI always passes its (maybe no) merge pairs
    visit_part(store, slot, model, params, batch, PartVisit((), False, None, False, 1, spill), pairs, True)
    later = model.global_step(model.summarize(batch, model.local_step(params, batch), params.uids).scaled(0.5), params)
    visit = PartVisit((), True, None, False, 2, spill, work, follow_ups=True)
    first = visit_part(store, slot, model, later, batch, visit, pairs, True)[2]
    kept = part_work(store, slot, model, None, lambda: batch, visit, pairs, True)
    assert part_work({}, slot, model, None, lambda: batch, visit, pairs, True) == KEPT_LOST
    replaced: dict = {}
    again = part_work(replaced, slot, model, later, lambda: batch, visit, pairs, True)
    for answer in (kept, again):
        assert np.array_equal(answer[0], first[0])
        assert np.array_equal(answer[2][0][0], first[2][0][0]) and np.array_equal(answer[2][0][1].X, first[2][0][1].X)
    assert replaced[slot][0] == 2  # the visit's cache, rebuilt


def test_follow_up_work_on_worker_processes_whose_kept_parameters_are_gone_runs_the_visit_again():
    """Follow-ups travel without the global parameters and the move log; a part that no longer
    keeps its visit's local parameters (here: asked about a visit it never ran) says so and is
    asked again with them, running the visit there: the answer is that visit's, as the driver's
    own threads give it."""
    model, params, batches = _mixture(600, 2)
    pairs = np.zeros((0, 2), dtype=np.int64)
    work = BirthWork(True, 0.2, (Collect(1, 25, 0.2, 9),))
    first = MemoVisit(0, 1, work=work, follow_ups=True)
    second = MemoVisit(0, 2, cached=True, work=work, follow_ups=True)  # never run: no part keeps its local parameters
    answers = []
    for executor in (LocalExecutor(2), make_executor("processes", 2)):
        try:
            memo_step(executor, model, params, batches, first, pairs, keep_loglik=True)
            answers.append(memo_work(executor, model, params, batches, second, pairs, True))
        finally:
            executor.close()
    threads, processes = answers
    assert np.array_equal(threads.owned, processes.owned) and threads.owned.sum() > 0
    assert threads.results[0].size == processes.results[0].size == 25
    assert np.array_equal(threads.results[0].items.X, processes.results[0].items.X)


def test_held_proposals_are_released_once_no_record_replays_them(tmp_path):
    """A part keeps a lap's held proposal (and its spill file) while a visit's records still name
    it, so that a retried visit finds it; the next visit without such a record releases it, and a
    proposal never accepted (no record) goes at the first visit of a later lap."""
    model, params, batches = _mixture(300, 1)
    batch, spill, slot = batches[0], str(tmp_path), ("key", 0, 0)
    store: dict = {}
    visit_part(store, slot, model, params, batch, PartVisit((), False, None, False, 1, spill), None)
    proposal = store[slot][1]  # the part's statistics, standing in for its share of a delete proposal
    keep_held(store, slot, 1, proposal, spill)
    keep_held(store, slot, 2, proposal, spill)  # lap 2's delete: rejected, no record
    held = DeleteRecord(1, (int(params.uids[-1]),), {}, {}, held=True)
    visit_part(store, slot, model, params, batch, PartVisit((held,), True, None, False, 2, spill), None)
    assert sorted(store[("key/held", 0, 0)]) == [1, 2]  # lap 1 replayed here: a retry still needs it
    visit_part(store, slot, model, params, batch, PartVisit((), True, None, False, 3, spill), None)
    assert store[("key/held", 0, 0)] == {}
    assert not list((tmp_path / "key" / "held").glob("*.npys"))


def test_a_checkpoint_within_a_lap_whose_delete_a_birth_dropped_fetches_no_proposal():
    """After a birth is accepted the lap's delete is dropped and later batches refine none: a
    checkpoint within the lap fetches the caches but no held proposal."""
    model, params, batches = _mixture(300, 2)
    stats = model.summarize(batches[0], model.local_step(params, batches[0]), params.uids)

    class Caches:  # an executor whose parts answer their caches
        held = []

        def on_parts(self, model_, params_, batches_, asks, reduce=None):
            held = asks[0][1](0, 0, 1).held  # a FetchJob's
            self.held.extend([held] * (held is not None))
            return [{0: (stats, None)} for _ in asks]

    lap = MemoLap(3, params, stats, -1.0, {}, False, False, LapPlan(np.zeros((0, 2), dtype=np.int64), (5,), False),
                  (None, None), (None, None), (True, True), (0, 0), (), 9, MoveHistory(), (), (), 1, {}, 3, 1, 1, 0,
                  np.zeros(0), {}, stats, {}, frozenset({0, 1}))
    saved = fetched_lap(lap, batches, Caches())
    assert Caches.held == [] and saved.delete_carried == {} and saved.memo[1] is stats
    fetched_lap(replace(lap, births=0), batches, Caches())
    assert Caches.held == [3]  # one call, for both visited batches


def test_a_spilled_cache_keeps_wide_counts_as_their_used_columns_and_reads_back_exactly(tmp_path):
    """A part's word counts over the whole vocabulary are written as the columns it uses, and read
    back to the exact arrays; a tall mostly-zero array is kept as its rows the same way."""
    from stickbreak.parallel.compact import compacted, expanded
    from numpy.lib.format import read_array

    from stickbreak.core.suffstats import SuffStats
    from stickbreak.learn.memo_spill import read_spill, write_spill

    rng = np.random.default_rng(0)
    word_counts = np.zeros((5, 3000))
    word_counts[:, rng.choice(3000, 400, replace=False)] = rng.gamma(1.0, size=(5, 400))
    by_word = np.ascontiguousarray(word_counts.T)
    axis, index, values = compacted(by_word)
    assert axis == 0 and values.shape == (400, 5)
    assert np.array_equal(expanded(by_word.shape, by_word.dtype.str, axis, index, values), by_word)
    stats = SuffStats(np.arange(5), {"N": word_counts.sum(axis=1), "word_counts": word_counts},
                      scalars={"n_items": 7.0})
    warm = (np.arange(5), rng.random((7, 5)))
    slot = ("fit", 2, 1)
    write_spill(str(tmp_path), slot, 3, (stats, warm))
    written = next((tmp_path / "fit").glob("*.npys"))
    with open(written, "rb") as records:
        names = [str(n) for n in read_array(records, allow_pickle=False)]
        shapes = {name: read_array(records, allow_pickle=False).shape for name in names}
    assert "stats.field.word_counts" not in names and shapes["stats.field.word_counts@values"] == (5, 400)
    assert written.stat().st_size < word_counts.nbytes / 2
    back, (uids, rows) = read_spill(str(tmp_path), slot)
    for name, value in stats.fields.items():
        assert np.array_equal(back.fields[name], value) and back.fields[name].dtype == value.dtype, name
    assert back.scalars == stats.scalars and np.array_equal(uids, warm[0]) and np.array_equal(rows, warm[1])
