"""The DILN paper's initialisation (Paisley, Wang & Blei 2012, §5.2): k-means with the L1 distance."""

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak import LDA
from stickbreak.data import BagOfWords
from stickbreak.kernels.topics import _reference_kmeans_l1 as ref
from stickbreak.kernels.topics.kmeans_l1 import assign_l1
from stickbreak.models.topics.init import initial_topics, kmeans_l1_topics


def grouped_corpus(seed=0, n_groups=4, docs_per_group=30, words_per_group=10):
    """Documents drawn from disjoint word groups: group g uses words [g*w, (g+1)*w)."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_groups):
        probs = np.zeros(n_groups * words_per_group)
        probs[g * words_per_group:(g + 1) * words_per_group] = rng.dirichlet(np.ones(words_per_group))
        rows.append(rng.multinomial(40, probs, size=docs_per_group))
    labels = np.repeat(np.arange(n_groups), docs_per_group)
    return BagOfWords.from_counts(np.vstack(rows)), labels


def _kernel(X, centroids):
    X = sp.csr_matrix(X)
    return assign_l1(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, np.ascontiguousarray(centroids.T),
                     centroids.sum(axis=1), 3)


def test_assignment_kernel_matches_numpy_twin():
    rng = np.random.default_rng(1)
    X = rng.dirichlet(np.full(15, 0.2), 40) * (rng.random((40, 15)) < 0.5)
    X[0] = 0
    X[0, 3] = 1.0  # a document with one word
    centroids = rng.dirichlet(np.ones(15), 6)
    centroids[2, :5] = 0.0  # zeros in a centroid
    centroids[5] = centroids[4]  # a tie: the lower index wins
    labels, dist = _kernel(X, centroids)
    want_labels, want_dist = ref.assign_l1(X, centroids)
    np.testing.assert_array_equal(labels, want_labels)
    np.testing.assert_allclose(dist, want_dist, rtol=1e-12, atol=1e-12)
    assert not np.any(labels == 5)


def test_recovers_disjoint_word_groups():
    data, truth = grouped_corpus()
    lam = kmeans_l1_topics(data, np.full(data.n_features, 0.1), 4, np.random.default_rng(3))
    # each topic's mass above the prior sits on one word group, and each group gets a topic
    mass = (lam - 0.1).reshape(4, 4, 10).sum(axis=2)
    assert sorted(np.argmax(mass, axis=1).tolist()) == [0, 1, 2, 3]
    assert np.all(mass.max(axis=1) > 0.8 * mass.sum(axis=1))


def test_usage_order_scale_and_prior():
    data, _ = grouped_corpus(n_groups=3, docs_per_group=20)
    counts = data.counts.toarray()
    big = BagOfWords.from_counts(np.vstack([counts, counts[:20], counts[:20]]))  # group 0 is the most used
    prior = np.full(big.n_features, 0.05)
    lam = kmeans_l1_topics(big, prior, 3, np.random.default_rng(0))
    assert np.all(lam > prior)
    np.testing.assert_allclose((lam - prior).sum(axis=1), big.counts.sum() / 3)
    assert np.argmax((lam[0] - prior).reshape(3, 10).sum(axis=1)) == 0
    again = kmeans_l1_topics(big, prior, 3, np.random.default_rng(0))
    np.testing.assert_array_equal(lam, again)


def test_more_topics_than_documents_and_the_estimators():
    data, _ = grouped_corpus(n_groups=2, docs_per_group=3)
    lam = initial_topics(data, np.full(data.n_features, 0.1), 10, "kmeans_l1", np.random.default_rng(0))
    assert lam.shape == (10, data.n_features) and np.isfinite(lam).all()
    assert len({tuple(np.round(row, 12)) for row in lam}) == 10  # the noise separates duplicated centroids
    model = LDA(n_topics=4, init="kmeans_l1", max_laps=3, tol=0.0, random_state=0).fit(grouped_corpus()[0].counts)
    assert model.n_iter_ == 3
    with pytest.raises(ValueError, match="init='nope' is not valid"):
        initial_topics(data, np.full(data.n_features, 0.1), 3, "nope", np.random.default_rng(0))
