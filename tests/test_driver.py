"""The one driver: convergence, monotonicity guard, callbacks and interruption, on a stub model."""

import warnings

import numpy as np
import pytest

from stickbreak import driver
from stickbreak.config import LearnConfig
from stickbreak.core.protocols import Model
from stickbreak.core.suffstats import SuffStats
from stickbreak.learn.batch import BatchVB


class StubModel(Model):
    """A model whose ELBO follows a script, to exercise the driver alone."""

    monotone = True

    def __init__(self, elbos):
        self.elbos = list(elbos)

    def n_items(self, batch):
        return 1

    def local_step(self, params, batch, warm=None):
        return None

    def warm_start(self, local):
        return None

    def summarize(self, batch, local, uids=None):
        return SuffStats(uids=[0], fields={"N": np.ones(1)})

    def global_step(self, stats, previous=None):
        return StubParams(self.elbos.pop(0))

    def elbo_terms(self, params, stats):
        return {"all": params.value}

    def blend(self, old, target, step):
        return target

    def score(self, stats, previous=None):
        params = self.global_step(stats, previous)
        return params, self.elbo_terms(params, stats)


class StubBatch:
    """One item, as the executor places it (it asks a batch its size)."""

    n_items = 1


class StubParams:
    uids = np.array([0])

    def __init__(self, value):
        self.value = value


def test_converges_on_relative_change():
    model = StubModel([-100.0, -50.0, -49.0, -48.99999, -48.0])
    result = driver.fit(model, [StubBatch()], StubParams(0.0), BatchVB(), LearnConfig(tol=1e-6, min_laps=2))
    assert result.converged and result.n_laps == 4 and result.elbo == -48.99999
    assert [r.lap for r in result.trace] == [1, 2, 3, 4]


def test_min_laps_and_max_laps():
    result = driver.fit(StubModel([-1.0] * 10), [StubBatch()], StubParams(0.0), BatchVB(),
                        LearnConfig(tol=1e-3, min_laps=5))
    assert result.converged and result.n_laps == 5
    result = driver.fit(StubModel(np.arange(10.0) - 100), [StubBatch()], StubParams(0.0), BatchVB(),
                        LearnConfig(max_laps=3, tol=0))
    assert not result.converged and result.n_laps == 3


def test_decrease_in_batch_vb_warns():
    with pytest.warns(driver.ELBODecreaseWarning, match="decreased from -10 to -11 at lap 2"):
        driver.fit(StubModel([-10.0, -11.0, -11.0]), [StubBatch()], StubParams(0.0), BatchVB(),
                   LearnConfig(max_laps=3, tol=0))


def test_interrupt_before_first_lap_propagates():
    def boom(record, params):
        raise KeyboardInterrupt

    class Failing(StubModel):
        def global_step(self, stats, previous=None):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        driver.fit(Failing([]), [StubBatch()], StubParams(0.0), BatchVB(), LearnConfig())
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        result = driver.fit(StubModel([-3.0, -2.0]), [StubBatch()], StubParams(0.0), BatchVB(), LearnConfig(),
                            callbacks=[boom])
    assert result.interrupted and result.n_laps == 1


def test_learn_config_validation():
    with pytest.raises(ValueError, match="algorithm='mcmc' is not valid"):
        LearnConfig(algorithm="mcmc")
    assert LearnConfig(algorithm="svi").algorithm == "stochastic"  # an alias
    with pytest.raises(ValueError, match="max_laps must be >= 1"):
        LearnConfig(max_laps=0)


def test_a_lap_record_reads_like_a_trace_entry():
    record = driver.LapRecord(lap=3, elbo=-1.5, terms={}, n_components=4, n_effective=2, seconds=0.25)
    assert record["elbo"] == record.elbo == record.as_dict()["elbo"] and record["lap"] == 3
    with pytest.raises(KeyError):
        record["no_such_field"]
