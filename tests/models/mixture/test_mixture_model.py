"""Mixture weights (DP sticks, finite Dirichlet) and the whole mixture ELBO (DESIGN layer 2)."""

from dataclasses import replace

import numpy as np
import pytest
from scipy import stats as st

from stickbreak.models.mixture.model import MixtureLocal
from stickbreak.priors import mixture_dp as dp_mixture, mixture_finite as finite_mixture
from stickbreak.models import make_mixture_model
from stickbreak.config import MixtureConfig
from stickbreak.core.protocols import total_elbo
from stickbreak.models.mixture.init import initial_params
from stickbreak.obs import expfam

from conftest import ALL_FAMILIES, small_data


def _dp_post(rng, n_comp=5):
    prior = dp_mixture.default_prior(concentration=2.5, stick_a=1.3)
    return prior, dp_mixture.global_step(prior, rng.gamma(2.0, 3.0, n_comp))


def test_dp_expectations_match_monte_carlo():
    rng = np.random.default_rng(0)
    _, post = _dp_post(rng)
    sticks = rng.beta(post["eta1"], post["eta0"], size=(200_000, 5))
    weights = sticks * np.concatenate([np.ones((len(sticks), 1)), np.cumprod(1 - sticks, axis=1)[:, :-1]], axis=1)
    log_w = np.log(weights)
    se = log_w.std(axis=0) / np.sqrt(len(log_w))
    assert np.all(np.abs(dp_mixture.expected_log_weights(post) - log_w.mean(axis=0)) < 5 * se)
    se = weights.std(axis=0) / np.sqrt(len(weights))
    assert np.all(np.abs(dp_mixture.expected_weights(post) - weights.mean(axis=0)) < 5 * se)


def test_dp_counts_beyond_matches_bnpy_example():
    np.testing.assert_array_equal(dp_mixture.counts_beyond(np.array([1.0, 3, 7, 2])), [12, 9, 2, 0])


def _kl_monte_carlo(q, p, draws):
    values = q.logpdf(draws) - p.logpdf(draws)
    return values.mean(axis=0), values.std(axis=0) / np.sqrt(len(values))


def test_dp_elbo_equals_expected_log_lik_minus_kl():
    rng = np.random.default_rng(1)
    prior, post = _dp_post(rng)
    counts = rng.gamma(2.0, 3.0, 5)  # not the counts post came from: slack terms are non-zero
    draws = rng.beta(post["eta1"], post["eta0"], size=(200_000, 5))
    kl, se = _kl_monte_carlo(st.beta(post["eta1"], post["eta0"]), st.beta(prior["gamma1"], prior["gamma0"]), draws)
    expected = float(counts @ dp_mixture.expected_log_weights(post)) - kl.sum()
    assert dp_mixture.elbo(prior, post, counts) == pytest.approx(expected, abs=5 * np.sqrt((se**2).sum()))


def test_finite_elbo_equals_expected_log_lik_minus_kl():
    rng = np.random.default_rng(2)
    prior = finite_mixture.default_prior(0.7)
    post = finite_mixture.global_step(prior, rng.gamma(2.0, 3.0, 4))
    counts = rng.gamma(2.0, 3.0, 4)
    draws = rng.dirichlet(post["theta"], size=100_000)
    q, p = st.dirichlet(post["theta"]), st.dirichlet(np.full(4, prior["alpha"]))
    values = q.logpdf(draws.T) - p.logpdf(draws.T)
    expected = float(counts @ finite_mixture.expected_log_weights(post)) - values.mean()
    assert finite_mixture.elbo(prior, post, counts) == pytest.approx(expected,
                                                                     abs=5 * values.std() / np.sqrt(len(values)))
    se = np.log(draws).std(axis=0) / np.sqrt(len(draws))
    assert np.all(np.abs(finite_mixture.expected_log_weights(post) - np.log(draws).mean(axis=0)) < 5 * se)


@pytest.mark.parametrize("weights", [dp_mixture, finite_mixture])
def test_global_step_maximises_weight_elbo(weights):
    rng = np.random.default_rng(3)
    prior = weights.default_prior(1.5)
    counts = rng.gamma(2.0, 3.0, 6)
    best = weights.global_step(prior, counts)
    for _ in range(5):
        other = {k: v * rng.uniform(0.8, 1.2, v.shape) for k, v in best.items()}
        assert weights.elbo(prior, other, counts) < weights.elbo(prior, best, counts)


def _fitted_case(name, weights="dp", n_components=4, seed=0):
    data = small_data(name, np.random.default_rng(seed), 60)
    model = make_mixture_model(MixtureConfig(obs_model=name, weights=weights, n_components=n_components), data)
    params = initial_params(model, data, n_components, "kmeans++", np.random.default_rng(seed))
    stats = model.summarize(data, model.local_step(params, data))
    return model, data, model.global_step(stats), stats


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_appended_empty_component_leaves_dp_elbo_unchanged(name):
    """Nested truncation (Hughes 2016, Eq. 3.50)."""
    model, data, params, stats = _fitted_case(name)
    before = total_elbo(model.elbo_terms(params, stats))
    grown = stats.insert_empty([99])
    after = total_elbo(model.elbo_terms(model.global_step(grown), grown))
    assert after == pytest.approx(before, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("name", ALL_FAMILIES)
@pytest.mark.parametrize("weights", ["dp", "finite"])
def test_mixture_elbo_equals_brute_force(name, weights):
    """``sum_nk r_nk (E log p(x_n|k) + E log pi_k - log r_nk) - KL(q(phi)||p) - KL(q(pi)||p)``."""
    model, data, params, _ = _fitted_case(name, weights)
    resp = np.random.default_rng(4).dirichlet(np.ones(params.n_components), size=data.n_items)
    entropy = -(resp * np.log(resp)).sum(axis=0)
    stats = model.summarize(data, MixtureLocal(resp, np.zeros(data.n_items), entropy))
    log_pi = model.weights.expected_log_weights(params.weights)
    expected_joint = np.sum(resp * (model.obs.expected_loglik(params.obs, data) + log_pi - np.log(resp)))
    obs_kl = expfam.kl_to_prior(model.obs, model.obs_prior, params.obs).sum()
    weights_kl = float(stats.counts @ log_pi) - model.weights.elbo(model.weights_prior, params.weights, stats.counts)
    brute = expected_joint - obs_kl - weights_kl
    assert total_elbo(model.elbo_terms(params, stats)) == pytest.approx(brute, rel=1e-10)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_local_step_is_the_exact_optimum(name):
    """At the local optimum the responsibility part of the ELBO is ``sum_n log sum_k exp W_nk``."""
    model, data, params, _ = _fitted_case(name)
    local = model.local_step(params, data)
    stats = model.summarize(data, local)
    log_pi = model.weights.expected_log_weights(params.weights)
    weights_kl = float(stats.counts @ log_pi) - model.weights.elbo(model.weights_prior, params.weights, stats.counts)
    obs_kl = expfam.kl_to_prior(model.obs, model.obs_prior, params.obs).sum()
    assert total_elbo(model.elbo_terms(params, stats)) == pytest.approx(local.log_norm.sum() - obs_kl - weights_kl,
                                                                        rel=1e-9)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_score_reuses_the_normalizers_of_unchanged_components_exactly(name):
    """A merge's candidate scored after the current parameters (``previous``) recomputes only the
    merged component's log normalizer; its terms equal a score from scratch to the last bit, and
    reordered or removed components are matched by uid."""
    model, _, _, stats = _fitted_case(name)
    params, terms = model.score(stats)
    assert np.array_equal(params.log_normalizers, model.obs.log_normalizer(params.obs))
    pair = np.sort(stats.uids[np.argsort(-stats.counts)[:2]])[None]  # two components with items
    merged = stats.with_merge_terms(pair, np.zeros(1)).merge(int(pair[0, 0]), int(pair[0, 1]))
    for candidate in (merged, merged.reorder(merged.uids[::-1])):
        fresh, fresh_terms = model.score(candidate)
        reused, reused_terms = model.score(candidate, params)
        assert reused_terms == fresh_terms
        np.testing.assert_array_equal(reused.log_normalizers, fresh.log_normalizers)
    marked = replace(params, log_normalizers=params.log_normalizers + 1.0)  # which values are taken over?
    taken = model.score(merged, marked)[0].log_normalizers - model.score(merged)[0].log_normalizers
    np.testing.assert_allclose(taken, np.where(merged.uids == pair[0, 0], 0.0, 1.0))  # all but the merged one
