"""The c_v coherence (stickbreak.evaluate.coherence_cv): its sliding-window kernel against the NumPy
twin, the measure against a brute-force reading of Röder et al. (2015), and against gensim's
CoherenceModel (live when gensim is installed; pinned values of gensim 4.4.0 always)."""

import gzip
import itertools
import re

import numpy as np
import pytest

from stickbreak.data import DataError
from stickbreak.evaluate import mean_coherence, topic_coherence
from stickbreak.kernels.evaluate import _reference_windows as ref
from stickbreak.kernels.evaluate.windows import window_occurrences

from conftest import shared_path


def random_texts(rng, n_docs, n_words, longest):
    """Token-id documents with repeats, other tokens (-1), empty and short documents."""
    docs = [rng.integers(-1, n_words, size=rng.integers(0, longest)).tolist() for _ in range(n_docs)]
    docs[0] = []
    docs[1] = [2, 2, 2, 1, 2]
    return docs


def flat(docs):
    starts = np.concatenate(([0], np.cumsum([len(d) for d in docs]))).astype(np.int64)
    return np.array(list(itertools.chain.from_iterable(docs)), dtype=np.int64), starts


@pytest.mark.parametrize("window_size", [1, 2, 4, 9, 40])
def test_window_counts_match_the_twin(window_size):
    rng = np.random.default_rng(window_size)
    n_words = 7
    tokens, starts = flat(random_texts(rng, 30, n_words, 25))
    tokens = np.where(tokens < 0, n_words, tokens)  # the kernel's "other token"
    occurrences, upper = np.zeros(n_words, np.int64), np.zeros((n_words, n_words), np.int64)
    n_windows = window_occurrences(tokens, starts, n_words, window_size, occurrences, upper)
    expected_occ, expected_co, expected_windows = ref.window_occurrences(tokens, starts, n_words, window_size)
    assert n_windows == expected_windows
    np.testing.assert_array_equal(occurrences, expected_occ)
    together = upper + upper.T
    together[np.diag_indices(n_words)] = occurrences
    np.testing.assert_array_equal(together, expected_co)
    assert np.all(np.tril(upper, -1) == 0)


def brute_cv(top_words, docs, window_size, eps=1e-12):
    """Röder et al. (2015), c_v, written out word by word over the twin's window counts."""
    occurrences, co, n = ref.window_occurrences(*flat([[t if t >= 0 else 10**6 for t in d] for d in docs]),
                                                max(max(top) for top in top_words) + 1, window_size)

    def npmi(a, b):
        joint = co[a, b] / n
        return np.log((joint + eps) / (occurrences[a] / n * occurrences[b] / n)) / -np.log(joint + eps)

    scores = []
    for top in top_words:
        vectors = {w: np.array([npmi(w, v) for v in top]) for w in top}
        whole = sum(vectors.values())
        scores.append(np.mean([vectors[w] @ whole / np.linalg.norm(vectors[w]) / np.linalg.norm(whole) for w in top]))
    return np.array(scores)


def test_cv_matches_the_definition_on_word_ids():
    rng = np.random.default_rng(3)
    docs = random_texts(rng, 60, 12, 40)
    for d in docs[2:]:  # every top word occurs
        d.extend(range(12))
    top = np.array([[0, 3, 5, 7], [1, 2, 4, 11], [6, 8, 9, 10]])
    for window_size in (5, 110):
        np.testing.assert_allclose(topic_coherence(top, docs, "c_v", window_size=window_size),
                                   brute_cv(top, docs, window_size), rtol=1e-12)
    weights = rng.random((3, 12))
    expected = brute_cv(np.argsort(-weights, axis=1, kind="stable")[:, :5], docs, 110)
    assert mean_coherence(weights, docs, "c_v", n_top=5) == pytest.approx(expected.mean(), rel=1e-12)


def test_cv_on_tokens_maps_them_through_the_vocabulary():
    vocabulary = ["apple", "banana", "cherry", "date"]
    texts = [["apple", "banana", "zebra", "apple"], ["cherry", "date", "banana"], ["date", "apple", "cherry"]]
    ids = [[vocabulary.index(t) if t in vocabulary else -1 for t in text] for text in texts]
    top = np.array([[0, 1, 2], [3, 2, 1]])
    np.testing.assert_allclose(topic_coherence(top, texts, "c_v", vocabulary=vocabulary, window_size=2),
                               brute_cv(top, ids, 2), rtol=1e-12)


def test_cv_errors_name_the_problem():
    with pytest.raises(DataError, match="list of tokens"):
        topic_coherence(np.array([[0, 1]]), ["apple banana"], "c_v", vocabulary=["apple", "banana"])
    with pytest.raises(DataError, match="pass vocabulary="):
        topic_coherence(np.array([[0, 1]]), [["apple", "banana"]], "c_v")
    with pytest.raises(DataError, match="never occur"):
        topic_coherence(np.array([[0, 2]]), [[0, 1, 0]], "c_v", vocabulary=["a", "b", "c"])
    with pytest.raises(DataError, match=r"must lie in \[0, 3\)"):
        topic_coherence(np.array([[0, 1]]), [[0, 1, 5]], "c_v", vocabulary=["a", "b", "c"])
    with pytest.raises(DataError, match="window_size"):
        topic_coherence(np.array([[0, 1]]), [[0, 1]], "c_v", window_size=0)


def newsgroups_texts(step):
    """Every ``step``-th document of 20newsgroups' raw text (the file goes group by group),
    tokenised as its bag of words was (lowercase, ``[a-z][a-z]+``)."""
    texts = []
    with gzip.open(shared_path("20newsgroups", "docs.tsv.gz"), "rt", encoding="utf-8") as lines:
        for line in itertools.islice(lines, 0, None, step):
            texts.append(re.findall(r"[a-z][a-z]+", line.rstrip("\n").split("\t")[-1].lower()))
    return texts


#: Hand-picked topics of 20newsgroups words and gensim 4.4.0's c_v of each on every 25th raw
#: document (``CoherenceModel(topics, texts, Dictionary(texts), coherence="c_v", topn=6, processes=1)``).
NEWSGROUPS_TOPICS = [["god", "jesus", "bible", "church", "christian", "faith"],
                     ["car", "engine", "drive", "speed", "road", "oil"],
                     ["windows", "file", "program", "dos", "disk", "software"],
                     ["game", "team", "season", "players", "hockey", "play"],
                     ["space", "nasa", "launch", "orbit", "shuttle", "moon"]]
GENSIM_CV = [0.7714683879766123, 0.5360877760110453, 0.7255263746530889, 0.8791207395841174, 0.7048433776054434]


def test_cv_matches_gensim_on_newsgroups():
    texts = newsgroups_texts(25)
    vocabulary = sorted({t for text in texts for t in text})
    top = np.array([[vocabulary.index(w) for w in topic] for topic in NEWSGROUPS_TOPICS])
    ours = topic_coherence(top, texts, "c_v", vocabulary=vocabulary)
    np.testing.assert_allclose(ours, GENSIM_CV, atol=1e-6)
    gensim = pytest.importorskip("gensim")
    from gensim.models.coherencemodel import CoherenceModel

    theirs = CoherenceModel(topics=NEWSGROUPS_TOPICS, texts=texts, dictionary=gensim.corpora.Dictionary(texts),
                            coherence="c_v", topn=6, processes=1).get_coherence_per_topic()
    np.testing.assert_allclose(ours, theirs, atol=1e-6)
