"""The LDA and HDPTopicModel estimators, the bundled AP corpus and the topic CLI."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import stickbreak
from stickbreak import LDA, HDPTopicModel, datasets
from stickbreak.cli.main import main
from stickbreak.data import DataError
from stickbreak.datasets.synthetic import make_lda_corpus

from conftest import shared_path


@pytest.fixture(scope="module")
def corpus():
    counts, _, _ = make_lda_corpus(n_docs=200, n_topics=4, n_words=40, doc_length=60, seed=2)
    return counts


@pytest.mark.compile_heavy
@pytest.mark.parametrize("cls,algorithm", [(LDA, "vb"), (LDA, "stochastic"), (LDA, "memoized"),
                                           (HDPTopicModel,
                                            "memoized"), (HDPTopicModel, "vb"), (HDPTopicModel, "stochastic")])
def test_fit_transform_score(cls, algorithm, corpus):
    est = cls(n_topics=6, algorithm=algorithm, n_batches=4 if algorithm != "vb" else 1, max_laps=15, tol=0.0,
              random_state=0).fit(corpus)
    theta = est.transform(corpus[:10])
    n_topics = est.topic_word_.shape[0]  # 6, or what the HDP's default moves (memoized VI) made of them
    assert n_topics == 6 or (cls, algorithm) == (HDPTopicModel, "memoized")
    assert theta.shape == (10, n_topics) and np.allclose(theta.sum(axis=1), 1.0)
    assert est.topic_word_.shape == (n_topics, 40) and np.allclose(est.topic_word_.sum(axis=1), 1.0)
    assert 1 <= est.n_topics_ <= n_topics
    uniform = -np.log(40)
    assert est.score(corpus[:50]) > uniform + 0.3  # far better than a uniform model of the words
    assert est.perplexity(corpus[:50]) == pytest.approx(np.exp(-est.score(corpus[:50])))


def test_same_seed_same_fit(corpus):
    a = HDPTopicModel(n_topics=5, max_laps=5, tol=0, random_state=3).fit(corpus)
    b = HDPTopicModel(n_topics=5, max_laps=5, tol=0, random_state=3).fit(corpus)
    assert np.array_equal(a.topic_word_, b.topic_word_)


def test_partial_fit_streams_and_improves(corpus):
    est = LDA(n_topics=4, doc_topic_prior=0.2, random_state=0,
              algorithm_options={"total_docs": 200, "learning_rate_delay": 1.0})
    first = None
    for epoch in range(6):
        for start in range(0, 200, 50):
            est.partial_fit(corpus[start:start + 50])
        if first is None:
            first = est.score(corpus)
    assert est.n_iter_ == 24 and est.score(corpus) > first


def test_partial_fit_continues_a_fit(corpus):
    """partial_fit after fit streams on from the fitted topics (it used to fail: no stream state);
    a new fit starts a new stream."""
    est = LDA(n_topics=4, algorithm="stochastic", n_batches=4, max_laps=3, tol=0, random_state=0).fit(corpus)
    fitted = est.topic_word_.copy()
    est.partial_fit(corpus[:50]).partial_fit(corpus[50:100])
    assert est.n_iter_ == 5 and not np.allclose(est.topic_word_, fitted)
    est.fit(corpus).partial_fit(corpus[:50])
    assert est.n_iter_ == 4


def test_top_words_save_load_roundtrip(corpus, tmp_path):
    vocab = [f"word{i}" for i in range(40)]
    est = HDPTopicModel(n_topics=6, max_laps=5, tol=0, random_state=0).fit(corpus, vocabulary=vocab)
    top = est.top_words(3)
    assert top[0]["size"] >= top[-1]["size"] and all(w.startswith("word") for w, _ in top[0]["words"])
    path = est.save(tmp_path / "hdp")
    loaded = stickbreak.load(path)
    assert isinstance(loaded, HDPTopicModel) and loaded.vocabulary_ == tuple(vocab)
    assert np.allclose(loaded.transform(corpus[:5]), est.transform(corpus[:5]))
    assert loaded.top_words(3) == top
    with pytest.raises(TypeError, match="not a LDA"):
        LDA.load(path)


def test_gensim_style_corpus_input(corpus):
    docs = [list(zip(row.indices.tolist(), row.data.astype(int).tolist())) for row in corpus[:60]]
    est = LDA(n_topics=3, max_laps=3, tol=0, random_state=0).fit(docs)
    assert est.n_features_in_ == int(corpus[:60].indices.max()) + 1


@pytest.mark.parametrize("est,bad,kwargs,match", [
    (LDA(n_topics=3), lambda X: X.multiply(-1), {}, "documents .* have negative counts"),
    (LDA(n_topics=3, algorithm="gibbs"), lambda X: X * 0.5, {}, "non-integer counts.*samples word tokens"),
    (HDPTopicModel(algorithm="truncation_free"), lambda X: X * 0.5, {}, "non-integer counts.*samples word tokens"),
    (LDA(n_topics=3), lambda X: sp.vstack([X[:3], sp.csr_matrix((1, X.shape[1])), X[3:6]]).tocsr(),
     {"empty": "error"}, "empty document"),
])
def test_bad_input_is_rejected_before_work(corpus, est, bad, kwargs, match):
    with pytest.raises(DataError, match=match):
        est.fit(bad(corpus[:10].copy()), **kwargs)


def test_weights_and_empty_documents_fit_with_the_variational_algorithms(corpus):
    """tf-idf-like weights fit as weighted counts and score on word types; an empty document is
    kept by default (no topics from it, the prior's proportions out), or skipped with a warning."""
    weights = corpus[:60] * 0.5
    est = LDA(n_topics=3, max_laps=3, tol=0, random_state=0).fit(weights)
    assert np.isfinite(est.score(weights)) and est.lower_bound_ < 0
    with_empty = sp.vstack([corpus[:30], sp.csr_matrix((1, corpus.shape[1])), corpus[30:60]]).tocsr()
    kept = LDA(n_topics=3, max_laps=3, tol=0, random_state=0).fit(with_empty)
    prior = np.full(3, 1.0 / 3)
    np.testing.assert_allclose(kept.transform(with_empty)[30], prior)
    with pytest.warns(UserWarning, match="empty"):
        skipped = LDA(n_topics=3, max_laps=3, tol=0, random_state=0).fit(with_empty, empty="skip")
    assert skipped.transform(with_empty).shape == (61, 3) and skipped.n_features_in_ == kept.n_features_in_


def test_bad_options_and_vocabulary_mismatch(corpus):
    with pytest.raises(ValueError, match="n_topics"):
        LDA(n_topics=0).fit(corpus)
    with pytest.raises(ValueError, match="local_start|start"):
        LDA(n_topics=2, algorithm_options={"local_start": "sometimes"}).fit(corpus)
    est = LDA(n_topics=2, max_laps=2, tol=0).fit(corpus)
    with pytest.raises(ValueError, match="features"):
        est.transform(corpus[:, :30])


def test_bundled_ap_corpus():
    ap = datasets.load("ap")
    assert ap.X.counts.shape == (2246, 10473) and ap.X.vocabulary[:3] == ("i", "new", "percent")


def test_cli_fit_topics_and_eval(tmp_path, capsys, corpus):
    from stickbreak.data.documents import as_bag_of_words
    from stickbreak.data.text_io import write_ldac

    path = tmp_path / "docs.ldac"
    write_ldac(as_bag_of_words(corpus, [f"w{i}" for i in range(40)]), path, tmp_path / "vocab.txt")
    out = tmp_path / "run"
    assert main(["fit", "topics", str(path), "--model", "hdp", "-K", "6", "--max-laps", "5", "--heldout", "0.2",
                 "--quiet", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "HDPTopicModel(K=6 at the start, memoized + birth,merge,delete)" in text  # the default moves learn K
    assert "topics used of" in text and "per-word log-likelihood" in text and "topic" in text
    assert (out / "model.npz").exists() and (out / "topics.csv").exists()
    assert main(["eval", str(out / "model.npz"), str(path), "--mode", "types"]) == 0
    assert "perplexity" in capsys.readouterr().out
    assert main(["fit", "topics", str(path), "--model", "lda", "-K", "0", "--quiet"]) == 2


def test_cli_fit_topics_with_moves(tmp_path, capsys, corpus):
    from stickbreak.data.documents import as_bag_of_words
    from stickbreak.data.text_io import write_ldac

    path = tmp_path / "docs.ldac"
    write_ldac(as_bag_of_words(corpus, [f"w{i}" for i in range(40)]), path, tmp_path / "vocab.txt")
    assert main(["fit", "topics", str(path), "--model", "hdp", "-K", "12", "--algorithm", "memoized", "--n-batches",
                 "2", "--moves", "merge,delete", "--max-laps", "6", "--tol", "0", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "moves accepted/tried: merge" in text and ", delete " in text
    assert main(["fit", "topics", str(path), "--model", "lda", "--moves", "merge", "--quiet"]) == 2
    assert "--moves needs --model hdp" in capsys.readouterr().err


def test_partial_fit_goes_on_from_a_fit_and_from_a_loaded_model(corpus, tmp_path):
    """After fit, the stream's step is the fit's last (laps x batches) and its documents the fit's,
    so the next step is small; a saved and loaded model takes the same step."""
    est = LDA(n_topics=3, algorithm="stochastic", n_batches=4, max_laps=3, tol=0, random_state=0).fit(corpus[:80])
    back = stickbreak.load(est.save(tmp_path / "lda"))
    before = est.components_.copy()
    est.partial_fit(corpus[80:100])
    assert est._stream["step"] == 3 * 4 + 1 and est._stream["seen"] == 100
    assert np.abs(est.components_ - before).sum() < 0.5 * before.sum()  # a step of (delay + 13)^-decay, not a restart
    np.testing.assert_allclose(back.partial_fit(corpus[80:100]).components_, est.components_, rtol=1e-12)


def test_token_lists_fit_and_transform_over_the_fitted_vocabulary():
    docs = [["apple", "pie", "pie"], ["banana", "split"], ["apple", "banana"]] * 10
    est = LDA(n_topics=2, max_laps=3, random_state=0).fit(docs)
    assert est.vocabulary_ == ("apple", "banana", "pie", "split")
    assert est.transform([["apple", "cherry"], ["pie"]]).shape == (2, 2)  # cherry is not in the vocabulary


def test_transform_columns_are_named_as_scikit_learn_names_them(corpus):
    est = LDA(n_topics=3, max_laps=2, random_state=0).fit(corpus)
    assert est.get_feature_names_out().tolist() == ["lda0", "lda1", "lda2"]


def test_raw_text_fits_and_transforms_through_count_vectorizer():
    """Raw text (20 Newsgroups posts, one string each) is counted by CountVectorizer(stop_words="english")
    at fit, and over the fitted vocabulary at transform; the topics name English words."""
    import gzip

    from sklearn.feature_extraction.text import CountVectorizer

    with gzip.open(shared_path("20newsgroups", "docs.tsv.gz"), "rt", encoding="utf-8") as fh:
        texts = [line.rstrip("\n").split("\t", 2)[2] for _, line in zip(range(300), fh)]
    est = HDPTopicModel(n_topics=10, max_laps=3, random_state=0).fit(texts[:250])
    expected = CountVectorizer(stop_words="english").fit(texts[:250]).get_feature_names_out()
    assert est.vocabulary_ == tuple(expected) and "the" not in est.vocabulary_
    assert all(isinstance(word, str) for word, _ in est.top_words(5)[0]["words"])
    held_out = texts[250:]
    np.testing.assert_allclose(est.transform(held_out),
                               est.transform(CountVectorizer(vocabulary=est.vocabulary_).transform(held_out)))


def test_squarem_is_an_option_of_the_variational_steps(corpus):
    """``local_accelerate`` runs the document fixed point by SQUAREM (by default LDA's batch steps,
    not the HDP's): fewer map evaluations, a valid fit; anything but a bool or None is refused."""
    import stickbreak.models.topics.options as topic_model

    seen = []
    real = topic_model.topic_local_step

    def counting(*args):
        out = real(*args)
        seen.append((args[-1], int(out[3].sum())))
        return out

    topic_model.topic_local_step = counting
    try:
        for accelerate in (False, True):
            est = LDA(n_topics=4, max_laps=3, tol=0.0, random_state=0,
                      algorithm_options={"local_accelerate": accelerate, "local_tol": 1e-3}).fit(corpus)
            assert np.isfinite(est.lower_bound_)
        plain = sum(n for flag, n in seen if not flag)
        fast = sum(n for flag, n in seen if flag)
        assert {flag for flag, _ in seen} == {False, True} and fast < plain
        seen.clear()
        LDA(n_topics=4, max_laps=2, random_state=0).fit(corpus)
        assert {flag for flag, _ in seen} == {True}  # LDA's batch default
        seen.clear()
        HDPTopicModel(n_topics=4, max_laps=2, random_state=0).fit(corpus)
        assert {flag for flag, _ in seen} == {False}  # the HDP's default
    finally:
        topic_model.topic_local_step = real
    with pytest.raises(ValueError, match="local_accelerate must be True, False or None"):
        LDA(algorithm_options={"local_accelerate": "yes"}).fit(corpus)


def test_a_refit_in_another_family_drops_the_last_fits_concentrations(corpus):
    hdp = HDPTopicModel(n_topics=4, moves=(), max_laps=3, random_state=0).fit(corpus)
    assert set(hdp.concentrations_) >= {"concentration", "doc_topic_prior"}
    hdp.set_params(variational_family="two_level", algorithm="vb").fit(corpus)
    assert not hasattr(hdp, "concentrations_")
