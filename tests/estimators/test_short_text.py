"""ShortTextTopicModel: the DP mixture of multinomials under a topic model's names, on the openings
of 20newsgroups posts (15 words each): text in, topics out, every output path a topic model has."""

import gzip

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import normalized_mutual_info_score

from stickbreak import ShortTextTopicModel, load
from stickbreak.core.protocols import total_elbo
from stickbreak.data.documents import as_bag_of_words
from stickbreak.export import to_pyldavis

from conftest import shared_path


@pytest.fixture(scope="module")
def openings():
    """The first 15 words of 600 training posts, with their newsgroups."""
    with gzip.open(shared_path("20newsgroups", "docs.tsv.gz"), "rt", encoding="utf-8") as lines:
        rows = [line.rstrip("\n").split("\t") for line in lines]
    rows = [row for row in rows if row[0] == "train"]
    picked = np.random.default_rng(0).choice(len(rows), 600, replace=False)
    return [" ".join(rows[i][2].split()[:15]) for i in picked], [rows[i][1] for i in picked]


@pytest.fixture(scope="module")
def fitted(openings):
    texts, _ = openings
    return ShortTextTopicModel(random_state=0).fit(texts)


def test_learns_topics_from_raw_text(fitted, openings):
    texts, groups = openings
    assert fitted.n_components == "auto" and 2 <= fitted.n_topics_ <= fitted.n_components_
    assert normalized_mutual_info_score(groups, fitted.labels_) > 0.05  # above chance: the groups show
    words = fitted.top_words(5)
    assert all(isinstance(word, str) for topic in words for word, _ in topic["words"])
    assert [t["size"] for t in words] == sorted((t["size"] for t in words), reverse=True)
    theta = fitted.transform(texts[:20])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    np.testing.assert_array_equal(theta.argmax(axis=1), fitted.predict(texts[:20]))
    np.testing.assert_allclose(fitted.topic_word_.sum(axis=1), 1.0)
    counted = as_bag_of_words(texts, tokens_over=fitted.vocabulary_, empty="keep").counts
    assert fitted.topic_sizes_.sum() == pytest.approx(counted.sum())  # expected tokens
    assert list(fitted.get_feature_names_out()[:2]) == ["shorttexttopicmodel0", "shorttexttopicmodel1"]


def test_its_parameters_are_a_topic_models(openings):
    texts, _ = openings
    model = ShortTextTopicModel(n_topics=4, topic_word_prior=0.5, random_state=0)
    assert "obs_model" not in model.get_params() and clone(model).get_params()["n_topics"] == 4
    assert model.set_params(n_topics=6).n_components == 6
    model.fit(texts[:200])
    np.testing.assert_allclose(model.model_.obs_prior["lam"], 0.5)
    with pytest.raises(ValueError, match="topic_word_prior"):
        model.obs_prior = {"pseudo_count": 1.0}


def test_save_load_report_pyldavis_and_stream(fitted, openings, tmp_path):
    texts, _ = openings
    fitted.save(tmp_path / "short.npz")
    loaded = load(tmp_path / "short.npz")
    assert loaded.vocabulary_ == fitted.vocabulary_ and loaded.top_words(3) == fitted.top_words(3)
    np.testing.assert_array_equal(loaded.predict(texts[:50]), fitted.predict(texts[:50]))
    page = loaded.report(tmp_path / "short.html").read_text()
    assert fitted.top_words(3)[0]["words"][0][0] in page
    args = to_pyldavis(loaded, texts)
    assert args["topic_term_dists"].shape == (len(fitted.top_words(1)), len(fitted.vocabulary_))
    np.testing.assert_allclose(args["doc_topic_dists"].sum(axis=1), 1.0)
    loaded.partial_fit(texts[:100])  # a stream goes on from the loaded model, over its vocabulary
    assert loaded.n_iter_ == fitted.n_iter_ + 1 and loaded.component_counts_.sum() == pytest.approx(700)


def test_truncation_free_refuses_to_learn_the_concentration(openings):
    texts, _ = openings
    with pytest.raises(ValueError, match="keeps the concentration fixed"):
        ShortTextTopicModel(algorithm="truncation_free", learn_concentration=True).fit(texts[:50])


def test_every_algorithm_reports_the_exact_elbo_of_its_fit(openings):
    """``lower_bound_`` is the whole-data ELBO of the fitted ``q`` under every algorithm (truncation-free
    SVI's trace holds per-document estimates; its final pass is rescored), so fits compare."""
    texts, _ = openings
    for algorithm in ("truncation_free", "memoized"):
        model = ShortTextTopicModel(algorithm=algorithm, max_laps=3, random_state=0).fit(texts)
        exact = total_elbo(model.model_.elbo_terms(model.params_, model.stats_))
        assert model.lower_bound_ == pytest.approx(exact, rel=1e-12) and exact < -len(texts)
