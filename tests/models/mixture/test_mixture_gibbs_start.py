"""``init="gibbs"`` of the DP mixture of multinomials: the collapsed Gibbs kernel against its NumPy
twin draw for draw, its chain against the exact posterior over partitions of a tiny corpus, the
widening of its state, the start as the estimators use it, and the sampler's refinement of a
birth's split of word counts."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln
from sklearn.metrics import adjusted_rand_score

from stickbreak import DPMixture, FiniteMixture, ShortTextTopicModel
from stickbreak.data import BagOfWords
from stickbreak.kernels.gibbs import _reference_dmm as ref, dmm
from stickbreak.config import MixtureConfig
from stickbreak.models import make_mixture_model
from stickbreak.models.mixture.gibbs_start import _compacted, _state, gibbs_labels, gibbs_sweeps, start_clusters
from stickbreak.models.mixture.init import bregman_kmeans, kmeans_plus_plus, split_labels


def _corpus(rng, n_docs=30, n_words=12):
    counts = sp.random(n_docs, n_words, density=0.3, random_state=rng.integers(1000), format="csr",
                       data_rvs=lambda n: rng.integers(1, 4, n)).astype(float)
    return counts


@pytest.mark.parametrize("capacity", [5, 9, 40])  # 5: full from the start (the sweep stops), 40: never full
def test_sweep_matches_twin_draw_for_draw(capacity):
    rng = np.random.default_rng(3)
    counts = _corpus(rng)
    n_tokens = np.asarray(counts.sum(axis=1)).ravel()
    beta, concentration = 0.3, 1.5
    evidence = dmm.prior_evidences(counts.indptr, counts.data, n_tokens, beta, counts.shape[1])
    np.testing.assert_allclose(evidence, ref.prior_evidences(counts.indptr, counts.data, n_tokens, beta,
                                                             counts.shape[1]), rtol=1e-12)
    labels = rng.integers(5, size=counts.shape[0])
    for first in (0, 7):
        states = [(labels.copy(), *_state(counts, labels, 5, beta, capacity)) for _ in range(2)]
        outs = [kernel.sweep(counts.indptr, counts.indices, counts.data, n_tokens, evidence, z, post, post_sum,
                             sizes, 5, concentration, first, 11)
                for kernel, (z, post, post_sum, sizes) in zip((dmm, ref), states)]
        assert outs[0] == outs[1]
        for fast, slow in zip(states[0], states[1]):
            np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)
        z, post, post_sum, sizes = states[0]
        expected = _state(counts, z, outs[0][0], beta, capacity)  # the counts follow the labels
        for got, want in zip((post, post_sum, sizes), expected):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _set_partitions(rest):
        for i in range(len(partition)):
            yield partition[:i] + [[first] + partition[i]] + partition[i + 1:]
        yield [[first]] + partition


def _exact_log_joint(blocks, dense, beta, concentration):
    """``log p(z) + log p(x | z)``: the CRP times each cluster's Dirichlet-multinomial evidence."""
    n_words = dense.shape[1]
    out = len(blocks) * math.log(concentration) + sum(gammaln(len(b)) for b in blocks)
    for block in blocks:
        words = dense[block].sum(axis=0)
        out += gammaln(n_words * beta) - gammaln(n_words * beta + words.sum())
        out += np.sum(gammaln(beta + words) - gammaln(beta))
    return out


def test_the_chain_samples_the_exact_posterior_over_partitions():
    """Four documents: the chain's frequency of each of the 15 partitions against the exact
    posterior (the CRP prior times the collapsed evidence), 40,000 sweeps."""
    dense = np.array([[3, 0, 1], [2, 1, 0], [0, 2, 2], [0, 3, 1]], dtype=float)
    counts = sp.csr_matrix(dense)
    beta, concentration = 0.5, 0.8
    partitions = list(_set_partitions(list(range(4))))
    exact = np.array([_exact_log_joint(p, dense, beta, concentration) for p in partitions])
    exact = np.exp(exact - exact.max())
    exact /= exact.sum()
    assert len(partitions) == 15  # Bell(4)
    key = {tuple(sorted(tuple(sorted(b)) for b in p)): i for i, p in enumerate(partitions)}
    n_tokens = dense.sum(axis=1)
    evidence = dmm.prior_evidences(counts.indptr, counts.data, n_tokens, beta, 3)
    z = np.zeros(4, dtype=np.int64)
    post, post_sum, sizes = _state(counts, z, 1, beta, capacity=5)
    seen, n_used = np.zeros(len(partitions)), 1
    for sweep in range(40_000):
        n_used, stopped = dmm.sweep(counts.indptr, counts.indices, counts.data, n_tokens, evidence, z, post, post_sum,
                                    sizes, n_used, concentration, 0, sweep)
        assert stopped == 4
        blocks = tuple(sorted(tuple(np.flatnonzero(z == k)) for k in np.unique(z)))
        seen[key[blocks]] += 1
    assert np.abs(seen / seen.sum() - exact).sum() / 2 < 0.02  # total variation


def test_labels_from_one_cluster_widen_and_find_separated_topics():
    """Three blocks of words that no document shares: from every document in one cluster (and
    room for two), the sampler opens the others, widening its arrays, and finds the blocks."""
    rng = np.random.default_rng(0)
    blocks = np.repeat(np.arange(3), 40)
    dense = np.zeros((120, 30))
    for d, b in enumerate(blocks):
        dense[d, rng.choice(np.arange(10 * b, 10 * b + 10), 4)] += 1
    labels = gibbs_labels(BagOfWords(sp.csr_matrix(dense)), 0.1, 1.0, 1, 10, np.random.default_rng(1))
    assert adjusted_rand_score(blocks, labels) == 1.0
    np.testing.assert_array_equal(np.unique(labels), np.arange(3))  # compact labels


def test_start_clusters_and_the_estimators_start():
    assert (start_clusters(5), start_clusters(5_000), start_clusters(10 ** 7)) == (1, 500, 1000)
    rng = np.random.default_rng(0)
    dense = np.zeros((90, 30))
    for d in range(90):
        dense[d, rng.choice(np.arange(10 * (d % 3), 10 * (d % 3) + 10), 5)] += 1
    model = DPMixture(obs_model="mult", init="gibbs", random_state=0).fit(dense)
    assert model.n_active_components_ == 3 and adjusted_rand_score(np.arange(90) % 3, model.labels_) == 1.0
    assert ShortTextTopicModel().get_params()["init"] == "gibbs"


def test_the_start_refuses_what_it_cannot_sample():
    with pytest.raises(ValueError, match="init='gibbs' samples the DP mixture of multinomials"):
        DPMixture(obs_model="gauss", init="gibbs").fit(np.random.default_rng(0).normal(size=(50, 2)))
    with pytest.raises(ValueError, match="non-integer counts"):
        DPMixture(obs_model="mult", init="gibbs").fit(np.full((20, 4), 0.5))
    with pytest.raises(ValueError, match="not whole numbers"):
        gibbs_labels(BagOfWords(sp.csr_matrix(np.full((20, 4), 0.5))), 0.1, 1.0, 2, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="samples the DP mixture of multinomials"):
        FiniteMixture(obs_model="mult", init="gibbs").fit(np.ones((20, 4)))


def test_compaction_leaves_the_state_of_its_labels_and_empty_columns_after():
    """Between sweeps the occupied clusters move to the front and every later column is an empty
    cluster again (a cluster opened next sweep starts from the prior, not from old counts)."""
    rng = np.random.default_rng(5)
    counts = _corpus(rng)
    labels = rng.integers(6, size=counts.shape[0])
    labels[labels == 0] = 1  # cluster 0 emptied during a sweep: its column holds the prior, the others move up
    post, post_sum, sizes = _state(counts, labels, 6, 0.2, capacity=8)
    n_used = 6
    labels, n_used = _compacted(labels, post, post_sum, sizes, n_used, 0.2, counts.shape[1])
    for got, want in zip((post, post_sum, sizes), _state(counts, labels, n_used, 0.2, capacity=8)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_held_clusters_keep_their_columns_through_compaction():
    """Columns of held clusters (a stream's earlier documents) stay where they are and keep their
    held counts when no resampled document is left in them; the others move up behind them."""
    rng = np.random.default_rng(6)
    counts = _corpus(rng)
    held = (rng.random((3, counts.shape[1])) * 4, np.array([5.0, 0.0, 2.5]))
    labels = 3 + rng.integers(4, size=counts.shape[0])  # no document in the held clusters
    labels[labels == 4] = 5  # cluster 4 empty
    post, post_sum, sizes = _state(counts, labels, 7, 0.2, capacity=10, held=held)
    labels, n_used = _compacted(labels, post, post_sum, sizes, 7, 0.2, counts.shape[1], n_fixed=3)
    assert n_used == 6 and set(labels.tolist()) == {3, 4, 5}
    for got, want in zip((post, post_sum, sizes), _state(counts, labels, n_used, 0.2, capacity=10, held=held)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sizes[:3], held[1])


def test_resampled_documents_join_held_clusters_or_open_new_ones():
    """Documents dealt among new clusters: those of a vocabulary a held cluster already holds join
    it, those of a vocabulary no cluster holds stay in new clusters (labels 2 on; memoized VI's
    merges join those)."""
    counts, groups = _three_word_texts(1)
    held_docs = counts[groups < 2]
    held_words = np.stack([np.asarray(held_docs[groups[groups < 2] == g].sum(axis=0)).ravel() for g in range(2)])
    held = (held_words * 3.0, np.bincount(groups[groups < 2]) * 3.0)  # three times as many seen before
    labels = gibbs_sweeps(BagOfWords(counts), 2 + np.random.default_rng(0).integers(30, size=counts.shape[0]), 0.1,
                          1.0, 10, np.random.default_rng(0), held=held)
    assert np.array_equal(labels[groups < 2], groups[groups < 2])
    assert np.all(labels[groups == 2] >= 2) and np.bincount(labels[groups == 2]).max() > 0.5 * np.sum(groups == 2)


# ---------------------------------------------------------------------------------------------- birth splits
def _three_word_texts(seed: int, n_groups: int = 3, n_docs: int = 300, words_per_group: int = 30):
    """Documents of 3 distinct words, each drawn from its group's own 30 words."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(n_groups, size=n_docs)
    words = np.stack([rng.choice(words_per_group, 3, replace=False) + g * words_per_group for g in groups])
    counts = sp.csr_matrix((np.ones(words.size), (np.repeat(np.arange(n_docs), 3), words.ravel())),
                           shape=(n_docs, n_groups * words_per_group))
    return counts, groups


def _mult_model(data):
    return make_mixture_model(MixtureConfig(obs_model="mult", n_components=3), data)


def test_birth_split_of_short_texts_is_refined_by_the_sampler():
    """k-means on three words per item splits by chance words; the collapsed sampler started from its
    partition recovers the vocabularies (on 4 of these 5 corpora exactly, on every one better)."""
    exact = 0
    for seed in range(5):
        counts, groups = _three_word_texts(seed)
        data = BagOfWords(counts)
        model = _mult_model(data)
        kmeans = bregman_kmeans(model, data, kmeans_plus_plus(model, data, 3, np.random.default_rng(seed)), 3)
        split = split_labels(model, data, 3, np.random.default_rng(seed), 3)
        assert adjusted_rand_score(groups, split) > adjusted_rand_score(groups, kmeans)
        exact += adjusted_rand_score(groups, split) == 1.0
    assert exact >= 4


def test_birth_split_keeps_the_largest_groups():
    """Asked for two groups where the sampler finds three, the two largest stay whole and apart."""
    counts, groups = _three_word_texts(0)
    data = BagOfWords(counts)
    split = split_labels(_mult_model(data), data, 2, np.random.default_rng(0), 3)
    assert set(split.tolist()) == {0, 1}
    largest = np.argsort(-np.bincount(groups))[:2]
    kept = [np.unique(split[groups == g]) for g in largest]
    assert [len(k) for k in kept] == [1, 1] and kept[0][0] != kept[1][0]


def test_birth_split_of_fractional_counts_is_kmeans():
    counts, _ = _three_word_texts(0)
    data = BagOfWords(counts * 0.5)
    model = _mult_model(data)
    kmeans = bregman_kmeans(model, data, kmeans_plus_plus(model, data, 3, np.random.default_rng(0)), 3)
    np.testing.assert_array_equal(split_labels(model, data, 3, np.random.default_rng(0), 3), kmeans)


def test_births_from_one_cluster_of_short_texts_are_accepted():
    """From one component memoized VI grows to the three vocabularies; the sampler's splits are
    accepted at about every try (11 tries over these 5 corpora; 62 with the k-means splits alone)."""
    tries = 0
    for seed in range(5):
        counts, groups = _three_word_texts(seed)
        model = DPMixture(obs_model="mult", n_components=1, init="kmeans++", random_state=seed).fit(counts)
        assert model.n_active_components_ == 3 and adjusted_rand_score(groups, model.labels_) == 1.0
        tries += sum(record["moves"]["birth"]["tried"] for record in model.trace_)
    assert tries <= 15
