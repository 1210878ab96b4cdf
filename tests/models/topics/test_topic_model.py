"""Topic models: the local-step kernel, the HDP top level, the ELBO and the three algorithms."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.special import digamma, gammaln

from stickbreak.models.topics.model import LocalOptions, TopicModel
from stickbreak.priors import topic_hdp as hdp_topics, topic_lda as lda
from stickbreak.config import LearnConfig, MovesConfig
from stickbreak.core.protocols import total_elbo
from stickbreak.data import BagOfWords
from stickbreak.datasets.synthetic import make_lda_corpus
from stickbreak.driver import fit, split_batches
from stickbreak.kernels.topics import _reference_dense as ref
from stickbreak.kernels.special import digamma as nb_digamma
from stickbreak.kernels.topics.dense import BEST, SCRATCH, WARM, dense_token_share, topic_local_step
from stickbreak.learn import BatchVB, MemoizedVI, StochasticVI
from stickbreak.models.topics.init import initial_topics

WEIGHTS = {"lda": (lda, lda.default_prior(0.3)), "hdp": (hdp_topics, hdp_topics.default_prior(0.5, 3.0))}


@pytest.fixture(scope="module")
def corpus():
    counts, topic_word, _ = make_lda_corpus(n_docs=120, n_topics=4, n_words=40, doc_length=60, seed=1)
    return BagOfWords.from_counts(counts), topic_word


def make_model(kind, n_words, **local):
    module, prior = WEIGHTS[kind]
    return TopicModel({"lam": np.full(n_words, 0.1)}, module, prior, LocalOptions(**local))


def start_params(model, data, n_topics, seed=0):
    lam = initial_topics(data, model.obs_prior["lam"], n_topics, "random", np.random.default_rng(seed))
    return model.initial_params(lam, data.n_items)


# ------------------------------------------------------------------ kernels
def test_numba_digamma_matches_scipy():
    x = np.concatenate([np.logspace(-8, 4, 200), [0.5, 1.0, 5.999, 6.0]])
    assert np.allclose([nb_digamma(v) for v in x], digamma(x), rtol=1e-10, atol=1e-10)
    assert nb_digamma(0.0) == -np.inf


@pytest.mark.parametrize("accelerate", [True, False])
@pytest.mark.parametrize("start", [SCRATCH, WARM, BEST])
@pytest.mark.parametrize("restarts,prior_rest", [(0, 0.0), (3, 0.2)])
def test_local_step_kernel_matches_numpy_twin(start, restarts, prior_rest, accelerate):
    rng = np.random.default_rng(3)
    X = sp.random(40, 60, density=0.25, random_state=4, format="csr")
    X.data = np.ceil(X.data * 6)
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    K = 6
    log_phi = np.log(rng.dirichlet(np.full(60, 0.2), size=K)).T
    centered = np.ascontiguousarray(log_phi - log_phi.max(axis=1, keepdims=True))
    prior = rng.uniform(1e-3, 0.5, K)
    previous = rng.gamma(1.0, 2.0, (X.shape[0], K))
    args = (X.indptr, X.indices, X.data, np.exp(centered), centered, prior, prior_rest)
    pairs = np.array([[0, 1], [2, 5], [4, 3]], dtype=np.int64)
    a, b = previous.copy(), previous.copy()
    weight_a, weight_b = np.zeros((X.shape[0], K)), np.zeros((X.shape[0], K))
    fast = topic_local_step(*args, a, start, 100, 1e-8, restarts, pairs, 2, weight_a, accelerate)
    slow = ref.topic_local_step(*args, b, start, 100, 1e-8, restarts, pairs, 2, weight_b, accelerate)
    assert np.allclose(a, b, atol=1e-6)
    # the stored weights rebuild every token's responsibilities exactly: they sum to the counts
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    joint = np.exp(centered)[X.indices] * weight_a[rows]
    resp = X.data[:, None] * joint / joint.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.add.reduceat(resp, X.indptr[:-1], axis=0), a, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(weight_a / weight_a.sum(axis=1, keepdims=True),
                               weight_b / weight_b.sum(axis=1, keepdims=True), atol=1e-6)
    for x, y in zip(fast[:3], slow[:3]):
        assert np.allclose(x, y, atol=1e-6)
    assert np.array_equal(fast[4], slow[4])
    assert np.all(fast[2] <= fast[1][pairs].sum(axis=1) + 1e-9)  # a merge never raises the entropy
    # the statistics are consistent: every token is assigned, topic-word counts sum to the doc counts
    assert np.allclose(a.sum(axis=1), np.asarray(X.sum(axis=1)).ravel())
    assert np.allclose(fast[0].sum(axis=0), a.sum(axis=0))


# ------------------------------------------------------------------ HDP top level
def test_token_share_kernel_matches_numpy_twin_and_does_not_depend_on_the_other_documents():
    rng = np.random.default_rng(3)
    counts = sp.random(40, 30, density=0.3, format="csr", random_state=4, data_rvs=lambda n: rng.integers(1, 5, n))
    exp_loglik, weight = rng.random((30, 7)), rng.random((40, 7))
    share = dense_token_share(counts.indptr, counts.indices, exp_loglik, weight, 2)
    np.testing.assert_allclose(share, ref.dense_token_share(counts.indptr, counts.indices, exp_loglik, weight, 2),
                               rtol=1e-13)
    tail = counts[17:]  # the same documents without those before them: the same shares, to the bit
    alone = dense_token_share(tail.indptr, tail.indices, exp_loglik, np.ascontiguousarray(weight[17:]), 2)
    assert np.array_equal(alone, share[counts.indptr[17]:])


def test_stick_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    prior = hdp_topics.default_prior(0.7, 4.0)
    K, D = 6, 50.0
    rho, omega = rng.uniform(0.05, 0.6, K), hdp_topics.init_omega(K, D, 4.0)
    log_pi, log_rest = -rng.uniform(1, 40, K) * D / 10, -30.0 * D / 10
    grad = hdp_topics.stick_gradient(prior, rho, omega, D, log_pi, log_rest)
    h = 1e-6
    for j in range(K):
        up, down = rho.copy(), rho.copy()
        up[j] += h
        down[j] -= h
        fd = (hdp_topics.stick_objective(prior, up, omega, D, log_pi, log_rest)
              - hdp_topics.stick_objective(prior, down, omega, D, log_pi, log_rest)) / (2 * h)
        assert fd == pytest.approx(grad[j], rel=1e-5, abs=1e-4)


def test_initial_omega_and_prior_optimum():
    assert np.allclose(hdp_topics.init_omega(3, 10, 5), [46, 36, 26])
    prior = hdp_topics.default_prior(0.5, 5.0)
    omega = hdp_topics.init_omega(4, 0.0, 5.0)
    rho = hdp_topics.optimize_rho(prior, np.full(4, 0.5), omega, 0.0, np.zeros(4), 0.0)
    assert np.allclose(rho, 1 / 6, atol=1e-4)  # no documents: the prior mean of Beta(1, gamma)


def test_surrogate_bound_lemma():
    rng = np.random.default_rng(1)
    for _ in range(200):
        K = int(rng.integers(1, 10))
        b = rng.dirichlet(np.full(K + 1, rng.uniform(0.1, 3)))
        alpha = rng.uniform(0.1, 10)
        c_dir = gammaln(alpha) - gammaln(alpha * b).sum()
        assert c_dir >= K * np.log(alpha) + np.log(b).sum() - 1e-9


def test_mean_sticks_are_the_mean_weights_by_monte_carlo():
    rng = np.random.default_rng(2)
    rho, omega = np.array([0.3, 0.5, 0.2]), np.array([40.0, 20.0, 10.0])
    u = rng.beta(rho * omega, (1 - rho) * omega, size=(200_000, 3))
    weights = u * np.column_stack([np.ones(len(u)), np.cumprod(1 - u, axis=1)[:, :-1]])
    beta, rest = hdp_topics.stick_weights(rho)
    assert np.allclose(weights.mean(axis=0), beta, atol=2e-3)
    assert np.prod(1 - u, axis=1).mean() == pytest.approx(rest, abs=2e-3)


# ------------------------------------------------------------------ the ELBO
def brute_force_elbo(model, params, data, doc_topic_counts, local_prior, local_rest, local_params):
    """The ELBO from explicit responsibilities, straight from the definitions (Eq. 5.18-5.29);
    the responsibilities are those of the converged local step under ``local_params``."""
    counts = data.counts.toarray()
    lam = params.obs["lam"]
    elog_phi = digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))  # (K, V)
    local_lam = local_params.obs["lam"]
    local_elog_phi = digamma(local_lam) - digamma(local_lam.sum(axis=1, keepdims=True))
    a, a_rest = model.weights.pseudo_counts(model.weights_prior, params.weights)
    total = 0.0
    for d in range(data.n_items):
        theta = doc_topic_counts[d] + local_prior
        theta_all = np.append(theta, local_rest) if local_rest > 0 else theta
        elog_pi_all = digamma(theta_all) - digamma(theta_all.sum())
        elog_pi = elog_pi_all[: len(theta)]
        log_r = local_elog_phi.T + elog_pi[None, :]  # (V, K): responsibilities given theta
        r = np.exp(log_r - log_r.max(axis=1, keepdims=True))
        r /= r.sum(axis=1, keepdims=True)
        words = counts[d] > 0
        c, rw = counts[d, words], r[words]
        n_dk = c @ rw
        a_all = np.append(a, a_rest) if local_rest > 0 else a
        total += np.sum(c[:, None] * rw * (elog_phi.T[words] - np.log(np.maximum(rw, 1e-300))))
        total += n_dk @ elog_pi + np.sum((a_all - 1) * elog_pi_all)
        total -= gammaln(theta_all.sum()) - gammaln(theta_all).sum() + np.sum((theta_all - 1) * elog_pi_all)
    lam_bar = model.obs_prior["lam"]
    kl_phi = (gammaln(lam.sum(1)) - gammaln(lam).sum(1) - gammaln(lam_bar.sum()) + gammaln(lam_bar).sum()
              + np.sum((lam - lam_bar) * elog_phi, axis=1))
    total -= kl_phi.sum()
    if model.weights is lda:
        k = len(a)
        return total + data.n_items * (gammaln(k * 0.3) - k * gammaln(0.3))
    return total + hdp_topics.top_elbo(model.weights_prior, params.weights, data.n_items)


@pytest.mark.parametrize("kind", ["lda", "hdp"])
def test_elbo_terms_equal_brute_force_even_after_the_global_step(kind, corpus):
    data, _ = corpus
    model = make_model(kind, data.n_features, tol=1e-11, max_iter=20000)
    params = start_params(model, data, 5)
    local = model.local_step(params, data)
    stats = model.summarize(data, local, params.uids)
    new = model.global_step(stats, params)  # the document prior a changes: slack terms must be kept
    for p in (params, new):
        expected = brute_force_elbo(model, p, data, local.doc_topic, local.prior, local.prior_rest, params)
        assert total_elbo(model.elbo_terms(p, stats)) == pytest.approx(expected, rel=1e-9, abs=1e-6)


# ------------------------------------------------------------------ algorithms
@pytest.mark.parametrize("kind", ["lda", "hdp"])
@pytest.mark.parametrize("start", ["warm", "best"])
def test_batch_vb_elbo_is_monotone(kind, start, corpus):
    data, _ = corpus
    model = make_model(kind, data.n_features, start=start, n_restarts=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        result = fit(model, [data], start_params(model, data, 8), BatchVB(), LearnConfig(max_laps=15, tol=0.0))
    elbo = np.array([r.elbo for r in result.trace])
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))
    assert elbo[-1] > elbo[0]


@pytest.mark.parametrize("kind", ["lda", "hdp"])
def test_memoized_elbo_is_monotone_after_every_batch(kind, corpus):
    data, _ = corpus
    model = make_model(kind, data.n_features, start="best", n_restarts=2)
    batches = split_batches(data, 4, seed=0).data
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # the learner warns on any decrease after a batch
        result = fit(model, batches, start_params(model, data, 8), MemoizedVI(MovesConfig(), np.random.default_rng(0)),
                     LearnConfig(algorithm="memoized", max_laps=8, tol=0.0))
    elbo = np.array([r.elbo for r in result.trace])
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))


@pytest.mark.parametrize("kind", ["lda", "hdp"])
def test_stochastic_step_of_one_on_all_data_is_a_batch_step(kind, corpus):
    data, _ = corpus
    model = make_model(kind, data.n_features)
    params = start_params(model, data, 6)
    svi = StochasticVI(lambda step: 1.0, np.random.default_rng(0))
    stepped, _, _ = svi.step(model, params, data, data.n_items, 1)
    batch = model.global_step(model.summarize(data, model.local_step(params, data), params.uids), params)
    assert np.allclose(stepped.obs["lam"], batch.obs["lam"])
    for key in batch.weights:
        assert np.allclose(stepped.weights[key], batch.weights[key])


def test_lda_recovers_synthetic_topics():
    counts, truth, _ = make_lda_corpus(n_docs=400, n_topics=4, n_words=40, doc_length=80, seed=5)
    data = BagOfWords.from_counts(counts)
    model = make_model("lda", data.n_features, tol=0.01)
    result = fit(model, [data], start_params(model, data, 4, seed=1), BatchVB(), LearnConfig(max_laps=60, tol=1e-7))
    found = result.params.topic_word
    cost = np.abs(found[:, None, :] - truth[None, :, :]).sum(axis=2) / 2  # total variation
    rows, cols = linear_sum_assignment(cost)
    assert cost[rows, cols].max() < 0.1


@pytest.mark.slow
def test_hdp_concentrates_on_the_true_topics():
    counts, truth, _ = make_lda_corpus(n_docs=400, n_topics=4, n_words=40, doc_length=80, seed=6)
    data = BagOfWords.from_counts(counts)
    model = make_model("hdp", data.n_features, n_restarts=5)
    result = fit(model, split_batches(data, 4, seed=0).data, start_params(model, data, 12, seed=2),
                 MemoizedVI(MovesConfig(), np.random.default_rng(0)),
                 LearnConfig(algorithm="memoized", max_laps=60, tol=1e-7))
    sizes = result.stats.counts
    top = np.argsort(-sizes)[:4]
    assert sizes[top].sum() > 0.9 * sizes.sum()
    cost = np.abs(result.params.topic_word[top][:, None, :] - truth[None]).sum(axis=2) / 2
    rows, cols = linear_sum_assignment(cost)
    assert cost[rows, cols].max() < 0.15
