"""Draws from the full-covariance Gaussian's Normal-Wishart posterior (obs/gauss.py ``sample_params``,
what the blocked Gibbs sampler of the HMM draws emissions from) and their log-densities."""

import numpy as np
from scipy.stats import multivariate_normal

from stickbreak.obs import expfam, gauss


def test_drawn_gaussian_parameters_have_the_normal_wishart_means():
    """``E[Lambda] = nu B^-1`` and ``E[mu] = m`` under the posterior (Monte Carlo, 5 standard errors)."""
    rng = np.random.default_rng(1)
    data = gauss.check_data(rng.normal(size=(30, 3)) @ np.array([[1, 0.5, 0], [0, 1, 0.3], [0, 0, 2.0]]))
    resp = np.repeat(np.eye(2), 15, axis=0)
    prior = gauss.default_prior(data)
    post = expfam.posterior(gauss, prior, {"N": resp.sum(0), **gauss.suff_stats(data, resp, prior)})
    nu, kappa, mean, scale, _ = gauss.common_params(post)
    draws = [gauss.sample_params(post, rng) for _ in range(4000)]
    precisions = np.array([np.linalg.inv(d["chol"] @ np.swapaxes(d["chol"], 1, 2)) for d in draws])
    means = np.array([d["means"] for d in draws])
    for got, want in ((precisions, nu[:, None, None] * np.linalg.inv(scale)), (means, mean + post["origin"])):
        se = got.std(axis=0) / np.sqrt(len(draws))
        assert np.all(np.abs(got.mean(axis=0) - want) <= 5 * se)


def test_params_loglik_is_the_gaussian_log_density():
    rng = np.random.default_rng(3)
    data = gauss.check_data(rng.normal(size=(20, 3)))
    prior = gauss.default_prior(data)
    resp = np.repeat(np.eye(2), 10, axis=0)
    drawn = gauss.sample_params(expfam.posterior(gauss, prior,
                                                 {"N": resp.sum(0), **gauss.suff_stats(data, resp, prior)}), rng)
    for k in range(2):
        cov = drawn["chol"][k] @ drawn["chol"][k].T
        np.testing.assert_allclose(gauss.params_loglik(drawn, data)[:, k],
                                   multivariate_normal(drawn["means"][k], cov).logpdf(data.X), rtol=1e-10)
