"""Topic models out to other tools: the arguments of ``pyLDAvis.prepare`` and a gensim ``LdaModel``.

Only the used topics go out, largest first (the order of ``top_words``). gensim is imported inside
:func:`to_gensim` only: it is an optional extra (``pip install stickbreak[peers]``).
"""

from __future__ import annotations

import numpy as np

from .data import BagOfWords


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
    """The keyword arguments of ``pyLDAvis.prepare`` for a fitted topic model and its documents
    ``X``: ``pyLDAvis.prepare(**to_pyldavis(model, X))``. Documents without tokens are left out."""
    counts = (X if isinstance(X, BagOfWords) else BagOfWords.from_counts(X, what="X")).counts
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    keep = lengths > 0
    used = _used(model)
    return {"topic_term_dists": _normalised(model.topic_word_[used]),
            "doc_topic_dists": _normalised(model.transform(counts[keep])[:, used]),
            "doc_lengths": lengths[keep],
            "vocab": _vocabulary(model),
            "term_frequency": np.asarray(counts.sum(axis=0)).ravel()}


def to_gensim(model, alpha=None):
    """A gensim ``LdaModel`` holding the used topics (largest first) and a gensim ``Dictionary`` of
    the vocabulary, as ``(lda, dictionary)``: ``lda.get_topics()``, ``lda.show_topics()``,
    ``lda[bow]`` and gensim's coherence models then work on it. The topic-word Dirichlet parameters
    are the model's (``lda.state.sstats`` = ``components_`` minus the prior); ``alpha`` (the
    document-topic prior gensim infers new documents with) defaults to the used topics' corpus-level
    weights, normalised to sum to one. Needs gensim."""
    from gensim.corpora import Dictionary  # optional dependency
    from gensim.models import LdaModel

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
