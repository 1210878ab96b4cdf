"""DILN's joint concentration update: ``V`` and ``beta`` maximised together with every document's
``q(Z)`` (:class:`~stickbreak.priors.diln_sticks.ProfiledGammas`, :mod:`stickbreak.models.diln.documents`)."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import digamma, gammaln, polygamma

from stickbreak import DILN
from stickbreak import datasets
from stickbreak.models.diln.documents import DilnDocuments, profile_gain
from stickbreak.priors.diln_sticks import SHAPE_FLOOR, ProfiledGammas


def _counts(rng, n_docs=30, n_topics=7):
    counts = rng.gamma(0.7, 4.0, (n_docs, n_topics))
    tiny = rng.random(counts.shape) < 0.3
    counts[tiny] = 10.0 ** rng.uniform(-40, -9, tiny.sum())
    counts[:, -1] = 10.0 ** rng.uniform(-30, -11, n_docs)  # a topic no document uses: only tiny counts
    counts[0, 0] = 0.0
    return counts


def _difference(order, s, n):
    """``psi^(order-1)(s + n) - psi^(order-1)(s)`` (order 0: lgamma) per entry: five Taylor terms where
    ``n < 1e-3 s`` (no cancellation), the plain difference elsewhere."""
    function = gammaln if order == 0 else (lambda z: polygamma(order - 1, z))
    series = sum(polygamma(order + j - 1, s) * n**j / np.prod(np.arange(1, j + 1)) for j in range(1, 6))
    return np.where(n < 1e-3 * s, series, function(s + n) - function(s))


def test_profiled_terms_equal_the_dense_sums():
    """Counts below TINY_COUNT enter by a three-term series: value, slope and curvature match the sums
    over every (document, topic) entry."""
    rng = np.random.default_rng(0)
    counts, weight = _counts(rng), rng.uniform(0.5, 2.0, 30)
    cost = rng.uniform(0.0, 2.0, counts.shape)
    terms = ProfiledGammas(counts, cost, weight)
    for s in (np.array([3.0, 0.5, 0.02, 1e-3, 1e-5, 0.7, SHAPE_FLOOR]), np.full(7, 2.5)):
        assert terms.value(s) == pytest.approx((weight @ (_difference(0, s, counts) - s * cost)).sum(), rel=1e-12)
        np.testing.assert_allclose(terms.slope(s), weight @ (_difference(1, s, counts) - cost), rtol=1e-10)
        np.testing.assert_allclose(terms.curvature(s), weight @ _difference(2, s, counts), rtol=1e-10)


def test_profiled_derivatives_by_finite_differences():
    rng = np.random.default_rng(1)
    terms = ProfiledGammas(_counts(rng), rng.uniform(0.0, 2.0, (30, 7)), np.ones(30))
    s = np.array([3.0, 0.5, 0.2, 0.05, 1.3, 0.7, 0.1])
    h = 1e-6
    for k in range(7):
        e = np.zeros(7)
        e[k] = h * s[k]
        assert (terms.value(s + e) - terms.value(s - e)) / (2 * e[k]) == pytest.approx(terms.slope(s)[k], rel=1e-6)
        fd = (terms.slope(s + e) - terms.slope(s - e)) / (2 * e[k])
        assert fd[k] == pytest.approx(terms.curvature(s)[k], rel=1e-5, abs=1e-6)


def test_profile_gain_is_the_best_gamma_factor():
    """g(a, b) is maximised at a = s + N, b = N/xi + exp(-l'u) (documents module): the gain is zero there,
    positive elsewhere, and equals a numerical maximisation over (a, b) of every factor."""
    rng = np.random.default_rng(2)
    n_docs, n_topics, dim = 4, 3, 2
    counts = rng.gamma(1.0, 3.0, (n_docs, n_topics))
    xi, u = rng.uniform(2.0, 9.0, n_docs), rng.normal(0, 0.5, (n_docs, dim))
    locations = rng.normal(0, 0.5, (n_topics, dim))
    shapes = np.array([0.8, 0.1, 2.0])
    x = u @ locations.T
    rate = counts.sum(axis=1, keepdims=True) / xi[:, None] + np.exp(-x)
    best = DilnDocuments(shapes + counts, rate, counts, xi, u, np.ones(n_docs))
    assert profile_gain(best, shapes, locations, True) == pytest.approx(0.0, abs=1e-10)
    a, b = rng.gamma(2.0, 2.0, counts.shape), rng.gamma(2.0, 1.0, counts.shape)
    gain = profile_gain(DilnDocuments(a, b, counts, xi, u, np.ones(n_docs)), shapes, locations, True)

    def g(log_ab, n, s, big_b):
        aa, bb = np.exp(log_ab)
        return (n + s - aa) * digamma(aa) + gammaln(aa) + aa - (n + s) * np.log(bb) - aa * big_b / bb

    numeric = 0.0
    for m in range(n_docs):
        for k in range(n_topics):
            args = (counts[m, k], shapes[k], rate[m, k])
            top = -minimize(lambda z: -g(z, *args), np.log([a[m, k], b[m, k]]), method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000}).fun
            numeric += top - g(np.log([a[m, k], b[m, k]]), *args)
    assert gain > 0
    assert gain == pytest.approx(numeric, rel=1e-6)


def test_beta_no_longer_depends_on_its_start():
    """With q(Z) held fixed (the paper's update) beta stays nearer where it starts; the joint update
    reaches nearly the same beta from 1 and from 20 (0.44 and 0.46 on 300 AP documents)."""
    X = datasets.load("ap").X.subset(np.arange(300))
    betas = {}
    for update in ("joint", "paper"):
        for start in (1.0, 20.0):
            est = DILN(n_topics=20, latent_dim=3, correlated=False, initial_beta=start, max_laps=30, tol=0,
                       random_state=0, algorithm_options={"concentration_update": update})
            betas[update, start] = est.fit(X).beta_
    assert betas["joint", 20.0] == pytest.approx(betas["joint", 1.0], rel=0.05)
    assert betas["paper", 20.0] > 1.2 * betas["paper", 1.0]  # 0.66 against 0.51 after 30 laps
