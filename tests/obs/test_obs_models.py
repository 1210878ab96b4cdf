"""Every observation model against brute force, Monte Carlo and scipy.stats (DESIGN layer 1-2)."""

import numpy as np
import pytest
from scipy import stats as st

from stickbreak.data import BagOfWords, DenseData, LaggedData
from stickbreak.obs import expfam

from conftest import ALL_FAMILIES, family_case


def _perturbed(nat, key, index, eps):
    out = {k: v.copy() for k, v in nat.items()}
    out[key][index] += eps
    return out


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_expected_t_is_minus_gradient_of_log_normalizer(name):
    family, data, prior, post, *_ = family_case(name)
    expected = family.expected_t(post)
    rng = np.random.default_rng(1)
    for key in family.natural_keys:
        value = post[key]
        for _ in range(4):
            index = tuple(rng.integers(0, s) for s in value.shape)
            eps = 1e-6 * max(1.0, abs(value[index]))
            up = family.log_normalizer(_perturbed(post, key, index, eps))[index[0]]
            down = family.log_normalizer(_perturbed(post, key, index, -eps))[index[0]]
            numeric = -(up - down) / (2 * eps)
            assert numeric == pytest.approx(expected[key][index], rel=1e-5, abs=1e-6), (key, index)


def _single_item(data, n):
    if isinstance(data, LaggedData):
        return data.subset([n])
    if isinstance(data, BagOfWords):
        return BagOfWords(data.counts[n:n + 1])
    return DenseData(data.X[n:n + 1])


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_log_predictive_equals_ratio_of_normalizers(name):
    """``log p(x|eta) = c(eta) - c(eta + inc(s(x))) + log h(x)`` for every item and component."""
    family, data, prior, post, *_ = family_case(name)
    closed_form = family.log_predictive(post, data)
    for n in range(0, data.n_items, 7):
        item = _single_item(data, n)
        item_stats = family.suff_stats(item, np.ones((1, 1)), prior)
        item_stats["N"] = np.ones(1)
        inc = family.stats_to_natural(item_stats)
        updated = {k: post[k] + inc[k] for k in family.natural_keys}
        brute = family.log_normalizer(post) - family.log_normalizer(updated) + family.log_base(item)
        np.testing.assert_allclose(closed_form[n], brute, rtol=1e-9, atol=1e-9)


def _sample_params(name, post, k, rng, size):
    """Draws of the likelihood parameters phi_k from q, via scipy.stats."""
    if name == "gauss":
        from stickbreak.obs.gauss import common_params
        nu, kappa, mean, scale, _ = common_params(post)
        lams = st.wishart(df=nu[k], scale=np.linalg.inv(scale[k])).rvs(size, random_state=rng)
        mean = mean + post["origin"]
        mus = np.array([rng.multivariate_normal(mean[k], np.linalg.inv(kappa[k] * lam)) for lam in lams])
        return list(zip(mus, lams))
    if name == "zero_mean_gauss":
        lams = st.wishart(df=post["nu"][k], scale=np.linalg.inv(post["scatter"][k])).rvs(size, random_state=rng)
        return [(np.zeros(len(lam)), lam) for lam in lams]
    if name == "diag_gauss":
        from stickbreak.obs.diag_gauss import common_params
        nu, kappa, mean, beta = common_params(post)
        mean = mean + post["origin"]
        lam = rng.gamma(nu[k] / 2.0, 2.0 / beta[k], size=(size, len(beta[k])))
        mu = rng.normal(mean[k], 1.0 / np.sqrt(kappa[k] * lam))
        return list(zip(mu, lam))
    if name == "ar_gauss":
        from stickbreak.obs.ar_gauss import common_params
        nu, mean, col_cov, _, scale, _ = common_params(post)
        lams = st.wishart(df=nu[k], scale=np.linalg.inv(scale[k])).rvs(size, random_state=rng)
        unit = st.matrix_normal(np.zeros_like(mean[k]), np.eye(mean.shape[1]), col_cov[k]).rvs(size, random_state=rng)
        return list(zip(mean[k] + np.linalg.cholesky(np.linalg.inv(lams)) @ unit, lams))  # A ~ MN(M, Lambda^-1, V)
    if name == "mult":
        return list(rng.dirichlet(post["lam"][k], size=size))
    if name == "bern":
        return list(rng.beta(post["lam1"][k], post["lam0"][k], size=(size, post["lam1"].shape[1])))
    raise AssertionError(name)


def _loglik(name, data, phi):
    if name in ("gauss", "zero_mean_gauss"):
        mu, lam = phi
        return st.multivariate_normal(mu, np.linalg.inv(lam)).logpdf(data.X)
    if name == "ar_gauss":
        coefs, lam = phi
        return st.multivariate_normal(np.zeros(len(lam)), np.linalg.inv(lam)).logpdf(data.X - data.Xprev @ coefs.T)
    if name == "diag_gauss":
        mu, lam = phi
        return st.norm(mu, 1.0 / np.sqrt(lam)).logpdf(data.X).sum(axis=1)
    if name == "mult":
        X = data.counts.toarray()
        return st.multinomial(X.sum(axis=1).astype(int), phi).logpmf(X)
    if name == "bern":
        return st.bernoulli(phi).logpmf(data.X).sum(axis=1)
    raise AssertionError(name)


@pytest.mark.slow
@pytest.mark.montecarlo
@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_expected_loglik_matches_monte_carlo(name):
    family, data, prior, post, *_ = family_case(name, n_items=12)
    closed_form = family.expected_loglik(post, data)
    rng = np.random.default_rng(7)
    for k in range(2):
        draws = np.array([_loglik(name, data, phi) for phi in _sample_params(name, post, k, rng, 4000)])
        mc_mean = draws.mean(axis=0)
        mc_se = draws.std(axis=0) / np.sqrt(len(draws))
        assert np.all(np.abs(closed_form[:, k] - mc_mean) < 5 * mc_se + 1e-8), (k, closed_form[:, k], mc_mean)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_elbo_slack_vanishes_after_global_step(name):
    family, data, prior, post, resp, stats = family_case(name)
    base = family.log_base(data)
    general = expfam.elbo_data(family, prior, post, stats, base)
    assert general == pytest.approx(expfam.elbo_data_optimal(family, prior, post, base), rel=1e-10)
    # and the global step maximises it: any other q(phi) scores lower
    shifted = {k: v * 1.05 for k, v in post.items()}
    assert expfam.elbo_data(family, prior, shifted, stats, base) < general


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_elbo_data_equals_brute_force_expectation(name):
    """ELBO = sum_nk r_nk E log p(x_n|phi_k) - sum_k KL(q||p), with E log p from expected_loglik."""
    family, data, prior, post, resp, stats = family_case(name)
    other_resp = np.random.default_rng(5).dirichlet(np.ones(resp.shape[1]), size=data.n_items)
    other_stats = family.suff_stats(data, other_resp, prior)
    other_stats["N"] = other_resp.sum(axis=0)
    other = expfam.posterior(family, prior, other_stats)  # a posterior that is not optimal for these stats
    brute = float(np.sum(resp * family.expected_loglik(other, data))) - float(
        np.sum(expfam.kl_to_prior(family, prior, other))
    )
    assert expfam.elbo_data(family, prior, other, stats, family.log_base(data)) == pytest.approx(brute, rel=1e-9)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_bregman_divergence_nonnegative_and_zero_at_own_center(name):
    family, data, prior, post, *_ = family_case(name)
    div = family.bregman_divergence(data, prior, post)
    assert div.shape == (data.n_items, 3) and (div >= 0).all()
    own = {}
    for n in range(3):
        item = _single_item(data, n)
        item_stats = family.suff_stats(item, np.ones((1, 1)), prior)
        item_stats["N"] = np.ones(1)
        center = expfam.posterior(family, prior, item_stats)
        own[n] = family.bregman_divergence(item, prior, center)[0, 0]
        others = family.bregman_divergence(data, prior, center)[:, 0]
        assert own[n] == pytest.approx(0.0, abs=1e-8)
        dense = data.counts.toarray() if isinstance(data, BagOfWords) else data.X
        if isinstance(data, LaggedData):  # an item is the pair (frame, predecessor)
            dense = np.hstack([data.X, data.Xprev])
        identical = (dense == dense[n]).all(axis=1)
        np.testing.assert_array_equal(others < 1e-9, identical)


def _log_density(name, nat, k, phi):
    """log q(phi) under natural parameters ``nat`` (component k), with scipy.stats densities."""
    if name == "gauss":
        from stickbreak.obs.gauss import common_params
        nu, kappa, mean, scale, _ = common_params(nat)
        mean = mean + nat["origin"]
        mu, lam = phi
        return (st.wishart(df=nu[k], scale=np.linalg.inv(scale[k])).logpdf(lam)
                + st.multivariate_normal(mean[k], np.linalg.inv(kappa[k] * lam)).logpdf(mu))
    if name == "zero_mean_gauss":
        return st.wishart(df=nat["nu"][k], scale=np.linalg.inv(nat["scatter"][k])).logpdf(phi[1])
    if name == "ar_gauss":
        from stickbreak.obs.ar_gauss import common_params
        nu, mean, col_cov, _, scale, _ = common_params(nat)
        coefs, lam = phi
        return (st.wishart(df=nu[k], scale=np.linalg.inv(scale[k])).logpdf(lam)
                + st.matrix_normal(mean[k], np.linalg.inv(lam), col_cov[k]).logpdf(coefs))
    if name == "diag_gauss":
        from stickbreak.obs.diag_gauss import common_params
        nu, kappa, mean, beta = common_params(nat)
        mean = mean + nat["origin"]
        mu, lam = phi
        return float(np.sum(st.gamma(nu[k] / 2.0, scale=2.0 / beta[k]).logpdf(lam)
                            + st.norm(mean[k], 1.0 / np.sqrt(kappa[k] * lam)).logpdf(mu)))
    if name == "mult":
        return st.dirichlet(nat["lam"][k]).logpdf(phi)
    if name == "bern":
        return float(np.sum(st.beta(nat["lam1"][k], nat["lam0"][k]).logpdf(phi)))
    raise AssertionError(name)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_posterior_is_prior_times_likelihood(name):
    """For hard assignments, ``log q(phi) - log p(phi) - log p(x|phi)`` is the same for every phi and
    equals ``-log p(x) = c(eta_hat) - c(eta_bar) - sum_n log h(x_n)`` (conjugacy, Eq. 2.67)."""
    family, data, prior, *_ = family_case(name, n_items=15)
    stats = family.suff_stats(data, np.ones((data.n_items, 1)), prior)
    stats["N"] = np.array([float(data.n_items)])
    post = expfam.posterior(family, prior, stats)
    prior_k = expfam.stack_prior(prior)
    rng = np.random.default_rng(3)
    residuals = [
        _log_density(name, post, 0, phi) - _log_density(name, prior_k, 0, phi) - _loglik(name, data, phi).sum()
        for phi in _sample_params(name, post, 0, rng, 6)
    ]
    log_marginal = family.log_normalizer(prior_k)[0] - family.log_normalizer(post)[0] + family.log_base(data)
    np.testing.assert_allclose(residuals, -log_marginal, rtol=1e-8, atol=1e-7)


@pytest.mark.slow
@pytest.mark.montecarlo
@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_kl_to_prior_matches_monte_carlo(name):
    family, data, prior, post, *_ = family_case(name)
    prior_k = expfam.stack_prior(prior)
    rng = np.random.default_rng(11)
    draws = np.array([_log_density(name, post, 1, phi) - _log_density(name, prior_k, 0, phi)
                      for phi in _sample_params(name, post, 1, rng, 3000)])
    kl = expfam.kl_to_prior(family, prior, post)[1]
    assert kl == pytest.approx(draws.mean(), abs=5 * draws.std() / np.sqrt(len(draws)))
