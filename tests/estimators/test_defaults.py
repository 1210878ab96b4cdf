"""The defaults learn K (issue 24): DPMixture(), HDPHMM() and HDPTopicModel() with no arguments find
the number of components of synthetic data whose K is known, from a start that is not that K."""

import numpy as np
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from stickbreak import DPMixture, HDPHMM, HDPTopicModel
from stickbreak.data import BagOfWords
from stickbreak.datasets.synthetic import make_bars_corpus, make_sticky_hmm_toy
from stickbreak.evaluate import hamming_distance
from stickbreak.estimators.mixture_base import auto_components


def test_dp_mixture_defaults_find_the_clusters():
    X, labels = make_blobs(3000, 5, centers=12, cluster_std=1.0, random_state=1)
    model = DPMixture(random_state=0).fit(X)
    assert auto_components(len(X)) == 30  # the start: over-complete, not the answer
    assert model.n_components_ == 12 and model.n_active_components_ == 12
    assert adjusted_rand_score(labels, model.labels_) > 0.99
    kinds = [m["kind"] for m in model.move_log_]
    assert kinds.count("merge") + kinds.count("delete") > 0


def test_dp_mixture_births_grow_from_one_cluster():
    X, labels = make_blobs(2000, 4, centers=6, cluster_std=0.8, random_state=3)
    model = DPMixture(n_components=1, random_state=0).fit(X)
    assert model.n_components_ == 6
    assert adjusted_rand_score(labels, model.labels_) > 0.99
    assert any(m["kind"] == "birth" for m in model.move_log_)


def test_hdp_hmm_defaults_find_the_states():
    X, offsets, states = make_sticky_hmm_toy(n_sequences=8, length=300, n_states=5, seed=1)
    lengths = np.diff(offsets)
    model = HDPHMM(stickiness=50.0, random_state=0).fit(X, lengths=lengths)
    assert model.n_states_ == 5
    assert hamming_distance(states, model.predict(X, lengths=lengths)) < 0.05


def test_hdp_topic_model_defaults_prune_to_the_topics():
    counts, topics = make_bars_corpus(n_docs=300, doc_length=80, side=10, n_bars=10, seed=2)
    model = HDPTopicModel(random_state=0).fit(BagOfWords.from_counts(counts))
    assert model.n_topics_ <= 15  # from 100
    assert abs(model.n_topics_ - len(topics)) <= 3
