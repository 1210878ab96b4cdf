"""Topics out to pyLDAvis and gensim (optional extras: the tests skip when they are not installed)."""

import sys

import numpy as np
import pytest

from fitted_models import fit
from stickbreak import LDA
from stickbreak.data import DataError, as_bag_of_words
from stickbreak.export import to_gensim, to_pyldavis


@pytest.mark.parametrize("kind", ["lda", "hdp", "diln"])
def test_pyldavis_arguments(kind):
    est, data = fit(kind)
    args = to_pyldavis(est, data["X"])
    used = [t["topic"] for t in est.top_words(1)]
    assert args["topic_term_dists"].shape == (len(used), 40)
    assert np.allclose(args["topic_term_dists"],
                       est.topic_word_[used] / est.topic_word_[used].sum(axis=1, keepdims=True))
    assert args["doc_topic_dists"].shape == (60, len(used)) and np.allclose(args["doc_topic_dists"].sum(axis=1), 1)
    assert np.array_equal(args["doc_lengths"], np.full(60, 80.0)) and args["term_frequency"].sum() == 4800
    assert args["vocab"] == list(est.vocabulary_)


def test_pyldavis_prepares_the_visualisation():
    pyLDAvis = pytest.importorskip("pyLDAvis", reason="pyLDAvis is an optional extra (pip install stickbreak[peers])")
    est, data = fit("hdp")
    prepared = pyLDAvis.prepare(**to_pyldavis(est, data["X"]), sort_topics=False)
    assert len(prepared.topic_coordinates) == est.n_topics_


@pytest.mark.parametrize("kind", ["lda", "hdp"])
def test_gensim_lda_model_holds_the_topics(kind):
    pytest.importorskip("gensim", reason="gensim is an optional extra (pip install stickbreak[peers])")
    est, data = fit(kind)
    lda, dictionary = to_gensim(est)
    used = [t["topic"] for t in est.top_words(1)]
    assert np.allclose(lda.get_topics(), est.topic_word_[used] / est.topic_word_[used].sum(axis=1, keepdims=True))
    assert dictionary.token2id["word7"] == 7 and dictionary[0] == est.vocabulary_[0]
    top = est.top_words(3)[0]
    assert [word for word, _ in lda.show_topic(0, 3)] == [word for word, _ in top["words"]]
    doc = dictionary.doc2bow(["word12", "word13", "word12"])
    assert abs(sum(p for _, p in lda.get_document_topics(doc, minimum_probability=0)) - 1) < 1e-6


def test_exports_take_what_fit_takes_and_name_the_extra_they_need(monkeypatch):
    """to_pyldavis counts raw text and token lists over the model's vocabulary, as fit and
    transform do; to_gensim without gensim says which extra to install."""
    texts = ["apple banana cherry apple", "banana cherry date", "cherry date apple banana", "date date apple"]
    lda = LDA(n_topics=2, max_laps=3, random_state=0).fit(texts)
    counts = as_bag_of_words(texts, vocabulary=lda.vocabulary_)
    expected = to_pyldavis(lda, counts)
    for documents in (texts, [text.split() for text in texts]):
        given = to_pyldavis(lda, documents)
        assert given["vocab"] == expected["vocab"] == list(lda.vocabulary_)
        for name in ("topic_term_dists", "doc_topic_dists", "doc_lengths", "term_frequency"):
            np.testing.assert_array_equal(given[name], expected[name])
    with pytest.raises(DataError, match="fitted on 4"):
        to_pyldavis(lda, np.ones((2, 5)))
    for module in ("gensim", "gensim.corpora", "gensim.models"):  # as if gensim were not installed
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=r"stickbreak\[peers\]"):
        to_gensim(lda)
