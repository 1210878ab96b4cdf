"""L-sparse topic local steps (Hughes 2016, thesis Ch. 7 §7.3): kernel against its NumPy twin and
the dense kernel, optimality of the top-L step by enumeration, exact moves within the sparse
family, monotone memoized VI, estimator and CLI option."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma, logsumexp

from stickbreak import HDPTopicModel, LDA, load
from stickbreak.models.topics.model import LocalOptions, TopicModel
from stickbreak.priors import topic_hdp as hdp_topics
from stickbreak.models.topics.model import TopicLocal
from stickbreak.config import LearnConfig, MovesConfig
from stickbreak.core.protocols import total_elbo
from stickbreak.data import BagOfWords
from stickbreak.datasets.synthetic import make_bars_corpus
from stickbreak.driver import fit, split_batches
from stickbreak.kernels.topics import _reference_sparse as ref
from stickbreak.kernels.topics.sparse import sparse_token_share, sparse_topic_local_step, top_l_of_row
from stickbreak.learn import MemoizedVI
from stickbreak.models.topics.init import initial_topics
from stickbreak.moves.records import fast_forward

NO_PAIRS = np.zeros((0, 2), dtype=np.int64)


def _problem(n_topics=12, n_words=40, n_docs=25, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_words, density=0.3, random_state=seed + 1, format="csr")
    X.data = np.ceil(X.data * 5)
    lam = rng.gamma(1.0, 1.0, (n_topics, n_words)) + 0.1
    log_phi = (digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))).T
    centered = np.ascontiguousarray(log_phi - log_phi.max(axis=1, keepdims=True))
    prior = rng.gamma(1.0, 0.1, n_topics)
    previous = rng.gamma(1.0, 1.0, (n_docs, n_topics))
    return X, centered, np.exp(centered), prior, previous


def _run(kernel, X, centered, E, prior, previous, start, n_active, n_restarts, pairs, n_chunks, tol=0.01, max_iter=100):
    doc_topic = previous.copy() if start else np.zeros_like(previous)
    doc_weight = np.zeros_like(previous)
    out = kernel(X.indptr, X.indices, X.data, E, centered, prior, 0.3, doc_topic, start, n_active, max_iter, tol,
                 n_restarts, pairs, n_chunks, doc_weight)
    return (*out, doc_topic, doc_weight)


@pytest.mark.compile_heavy
@pytest.mark.parametrize("n_active", [1, 3, 7])
@pytest.mark.parametrize("start", [0, 1, 2])
@pytest.mark.parametrize("n_restarts", [0, 3])
def test_kernel_equals_its_numpy_twin(n_active, start, n_restarts):
    X, centered, E, prior, previous = _problem()
    pairs = np.array([[0, 1], [2, 5], [3, 4]], dtype=np.int64)
    fast = _run(sparse_topic_local_step, X, centered, E, prior, previous, start, n_active, n_restarts, pairs, 2)
    slow = _run(ref.sparse_topic_local_step, X, centered, E, prior, previous, start, n_active, n_restarts, pairs, 1)
    for name, a, b in zip(("word_topic", "entropy", "pair_entropy", "n_iters", "n_accepted", "doc_topic",
                           "doc_weight"), fast, slow):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-8, err_msg=name)
    if n_restarts and start == 0:
        assert fast[4].sum() > 0  # restarts were accepted, not only tried
    # at most L topics per word type: each word type's mass is spread over at most L topics
    assert np.all(np.count_nonzero(fast[0], axis=1) <= n_active * np.diff(X.tocsc().indptr))


@pytest.mark.parametrize("start", [0, 1])
def test_l_equal_k_is_the_dense_fixed_point(start):
    """With L = K the sparse step is the plain dense fixed point (the NumPy twin's ``_doc_iterate``,
    one document at a time), iteration for iteration; the dense kernel accelerates it (SQUAREM), so
    it is compared with the twin's plain map rather than with the kernel."""
    from stickbreak.kernels.topics._reference_dense import _doc_iterate

    X, centered, E, prior, previous = _problem()
    K = len(prior)
    pairs = np.array([[0, 1], [2, 5]], dtype=np.int64)
    sparse = _run(sparse_topic_local_step, X, centered, E, prior, previous, start, K, 0, pairs, 1, tol=1e-6)
    for d in range(X.shape[0]):
        words, counts = X.indices[X.indptr[d]:X.indptr[d + 1]], X.data[X.indptr[d]:X.indptr[d + 1]]
        lik = E[words]
        if start:
            N = previous[d].copy()
        else:
            p0 = np.maximum(prior, 1e-280)
            N = p0 * (lik.T @ (counts / (lik @ p0)))
        iters = _doc_iterate(lik, counts, prior, N, 100, 1e-6)[0]
        np.testing.assert_allclose(sparse[5][d], N, rtol=1e-8, atol=1e-8)  # topics below ACTIVE_MIN_COUNT leave
        assert sparse[3][d] == iters


def test_model_with_n_active_at_least_k_runs_the_dense_step_bitwise():
    X, centered, E, prior, previous = _problem()
    data = BagOfWords(X)
    lam = np.random.default_rng(1).gamma(1.0, 1.0, (12, X.shape[1])) + 0.1
    for n_active in (12, 50):
        dense, sparse = (TopicModel({"lam": np.full(X.shape[1], 0.1)}, hdp_topics, hdp_topics.default_prior(0.5, 5.0),
                                    LocalOptions(n_active=L)) for L in (None, n_active))
        params = dense.initial_params(lam, data.n_items)
        a, b = dense.local_step(params, data), sparse.local_step(params, data)
        assert np.array_equal(a.doc_topic, b.doc_topic) and np.array_equal(a.entropy, b.entropy)
        assert np.array_equal(a.word_topic, b.word_topic)


def test_top_l_step_is_the_optimum_of_its_constrained_objective_by_enumeration():
    """For one word type, ``max_r sum_k r_k (W_k - log r_k)`` over ``r`` with at most L non-zeros is
    ``max_S log sum_{k in S} exp W_k`` over subsets ``|S| <= L``; the kernel attains it."""
    rng = np.random.default_rng(3)
    K = 6
    for trial in range(20):
        log_row, log_p = rng.normal(0.0, 2.0, K), rng.normal(0.0, 2.0, K)
        if trial == 0:
            log_row[:] = 0.0  # ties everywhere
            log_p[:] = 0.0
        W = log_row + log_p
        for L in range(1, K + 1):
            index, resp = np.empty(L, dtype=np.int64), np.empty(L)
            value = top_l_of_row(log_row, log_p, np.arange(K), K, L, index, resp)
            subsets = (S for size in range(1, L + 1) for S in itertools.combinations(range(K), size))
            best = max(logsumexp(W[list(S)]) for S in subsets)
            assert value == pytest.approx(best, rel=1e-12, abs=1e-12)
            attained = float(resp @ (W[index] - np.log(resp)))
            assert attained == pytest.approx(best, rel=1e-10, abs=1e-10)
            assert len(set(index.tolist())) == L and resp.sum() == pytest.approx(1.0)
            # any other support of size L does no better
            other = rng.choice(K, size=L, replace=False)
            assert logsumexp(W[other]) <= value + 1e-12


@pytest.fixture(scope="module")
def bars():
    counts, topics = make_bars_corpus(n_docs=240, doc_length=60, side=10, n_bars=10, seed=2)
    return BagOfWords.from_counts(counts), topics


def sparse_model(n_words, n_active, **local):
    return TopicModel({"lam": np.full(n_words, 0.1)}, hdp_topics, hdp_topics.default_prior(0.5, 5.0),
                      LocalOptions(n_active=n_active, **local))


def start_params(model, data, n_topics, seed=0):
    lam = initial_topics(data, model.obs_prior["lam"], n_topics, "random", np.random.default_rng(seed))
    return model.initial_params(lam, data.n_items)


def _sparse_responsibilities(model, params, data, local):
    """Per-token L-sparse responsibilities (tokens, K), rebuilt column by column from the final weights."""
    c = data.counts
    return np.column_stack([
        sparse_token_share(c.indptr, c.indices, params.exp_loglik, params.centered_loglik, local.doc_weight, k,
                           model.local.n_active) for k in range(params.n_components)])


def test_rebuilt_sparse_responsibilities_are_the_local_steps(bars):
    data, _ = bars
    model = sparse_model(data.n_features, 2, tol=1e-8, n_restarts=3)
    params = start_params(model, data, 8)
    local = model.local_step(params, data, keep_loglik=True)
    resp = _sparse_responsibilities(model, params, data, local)
    assert np.all(np.count_nonzero(resp, axis=1) <= 2)
    c = data.counts
    rows = np.repeat(np.arange(data.n_items), np.diff(c.indptr))
    mass = c.data[:, None] * resp
    doc_topic = np.zeros_like(local.doc_topic)
    np.add.at(doc_topic, rows, mass)
    np.testing.assert_allclose(doc_topic, local.doc_topic, rtol=1e-10, atol=1e-10)
    word_topic = np.zeros_like(local.word_topic)
    np.add.at(word_topic, c.indices, mass)
    np.testing.assert_allclose(word_topic, local.word_topic, rtol=1e-10, atol=1e-10)
    entropy = -(mass * np.log(np.where(resp > 0, resp, 1.0))).sum(axis=0)
    np.testing.assert_allclose(local.entropy, entropy, rtol=1e-9, atol=1e-9)


def test_merge_within_the_sparse_family_equals_a_recomputation_from_merged_responsibilities(bars):
    data, _ = bars
    model = sparse_model(data.n_features, 2, tol=1e-9)
    params = start_params(model, data, 6)
    pairs = np.array([[0, 3], [1, 2], [4, 5]])
    local = model.local_step(params, data, merge_pairs=pairs, keep_loglik=True)
    stats = model.summarize(data, local, params.uids, merge_pairs=pairs)
    resp = _sparse_responsibilities(model, params, data, local)
    counts = data.counts.data
    merged = stats.merge(0, 3)
    keep = [0, 1, 2, 4, 5]
    resp_m = resp.copy()
    resp_m[:, 0] += resp_m[:, 3]
    resp_m = resp_m[:, keep]
    assert np.all(np.count_nonzero(resp_m, axis=1) <= 2)  # still in the family
    counts_m = local.doc_topic.copy()
    counts_m[:, 0] += counts_m[:, 3]
    prior_m = local.prior.copy()
    prior_m[0] += prior_m[3]
    c = data.counts
    word_topic = np.zeros((data.n_features, 5))
    np.add.at(word_topic, c.indices, counts[:, None] * resp_m)
    entropy = -(counts[:, None] * resp_m * np.log(np.where(resp_m > 0, resp_m, 1.0))).sum(axis=0)
    brute = model.summarize(data, TopicLocal(counts_m[:, keep], prior_m[keep], local.prior_rest, word_topic, entropy,
                                             local.n_iters, local.n_restarts), merged.uids)
    for name in brute.fields:
        np.testing.assert_allclose(merged.fields[name], brute.fields[name], rtol=1e-7, atol=1e-7, err_msg=name)
    np.testing.assert_allclose(merged.elbo_terms["entropy"], brute.elbo_terms["entropy"], rtol=1e-7, atol=1e-9)
    assert total_elbo(model.score(merged, params)[1]) == pytest.approx(total_elbo(model.score(brute, params)[1]),
                                                                      rel=1e-9)


def test_birth_expansion_keeps_every_token_in_the_sparse_family(bars):
    """Under L-sparse steps a birth gives each target token's share wholly to one of [target,
    newborns]: the expanded statistics are those of an explicit L-sparse q."""
    data, _ = bars
    model = sparse_model(data.n_features, 2, tol=1e-9)
    params = start_params(model, data, 5)
    local = model.local_step(params, data, keep_loglik=True)
    stats = model.summarize(data, local, params.uids)
    centers = {"lam": np.random.default_rng(0).gamma(1.0, 1.0, (3, data.n_features)) + 0.1}
    expansion = model.birth_expansion(data, local, params, 1, centers, np.log(np.array([1e-300, 0.3, 0.7])),
                                      np.array([1, 7, 8]))
    candidate = stats.with_components(expansion)
    assert candidate.counts.sum() == pytest.approx(stats.counts.sum(), rel=1e-10)
    # the newborns took tokens, and the target's entropy did not grow: hard splits add no entropy
    assert expansion.counts[1:].sum() > 1.0
    assert expansion.elbo_terms["entropy"].sum() == pytest.approx(local.entropy[1], rel=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("n_active", [1, 3])
def test_memoized_vi_with_moves_is_monotone_and_cache_consistent_under_l_sparse_steps(bars, n_active):
    data, _ = bars
    model = sparse_model(data.n_features, n_active, start="best", n_restarts=2)
    batches = split_batches(data, 3, seed=0).data
    learner = MemoizedVI(MovesConfig(moves=("merge", "delete"), delete_max_targets=4), np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # ELBODecreaseWarning is a RuntimeWarning
        result = fit(model, batches, start_params(model, data, 20), learner,
                     LearnConfig(algorithm="memoized", max_laps=10, tol=0.0))
    elbo = np.array([r.elbo for r in result.trace])
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))
    accepted = {kind: sum(r.moves[kind]["accepted"] for r in result.trace) for kind in ("merge", "delete")}
    assert accepted["merge"] + accepted["delete"] > 0
    state = learner.saved_state(result.state, batches)  # with the batches' caches
    cached = sum(fast_forward(m, state.log[s:], b).without_merge_terms()
                 for b, (m, s) in enumerate(zip(state.memo, state.seen)))
    for name, value in state.stats.fields.items():
        np.testing.assert_allclose(cached.fields[name], value, rtol=1e-8, atol=1e-6, err_msg=name)
    assert total_elbo(model.score(cached, result.params)[1]) == pytest.approx(elbo[-1], rel=1e-9)


def test_births_under_l_sparse_steps_keep_the_memoized_elbo_monotone(bars):
    data, _ = bars
    kwargs = dict(n_topics=1, concentration=5.0, algorithm="memoized", n_batches=2, max_laps=10, tol=0.0,
                  algorithm_options={"local_start": "best"}, n_active=2, random_state=0,
                  init="random")  # births from one random topic
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        grown = HDPTopicModel(moves=("birth", "merge", "delete"), **kwargs).fit(data)
    assert sum(r["moves"]["birth"]["accepted"] for r in grown.trace_) > 0 and grown.n_topics_ > 3
    assert np.all(np.diff(grown.elbo_trace_) >= -1e-9 * np.abs(grown.elbo_trace_[1:]))


def test_lda_with_n_active_fits_predicts_and_round_trips(bars, tmp_path):
    data, _ = bars
    dense = LDA(10, algorithm="memoized", n_batches=2, max_laps=30, random_state=0).fit(data)
    sparse = LDA(10, algorithm="memoized", n_batches=2, max_laps=30, n_active=2, random_state=0).fit(data)
    assert sparse.lower_bound_ > dense.lower_bound_ - 0.02 * abs(dense.lower_bound_)  # -54,571 vs -54,197
    sparse.save(tmp_path / "m.npz")
    again = load(tmp_path / "m.npz")
    assert again.n_active == 2 and again.model_.local.n_active == 2
    np.testing.assert_allclose(again.transform(data.counts[:20]), sparse.transform(data.counts[:20]))
    svi = LDA(10, algorithm="svi", batch_size=60, max_laps=3, n_active=2, random_state=0).fit(data)
    assert np.isfinite(svi.lower_bound_)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "x", True])
def test_bad_n_active_is_refused_before_fitting(bars, bad):
    data, _ = bars
    with pytest.raises(ValueError, match="n_active must be a positive integer"):
        LDA(5, n_active=bad).fit(data)


def test_n_active_with_a_collapsed_or_two_level_algorithm_is_refused(bars):
    data, _ = bars
    with pytest.raises(ValueError, match="n_active .* applies to"):
        LDA(5, algorithm="gibbs", n_active=2).fit(data)
    with pytest.raises(ValueError, match="n_active .* applies to"):
        HDPTopicModel(5, algorithm="svi", variational_family="two_level", n_active=2).fit(data)


def test_cli_fits_topics_with_n_active(tmp_path, capsys):
    from stickbreak.cli.main import main

    main(["fit", "topics", "ap", "--model", "lda", "-K", "8", "--max-laps", "2", "--n-active", "2", "--quiet",
          "--out", str(tmp_path / "run")])
    assert "topic" in capsys.readouterr().out.lower()
    assert load(tmp_path / "run" / "model.npz").n_active == 2
    assert main(["fit", "topics", "ap", "--model", "diln", "--n-active", "2", "--quiet"]) == 2
    assert "--n-active is for --model lda or hdp" in capsys.readouterr().err
