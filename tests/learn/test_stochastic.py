"""Stochastic VI: the step-size schedule, and a full-data step of size 1 equals a batch step."""

import numpy as np
import pytest

from stickbreak import DPMixture
from stickbreak.models import make_mixture_model
from stickbreak.config import MixtureConfig
from stickbreak.learn import BatchVB, StochasticVI
from stickbreak.models.mixture.init import initial_params
from stickbreak.learn.schedules import Constant, RobbinsMonro, as_schedule

from conftest import ALL_FAMILIES, real_data_for


def test_robbins_monro_schedule_and_validation():
    schedule = RobbinsMonro(delay=1.0, decay=0.5 + 1e-9)
    assert schedule(1) == pytest.approx(2 ** -0.5, rel=1e-6)
    assert RobbinsMonro(delay=0.0, decay=1.0)(4) == 0.25
    assert RobbinsMonro(delay=0.0, decay=0.7)(1) == 1.0
    with pytest.raises(ValueError, match=r"kappa\) must be in \(0.5, 1\]"):
        RobbinsMonro(decay=0.5)
    with pytest.raises(ValueError, match=r"tau\) must be >= 0"):
        RobbinsMonro(delay=-1.0)
    with pytest.raises(ValueError, match="in \\(0, 1\\]"):
        Constant(1.5)
    assert as_schedule(0.3)(10) == 0.3
    assert as_schedule(lambda t: 1.0 / t)(4) == 0.25


@pytest.mark.parametrize("name", ALL_FAMILIES)
@pytest.mark.parametrize("weights", ["dp", "finite"])
def test_full_data_step_of_size_one_equals_batch_step(name, weights):
    from stickbreak import obs

    data = obs.get(name).check_data(real_data_for(name, 300))
    model = make_mixture_model(MixtureConfig(obs_model=name, weights=weights, n_components=4), data)
    params = initial_params(model, data, 4, "kmeans++", np.random.default_rng(0))
    svi = StochasticVI(Constant(1.0), np.random.default_rng(0))
    stepped, _, _ = svi.step(model, params, data, data.n_items, step=1)
    batch = BatchVB().lap(model, [data], BatchVB().start(model, [data], params)).state.params
    for key in model.obs.natural_keys:
        np.testing.assert_allclose(stepped.obs[key], batch.obs[key], rtol=1e-12)
    for key in batch.weights:
        np.testing.assert_allclose(stepped.weights[key], batch.weights[key], rtol=1e-12)


@pytest.mark.parametrize("weights", ["dp", "finite"])
def test_lap_elbo_of_one_full_minibatch_of_size_one_equals_batch_lap_elbo(weights):
    """The lap's ELBO is the final parameters' with the lap's statistics: a batch lap's, here."""
    from stickbreak import obs
    from stickbreak.learn import InMemoryMinibatches

    data = obs.get("gauss").check_data(real_data_for("gauss", 300))
    model = make_mixture_model(MixtureConfig(obs_model="gauss", weights=weights, n_components=4), data)
    params = initial_params(model, data, 4, "kmeans++", np.random.default_rng(0))
    svi = StochasticVI(Constant(1.0), np.random.default_rng(0))
    lap = svi.lap(model, InMemoryMinibatches(data, 1), svi.start(model, None, params))
    batch = BatchVB().lap(model, [data], BatchVB().start(model, [data], params))
    assert not lap.exact and lap.elbo_terms.keys() == batch.elbo_terms.keys()
    for key, value in batch.elbo_terms.items():
        assert lap.elbo_terms[key] == pytest.approx(value, rel=1e-10, abs=1e-8)


@pytest.mark.parametrize("sampling", ["without_replacement", "with_replacement"])
def test_stochastic_fit_approaches_batch_fit(sampling):
    X = real_data_for("diag_gauss", 600)
    vb = DPMixture(algorithm="vb", n_components=6, obs_model="diag_gauss", random_state=0).fit(X)
    svi = DPMixture(n_components=6, obs_model="diag_gauss", algorithm="stochastic", n_batches=6, max_laps=40,
                    algorithm_options=dict(sampling=sampling, learning_rate_delay=1.0, learning_rate_decay=0.6),
                    random_state=0).fit(X)
    assert not svi.trace_[-1]["exact"] and svi.n_iter_ == 40
    assert np.isfinite(svi.lower_bound_)  # exact ELBO from a final pass
    assert svi.lower_bound_ > vb.lower_bound_ - 0.02 * abs(vb.lower_bound_)
    again = DPMixture(n_components=6, obs_model="diag_gauss", algorithm="stochastic", n_batches=6, max_laps=40,
                      algorithm_options=dict(sampling=sampling, learning_rate_delay=1.0, learning_rate_decay=0.6),
                      random_state=0).fit(X)
    assert again.lower_bound_ == svi.lower_bound_
