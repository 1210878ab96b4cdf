"""DILN (Paisley, Wang & Blei 2012): kernel twin, prior moments, gradients, exact ELBO, monotone batch VI,
the stochastic step and the HDP special case."""

import warnings
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma, gammaln

from stickbreak.models.diln import locations as diln_locations
from stickbreak.priors import diln_generative as diln_prior, diln_sticks
from stickbreak.models.diln.model import DILNModel, DILNPrior, topic_correlation
from stickbreak.config import LearnConfig
from stickbreak.data import BagOfWords
from stickbreak import driver
from stickbreak.kernels.diln import _reference as ref
from stickbreak.kernels.diln.local import BEST, SCRATCH, WARM, diln_local_step
from stickbreak.kernels.topics._reference_dense import _doc_iterate
from stickbreak.learn import BatchVB
from stickbreak.models.topics.init import initial_topics

PRIOR = DILNPrior(topic_word_prior=0.3, latent_dim=3, location_variance=0.3)


def corpus(seed=0, n_docs=40, correlated=True):
    rng = np.random.default_rng(seed)
    draw = diln_prior.sample_corpus(rng, n_docs, 60, 25, n_topics=6, latent_dim=3, location_variance=0.5,
                                    correlated=correlated)
    X = draw["X"][np.asarray(draw["X"].sum(axis=1)).ravel() > 0]
    return BagOfWords.from_counts(X)


def fitted(correlated=True, laps=3, seed=0, n_topics=6):
    """A model, its parameters after a few batch laps, and the data."""
    X = corpus(seed, correlated=correlated)
    model = DILNModel({"lam": np.full(X.n_features, PRIOR.topic_word_prior)}, PRIOR, correlated=correlated)
    rng = np.random.default_rng(seed)
    params = model.initial_params(initial_topics(X, model.obs_prior["lam"], n_topics, "random", rng), rng)
    result = driver.fit(model, [X], params, BatchVB(), LearnConfig(max_laps=laps, tol=0))
    return model, result.params, X


# ------------------------------------------------------------------------------------------- kernel
@pytest.mark.slow
@pytest.mark.parametrize("correlated", [True, False])
@pytest.mark.parametrize("start", [SCRATCH, WARM, BEST])
def test_kernel_matches_numpy_twin(correlated, start):
    rng = np.random.default_rng(3)
    X = corpus(1).counts
    X = sp.vstack([X, sp.csr_matrix(([500.0], ([0], [2])), shape=(1, X.shape[1]))]).tocsr()  # one word, many tokens
    n_docs, n_topics, dim = X.shape[0], 6, (3 if correlated else 0)
    lam = rng.gamma(0.5, 1.0, (n_topics, X.shape[1])) + 0.05
    log_eta_t = (digamma(lam) - digamma(lam.sum(axis=1))[:, None]).T.copy()
    centered = log_eta_t - log_eta_t.max(axis=1, keepdims=True)
    shapes = np.array([2.0, 0.5, 0.1, 1e-3, 1e-6, 0.3])  # includes the floor's scale
    locations = rng.normal(0, 0.6, (n_topics, dim))
    warm = [rng.gamma(2.0, 1.0, (n_docs, n_topics)), rng.gamma(2.0, 1.0, (n_docs, n_topics)),
            rng.gamma(2.0, 1.0, n_docs), rng.normal(0, 0.3, (n_docs, dim)), rng.gamma(1.0, 3.0, (n_docs, n_topics))]
    state = [w.copy() for w in warm]
    out = diln_local_step(X.indptr, X.indices, X.data, np.exp(centered), centered, shapes, locations, correlated,
                          start, *state, 200, 1e-7, 1e-7, 2, 2)
    twin_state = [w.copy() for w in warm]
    twin = ref.diln_local_step(X, log_eta_t, shapes, locations, correlated, start, *twin_state, 200, 1e-7, 1e-7, 2)
    for got, want in zip(out[:3], twin[:3]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    for got, want in zip(state, twin_state):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_document_location_gradient_by_finite_differences():
    """The gradient and Hessian the kernel's Newton step on u uses (Eq. 24) are those of the document's
    ELBO with q(Z) fixed (the twin's first-principles objective)."""
    rng = np.random.default_rng(8)
    shapes, loc = rng.gamma(1.0, 0.5, 5), rng.normal(0, 0.5, (5, 3))
    a, b, u = rng.gamma(2.0, 1.0, 5), rng.gamma(2.0, 1.0, 5), rng.normal(0, 0.3, 3)
    words, cnts = np.array([0, 2]), np.array([3.0, 1.0])
    log_eta_t = np.log(rng.dirichlet(np.ones(5), 4))
    phi = rng.dirichlet(np.ones(5), 2)

    def elbo(v):
        return ref.doc_objective(words, cnts, log_eta_t, shapes, loc, True, (phi.T @ cnts, phi, a, b, 2.0, v, 0))

    x = loc @ u
    weight = a / b * np.exp(-x)
    grad = loc.T @ (weight - shapes) - u
    hess = -(loc.T * weight) @ loc - np.eye(3)
    h = 1e-5
    for j in range(3):
        e = np.eye(3)[j] * h
        assert (elbo(u + e) - elbo(u - e)) / (2 * h) == pytest.approx(grad[j], rel=1e-6, abs=1e-8)
        fd = ((loc.T @ (a / b * np.exp(-loc @ (u + e)) - shapes) - (u + e))
              - (loc.T @ (a / b * np.exp(-loc @ (u - e)) - shapes) - (u - e))) / (2 * h)
        np.testing.assert_allclose(fd, hess[:, j], rtol=1e-6, atol=1e-8)


def test_local_step_solves_the_location_equation():
    """At convergence ``u`` is the stationary point of Eq. 24: sum_k (E Z_k e^{-l_k'u} - s_k) l_k = u."""
    model, params, X = fitted()
    tight = DILNModel(model.obs_prior, PRIOR, max_iter=500, tol=1e-10, location_tol=1e-12, newton_steps=3)
    local = tight.local_step(params, X)
    x = local.u @ params.locations.T
    grad = ((local.mean_z * np.exp(-x) - params.shapes) @ params.locations) - local.u
    assert np.abs(grad).max() < 1e-6


# ------------------------------------------------------------------------------------- prior moments
def test_conditional_moments_eq13_monte_carlo():
    rng = np.random.default_rng(0)
    p, beta = np.array([0.5, 0.3, 0.2]), 4.0
    locations = np.array([[0.3, 0.1], [-0.2, 0.25], [0.1, -0.3]])
    z, _ = diln_prior.sample_doc_weights(rng, p, beta, locations, 400_000)
    mean, cov = diln_prior.conditional_moments(p, beta, locations @ locations.T)
    se_mean = np.sqrt(np.diag(cov) / len(z))
    assert np.all(np.abs(z.mean(axis=0) - mean) < 5 * se_mean)
    np.testing.assert_allclose(np.cov(z.T), cov, rtol=0.05, atol=0.005)
    assert np.all(np.sign(cov[np.triu_indices(3, 1)]) == np.sign((locations @ locations.T)[np.triu_indices(3, 1)]))


def test_marginal_moments_eq14_monte_carlo():
    rng = np.random.default_rng(1)
    alpha, beta, n = 2.0, 3.0, 300_000
    locations = np.array([[0.3, 0.2], [-0.25, 0.2]])
    kernel = locations @ locations.T
    sticks = rng.beta(1.0, alpha, (n, 2))
    p = np.stack([sticks[:, 0], sticks[:, 1] * (1 - sticks[:, 0])], axis=1)
    u = rng.standard_normal((n, 2))
    z = rng.gamma(beta * p) * np.exp(u @ locations.T)
    for i in (1, 2):
        mean_i, square_i = diln_prior.stick_moments(alpha, i)
        assert abs(p[:, i - 1].mean() - mean_i) < 5 * p[:, i - 1].std() / np.sqrt(n)
        assert abs((p[:, i - 1] ** 2).mean() - square_i) < 5 * (p[:, i - 1] ** 2).std() / np.sqrt(n)
    assert abs((p[:, 0] * p[:, 1]).mean() - diln_prior.stick_moments(alpha, 2, 1)[2]) < 0.002
    mean, var, cov = diln_prior.marginal_moments(alpha, beta, kernel, 2, 1)
    assert abs(z[:, 1].mean() - mean) < 5 * z[:, 1].std() / np.sqrt(n)
    assert var == pytest.approx(z[:, 1].var(), rel=0.05)
    assert cov == pytest.approx(np.cov(z[:, 1], z[:, 0])[0, 1], rel=0.1)
    assert cov < 0  # negative structured covariance: the inner-product kernel allows it


def test_hdp_switch_gives_dirichlet_weights():
    rng = np.random.default_rng(2)
    p, beta = np.array([0.6, 0.3, 0.1]), 2.5
    z, _ = diln_prior.sample_doc_weights(rng, p, beta, rng.normal(size=(3, 2)), 200_000, correlated=False)
    theta = z / z.sum(axis=1, keepdims=True)
    a = beta * p
    np.testing.assert_allclose(theta.mean(axis=0), p, atol=0.003)
    np.testing.assert_allclose(theta.var(axis=0), p * (1 - p) / (a.sum() + 1), rtol=0.03)


def test_auxiliary_bound_is_below_the_expectation():
    """-E log sum Z >= -log xi - (sum E Z - xi) / xi for any xi (App. 7.2), tight in xi at sum E Z."""
    rng = np.random.default_rng(4)
    a, b = np.array([0.5, 2.0, 7.0]), np.array([1.5, 0.7, 3.0])
    exact = -np.log(rng.gamma(a, 1 / b, (200_000, 3)).sum(axis=1)).mean()
    mean_total = (a / b).sum()
    grid = np.linspace(0.2, 5, 481) * mean_total
    bound = -np.log(grid) - (mean_total - grid) / grid
    assert np.all(bound <= exact + 1e-3)
    assert grid[np.argmax(bound)] == pytest.approx(mean_total)


# ------------------------------------------------------------------------------------------ gradients
def _elbo(model, params, stats):
    return sum(model.elbo_terms(params, stats).values())


def _with(model, params, **changes):
    weights = {**params.weights, **changes}
    return model.make_params(params.uids, params.obs["lam"], weights)


def _state(correlated=True, update="paper"):
    model, params, X = fitted(correlated)
    model = replace(model, concentration_update=update)
    stats = model.summarize(X, model.local_step(params, X), params.uids)
    return model, params, stats


UPDATES = ["paper", "joint"]


@pytest.mark.parametrize("update", UPDATES)
def test_stick_gradient_and_hessian_by_finite_differences(update):
    """Against the model's ELBO: with the joint update that is the ELBO at each document's best q(Z)."""
    model, params, stats = _state(update=update)
    terms = model._gammas(stats, params.locations)
    v, alpha, beta = params.sticks, params.alpha, params.beta
    grad = diln_sticks.stick_gradient(v, alpha, beta, terms)
    hess = diln_sticks.stick_hessian(v, alpha, beta, terms)
    h = 1e-6
    interior = np.flatnonzero((v > 1e-4) & (v < 1 - 1e-4))  # the finite differences stay inside (0, 1)
    assert len(interior) >= len(v) // 2
    for k in interior:
        e = np.zeros_like(v)
        e[k] = h
        fd = (_elbo(model, _with(model, params, sticks=v + e), stats)
              - _elbo(model, _with(model, params, sticks=v - e), stats)) / (2 * h)
        assert fd == pytest.approx(grad[k], rel=1e-5, abs=1e-4)
        fd_row = (diln_sticks.stick_gradient(v + e, alpha, beta, terms)
                  - diln_sticks.stick_gradient(v - e, alpha, beta, terms)) / (2 * h)
        np.testing.assert_allclose(hess[interior, k], fd_row[interior], rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(hess, hess.T)


@pytest.mark.parametrize("update", UPDATES)
def test_beta_and_alpha_by_finite_differences(update):
    model, params, stats = _state(update=update)
    terms = model._gammas(stats, params.locations)
    M, beta = stats.scalars["n_items"], params.beta
    h = 1e-6 * beta
    fd = (_elbo(model, _with(model, params, beta=beta + h), stats)
          - _elbo(model, _with(model, params, beta=beta - h), stats)) / (2 * h)
    assert fd == pytest.approx(diln_sticks.beta_derivative(beta, params.sticks, terms, *PRIOR.beta_prior), rel=1e-5)
    best = diln_sticks.optimize_beta(beta, params.sticks, terms, *PRIOR.beta_prior)
    assert abs(diln_sticks.beta_derivative(best, params.sticks, terms, *PRIOR.beta_prior)) < 1e-6 * M
    alpha = diln_sticks.optimal_alpha(params.sticks, *PRIOR.alpha_prior)  # Eq. 28 maximises the ELBO in alpha
    values = [_elbo(model, _with(model, params, alpha=alpha * f), stats) for f in (0.99, 1.0, 1.01)]
    assert values[1] > max(values[0], values[2])


def test_location_gradient_and_hessian_by_finite_differences():
    model, params, stats = _state()
    loc, c = params.locations, PRIOR.location_variance
    docs = (stats.documents.weighted_mean_z, stats.documents.u)
    moments = diln_locations.location_statistics(*docs, loc)
    grad, hess = diln_locations.gradient_and_hessian(loc, params.shapes, stats.location_sum, moments, c)
    h = 1e-6
    for k in range(loc.shape[0]):
        for j in range(loc.shape[1]):
            e = np.zeros_like(loc)
            e[k, j] = h
            fd = (_elbo(model, _with(model, params, locations=loc + e), stats)
                  - _elbo(model, _with(model, params, locations=loc - e), stats)) / (2 * h)
            assert fd == pytest.approx(grad[k, j], rel=1e-5, abs=1e-5)
            up = diln_locations.gradient_and_hessian(
                loc + e, params.shapes, stats.location_sum, diln_locations.location_statistics(*docs, loc + e), c)[0]
            down = diln_locations.gradient_and_hessian(
                loc - e, params.shapes, stats.location_sum, diln_locations.location_statistics(*docs, loc - e), c)[0]
            np.testing.assert_allclose(-(up[k] - down[k]) / (2 * h), hess[k, :, j], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------ the ELBO
def brute_force_elbo(model, params, X, docs):
    """Eq. 21 term by term from the document-level parameters ``docs`` (the twin's ``phi, a, b, xi, u``)."""
    lam = params.obs["lam"]
    elog_eta = digamma(lam) - digamma(lam.sum(axis=1))[:, None]
    s, loc, g0, V = params.shapes, params.locations, PRIOR.topic_word_prior, lam.shape[1]
    total = 0.0
    for d, (phi, a, b, xi, u) in enumerate(docs):
        words = X.indices[X.indptr[d]:X.indptr[d + 1]]
        cnts = X.data[X.indptr[d]:X.indptr[d + 1]]
        log_z = digamma(a) - np.log(b)
        rate = np.exp(-(loc @ u)) if model.correlated else np.ones(len(s))
        terms = elog_eta[:, words].T + log_z[None, :] - np.log(np.maximum(phi, 1e-300))
        total += float(cnts @ (phi * terms).sum(axis=1))
        total -= cnts.sum() * (np.log(xi) + ((a / b).sum() - xi) / xi)
        total += float((s * np.log(rate) - gammaln(s) + (s - 1) * log_z - rate * a / b).sum())
        total += float((a - np.log(b) + gammaln(a) + (1 - a) * digamma(a)).sum())
        if model.correlated:
            total += -0.5 * u @ u - 0.5 * len(u) * np.log(2 * np.pi)
    total += float((gammaln(V * g0) - V * gammaln(g0) + (g0 - 1) * elog_eta.sum(axis=1)).sum())
    total += float((-gammaln(lam.sum(axis=1)) + gammaln(lam).sum(axis=1) - ((lam - 1) * elog_eta).sum(axis=1)).sum())
    alpha, beta = params.alpha, params.beta
    total += float((np.log(alpha) + (alpha - 1) * np.log1p(-params.sticks)).sum())
    total += diln_sticks.log_gamma_density(alpha, *PRIOR.alpha_prior)
    total += diln_sticks.log_gamma_density(beta, *PRIOR.beta_prior)
    if model.correlated:
        c = PRIOR.location_variance
        total += float(-(loc**2).sum() / (2 * c) - 0.5 * loc.size * np.log(2 * np.pi * c))
    return total


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("correlated", [True, False])
def test_elbo_equals_brute_force_for_new_globals(correlated, update):
    """The decomposed ELBO is exact for the local q of one step and *other* global parameters; with the
    joint update it is the ELBO with each document's q(Z) at its optimum a = s + N, b = N/xi + exp(-l'u)."""
    model, params, X = fitted(correlated)
    tight = DILNModel(model.obs_prior, PRIOR, correlated=correlated, max_iter=300, tol=1e-9, location_tol=1e-9,
                      concentration_update=update)
    local = tight.local_step(params, X)
    stats = tight.summarize(X, local, params.uids)
    new = tight.global_step(stats, params)
    log_eta_t = (digamma(params.obs["lam"]) - digamma(params.obs["lam"].sum(axis=1))[:, None]).T
    c = X.counts
    docs = []
    for d in range(X.n_items):
        words, cnts = c.indices[c.indptr[d]:c.indptr[d + 1]], c.data[c.indptr[d]:c.indptr[d + 1]]
        N, phi, a, b, xi, u, _ = ref.solve_doc(words, cnts, log_eta_t, params.shapes, params.locations, correlated,
                                               SCRATCH, None, None, 1.0, None, 300, 1e-9, 1e-9, 1)
        np.testing.assert_allclose(a, local.a[d], rtol=1e-6)
        docs.append((phi, N, a, b, xi, u))
    for p in (params, new):
        if update == "joint":
            tilt = [np.exp(-(p.locations @ u)) if correlated else 1.0 for *_, u in docs]
            at = [(phi, p.shapes + N, tl + N.sum() / xi, xi, u) for (phi, N, a, b, xi, u), tl in zip(docs, tilt)]
        else:
            at = [(phi, a, b, xi, u) for phi, N, a, b, xi, u in docs]
        assert _elbo(tight, p, stats) == pytest.approx(brute_force_elbo(tight, p, c, at), rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("correlated", [True, False])
@pytest.mark.parametrize("start", ["warm", "best"])
def test_batch_vi_elbo_is_monotone(correlated, start, update):
    X = corpus(5, n_docs=60, correlated=correlated)
    model = DILNModel({"lam": np.full(X.n_features, 0.3)}, PRIOR, correlated=correlated, local_start=start,
                      concentration_update=update)
    assert model.monotone
    rng = np.random.default_rng(5)
    params = model.initial_params(initial_topics(X, model.obs_prior["lam"], 8, "random", rng), rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the driver warns on any ELBO decrease
        result = driver.fit(model, [X.subset(np.arange(30)), X.subset(np.arange(30, X.n_items))], params,
                            BatchVB(), LearnConfig(max_laps=25, tol=0))
    elbo = np.array([r.elbo for r in result.trace])
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))
    assert elbo[-1] > elbo[0]


@pytest.mark.parametrize("update", UPDATES)
def test_each_global_block_raises_the_elbo(update):
    """The batch global step is block coordinate ascent: topics, then (V, alpha), l, beta in that order
    (paper); topics, l, then (V, alpha, beta) with every document's q(Z) (joint). The joint trace is the
    ELBO at the best q(Z), so it starts above the paper's by the documents' own gain."""
    model, params, stats = _state(update=update)
    new = model.global_step(stats, params)
    value = _elbo(replace(model, concentration_update="paper"), params, stats)
    current = model.make_params(params.uids, new.obs["lam"], params.weights)
    blocks = ((("lam",), ("sticks", "alpha"), ("locations",), ("beta",)) if update == "paper"
              else (("lam",), ("locations",), ("sticks", "alpha", "beta")))
    for names in blocks:
        if names != ("lam",):
            current = _with(model, current, **{n: new.weights[n] for n in names})
        assert _elbo(model, current, stats) >= value - 1e-9
        value = _elbo(model, current, stats)
    assert value == pytest.approx(_elbo(model, new, stats))
    assert value > _elbo(model, params, stats)


# ---------------------------------------------------------------------------------- stochastic steps
def test_newton_targets_are_fixed_points_at_the_optimum():
    model, params, stats = _state()
    terms = model._gammas(stats, params.locations)
    M = stats.scalars["n_items"]
    v = diln_sticks.optimize_sticks(params.sticks, params.alpha, params.beta, terms)
    grad = diln_sticks.stick_gradient(v, params.alpha, params.beta, terms)
    interior = (v > 1e-6) & (v < 1 - 1e-6)
    assert np.abs(grad[interior]).max() < 1e-3 * M
    step = diln_sticks.newton_sticks(v, params.alpha, params.beta, terms) - v
    assert np.abs(step[interior]).max() < 1e-4
    docs = (stats.documents.weighted_mean_z, stats.documents.u)
    loc = diln_locations.optimize_locations(params.locations, params.shapes, stats.location_sum, *docs,
                                            PRIOR.location_variance, max_steps=50)
    moments = diln_locations.location_statistics(*docs, loc)
    target = diln_locations.newton_locations(loc, params.shapes, stats.location_sum, moments, PRIOR.location_variance)
    np.testing.assert_allclose(target, loc, atol=1e-6)


def test_stochastic_step_is_a_preconditioned_gradient_step():
    """Alg. 2: blend(old, target, rho) = old + rho A grad for V and l; alpha follows Eq. 28."""
    model, params, stats = _state()
    svi = DILNModel(model.obs_prior, PRIOR, global_update="newton_step", local_start="scratch")
    target = svi.global_step(stats.scaled(2.0), params)
    rho = 0.3
    new = svi.blend(params, target, rho)
    terms = svi._gammas(stats.scaled(2.0), params.locations)
    newton = diln_sticks.newton_sticks(params.sticks, params.alpha, params.beta, terms)
    np.testing.assert_allclose(new.sticks, params.sticks + rho * (newton - params.sticks))
    np.testing.assert_allclose(new.obs["lam"], (1 - rho) * params.obs["lam"] + rho * target.obs["lam"])
    assert new.alpha == pytest.approx(diln_sticks.optimal_alpha(new.sticks, *PRIOR.alpha_prior))
    moments = stats.scaled(2.0).fields
    grad, hess = diln_locations.gradient_and_hessian(params.locations, params.shapes, 2 * stats.location_sum,
                                                     moments, PRIOR.location_variance)
    np.testing.assert_allclose(new.locations, params.locations + rho * np.linalg.solve(hess, grad[..., None])[..., 0])


# ------------------------------------------------------------------------------------ the HDP switch
def test_hdp_special_case_local_step_is_the_hdp_local_step():
    """With exp(-l'u) := 1 every b_k is equal, so phi ∝ E[v,k] exp(psi(beta p_k + N_k)): the HDP's
    document update with prior beta p (Hughes's kernel) iterate for iterate."""
    model, params, X = fitted(correlated=False)
    local = DILNModel(model.obs_prior, PRIOR, correlated=False, local_start="scratch", max_iter=51,
                      tol=0.0).local_step(params, X)
    c = X.counts
    for d in range(c.shape[0]):  # the HDP's plain map (the NumPy twin's; its kernel accelerates it by SQUAREM)
        words, counts = c.indices[c.indptr[d]:c.indptr[d + 1]], c.data[c.indptr[d]:c.indptr[d + 1]]
        lik = params.exp_loglik[words]
        p0 = np.maximum(params.shapes, 1e-280)
        doc_topic = p0 * (lik.T @ (counts / (lik @ p0)))
        _doc_iterate(lik, counts, params.shapes, doc_topic, 50, 0.0)
        np.testing.assert_allclose(local.doc_topic[d], doc_topic, rtol=1e-9, atol=1e-9)


def test_topic_correlation_is_cosine():
    loc = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, -1.0], [-1.0, 0.0]])
    corr = topic_correlation(loc)
    np.testing.assert_allclose(np.diag(corr), 1.0)
    assert corr[0, 1] == pytest.approx(1.0) and corr[0, 2] == pytest.approx(0.0) and corr[0, 3] == pytest.approx(-1.0)


def test_prior_validation():
    with pytest.raises(ValueError, match="below 1"):
        DILNPrior(location_variance=1.5)
    with pytest.raises(ValueError, match="Gamma prior"):
        DILNPrior(beta_prior=(0.5, 1.0))
    with pytest.raises(ValueError, match="global_update"):
        DILNModel({"lam": np.ones(3)}, global_update="adam")
