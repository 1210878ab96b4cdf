"""Empirical-Bayes concentrations of the mixture weights: the update maximises the ELBO's prior term,
the joint global step maximises the ELBO over the concentration too, and memoized VI with moves stays
monotone with it."""

import numpy as np
import pytest
from scipy.special import digamma

from stickbreak import DPMixture, FiniteMixture
from stickbreak.priors import empirical_bayes, mixture_dp, mixture_finite

COUNTS = np.array([500.0, 300.0, 100.0, 50.0, 5.0, 0.3, 0.0])
MODULES = [(mixture_dp, "gamma0"), (mixture_finite, "alpha")]


def test_stick_concentration_has_the_closed_form_for_the_dp():
    """With ``Beta(1, gamma)`` sticks the optimum is ``-K / sum_k E log(1 - u_k)``."""
    post = mixture_dp.global_step(mixture_dp.default_prior(2.0), COUNTS)
    log_rest = digamma(post["eta0"]) - digamma(post["eta1"] + post["eta0"])
    assert empirical_bayes.stick_concentration(1.0, log_rest, 2.0) == pytest.approx(-len(COUNTS) / log_rest.sum(), rel=1e-9)


@pytest.mark.parametrize("stick_a", [0.5, 1.0, 3.0])
def test_stick_concentration_zeroes_the_gradient(stick_a):
    log_rest = np.array([-0.3, -1.2, -0.05, -2.0])
    c = empirical_bayes.stick_concentration(stick_a, log_rest, 1.0)
    assert len(log_rest) * (digamma(stick_a + c) - digamma(c)) + log_rest.sum() == pytest.approx(0.0, abs=1e-8)


@pytest.mark.parametrize("module, key", MODULES)
def test_learned_global_step_maximises_the_elbo_over_the_concentration(module, key):
    prior = module.default_prior(1.0, learn=True)
    post = module.global_step(prior, COUNTS)
    best = module.elbo(prior, post, COUNTS)
    learned = module.concentration(prior, post)
    for factor in (0.5, 0.9, 1.1, 2.0):
        fixed = {**prior, key: learned * factor, "learn": False}
        assert module.elbo(fixed, post, COUNTS) < best  # the same q at another concentration
        assert module.elbo(fixed, module.global_step(fixed, COUNTS), COUNTS) < best  # its own optimal q


@pytest.mark.parametrize("module, key", MODULES)
def test_fixed_concentration_is_unchanged(module, key):
    prior = module.default_prior(0.7)
    assert module.concentration(prior, module.global_step(prior, COUNTS)) == 0.7


@pytest.mark.parametrize("cls", [DPMixture, FiniteMixture])
def test_memoized_moves_stay_monotone_and_report_the_learned_concentration(cls):
    X = np.random.default_rng(0).normal(size=(600, 2)) + np.repeat(np.array([[0, 0], [6, 0], [0, 6]]), 200, axis=0)
    model = cls(n_components=6, algorithm="memoized", moves=("birth", "merge", "delete"), n_batches=3,
                learn_concentration=True, concentration=5.0, max_laps=15, random_state=0).fit(X)
    elbo = model.elbo_trace_
    assert np.all(np.diff(elbo[1:]) >= -1e-9 * np.abs(elbo[2:]))
    assert model.concentration_ != 5.0 and np.isfinite(model.concentration_)
    assert model.n_components_ == 3
