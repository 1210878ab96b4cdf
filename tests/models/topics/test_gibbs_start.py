"""The HDP's learned start (``init="gibbs"``, :func:`~stickbreak.models.topics.init.gibbs_topics`):
the sampler's seeded first state, K found from no topics, the token cap, and the estimator's rules
for ``n_topics``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak import LDA, HDPTopicModel
from stickbreak.data import BagOfWords
from stickbreak.datasets.synthetic import make_bars_corpus
from stickbreak.models.topics.collapsed_hdp import TokenCorpus, start_params
from stickbreak.core.protocols import total_elbo
from stickbreak.models.topics.init import (SEEDED_CHAIN_TOPICS, GibbsStart, gibbs_topics, initial_topics, judged_starts,
                                          start_elbo, with_n_topics)


@pytest.fixture(scope="module")
def bars():
    counts, topics = make_bars_corpus(n_docs=200, doc_length=40, side=6, n_bars=6, seed=3)
    return BagOfWords.from_counts(counts), topics


def _recovered(topic_word, truth) -> np.ndarray:
    """Each true topic's best cosine among ``topic_word``'s rows."""
    cosine = (truth @ topic_word.T) / np.linalg.norm(truth,
                                                     axis=1)[:, None] / np.linalg.norm(topic_word, axis=1)[None, :]
    return cosine.max(axis=1)


def test_a_seeded_start_gives_each_seed_document_its_own_topic_and_leaves_the_rest_unassigned(bars):
    data, _ = bars
    X = data.counts
    corpus = TokenCorpus.of(X)
    p = start_params(corpus, X.shape[1], 5, 0.05, 1.0, 10.0, np.random.default_rng(0))
    doc_of_token = np.repeat(np.repeat(np.arange(X.shape[0]), np.diff(X.indptr)), np.diff(corpus.token_start))
    seeded_docs = np.unique(doc_of_token[p.z >= 0])
    assert len(seeded_docs) == 5 and (p.z[p.z >= 0] < 5).all()
    for k, doc in enumerate(np.unique(p.z[p.z >= 0])):  # one document per topic, with all its tokens
        assert len(np.unique(doc_of_token[p.z == doc])) == 1
    word_of_token = np.repeat(X.indices, np.diff(corpus.token_start))
    Nwk = np.zeros_like(p.Nwk)
    np.add.at(Nwk, (word_of_token[p.z >= 0], p.z[p.z >= 0]), 1.0)
    np.testing.assert_array_equal(p.Nwk, Nwk)
    np.testing.assert_array_equal(p.Nk, Nwk.sum(axis=0))
    np.testing.assert_array_equal(p.Njk.sum(axis=0), p.Nk)
    assert p.beta[:5].sum() + p.rest[0] == pytest.approx(1.0) and (p.beta[5:] == 0).all()
    empty = start_params(corpus, X.shape[1], 0, 0.05, 1.0, 10.0, np.random.default_rng(0))
    assert (empty.z == -1).all() and empty.Nk.sum() == 0 and empty.rest[0] == 1.0


@pytest.mark.parametrize("n_topics", [0, 1, 3])
def test_the_sampler_finds_the_bars_from_no_or_few_topics(bars, n_topics):
    data, truth = bars
    lam = gibbs_topics(data, 0.05, n_topics, 1.0, 10.0, np.random.default_rng(1), n_sweeps=100)
    sizes = lam.sum(axis=1) - 0.05 * lam.shape[1]
    assert np.all(np.diff(sizes) <= 1e-9)  # largest first
    assert sizes.sum() == pytest.approx(data.counts.sum())  # the corpus's tokens, all of them sampled here
    assert (sizes > 0.05 * sizes.sum()).sum() >= 6
    # the six largest are the six bars, roughly (a start): after 100 sweeps in 84 of 90 chains (seeds
    # 0-29 from 0, 1 and 3 topics), after 30 in 34 of 90
    assert _recovered(lam[:6], truth).min() > 0.85


def test_same_seed_same_start_and_the_token_cap_samples_a_subset_scaled_to_the_corpus(bars):
    data, _ = bars
    a = gibbs_topics(data, 0.05, 0, 1.0, 10.0, np.random.default_rng(7), n_sweeps=5)
    b = gibbs_topics(data, 0.05, 0, 1.0, 10.0, np.random.default_rng(7), n_sweeps=5)
    np.testing.assert_array_equal(a, b)
    capped = gibbs_topics(data, 0.05, 0, 1.0, 10.0, np.random.default_rng(7), n_sweeps=5, max_tokens=1000)
    total = capped.sum() - 0.05 * capped.size
    assert total == pytest.approx(data.counts.sum())  # scaled up from the 25 documents sampled


@pytest.mark.parametrize("n_topics", [0, SEEDED_CHAIN_TOPICS, 40])
def test_the_chains_run_and_the_judge_keeps_the_topics_it_rates_higher(bars, n_topics):
    """Chains from none, seeded with SEEDED_CHAIN_TOPICS documents and, when the user gives another
    number, with ``n_topics``, each judged on the sampled documents after half the sweeps; the one
    judged higher runs on (same number of topics with no sweeps left), scaled to the corpus. A start
    the user chose is one more candidate: the default's chains may replace it."""
    data, _ = bars
    for prefer in (1, -1):
        judged = []

        def judge(lam, docs):
            judged.append((lam.shape[0], docs.n_items, lam.sum()))
            return prefer * lam.shape[0]

        lam = gibbs_topics(data, 0.05, n_topics, 1.0, 10.0, np.random.default_rng(0), n_sweeps=1, max_tokens=4000,
                           judge=judge)
        sizes = [k for k, _, _ in judged]
        assert judged_starts(n_topics) == ((0, SEEDED_CHAIN_TOPICS) if n_topics in (0, SEEDED_CHAIN_TOPICS)
                                           else (0, SEEDED_CHAIN_TOPICS, n_topics))
        assert len(judged) == len(judged_starts(n_topics)) and sizes[0] < sizes[1]  # none, then 100 seeds
        assert lam.shape[0] == (max(sizes) if prefer > 0 else min(sizes))
        assert judged[0][1] == judged[1][1] == 100  # both judged on the same sample (4,000 tokens)
        assert lam.sum() - 0.05 * lam.size == pytest.approx(data.counts.sum())


def test_the_memory_check_counts_each_chain_on_the_tokens_it_samples():
    start = GibbsStart(1.0, 10.0, max_tokens=1000)
    per_document = 2.0 * SEEDED_CHAIN_TOPICS * 50
    assert start.memory_floats(0, 50, 400) == 2 * (4 * 400 + per_document)  # two chains, every token
    assert start.memory_floats(0, 50, 1e6) == 2 * (4 * 1000 + per_document)  # at most max_tokens sampled
    assert start.memory_floats(0, 50, float("inf")) == start.memory_floats(0, 50, 1e6)  # tokens not known
    assert start.memory_floats(300, 50, 400) == 3 * 4 * 400 + 2 * per_document + 2.0 * 300 * 50


def test_start_elbo_is_the_elbo_after_one_local_step(bars):
    data, _ = bars
    est = HDPTopicModel(n_topics=5, init="random", algorithm="vb", max_laps=1, random_state=0).fit(data)
    model = est.model_
    lam = est.params_.obs["lam"]
    params = model.initial_params(lam, data.n_items)
    stats = model.summarize(data, model.local_step(params, data), params.uids)
    assert start_elbo(model, lam, data) == pytest.approx(total_elbo(model.score(stats, params)[1]), rel=1e-12)
    assert start_elbo(model, lam, data) > start_elbo(model, lam[::-1][:2], data)  # five fitted topics beat two


def test_weights_that_are_not_counts_are_rounded_up_to_tokens():
    X = sp.csr_matrix(np.array([[0.2, 0.0, 1.5], [0.0, 0.7, 0.0]]))
    lam = gibbs_topics(BagOfWords.from_counts(X, integer=False), 0.1, 0, 1.0, 1.0, np.random.default_rng(0), n_sweeps=3)
    assert lam.shape[1] == 3 and lam.sum() - 0.1 * lam.size == pytest.approx(X.sum())


def test_with_n_topics_keeps_the_largest_or_fills_with_random_topics():
    lam = np.array([[5.0, 1.0], [3.0, 1.0], [2.0, 1.0]])
    np.testing.assert_array_equal(with_n_topics(lam, 2, np.full(2, 0.1), np.random.default_rng(0)), lam[:2])
    filled = with_n_topics(lam, 5, np.full(2, 0.1), np.random.default_rng(0))
    assert filled.shape == (5, 2) and np.array_equal(filled[:3], lam) and (filled[3:] > 0.1).all()


def test_the_hdp_learns_its_start_and_n_topics_is_a_truncation_only_without_moves(bars):
    data, truth = bars
    est = HDPTopicModel(random_state=0, max_laps=20)
    assert est.n_topics is None and est.init == "gibbs"
    est.fit(data)
    assert 6 <= est.n_topics_ <= 9 and _recovered(est.topic_word_[est.topic_sizes_ >= 1], truth).min() > 0.9
    assert est.trace_[0]["n_components"] > 1  # the start came from the sampler, not from n_topics
    fixed = HDPTopicModel(n_topics=4, algorithm="vb", max_laps=3, random_state=0).fit(data)
    assert fixed.topic_word_.shape[0] == 4  # the truncation the user gave
    grown = HDPTopicModel(n_topics=20, algorithm="vb", max_laps=3, random_state=0).fit(data)
    assert grown.topic_word_.shape[0] == 20


def test_only_the_hdp_has_the_learned_start():
    X = sp.csr_matrix(np.ones((4, 3)))
    with pytest.raises(ValueError, match="init='gibbs'.*HDPTopicModel"):
        LDA(n_topics=2, init="gibbs").fit(X)
    with pytest.raises(ValueError, match="choose one of.*gibbs"):
        HDPTopicModel(init="sampler").fit(X)
    with pytest.raises(ValueError, match="symmetric"):
        initial_topics(BagOfWords.from_counts(X), np.array([0.1, 0.2, 0.1]), 0, "gibbs", np.random.default_rng(0),
                       gibbs=GibbsStart(1.0, 1.0))


def test_the_sampler_budget_is_an_algorithm_option(bars):
    data, _ = bars
    short = HDPTopicModel(algorithm_options={"init_sweeps": 1, "init_tokens": 500}, max_laps=1, random_state=0)
    assert short._gibbs_start() == GibbsStart(1.0, 10.0, 1, 500)
    short.fit(data)
    with pytest.raises(ValueError, match="init_sweeps"):
        HDPTopicModel(algorithm_options={"init_sweeps": 0}).fit(data)
