"""Topic coherence of each topic's top words on a reference corpus (UMass, NPMI, c_v)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..data import DataError
from ..data.errors import describe_rows
from ._checks import checked_counts, checked_topic_word
from ..core.docstrings import composed
from .coherence_cv import CV_WINDOW, cv_coherence, texts_as_ids

COHERENCE_MEASURES = ("umass", "umass_sum", "npmi", "c_v")

#: numpydoc text of the coherence functions' parameters, their ``$parameters`` (:func:`._docstrings.composed`).
COHERENCE_PARAMETERS = """top_words_or_topic_word : array-like of shape (n_topics, n_words) or (n_topics, n)
        A float weight matrix (each row's ``n_top`` heaviest words are taken, most probable
        first), or an integer array of word ids in rank order (``n_top`` is then unused).
    reference : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words), or texts
        The reference corpus; for UMass and NPMI only whether a word occurs in a document counts.
        c_v reads word order: a sequence of documents, each a list of tokens (strings, mapped
        through ``vocabulary``; others still take their place in a window) or of word ids (-1 for
        a token outside the vocabulary).
    measure : {"umass", "umass_sum", "npmi", "c_v"}, default="umass"
        The coherence measure (see above).
    n_top : int, default=10
        The number of top words per topic taken from a weight matrix, at least 2.
    eps : float, default=1e-12
        Added inside the UMass logarithm; the floor of the NPMI denominator; c_v: added to each
        pair's window probability, as gensim does.
    vocabulary : sequence of str, optional
        c_v on token texts: the words of the topics' columns (a model's ``vocabulary_``).
    window_size : int, default=110
        c_v: tokens per sliding window (gensim's default for c_v)."""


def _top_word_ids(top_words_or_topic_word, n_words: int, n_top: int) -> np.ndarray:
    arr = np.asarray(top_words_or_topic_word)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.size == 0:
        raise DataError("expected a (n_topics, vocabulary_size) weight matrix or (n_topics, n) word ids, got shape "
                        f"{arr.shape}.")
    if arr.dtype.kind in "iu":
        ids = arr.astype(np.int64)
    else:
        weights = np.asarray(checked_topic_word(arr))
        if weights.shape[1] != n_words:
            raise DataError(f"topic_word has a vocabulary of {weights.shape[1]} words but the reference has "
                            f"{n_words}; use reference counts over the model's vocabulary.")
        if not 2 <= n_top <= n_words:
            raise DataError(f"n_top must lie between 2 and the vocabulary size {n_words}, got {n_top}.")
        ids = np.argsort(-weights, axis=1, kind="stable")[:, :n_top]
    if ids.shape[1] < 2 or ids.min() < 0 or ids.max() >= n_words:
        raise DataError(f"top word ids must be at least 2 per topic and lie in [0, {n_words}).")
    if (np.diff(np.sort(ids, axis=1), axis=1) == 0).any():
        raise DataError("a topic lists the same word id twice; pass distinct top words per topic.")
    return ids


def _cooccurrence(reference: sp.csr_matrix, ids: np.ndarray):
    """Document counts D(w_i, w_j) per topic as (K, n, n) (diagonal = D(w_i)), via one sparse product."""
    union, pos = np.unique(ids, return_inverse=True)
    present = (reference[:, union] > 0).astype(np.float64)
    co = (present.T @ present).toarray()
    pos = pos.reshape(ids.shape)
    return co[pos[:, :, None], pos[:, None, :]]


@composed(parameters=COHERENCE_PARAMETERS)
def topic_coherence(top_words_or_topic_word, reference, measure: str = "umass", n_top: int = 10,
                    eps: float = 1e-12, vocabulary=None, window_size: int = CV_WINDOW) -> np.ndarray:
    """Coherence of each topic's top words on a reference corpus (document co-occurrence, presence only).

    * ``"umass"``, gensim's ``CoherenceModel(coherence="u_mass")`` convention: the **mean** over
      ordered pairs ``i > j`` of ``log((D(w_i, w_j) / D + eps) / (D(w_j) / D))``, with D(...) the
      number of reference documents containing the words and D their count (``eps`` = 1e-12, as
      gensim). Every top word must occur in the reference (use the training corpus, as Mimno does).
    * ``"umass_sum"`` (Mimno et al. 2011 as published): the **sum** over the same pairs of
      ``log((D(w_i, w_j) + 1) / D(w_j))``.
    * ``"npmi"`` (Bouma 2009; Aletras & Stevenson 2013): **mean** over pairs of
      ``log(P(w_i, w_j) / (P(w_i) P(w_j))) / -log P(w_i, w_j)``, P = document frequency / D; a pair
      that never co-occurs scores -1; ``eps`` floors the denominator (a pair in every document scores 0).
    * ``"c_v"`` (Röder et al. 2015), gensim's ``CoherenceModel(coherence="c_v")`` to 1e-6: NPMI over
      boolean sliding windows of ``window_size`` tokens, each top word's vector of NPMIs with the
      topic's words compared by cosine with their sum, averaged (:mod:`.coherence_cv`). Every top
      word must occur in the texts.

    Parameters
    ----------
    $parameters

    Returns
    -------
    ndarray of shape (n_topics,)
        The coherence of each topic (higher is more coherent).

    Raises
    ------
    DataError
        For an unknown measure, invalid word ids or weights, or (UMass) a top word absent from
        the reference.

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> from stickbreak.evaluate import topic_coherence
    >>> X = datasets.load("ap").X[:200]
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X)
    >>> umass = topic_coherence(lda.topic_word_, X, n_top=10)
    >>> umass.shape, umass.dtype
    ((5,), dtype('float64'))
    >>> npmi = topic_coherence(lda.topic_word_, X, measure="npmi")
    >>> bool(((npmi >= -1) & (npmi <= 1)).all())
    True
    """
    if measure not in COHERENCE_MEASURES:
        raise DataError(f"unknown coherence measure {measure!r}; use one of {COHERENCE_MEASURES}.")
    if measure == "c_v":
        tokens, starts = texts_as_ids(reference, vocabulary)
        n_words = _vocabulary_width(top_words_or_topic_word, vocabulary, tokens)
        if tokens.max(initial=-1) >= n_words:
            raise DataError(f"reference word ids must lie in [0, {n_words}) (the topics' vocabulary); found "
                            f"{tokens.max()}.")
        return cv_coherence(_top_word_ids(top_words_or_topic_word, n_words, n_top), tokens, starts, window_size, eps)
    reference = checked_counts(reference, "reference")
    ids = _top_word_ids(top_words_or_topic_word, reference.shape[1], n_top)
    co = _cooccurrence(reference, ids)
    doc_freq = np.diagonal(co, axis1=1, axis2=2)  # (K, n)
    n = ids.shape[1]
    lower = np.tril(np.ones((n, n), dtype=bool), k=-1)  # pairs i > j
    if measure == "umass":
        _check_every_word_occurs(doc_freq, ids)
        return np.where(lower, np.log((co / reference.shape[0] + eps) / (doc_freq[:, None, :] / reference.shape[0])),
                        0.0).sum(axis=(1, 2)) / lower.sum()
    if measure == "umass_sum":
        _check_every_word_occurs(doc_freq, ids)
        return np.where(lower, np.log((co + 1.0) / doc_freq[:, None, :]), 0.0).sum(axis=(1, 2))
    p_joint = co / reference.shape[0]
    p_word = doc_freq / reference.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(p_joint / (p_word[:, :, None] * p_word[:, None, :]))
        npmi = np.where(co > 0, pmi / np.maximum(-np.log(p_joint), eps), -1.0)
    return np.where(lower, npmi, 0.0).sum(axis=(1, 2)) / lower.sum()


def _vocabulary_width(top_words_or_topic_word, vocabulary, tokens: np.ndarray) -> int:
    """The number of words the topics' ids index: the vocabulary's, a weight matrix's columns, or
    (word ids on both sides) one past the largest id."""
    if vocabulary is not None:
        return len(vocabulary)
    arr = np.asarray(top_words_or_topic_word)
    if arr.dtype.kind == "f" and arr.ndim == 2:
        return arr.shape[1]
    return max(int(tokens.max(initial=-1)), int(arr.max(initial=-1))) + 1


def _check_every_word_occurs(doc_freq: np.ndarray, ids: np.ndarray) -> None:
    if (doc_freq == 0).any():
        missing = np.unique(ids[doc_freq == 0])
        raise DataError(f"UMass coherence needs every top word in the reference; word ids {describe_rows(missing)} "
                        "never occur. Use the training counts as reference, or measure='npmi'.")


@composed(parameters=COHERENCE_PARAMETERS)
def mean_coherence(top_words_or_topic_word, reference, measure: str = "umass", n_top: int = 10,
                   eps: float = 1e-12, vocabulary=None, window_size: int = CV_WINDOW) -> float:
    """Mean of :func:`topic_coherence` over topics.

    Parameters
    ----------
    $parameters

    Returns
    -------
    float
        The mean coherence of the topics.

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak import datasets
    >>> from stickbreak.evaluate import mean_coherence
    >>> X = datasets.load("ap").X[:200]
    >>> top_ids = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])  # two topics' word ids, in rank order
    >>> isinstance(mean_coherence(top_ids, X, measure="npmi"), float)
    True
    """
    return float(np.mean(topic_coherence(top_words_or_topic_word, reference, measure, n_top, eps, vocabulary,
                                         window_size)))
