"""Memoized VI's lap-synchronous laps (issue 48, :mod:`stickbreak.learn.memo_sync`): every batch
visited in one call under the lap's parameters, one global step, the same moves on the exact ELBO."""

import warnings

import numpy as np
import pytest

from stickbreak import DPMixture, HDPHMM, HDPTopicModel
from stickbreak.datasets import load
from stickbreak.driver import ELBODecreaseWarning
from stickbreak.parallel import LocalExecutor

from conftest import ALL_FAMILIES, assert_cache_consistent, fit_memoized, real_data_for


class _Counting(LocalExecutor):
    """The driver's threads, counting the calls that run jobs on the parts."""

    def __init__(self, n_threads, synchronous_laps):
        super().__init__(n_threads, synchronous_laps=synchronous_laps)
        self.calls = 0

    def on_parts(self, *args, **kwargs):
        self.calls += 1
        return super().on_parts(*args, **kwargs)


@pytest.mark.parametrize("name", ALL_FAMILIES)
@pytest.mark.parametrize("moves", [(), ("birth", "merge", "delete")])
def test_synchronous_laps_never_lower_the_exact_elbo_and_keep_the_caches_consistent(name, moves):
    executor = LocalExecutor(2, synchronous_laps=True)
    model, batches, result = fit_memoized(real_data_for(name, 400), name, moves, n_batches=4, n_components=3,
                                           max_laps=8, executor=executor)
    elbo = np.array([r.elbo for r in result.trace])
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))
    assert_cache_consistent(result.state)


def test_a_lap_without_moves_is_one_call():
    executor = _Counting(2, synchronous_laps=True)
    fit_memoized(real_data_for("diag_gauss", 400), "diag_gauss", (), n_batches=5, n_components=4, max_laps=3,
                 executor=executor)
    assert executor.calls == 3 + 1  # a lap's visits, and the saved state's caches fetched once
    streaming = _Counting(2, synchronous_laps=False)
    fit_memoized(real_data_for("diag_gauss", 400), "diag_gauss", (), n_batches=5, n_components=4, max_laps=3,
                 executor=streaming)
    assert streaming.calls == 3 * 5 + 1


@pytest.mark.parametrize("name", ["diag_gauss", "mult"])
def test_with_one_batch_a_synchronous_lap_is_the_batch_by_batch_one(name):
    """One batch: both schedules are batch VB with the same moves, up to round-off."""
    fits = [fit_memoized(real_data_for(name, 400), name, ("birth", "merge", "delete"), n_batches=1, n_components=3,
                         max_laps=6, executor=LocalExecutor(1, synchronous_laps=sync))[2] for sync in (False, True)]
    for ours, theirs in zip(*(f.trace for f in fits)):
        assert ours.elbo == pytest.approx(theirs.elbo, rel=1e-10)
        assert ours.moves == theirs.moves


@pytest.mark.parametrize("make, data", [
    (lambda: DPMixture(obs_model="diag_gauss", n_batches=3, max_laps=12), lambda: load("digits").X[:600]),
    (lambda: HDPTopicModel(n_topics=10, n_batches=3, max_laps=6), lambda: load("ap").X.subset(np.arange(500))),
    (lambda: HDPHMM(n_states=6, n_batches=2, max_laps=5), lambda: load("mocap6").X),
], ids=["dp_mixture", "hdp_topics", "hdp_hmm"])
def test_synchronous_laps_accept_moves_on_every_model(make, data):
    """Births grow K (the mixture and the HMM), merges and deletes shrink it (topics), each accepted
    on the exact ELBO, which never falls."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", ELBODecreaseWarning)
        fitted = make().set_params(random_state=0, executor=LocalExecutor(2, synchronous_laps=True),
                                   n_jobs=2).fit(data())
    accepted = {kind: sum(t["moves"][kind]["accepted"] for t in fitted.trace_) for kind in ("birth", "merge", "delete")}
    elbo = np.array([t["elbo"] for t in fitted.trace_])
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))
    if isinstance(fitted, HDPTopicModel):
        assert accepted["merge"] > 0 and accepted["delete"] > 0, accepted
    else:
        assert accepted["birth"] > 0, accepted
