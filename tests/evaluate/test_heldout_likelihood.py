"""Held-out likelihood of whole documents (stickbreak.evaluate.likelihood; Wang & Blei 2012, S.3)."""

import itertools
import warnings

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp

from stickbreak.data import BagOfWords, DataError
from stickbreak.evaluate.likelihood import (DEFAULT_N_SAMPLES, DEFAULT_N_SWEEPS, HeldoutScore, dp_heldout_loglik,
                                            hdp_importance_loglik)
from stickbreak.kernels.evaluate import _reference_hdp_importance as ref
from stickbreak.kernels.evaluate import hdp_importance as kern


def random_case(seed=0, n_docs=30, n_topics=4, n_words=12, rate=1.0):
    """(theta (K, V), pi (K,) summing to < 1, counts CSR with one empty document)."""
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(np.full(n_words, 0.5), size=n_topics)
    pi = rng.dirichlet(np.ones(n_topics + 1))[:n_topics]
    X = rng.poisson(rate, size=(n_docs, n_words)).astype(float)
    X[3] = 0.0
    return theta, pi, sp.csr_matrix(X)


def brute_force_dp(theta, pi, X):
    totals = []
    for row in X.toarray():
        if row.sum() > 0:
            totals.append(logsumexp(np.log(pi) + (row[None, :] * np.log(theta)).sum(axis=1)))
    return float(np.sum(totals)), len(totals)


def csr_rows(docs, n_words):
    """CSR counts from documents given as lists of word ids (repeats allowed)."""
    X = np.zeros((len(docs), n_words))
    for d, doc in enumerate(docs):
        np.add.at(X[d], doc, 1.0)
    return sp.csr_matrix(X)


def run_kernel(theta, prior, X, n_sweeps=20, n_samples=50, seeds=None, n_chunks=1):
    seeds = np.arange(X.shape[0], dtype=np.int64) if seeds is None else seeds
    return kern.hdp_importance_loglik(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data,
                                      np.ascontiguousarray(theta.T), prior, n_sweeps, n_samples, seeds, n_chunks)


def exact_hdp_loglik(theta, prior, doc):
    """log sum_z Polya(z | a) prod_j theta_{z_j, x_j} by enumerating every assignment."""
    n_topics, total = len(prior), []
    for z in itertools.product(range(n_topics), repeat=len(doc)):
        n = np.bincount(z, minlength=n_topics)
        log_polya = gammaln(prior.sum()) - gammaln(prior.sum() + len(doc)) + (gammaln(prior + n) - gammaln(prior)).sum()
        total.append(log_polya + np.log(theta[list(z), doc]).sum())
    return logsumexp(total)


# ------------------------------------------------------------------------------------------------- DP

def test_dp_matches_brute_force_and_skips_empty_documents():
    theta, pi, X = random_case()
    score = dp_heldout_loglik(theta, pi, X)
    total, n_docs = brute_force_dp(theta, pi, X)
    assert isinstance(score, HeldoutScore)
    assert score.total == pytest.approx(total, rel=1e-12)
    assert (score.n_documents, score.n_tokens) == (n_docs, int(X.sum())) and n_docs == X.shape[0] - 1
    assert score.per_word == pytest.approx(total / X.sum(), rel=1e-12)
    assert score.perplexity == pytest.approx(np.exp(-score.per_word))
    # unnormalised topic rows, a BagOfWords and a model object give the same score
    model = type("Fitted", (), {"topic_word_": 3.0 * theta})()
    assert dp_heldout_loglik(model, pi,
                             BagOfWords.from_counts(X, allow_empty=True)).total == pytest.approx(total, rel=1e-12)


def test_dp_renormalize_flag():
    theta, pi, X = random_case(seed=1)
    plain, renorm = dp_heldout_loglik(theta, pi, X), dp_heldout_loglik(theta, pi, X, renormalize=True)
    assert renorm.total == pytest.approx(brute_force_dp(theta, pi / pi.sum(), X)[0], rel=1e-12)
    assert renorm.total - plain.total == pytest.approx(-plain.n_documents * np.log(pi.sum()), rel=1e-10)
    # weights summing past one are only accepted when renormalised
    assert dp_heldout_loglik(theta, 5 * pi, X, renormalize=True).total == pytest.approx(renorm.total, rel=1e-12)
    with pytest.raises(DataError, match="sum to .* > 1"):
        dp_heldout_loglik(theta, 5 * pi, X)


def test_dp_zero_weight_and_zero_probability_words():
    theta, pi, X = random_case(seed=2)
    pi[1] = 0.0
    assert dp_heldout_loglik(theta, pi, X).total == pytest.approx(brute_force_dp(theta[[0, 2, 3]], pi[[0, 2, 3]], X)[0])
    theta[:, 5] = 0.0  # word 5 impossible under every topic
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dp_heldout_loglik(theta, pi, X).total == -np.inf


@pytest.mark.parametrize("scorer", ["dp", "hdp"])
def test_validation_errors(scorer):
    theta, pi, X = random_case()
    score = dp_heldout_loglik if scorer == "dp" else (lambda t, w, x, **kw: hdp_importance_loglik(t, w, x, 1.0, **kw))
    negative = X.toarray()
    negative[0, 0] = -1.0
    with pytest.raises(DataError, match="negative counts"):
        score(theta, pi, negative)
    with pytest.raises(DataError, match="vocabulary of 12 words but X has 11 columns"):
        score(theta, pi, X[:, :11])
    with pytest.raises(DataError, match=r"one weight per row of topic_word, shape \(4,\)"):
        score(theta, pi[:3], X)
    with pytest.raises(DataError, match="non-negative"):
        score(theta, np.array([0.5, -0.1, 0.2, 0.1]), X)
    with pytest.raises(DataError, match="non-negative"):
        score(theta, np.array([0.5, np.nan, 0.2, 0.1]), X)
    with pytest.raises(DataError, match="all zero"):
        score(theta, np.zeros(4), X)
    with pytest.raises(DataError, match="topic_word has negative"):
        score(-theta, pi, X)
    with pytest.raises(DataError, match="no tokens"):
        score(theta, pi, sp.csr_matrix((2, 12)))


def test_hdp_validation_errors():
    theta, pi, X = random_case()
    for bad in (0.0, -1.0, np.inf, "one"):
        with pytest.raises(DataError, match="doc_concentration"):
            hdp_importance_loglik(theta, pi, X, bad)
    with pytest.raises(DataError, match="n_samples must be an integer >= 1"):
        hdp_importance_loglik(theta, pi, X, 1.0, n_samples=0)
    with pytest.raises(DataError, match="n_sweeps must be an integer >= 0"):
        hdp_importance_loglik(theta, pi, X, 1.0, n_sweeps=2.5)
    with pytest.raises(DataError, match="non-integer counts"):
        hdp_importance_loglik(theta, pi, X * 0.5, 1.0)


# --------------------------------------------------------------------------------------- HDP weights

@pytest.mark.parametrize("case", ["ordinary", "tiny_prior", "long_doc", "one_topic"])
def test_importance_weights_match_numpy_twin(case):
    rng = np.random.default_rng(7)
    n_topics = {"one_topic": 1}.get(case, 5)
    theta_t = rng.dirichlet(np.full(30, 0.3), size=n_topics).T.copy()
    prior = rng.gamma(1.0, size=n_topics) * (1e-6 if case == "tiny_prior" else 1.0)
    words = np.array([1, 4, 9, 17, 29])
    counts = np.array([1.0, 3.0, 1.0, 2.0, 1.0]) * (200 if case == "long_doc" else 1)
    doc_topic = rng.multinomial(int(counts.sum()), np.ones(n_topics) / n_topics).astype(float)
    phi = rng.dirichlet(np.full(n_topics, 2.0), size=8)
    got = kern.importance_log_weights(words, counts, theta_t, prior, doc_topic, phi)
    np.testing.assert_allclose(got, ref.importance_log_weights(words, counts, theta_t, prior, doc_topic, phi),
                               rtol=1e-11, atol=1e-9)
    # the kernel's telescoped form does not need phi normalised (the Gamma draws are used as they are)
    np.testing.assert_allclose(kern.importance_log_weights(words, counts, theta_t, prior, doc_topic, 37.0 * phi),
                               got, rtol=1e-11, atol=1e-9)


# ------------------------------------------------------------------------------------ HDP vs exact

@pytest.mark.compile_heavy
def test_hdp_single_topic_is_exact():
    rng = np.random.default_rng(3)
    theta = rng.dirichlet(np.ones(20), size=1)
    X = sp.csr_matrix(rng.poisson(2.0, size=(10, 20)).astype(float))
    exact = float((X.toarray() * np.log(theta)).sum())
    for renormalize in (False, True):
        score = hdp_importance_loglik(theta, [0.6], X, 1.0, n_samples=3, n_sweeps=2, renormalize=renormalize)
        assert score.total == pytest.approx(exact, rel=1e-12)


def assert_unbiased(estimates, exact, n_se=4.0):
    """IS is unbiased for p: the mean of independent estimates of p is within n_se standard errors.

    Only meaningful when the weights have finite variance, i.e. ``b pi_k > n_k`` for every topic of
    the proposal (see the kernel's docstring), which the callers ensure by a large b."""
    p = np.exp(estimates - exact)  # ratios to the exact value
    se = p.std(ddof=1) / np.sqrt(len(p))
    assert abs(p.mean() - 1.0) < n_se * se, (p.mean(), se)
    return se


def test_hdp_one_token_documents_converge_to_the_dirichlet_mean():
    rng = np.random.default_rng(4)
    theta, pi, b = rng.dirichlet(np.ones(6), size=3), np.array([0.5, 0.2, 0.1]), 20.0
    for word in range(6):
        exact = np.log(pi @ theta[:, word] / pi.sum())
        assert assert_unbiased(run_kernel(theta, b * pi, csr_rows([[word]] * 400, 6), n_samples=20), exact) < 0.01
    # the public function on one-token documents, with many samples
    X = csr_rows([[w] for w in range(6)], 6)
    exact_total = np.log(pi @ theta / pi.sum()).sum()
    assert hdp_importance_loglik(theta, pi, X, b, n_samples=5000).total == pytest.approx(exact_total, abs=0.01)


@pytest.mark.parametrize("renormalize", [False, True])
@pytest.mark.parametrize("doc,n_topics", [([0, 1], 2), ([2, 2, 5], 3), ([0, 3, 3, 1], 2), ([1, 4, 0, 2], 3)])
def test_hdp_small_documents_match_enumeration(doc, n_topics, renormalize):
    rng = np.random.default_rng(len(doc) * 10 + n_topics)
    theta = rng.dirichlet(np.full(6, 0.7), size=n_topics)
    pi = rng.dirichlet(np.ones(n_topics + 1))[:n_topics]
    b = 2 * (len(doc) + 1) / pi.min()  # b pi_k > 2 N >= 2 n_k: weights with finite variance (and third moment)
    prior = b * (pi / pi.sum() if renormalize else pi)
    exact = exact_hdp_loglik(theta, prior, doc)
    assert assert_unbiased(run_kernel(theta, prior, csr_rows([doc] * 300, 6), n_samples=10), exact) < 0.01
    public = hdp_importance_loglik(theta, pi, csr_rows([doc], 6), b, n_samples=5000, renormalize=renormalize)
    assert public.total == pytest.approx(exact, abs=0.01)


@numba.njit(cache=True)
def _final_counts(words, tokens, theta_t, prior, n_sweeps, n_chains, seed):
    np.random.seed(seed)
    out = np.empty((n_chains, prior.size))
    assignment, doc_topic, cumulative = np.empty(tokens.size,
                                                 dtype=np.int64), np.empty(prior.size), np.empty(prior.size)
    for c in range(n_chains):
        kern._gibbs(words, tokens, theta_t, prior, n_sweeps, assignment, doc_topic, cumulative)
        out[c] = doc_topic
    return out


@pytest.mark.slow
@pytest.mark.montecarlo
def test_gibbs_final_counts_follow_the_posterior():
    """The proposal's counts n come from p(z | x, theta, b pi) (small b: sparse, multimodal posterior)."""
    rng = np.random.default_rng(9)
    theta, prior = rng.dirichlet(np.full(5, 0.5), size=2), np.array([0.3, 0.6])
    doc = [0, 1, 1, 4]
    joint = {}
    for z in itertools.product(range(2), repeat=len(doc)):
        n = np.bincount(z, minlength=2)
        log_polya = gammaln(prior.sum()) - gammaln(prior.sum() + len(doc)) + (gammaln(prior + n) - gammaln(prior)).sum()
        joint[n[0]] = joint.get(n[0], 0.0) + np.exp(log_polya + np.log(theta[list(z), doc]).sum())
    exact = np.array([joint[i] for i in range(len(doc) + 1)]) / sum(joint.values())
    words, tokens = np.array([0, 1, 4]), np.array([0, 1, 1, 2])
    counts = _final_counts(words, tokens, np.ascontiguousarray(theta.T), prior, 10, 20000, 3)
    freq = np.bincount(counts[:, 0].astype(int), minlength=len(doc) + 1) / len(counts)
    assert (np.abs(freq - exact) < 4 * np.sqrt(exact * (1 - exact) / len(counts)) + 1e-3).all(), (freq, exact)


def test_hdp_zero_probability_word_and_zero_weight_component():
    theta = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    X = csr_rows([[0, 2], [0, 1]], 3)
    score = hdp_importance_loglik(theta, [0.7, 0.0], X, 1.0)
    assert score.total == -np.inf  # word 2 only in the zero-weight topic
    single = hdp_importance_loglik(theta, [0.7, 0.0], X[1], 1.0)
    assert single.total == pytest.approx(np.log(0.5 * 0.5), rel=1e-12)  # the one remaining topic


# ------------------------------------------------------------------------------------ reproducibility

def test_hdp_seeded_and_independent_of_chunks_and_threads():
    theta, pi, X = random_case(seed=5, n_docs=40, rate=2.0)
    prior = 1.5 * pi
    seeds = np.random.default_rng(0).integers(0, 2**32, size=X.shape[0], dtype=np.int64)
    serial = run_kernel(theta, prior, X, seeds=seeds, n_chunks=1)
    for n_chunks in (2, 3, 40, 100):
        np.testing.assert_array_equal(run_kernel(theta, prior, X, seeds=seeds, n_chunks=n_chunks), serial)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = hdp_importance_loglik(theta, pi, X, 1.5, seed=11)
    finally:
        numba.set_num_threads(old)
    assert hdp_importance_loglik(theta, pi, X, 1.5, seed=11) == one_thread
    assert hdp_importance_loglik(theta, pi, X, 1.5, seed=np.random.default_rng(11)) == one_thread
    assert hdp_importance_loglik(theta, pi, X, 1.5, seed=12).total != one_thread.total


def test_hdp_defaults_are_stable_across_seeds_on_ap():
    """Two seeds with the default sweeps/samples agree to < 0.01 nats per word on real test documents."""
    from stickbreak import datasets
    from stickbreak.estimators.hdp import HDPTopicModel

    X = datasets.load("ap").X.counts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = HDPTopicModel(n_topics=30, max_laps=10, n_batches=1, random_state=0, doc_topic_prior=1.0,
                              concentration=1.0, topic_word_prior=0.01).fit(X[:600])
    test = X[2100:2200]
    scores = [hdp_importance_loglik(model, model.topic_weights_, test, 1.0, seed=s) for s in (0, 1)]
    assert abs(scores[0].per_word - scores[1].per_word) < 0.01
    assert scores[0].n_documents == 100 and scores[0].n_tokens == int(test.sum())
    assert (DEFAULT_N_SWEEPS, DEFAULT_N_SAMPLES) == (200, 100)
    # the exact DP mixture score of the same plug-in is a different model: finite, lower here
    assert dp_heldout_loglik(model, model.topic_weights_, test).per_word < scores[0].per_word
