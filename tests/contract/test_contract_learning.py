"""Invariants of the verbs every model has (DESIGN.md, tests layers 2-3): statistics are additive
under a batch split; memoized VI over one batch is batch VB (Hughes 2016, Alg. 3.3 vs 3.1); batch
VB never lowers the ELBO of a model that claims to be monotone."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from stickbreak.config import LearnConfig, MovesConfig
from stickbreak.core.protocols import Memoizable, Model
from stickbreak.driver import fit
from stickbreak.learn import BatchVB, MemoizedVI
from stickbreak.learn.base import ELBODecreaseWarning

from cases import cases_with, split_halves, stats_arrays

LAPS = 4


def _summary(model, params, batch):
    return model.summarize(batch, model.local_step(params, batch), params.uids)


@pytest.mark.parametrize("case", cases_with(Model))
def test_statistics_are_additive_under_a_batch_split(case):
    model, data, params = case()
    first, second, union = split_halves(data)
    together = _summary(model, params, union)
    summed = _summary(model, params, first) + _summary(model, params, second)
    np.testing.assert_array_equal(summed.uids, together.uids)
    want, got = stats_arrays(together), stats_arrays(summed)
    assert set(got) == set(want)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-9, atol=1e-9, err_msg=name)


@pytest.mark.parametrize("case", cases_with(Memoizable))
def test_memoized_vi_with_one_batch_equals_batch_vb(case):
    model, data, params = case()
    config = LearnConfig(max_laps=LAPS, tol=0.0)
    batch = fit(model, [data], params, BatchVB(), config)
    memo = fit(model, [data], params, MemoizedVI(MovesConfig(), np.random.default_rng(0), first_lap=case.first_lap),
               config)
    np.testing.assert_allclose([r.elbo for r in memo.trace], [r.elbo for r in batch.trace], rtol=1e-10)
    np.testing.assert_array_equal(memo.params.uids, batch.params.uids)
    for name, value in batch.params.obs.items():
        np.testing.assert_allclose(memo.params.obs[name], value, rtol=1e-9, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("case", cases_with(Model, where=lambda case: case()[0].monotone))
def test_batch_elbo_never_decreases(case):
    model, data, params = case()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ELBODecreaseWarning)
        result = fit(model, [data], params, BatchVB(), LearnConfig(max_laps=2 * LAPS, tol=0.0))
    elbo = np.array([r.elbo for r in result.trace])
    assert len(elbo) == 2 * LAPS and np.all(np.isfinite(elbo))
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))
