"""HDP topic-model moves (Hughes 2016, §5.5): exact merge statistics, deletes over several batches,
monotone memoized ELBO with moves, and the toy-bars recovery."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from scipy.special import digamma, gammaln

from stickbreak import HDPTopicModel, LDA
from stickbreak.models.topics.model import LocalOptions, TopicModel
from stickbreak.priors import topic_hdp as hdp_topics
from stickbreak.models.topics.model import TopicLocal
from stickbreak.config import LearnConfig, MovesConfig
from stickbreak.core.protocols import total_elbo
from stickbreak.data import BagOfWords
from stickbreak.datasets.synthetic import bar_topics, make_bars_corpus
from stickbreak.driver import fit, split_batches
from stickbreak.learn import MemoizedVI
from stickbreak.models.topics.init import initial_topics
from stickbreak.moves.records import fast_forward
from stickbreak.moves.delete import proposal_here


@pytest.fixture(scope="module")
def bars():
    counts, topics = make_bars_corpus(n_docs=240, doc_length=60, side=10, n_bars=10, seed=2)
    return BagOfWords.from_counts(counts), topics


def hdp_model(n_words, learn=False, **local):
    return TopicModel({"lam": np.full(n_words, 0.1)}, hdp_topics,
                      hdp_topics.default_prior(0.5, 5.0, learn_alpha=learn, learn_gamma=learn), LocalOptions(**local))


def start_params(model, data, n_topics, seed=0):
    lam = initial_topics(data, model.obs_prior["lam"], n_topics, "random", np.random.default_rng(seed))
    return model.initial_params(lam, data.n_items)


def _responsibilities(params, data, local):
    """Per-token responsibilities rebuilt from converged document counts (brute force)."""
    theta = local.doc_topic + local.prior[None, :]
    p = np.exp(digamma(theta))
    c = data.counts
    rows = np.repeat(np.arange(data.n_items), np.diff(c.indptr))
    joint = params.exp_loglik[c.indices] * p[rows]
    return joint / joint.sum(axis=1, keepdims=True), c.data


@pytest.mark.parametrize("learn", [False, True], ids=["fixed", "learned-concentrations"])
def test_merge_statistics_and_elbo_equal_a_recomputation_from_merged_local_parameters(bars, learn):
    data, _ = bars
    model = hdp_model(data.n_features, learn, tol=1e-11, max_iter=5000)
    params = start_params(model, data, 6)
    pairs = np.array([[0, 3], [1, 2], [4, 5]])
    local = model.local_step(params, data, merge_pairs=pairs)
    stats = model.summarize(data, local, params.uids, merge_pairs=pairs)
    resp, counts = _responsibilities(params, data, local)
    entropy = -(counts[:, None] * resp * np.log(resp)).sum(axis=0)
    np.testing.assert_allclose(stats.elbo_terms["entropy"], entropy, rtol=1e-7)

    merged = stats.merge(0, 3)
    keep = [0, 1, 2, 4, 5]
    resp_m = resp.copy()
    resp_m[:, 0] += resp_m[:, 3]
    resp_m = resp_m[:, keep]
    counts_m = local.doc_topic.copy()
    counts_m[:, 0] += counts_m[:, 3]
    prior_m = local.prior.copy()
    prior_m[0] += prior_m[3]
    c = data.counts
    word_topic = np.zeros((data.n_features, 5))
    np.add.at(word_topic, c.indices, counts[:, None] * resp_m)
    brute_local = TopicLocal(counts_m[:, keep], prior_m[keep], local.prior_rest, word_topic,
                             -(counts[:, None] * resp_m * np.log(resp_m)).sum(axis=0), local.n_iters, local.n_restarts)
    brute = model.summarize(data, brute_local, merged.uids)
    for name in brute.fields:
        np.testing.assert_allclose(merged.fields[name], brute.fields[name], rtol=1e-7, atol=1e-7, err_msg=name)
    np.testing.assert_allclose(merged.elbo_terms["entropy"], brute.elbo_terms["entropy"], rtol=1e-7)
    for name, value in brute.scalars.items():
        assert merged.scalars[name] == pytest.approx(value, rel=1e-10)
    # the move's ELBO (sticks re-optimised) is the brute-force one
    assert total_elbo(model.score(merged, params)[1]) == pytest.approx(total_elbo(model.score(brute, params)[1]),
                                                                      rel=1e-9)


@pytest.mark.parametrize("learn", [False, True], ids=["fixed", "learned-concentrations"])
def test_a_merge_scored_from_its_two_rows_has_the_full_rescoring_terms(bars, learn):
    """merge_terms (O(V + K)) equals every term of the full rescoring (O(K V)), for first merges and
    for one bound against an earlier accepted merge."""
    data, _ = bars
    model = hdp_model(data.n_features, learn)
    pairs = np.array([[0, 3], [1, 2], [4, 5], [2, 6]])
    params = start_params(model, data, 8)
    local = model.local_step(params, data, merge_pairs=pairs)
    stats = model.summarize(data, local, params.uids, merge_pairs=pairs)
    params, terms = model.score(stats.without_merge_terms(), params)
    for kept, removed, bound in [(0, 3, ()), (1, 2, ()), (4, 5, ()), (2, 6, (1,))]:
        candidate = stats.merge(kept, removed, bound_against=list(bound))
        narrow = stats.without_fields(model.merge_row_fields).merge(kept, removed, bound_against=list(bound))
        fast = model.merge_terms(stats, narrow, params, terms, kept, removed)
        full = model.score(candidate, params)[1]
        assert fast.keys() == full.keys()
        for name in full:
            assert fast[name] == pytest.approx(full[name], rel=1e-11, abs=1e-8), name


@pytest.mark.parametrize("cut_derived", [False, True])
def test_a_part_on_its_own_words_gives_the_whole_vocabulary_answer(bars, cut_derived):
    """A worker's part kept on the words it uses, with only their columns of lam (and each topic's
    sum over all words), gives the statistics and local parameters of the part on all words,
    whether its word likelihoods are computed on the columns or cut from the whole ones."""
    from stickbreak.core.local_parts import local_summary

    data, _ = bars
    model = hdp_model(data.n_features)
    params = start_params(model, data, 6)
    part = data.subset(np.arange(0, 3))
    words = model.features_of(part)
    assert 0 < len(words) < data.n_features
    pairs = np.array([[0, 3]])
    whole = local_summary(model, params, part, None, pairs, keep_local=True)
    own = model.params_on_features(params, words, cut_derived)
    on_columns = model.params_on_features(params, words)
    np.testing.assert_allclose(own.exp_loglik, on_columns.exp_loglik, rtol=1e-13, atol=0)
    np.testing.assert_allclose(own.centered_loglik, on_columns.centered_loglik, rtol=1e-13, atol=1e-13)
    sent = pickle.loads(pickle.dumps(own))  # the likelihoods stay behind: the receiver recomputes them
    assert sent.word_likelihoods is None and np.array_equal(sent.exp_loglik, on_columns.exp_loglik)
    sliced = local_summary(model, own, model.on_features(part, words), None, pairs,
                           keep_local=True, features=words, n_features=data.n_features)
    for name in whole[0].fields:
        np.testing.assert_allclose(sliced[0].fields[name], whole[0].fields[name], rtol=1e-12, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(sliced[0].merge_entropy, whole[0].merge_entropy, rtol=1e-12)
    np.testing.assert_allclose(sliced[2].word_topic, whole[2].word_topic, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sliced[2].doc_topic, whole[2].doc_topic, rtol=1e-12)


@pytest.mark.compile_heavy
def test_group_delete_proposal_is_the_summary_of_a_local_step_without_the_targets(bars):
    """With one iteration and no refinement the proposal is exactly a warm local step over the
    remaining topics, merge terms of the planned pairs included."""
    data, _ = bars
    model = hdp_model(data.n_features, max_iter=1, start="warm")
    params = start_params(model, data, 6)
    local = model.local_step(params, data)
    stats = model.summarize(data, local, params.uids)
    pairs = np.array([[1, 2], [4, 5]])
    proposal, warm = proposal_here(model, params, data, local, (0, 3), stats, stats, 1, pairs)
    current = model.without_topic(params, (0, 3))
    assert list(current.uids) == [1, 2, 4, 5] and list(proposal.uids) == [1, 2, 4, 5]
    brute_local = model.local_step(current, data, warm=local.doc_topic[:, [1, 2, 4, 5]], merge_pairs=pairs)
    brute = model.summarize(data, brute_local, current.uids, merge_pairs=pairs)
    for name in brute.fields:
        np.testing.assert_allclose(proposal.fields[name], brute.fields[name], rtol=1e-10, atol=1e-10, err_msg=name)
    np.testing.assert_allclose(proposal.merge_entropy, brute.merge_entropy, rtol=1e-10)
    for name in brute.merge_fields:
        np.testing.assert_allclose(proposal.merge_fields[name], brute.merge_fields[name], rtol=1e-10)
    np.testing.assert_allclose(warm, brute_local.doc_topic)
    assert total_elbo(model.score(proposal, params)[1]) == pytest.approx(total_elbo(model.score(brute, params)[1]),
                                                                        rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("max_targets, n_topics", [(1, 20), (8, 30)])
def test_moves_over_several_batches_keep_the_cache_consistent_and_the_elbo_monotone(bars, max_targets, n_topics):
    data, _ = bars
    model = hdp_model(data.n_features, start="best")
    batches = split_batches(data, 3, seed=0).data
    learner = MemoizedVI(MovesConfig(moves=("merge", "delete"), delete_max_targets=max_targets),
                         np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # ELBODecreaseWarning is a RuntimeWarning
        result = fit(model, batches, start_params(model, data, n_topics), learner,
                     LearnConfig(algorithm="memoized", max_laps=10, tol=0.0))
    elbo = np.array([r.elbo for r in result.trace])
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))
    accepted = {kind: sum(r.moves[kind]["accepted"] for r in result.trace) for kind in ("merge", "delete")}
    assert accepted["merge"] > 0 and accepted["delete"] > 0
    assert result.params.n_components < n_topics
    if max_targets > 1:  # groups of deletes, and merges accepted right after a delete in the same lap
        assert max(r.moves["delete"]["accepted"] for r in result.trace) > 1
        assert any(r.moves["delete"]["accepted"] and r.moves["merge"]["accepted"] for r in result.trace)
    state = learner.saved_state(result.state, batches)  # with the batches' caches
    cached = sum(fast_forward(m, state.log[s:], b).without_merge_terms()
                 for b, (m, s) in enumerate(zip(state.memo, state.seen)))
    assert np.array_equal(cached.uids, state.stats.uids)
    for name, value in state.stats.fields.items():
        np.testing.assert_allclose(cached.fields[name], value, rtol=1e-8, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(cached.elbo_terms["entropy"], state.stats.elbo_terms["entropy"], rtol=1e-8, atol=1e-6)
    # the exact ELBO from the cache equals the learner's
    assert total_elbo(model.score(cached, result.params)[1]) == pytest.approx(elbo[-1], rel=1e-9)


@pytest.mark.slow
def test_toy_bars_merge_and_delete_shrink_k_and_recover_the_bars(bars):
    """From 30 random topics (the learned start would already find the 10 bars)."""
    data, topics = bars
    kwargs = dict(n_topics=30, concentration=5.0, algorithm="memoized", n_batches=2, max_laps=25, tol=0.0,
                  init="random", random_state=0)
    moved = HDPTopicModel(moves=("merge", "delete"), **kwargs).fit(data)
    fixed = HDPTopicModel(moves=(), **kwargs).fit(data)
    assert moved.n_topics_ < fixed.n_topics_ and moved.n_topics_ <= 15
    assert moved.lower_bound_ > fixed.lower_bound_
    used = moved.topic_word_[moved.topic_sizes_ >= 1]
    cosine = (topics @ used.T) / np.linalg.norm(topics, axis=1)[:, None] / np.linalg.norm(used, axis=1)[None, :]
    assert cosine.max(axis=1).min() > 0.95  # every bar is found


def test_bar_topics_shape_and_errors():
    topics = bar_topics(30, 10, noise=0.0)
    assert topics.shape == (10, 900) and np.allclose(topics.sum(axis=1), 1.0)
    assert ((topics > 0).sum(axis=1) == 180).all()
    with pytest.raises(ValueError, match="n_bars must be even"):
        bar_topics(30, 7)


def test_unsupported_moves_are_refused_before_fitting(bars):
    data, _ = bars
    assert "moves" not in LDA().get_params()  # LDA's K is fixed: no moves to configure
    with pytest.raises(ValueError, match=r"move='split' is not valid; choose one of \['birth', 'merge', 'delete'\]"):
        HDPTopicModel(n_topics=4, algorithm="memoized", moves=("split",)).fit(data)
    with pytest.raises(ValueError, match="need algorithm='memoized'"):
        HDPTopicModel(n_topics=4, algorithm="vb", moves=("merge",)).fit(data)
    with pytest.raises(ValueError, match="unknown move option"):
        HDPTopicModel(n_topics=4, algorithm="memoized", moves=("merge",), move_options={"bogus": 1}).fit(data)


def test_stick_alignment_keeps_each_topic_weight_by_uid():
    weights = {"rho": np.array([0.3, 0.2, 0.5, 0.1]), "omega": np.ones(4), "alpha": 0.5, "gamma": 3.0}
    beta, _ = hdp_topics.stick_weights(weights["rho"])
    aligned = hdp_topics.align(weights, np.array([5, 6, 7, 8]), np.array([7, 5, 9]))
    new_beta, rest = hdp_topics.stick_weights(aligned["rho"])
    np.testing.assert_allclose(new_beta[:2], beta[[2, 0]])  # kept topics keep E pi^G, in the new order
    assert new_beta[2] == pytest.approx(rest)  # a newborn takes half of what is left
    assert (aligned["alpha"], aligned["gamma"]) == (0.5, 3.0)  # the concentrations are carried over
    assert hdp_topics.align(weights, np.arange(4), np.arange(4)) is weights


def test_birth_expansion_equals_a_brute_force_summary_of_the_split_responsibilities(bars):
    """Target tokens re-split over [target, newborns] by the restricted fixed point (NumPy twin),
    every other responsibility kept: the statistics of that explicit q equal the expansion written
    into the batch's statistics, so the birth's ELBO is exact."""
    from stickbreak.kernels.topics import _reference_dense as ref

    data, _ = bars
    model = hdp_model(data.n_features, tol=1e-12, max_iter=2000)
    params = start_params(model, data, 5)
    local = model.local_step(params, data, keep_loglik=True)
    stats = model.summarize(data, local, params.uids)
    column, n_new = 1, 3
    centers = {"lam": np.random.default_rng(0).gamma(1.0, 1.0, (n_new, data.n_features)) + 0.1}
    log_weights = np.log(np.array([1e-300, 0.3, 0.7]))
    uids = np.array([1, 7, 8])
    expansion = model.birth_expansion(data, local, params, column, centers, log_weights, uids)
    candidate = stats.with_components(expansion)

    c = data.counts
    rows_of = np.repeat(np.arange(data.n_items), np.diff(c.indptr))
    joint = params.exp_loglik[c.indices] * local.doc_weight[rows_of]
    resp = joint / joint.sum(axis=1, keepdims=True)  # (tokens, K), exact
    weights = np.array([0.0, 0.3, 0.7])
    prior_new = local.prior[column] * (0.1 * np.eye(3)[0] + 0.9 * weights)
    targeted = local.doc_topic[:, column] >= 0.5
    token_in = targeted[rows_of]
    sub = data.subset(np.flatnonzero(targeted)).counts
    log_phi = np.log(np.exp(digamma(centers["lam"]) - digamma(centers["lam"].sum(axis=1, keepdims=True)))).T
    centered = log_phi - log_phi.max(axis=1, keepdims=True)
    split_counts, split_weight = np.zeros((sub.shape[0], 3)), np.zeros((sub.shape[0], 3))
    ref.topic_local_step(sub.indptr, sub.indices, sub.data * resp[token_in, column], np.exp(centered), centered,
                         prior_new, 0.0, split_counts, 0, 2000, 1e-12, 0, np.zeros((0, 2), dtype=np.int64), 1,
                         split_weight)
    sub_rows = np.repeat(np.arange(sub.shape[0]), np.diff(sub.indptr))
    sub_joint = np.exp(centered)[sub.indices] * split_weight[sub_rows]
    sub_resp = sub_joint / sub_joint.sum(axis=1, keepdims=True)
    new_resp = np.zeros((c.nnz, 3))
    new_resp[:, 0] = resp[:, column]
    new_resp[token_in] = resp[token_in, column][:, None] * sub_resp
    full = np.concatenate([resp, new_resp[:, 1:]], axis=1)
    full[:, column] = new_resp[:, 0]
    mass = c.data[:, None] * full
    counts_dk = np.zeros((data.n_items, full.shape[1]))
    np.add.at(counts_dk, rows_of, mass)
    word_counts = np.zeros((full.shape[1], data.n_features))
    np.add.at(word_counts.T, c.indices, mass)
    entropy = -(mass * np.log(np.where(full > 0, full, 1.0))).sum(axis=0)
    prior_full = np.concatenate([local.prior, prior_new[1:]])
    prior_full[column] = prior_new[0]
    theta = counts_dk + prior_full
    total = theta.sum(axis=1) + local.prior_rest
    log_pi = digamma(theta) - digamma(total)[:, None]
    brute = {"N": counts_dk.sum(axis=0), "word_counts": word_counts, "log_pi": log_pi.sum(axis=0),
             "doc_gamma": (gammaln(theta) - prior_full * log_pi).sum(axis=0)}
    assert list(candidate.uids) == [0, 1, 2, 3, 4, 7, 8]
    for name, value in brute.items():
        np.testing.assert_allclose(candidate.fields[name], value, rtol=1e-6, atol=1e-6, err_msg=name)
    assert candidate.elbo_terms["entropy"].sum() == pytest.approx(entropy.sum(), rel=1e-8)
    for name, value in stats.scalars.items():
        assert candidate.scalars[name] == value  # the documents' totals and rest terms are unchanged

    # the birth's clean-up merges two of [target, newborns] from the expansion's pair terms: the same
    # explicit q with the two columns' responsibilities summed
    np.testing.assert_array_equal(expansion.merge_pairs, [[1, 7], [1, 8], [7, 8]])
    for kept, removed, a, b in [(7, 8, 5, 6), (1, 7, 1, 5)]:
        merged = stats.with_components(expansion.merge(kept, removed))
        keep = [k for k in range(7) if k != b]
        full_m, theta_m, prior_m = full.copy(), theta.copy(), prior_full.copy()
        full_m[:, a] += full_m[:, b]
        theta_m[:, a] += theta_m[:, b]
        prior_m[a] += prior_m[b]
        full_m, theta_m, prior_m = full_m[:, keep], theta_m[:, keep], prior_m[keep]
        mass_m = c.data[:, None] * full_m
        log_pi_m = digamma(theta_m) - digamma(total)[:, None]
        word_m = np.zeros((len(keep), data.n_features))
        np.add.at(word_m.T, c.indices, mass_m)
        brute_m = {"N": mass_m.sum(axis=0), "word_counts": word_m, "log_pi": log_pi_m.sum(axis=0),
                   "doc_gamma": (gammaln(theta_m) - prior_m * log_pi_m).sum(axis=0)}
        assert list(merged.uids) == [0, 1, 2, 3, 4, 7, 8][:b] + [0, 1, 2, 3, 4, 7, 8][b + 1:]
        for name, value in brute_m.items():
            np.testing.assert_allclose(merged.fields[name], value, rtol=1e-6, atol=1e-6, err_msg=name)
        entropy_m = -(mass_m * np.log(np.where(full_m > 0, full_m, 1.0))).sum(axis=0)
        assert merged.elbo_terms["entropy"].sum() == pytest.approx(entropy_m.sum(), rel=1e-8)
        # the clean-up scores it from the two rows (MergesByRows), as the full rescoring does
        cand_params, cand_terms = model.score(candidate)
        narrow = stats.without_fields(model.merge_row_fields).with_components(
            expansion.without_fields(model.merge_row_fields).merge(kept, removed))
        fast = model.merge_terms(candidate, narrow, cand_params, cand_terms, kept, removed)
        for name, value in model.score(merged, cand_params)[1].items():
            assert fast[name] == pytest.approx(value, rel=1e-10, abs=1e-8), name


def test_births_grow_k_from_one_topic_and_keep_the_memoized_elbo_monotone(bars):
    data, topics = bars
    kwargs = dict(n_topics=1, concentration=5.0, algorithm="memoized", n_batches=2, max_laps=12, tol=0.0,
                  algorithm_options={"local_start": "best"}, random_state=0,
                  init="random")  # births from one random topic
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        grown = HDPTopicModel(moves=("birth", "merge", "delete"), **kwargs).fit(data)
    births = sum(r["moves"]["birth"]["accepted"] for r in grown.trace_)
    assert births > 0 and grown.n_topics_ > 3
    assert np.all(np.diff(grown.elbo_trace_) >= -1e-9 * np.abs(grown.elbo_trace_[1:]))
    assert grown.lower_bound_ > HDPTopicModel(moves=(), **kwargs).fit(data).lower_bound_
