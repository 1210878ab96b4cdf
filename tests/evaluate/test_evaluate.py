"""Evaluation helpers against scipy and hand-computed values."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from stickbreak.evaluate import cluster_label_table, majority_vote_accuracy, plugin_gaussian_log_density


def test_plugin_density_matches_scipy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    means = rng.normal(size=(2, 3))
    covs = np.stack([np.eye(3) * 2.0, np.diag([1.0, 0.5, 3.0])])
    weights = np.array([0.3, 0.5])  # renormalised to 0.375 / 0.625
    expected = np.log(0.375 * multivariate_normal(means[0], covs[0]).pdf(X)
                      + 0.625 * multivariate_normal(means[1], covs[1]).pdf(X))
    np.testing.assert_allclose(plugin_gaussian_log_density(X, weights, means, covs), expected, rtol=1e-10)
    diag = np.stack([np.diag(c) for c in covs])
    np.testing.assert_allclose(plugin_gaussian_log_density(X, weights, means, diag), expected, rtol=1e-10)


def test_majority_vote_accuracy_and_table():
    truth = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    pred = np.array([5, 5, 7, 7, 7, 9, 9, 9])
    assert majority_vote_accuracy(truth, pred) == pytest.approx(7 / 8)
    table = cluster_label_table(truth, pred)
    assert table[0][1] == 3 and {row[0] for row in table} == {5, 7, 9}
    assert dict((row[0], row[2]) for row in table) == {5: 0, 7: 1, 9: 2}
