"""Topic models out to other tools: the arguments of ``pyLDAvis.prepare`` and a gensim ``LdaModel``.

Only the used topics go out, largest first (the order of ``top_words``). gensim is imported inside
:func:`to_gensim` only: it is an optional extra (``pip install stickbreak[peers]``).
"""

from __future__ import annotations

import numpy as np

from .data import DataError
from .data.documents import as_bag_of_words


def _used(model) -> np.ndarray:
    """The used topics, largest first."""
    return np.array([topic["topic"] for topic in model.top_words(1)], dtype=int)


def _normalised(rows: np.ndarray) -> np.ndarray:
    rows = np.maximum(np.asarray(rows, dtype=float), 0.0)
    total = rows.sum(axis=1, keepdims=True)
    return np.where(total > 0, rows / np.where(total > 0, total, 1.0), 1.0 / rows.shape[1])


def _vocabulary(model) -> list[str]:
    return list(model.vocabulary_) if model.vocabulary_ is not None else [str(i) for i in range(model.n_features_in_)]


def to_pyldavis(model, X) -> dict:
    """The keyword arguments of ``pyLDAvis.prepare`` for a fitted topic model and its documents.

    Use as ``pyLDAvis.prepare(**to_pyldavis(model, X))``. Only the used topics go out, largest
    first; each row of the two distributions is normalised to sum to one. Documents without
    tokens are left out.

    Parameters
    ----------
    model : fitted topic model
        An LDA, HDPTopicModel or DILN (its ``top_words``, ``topic_word_``, ``transform`` and
        ``vocabulary_``).
    X : array-like, sparse matrix, BagOfWords, token lists or raw text
        The documents (e.g. the training corpus) in any form ``fit`` takes; token lists and raw
        text are counted over the model's vocabulary.

    Returns
    -------
    dict
        ``topic_term_dists`` (n_used, n_words), ``doc_topic_dists`` (n_kept_documents, n_used),
        ``doc_lengths`` (n_kept_documents,), ``vocab`` (list of n_words str, word ids as str
        without a vocabulary) and ``term_frequency`` (n_words,).

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> from stickbreak.export import to_pyldavis
    >>> X = datasets.load("ap").X[:200]
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X)
    >>> args = to_pyldavis(lda, X)
    >>> sorted(args)
    ['doc_lengths', 'doc_topic_dists', 'term_frequency', 'topic_term_dists', 'vocab']
    >>> args["topic_term_dists"].shape[1] == len(args["vocab"]) == 10473
    True
    """
    counts = as_bag_of_words(X, empty="keep", integer=False, tokens_over=model.vocabulary_).counts
    if counts.shape[1] != model.n_features_in_:
        raise DataError(f"X has {counts.shape[1]} words (columns) but the model was fitted on {model.n_features_in_}; "
                        "pass the documents over the model's vocabulary (or as text, counted over it).")
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    keep = lengths > 0
    used = _used(model)
    return {"topic_term_dists": _normalised(model.topic_word_[used]),
            "doc_topic_dists": _normalised(model.transform(counts[keep])[:, used]),
            "doc_lengths": lengths[keep],
            "vocab": _vocabulary(model),
            "term_frequency": np.asarray(counts.sum(axis=0)).ravel()}


def to_gensim(model, alpha=None):
    """A gensim ``LdaModel`` holding the used topics (largest first) and a ``Dictionary`` of the vocabulary.

    ``lda.get_topics()``, ``lda.show_topics()``, ``lda[bow]`` and gensim's coherence models then
    work on it. The topic-word Dirichlet parameters are the model's (``lda.state.sstats`` =
    ``components_`` minus the prior, floored at zero). Needs gensim (``pip install stickbreak[peers]``).

    Parameters
    ----------
    model : fitted topic model
        An LDA, HDPTopicModel or DILN.
    alpha : float, str or array-like of shape (n_used,), optional
        The document-topic prior gensim infers new documents with, passed to ``LdaModel``;
        default the used topics' corpus-level weights (``topic_weights_``), normalised to sum to one.

    Returns
    -------
    lda : gensim.models.LdaModel
        The used topics, largest first.
    dictionary : gensim.corpora.Dictionary
        The vocabulary (word ids as str without one).

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> from stickbreak.export import to_gensim
    >>> X = datasets.load("ap").X[:200]
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X)
    >>> gensim_lda, dictionary = to_gensim(lda)
    >>> gensim_lda.get_topics().shape, len(dictionary)
    ((5, 10473), 10473)
    """
    try:
        from gensim.corpora import Dictionary  # an optional dependency
        from gensim.models import LdaModel
    except ModuleNotFoundError:
        raise ImportError("to_gensim needs gensim, an optional dependency: pip install 'stickbreak[peers]' "
                          "(or pip install gensim).") from None

    used = _used(model)
    vocabulary = _vocabulary(model)
    dictionary = Dictionary.from_corpus([], id2word=dict(enumerate(vocabulary)))
    weights = np.asarray(model.topic_weights_, dtype=float)[used]
    alpha = weights / weights.sum() if alpha is None else alpha
    eta = np.asarray(model.model_.obs_prior["lam"], dtype=float)  # per word
    lda = LdaModel(num_topics=len(used), id2word=dictionary, alpha=alpha, eta=eta, dtype=np.float64)
    lda.state.sstats = np.maximum(np.asarray(model.components_, dtype=float)[used] - eta, 0.0)
    lda.sync_state()
    return lda, dictionary
