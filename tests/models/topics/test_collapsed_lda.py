"""Collapsed inference for LDA (issue 7): the one sweep kernel against its NumPy twin, count
arrays consistent with the assignments after every sweep, fixed points checked by hand, the
Gibbs sampler's stationary distribution against the exact posterior, and the hybrids' limits."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak import driver
from stickbreak.config import LearnConfig
from stickbreak.data import BagOfWords
from stickbreak.kernels.gibbs import _reference_lda as ref
from stickbreak.kernels.gibbs import lda as kern
from stickbreak.models.topics.collapsed_lda import ALGORITHMS, CollapsedLDA
from stickbreak.learn.collapsed import CollapsedSweeps

ALPHA = np.array([0.3, 0.1, 0.2])


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(0)
    X = sp.random(12, 15, density=0.4, random_state=1, data_rvs=lambda n: rng.integers(1, 4, n)).tocsr()
    X.sort_indices()
    return X.astype(np.float64)


def _state(X, algorithm, seed=0):
    model = CollapsedLDA(ALPHA, 0.05, X.shape[1], algorithm)
    learner = CollapsedSweeps(np.random.default_rng(seed))
    return model, learner, learner.start(model, BagOfWords.from_counts(X), None)


def _copy(state):
    p = state.params
    return p.z.copy(), p.Q.copy(), [a.copy() for a in p.counts]


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_sweep_matches_numpy_twin(corpus, algorithm):
    model, learner, state = _state(corpus, algorithm)
    for seed in (3, 4):
        z, Q, counts = _copy(state)
        kern.sweep(*learner._corpus, *learner._layout, z, Q, *counts, model.alpha, model.beta, model.vb_kind, seed)
        zr, Qr, countsr = _copy(state)
        ref.sweep(*learner._corpus, *learner._layout, zr, Qr, *countsr, model.alpha, model.beta, model.vb_kind, seed)
        np.testing.assert_array_equal(z, zr)
        np.testing.assert_allclose(Q, Qr, rtol=1e-10, atol=1e-13)
        for a, b in zip(counts, countsr):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
        learner.lap(model, None, state)
    H = corpus.copy()
    np.testing.assert_allclose(kern.predictive_probs(H.indptr, H.indices, *state.params.counts[:3], model.alpha,
                                                     model.beta),
                               ref.predictive_probs(H.indptr, H.indices, *state.params.counts[:3], model.alpha,
                                                    model.beta),
                               rtol=1e-12)


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_count_arrays_stay_consistent_with_assignments(corpus, algorithm):
    model, learner, state = _state(corpus, algorithm)
    n_tokens = corpus.sum()
    for _ in range(5):
        learner.lap(model, None, state)
        p = state.params
        rebuilt = kern.build_counts(*learner._corpus, *learner._layout, p.z, p.Q, corpus.shape[1], model.vb_kind)
        for a, b in zip(p.counts, rebuilt):
            np.testing.assert_allclose(a, b, atol=1e-9)
        assert p.counts[2].sum() == pytest.approx(n_tokens)
        np.testing.assert_allclose(p.counts[1].sum(axis=1), np.asarray(corpus.sum(axis=1)).ravel())
        if model.threshold == np.inf:
            assert np.array_equal(p.counts[0], np.round(p.counts[0]))  # pure Gibbs counts are integers


@pytest.mark.parametrize("algorithm", ["cvb", "cvb0"])
def test_single_token_pair_fixed_point_by_hand(algorithm):
    """One document with one token: excluding it leaves no counts, so Q_k ∝ alpha_k beta / (W beta) ∝ alpha_k."""
    X = sp.csr_matrix(np.array([[1.0, 0.0]]))
    model = CollapsedLDA(np.array([1.0, 3.0]), 0.5, 2, algorithm)
    learner = CollapsedSweeps(np.random.default_rng(0))
    state = learner.start(model, BagOfWords.from_counts(X), None)
    learner.lap(model, None, state)
    np.testing.assert_allclose(state.params.Q[0], [0.25, 0.75], rtol=1e-12)


@pytest.mark.parametrize("algorithm", ["svb", "cvb", "cvb0"])
def test_variational_sweeps_reach_their_fixed_point(corpus, algorithm):
    """After many sweeps each pair's Q satisfies its own update equation, recomputed here in NumPy."""
    from scipy.special import digamma

    model, learner, state = _state(corpus, algorithm)
    for _ in range(400):
        learner.lap(model, None, state)
    p, (indptr, indices, _) = state.params, learner._corpus
    Nwk, Njk, Nk, Vwk, Vjk, Vk = p.counts
    W, beta, alpha = corpus.shape[1], model.beta, model.alpha
    for j in range(corpus.shape[0]):
        for m in range(indptr[j], indptr[j + 1]):
            w, q = indices[m], p.Q[m]
            if algorithm == "svb":
                log_q = digamma(Nwk[w] + beta) - digamma(Nk + W * beta) + digamma(Njk[j] + alpha)
                expected = np.exp(log_q - log_q.max())
            else:
                e_jk, e_wk, e_k = Njk[j] - q + alpha, Nwk[w] - q + beta, Nk - q + W * beta
                expected = e_jk * e_wk / e_k
                if algorithm == "cvb":
                    own = q * (1 - q)
                    expected = expected * np.exp(-(Vjk[j] - own) / (2 * e_jk**2) - (Vwk[w] - own) / (2 * e_wk**2)
                                                 + (Vk - own) / (2 * e_k**2))
            np.testing.assert_allclose(q, expected / expected.sum(), atol=1e-6)


@pytest.mark.slow
@pytest.mark.montecarlo
def _exact_posterior(model, tokens, K, W):
    """Every assignment of ``tokens`` ((document, word) pairs of 2 documents) to K topics and its
    exact collapsed posterior probability (Eq. 1, enumerated)."""

    def log_joint(z):
        Nwk, Njk = np.zeros((W, K)), np.zeros((2, K))
        for (j, w), k in zip(tokens, z):
            Nwk[w, k] += 1
            Njk[j, k] += 1
        return sum(model.log_joint(Nwk, Njk, Nwk.sum(axis=0)).values())

    configs = list(itertools.product(range(K), repeat=len(tokens)))
    exact = np.exp([log_joint(z) for z in configs])
    return configs, exact / exact.sum()


def test_gibbs_stationary_distribution_is_the_exact_posterior():
    """2 documents, 3 words, K = 2: the sampler's visit frequencies of the 2^5 token assignments match
    the exact collapsed posterior (Eq. 1, enumerated)."""
    X = sp.csr_matrix(np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 1.0]]))
    alpha, beta, K, W = np.array([0.5, 0.5]), 0.3, 2, 3
    model = CollapsedLDA(alpha, beta, W, "gibbs")
    tokens = [(0, 0), (0, 0), (0, 1), (1, 1), (1, 2)]  # (document, word) in the kernel's token order
    configs, exact = _exact_posterior(model, tokens, K, W)
    learner = CollapsedSweeps(np.random.default_rng(5))
    state = learner.start(model, BagOfWords.from_counts(X), None)
    visits = np.zeros(len(configs))
    index = {z: i for i, z in enumerate(configs)}
    for _ in range(30000):
        learner.lap(model, None, state)
        visits[index[tuple(state.params.z)]] += 1
    assert 0.5 * np.abs(visits / visits.sum() - exact).sum() < 0.02


def test_hybrid_limits_are_the_pure_algorithms(corpus):
    """r below every count is pure VB; r above every count is collapsed Gibbs (same draws)."""
    for hybrid, pure, r in (("hybrid_cvb_gibbs", "cvb", 0.0), ("hybrid_vb_gibbs", "svb", 0.0),
                            ("hybrid_vb_gibbs", "gibbs", 1e9)):
        runs = []
        for algorithm, threshold in ((hybrid, r), (pure, 1.0)):
            model = CollapsedLDA(ALPHA, 0.05, corpus.shape[1], algorithm, sample_threshold=threshold)
            learner = CollapsedSweeps(np.random.default_rng(2))
            state = learner.start(model, BagOfWords.from_counts(corpus), None)
            for _ in range(3):
                learner.lap(model, None, state)
            runs.append(state.params.counts[0])
        np.testing.assert_allclose(runs[0], runs[1], atol=1e-12)


def test_heldout_scores_follow_eqs_30_and_31(corpus):
    """Variational methods score the current counts (Eq. 30); samplers average the predictive over the
    sweeps after burn-in (Eq. 31)."""
    H = sp.csr_matrix(corpus.multiply(corpus > 1))  # any held-out tokens of the training documents
    for algorithm in ("cvb0", "gibbs"):
        model = CollapsedLDA(ALPHA, 0.05, corpus.shape[1], algorithm)
        learner = CollapsedSweeps(np.random.default_rng(0), heldout=H, burn_in=2)
        state = learner.start(model, BagOfWords.from_counts(corpus), None)
        probs = []
        for _ in range(5):
            learner.lap(model, None, state)
            probs.append(kern.predictive_probs(H.indptr, H.indices, *state.params.counts[:3], ALPHA, 0.05))
        last = probs[-1] if algorithm == "cvb0" else np.mean(probs[2:], axis=0)
        assert state.heldout_per_word[-1] == pytest.approx(H.data @ np.log(last) / H.data.sum(), rel=1e-12)


def test_driver_runs_the_sweeps_and_rejects_a_misshapen_heldout(corpus):
    model = CollapsedLDA(ALPHA, 0.05, corpus.shape[1], "hybrid_cvb_gibbs")
    result = driver.fit(model, BagOfWords.from_counts(corpus), None, CollapsedSweeps(np.random.default_rng(0)),
                        LearnConfig(max_laps=4, tol=0.0))
    assert len(result.trace) == 4 and np.isfinite(result.trace[-1].elbo)
    assert result.params.topic_word.shape == (3, corpus.shape[1])
    np.testing.assert_allclose(result.params.topic_word.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="heldout has shape"):
        CollapsedSweeps(np.random.default_rng(0), heldout=corpus[:3]).start(model, BagOfWords.from_counts(corpus), None)


def test_lda_estimator_runs_collapsed_algorithms_and_round_trips(corpus, tmp_path):
    from stickbreak import LDA, HDPTopicModel, load

    H = sp.csr_matrix(corpus.multiply(corpus > 2))
    est = LDA(3, doc_topic_prior=0.1, topic_word_prior=0.05, algorithm="hybrid_cvb_gibbs", max_laps=6, tol=0.0,
              algorithm_options={"burn_in": 2}, random_state=0).fit(corpus, heldout=H)
    assert est.n_iter_ == 6 and len(est.heldout_per_word_) == 6 and np.isfinite(est.heldout_per_word_).all()
    np.testing.assert_allclose(est.topic_word_.sum(axis=1), 1.0)
    theta = est.transform(corpus[:4])
    np.testing.assert_allclose(load(est.save(tmp_path / "m.npz")).transform(corpus[:4]), theta)
    with pytest.raises(ValueError, match="collapsed inference for LDA"):
        HDPTopicModel(3, algorithm="cvb").fit(corpus)
    with pytest.raises(ValueError, match="heldout is scored during collapsed inference only"):
        LDA(3, algorithm="vb", max_laps=2).fit(corpus, heldout=H)
    with pytest.raises(ValueError, match="burn_in"):
        LDA(3, algorithm="gibbs", algorithm_options={"burn_in": -1}).fit(corpus)


def test_other_models_reject_collapsed_algorithms_before_work():
    from stickbreak import DPMixture
    from stickbreak.config import COLLAPSED_ALGORITHMS

    assert set(COLLAPSED_ALGORITHMS) == set(ALGORITHMS)  # the names the estimators accept are the learner's

    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="collapsed inference for LDA"):
        DPMixture(algorithm="gibbs").fit(X)


def test_sparse_sweep_matches_its_numpy_twin(corpus):
    """SparseLDA's buckets (kernels/gibbs/buckets.py) against the twin, draw for draw."""
    from stickbreak.kernels.gibbs import _reference_buckets as sparse_ref
    from stickbreak.kernels.gibbs.buckets import NO_NEW_TOPICS, bucket_sweep

    model, learner, state = _state(corpus, "gibbs")
    indptr, indices, _ = learner._corpus
    token_start = learner._layout[1]
    z, _, counts = _copy(state)
    zr, _, countsr = _copy(state)
    for seed in (3, 4, 5):
        fixed = (model.alpha, 1.0, model.beta, NO_NEW_TOPICS, 1.0, 0, seed)
        assert bucket_sweep(indptr, indices, token_start, z, *counts[:3], *fixed) == -1
        sparse_ref.bucket_sweep(indptr, indices, token_start, zr, *countsr[:3], *fixed)
        np.testing.assert_array_equal(z, zr)
        for a, b in zip(counts[:3], countsr[:3]):
            np.testing.assert_array_equal(a, b)
    rebuilt = kern.build_counts(*learner._corpus, *learner._layout, z, state.params.Q, corpus.shape[1], model.vb_kind)
    for a, b in zip(counts[:3], rebuilt[:3]):
        np.testing.assert_array_equal(a, b)


def test_sparse_sweep_stationary_distribution_is_the_exact_posterior():
    """3 topics, 2 documents, 2 words: SparseLDA's visit frequencies of the 3^4 token assignments
    match the exact collapsed posterior (every bucket drawn from: alpha and beta are not small).
    The dense kernel's total variation in the same run is 0.0083 (this kernel's 0.0088)."""
    from stickbreak.kernels.gibbs.buckets import NO_NEW_TOPICS, bucket_sweep

    X = sp.csr_matrix(np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 0.0]]))
    alpha, beta, K, W = np.array([0.5, 0.2, 0.8]), 0.3, 3, 3
    model = CollapsedLDA(alpha, beta, W, "gibbs")
    tokens = [(0, 0), (0, 0), (0, 1), (1, 1)]
    configs, exact = _exact_posterior(model, tokens, K, W)
    indptr, indices = X.indptr.astype(np.int64), X.indices.astype(np.int64)
    sampled, token_start = kern.token_layout(X.data, np.inf)
    z = np.zeros(len(tokens), dtype=np.int64)
    Nwk, Njk, Nk = kern.build_counts(indptr, indices, X.data, sampled, token_start, z, np.zeros((0, K)), W, 0)[:3]
    index = {c: i for i, c in enumerate(configs)}
    visits = np.zeros(len(configs))
    for seed in range(100000):
        bucket_sweep(indptr, indices, token_start, z, Nwk, Njk, Nk, alpha, 1.0, beta, NO_NEW_TOPICS, 1.0, 0, seed)
        visits[index[tuple(z)]] += 1
    assert 0.5 * np.abs(visits / visits.sum() - exact).sum() < 0.015


def test_gibbs_sweeps_run_sparse_lda(corpus):
    """A collapsed Gibbs lap is SparseLDA's sweep, draw for draw; a hybrid's is the dense kernel's."""
    from stickbreak.kernels.gibbs.buckets import NO_NEW_TOPICS, bucket_sweep

    model, learner, state = _state(corpus, "gibbs")
    z, _, counts = _copy(state)
    seed = int(np.random.default_rng(0).integers(2**31))  # the learner's next draw
    learner.rng = np.random.default_rng(0)
    learner.lap(model, None, state)
    bucket_sweep(*learner._corpus[:2], learner._layout[1], z, *counts[:3], model.alpha, 1.0, model.beta, NO_NEW_TOPICS,
                 1.0, 0, seed)
    np.testing.assert_array_equal(state.params.z, z)
