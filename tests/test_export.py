"""Topics out to pyLDAvis and gensim (optional extras: the tests skip when they are not installed)."""

import numpy as np
import pytest

from fitted_models import fit
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
