"""Validation shared by the topic-model scores: counts, topic-word matrices, priors."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..data import BagOfWords, DataError
from ..data.errors import describe_rows


def checked_counts(X, what: str) -> sp.csr_matrix:
    """Validated CSR float64 counts or non-negative weights (empty documents allowed)."""
    if isinstance(X, BagOfWords):
        return X.counts
    return BagOfWords.from_counts(X, what=what, allow_empty=True, integer=False).counts


def checked_topic_word(model_or_topic_word) -> np.ndarray:
    """Row-normalised (K, V) topic-word matrix from an array or an object with ``topic_word_``."""
    source = getattr(model_or_topic_word, "topic_word_", model_or_topic_word)
    phi = np.array(source, dtype=np.float64)
    if phi.ndim != 2 or phi.shape[0] == 0 or phi.shape[1] == 0:
        raise DataError(f"topic_word must be a (n_topics, vocabulary_size) matrix, got shape {phi.shape}.")
    if not np.isfinite(phi).all():
        raise DataError("topic_word contains NaN or infinite values; pass finite topic-word weights.")
    if (phi < 0).any():
        raise DataError("topic_word has negative entries; pass probabilities or non-negative weights.")
    totals = phi.sum(axis=1)
    if (totals <= 0).any():
        raise DataError(
            f"topic_word rows {describe_rows(np.flatnonzero(totals <= 0))} sum to zero; "
            "every topic needs some weight (drop empty topics or add a pseudocount)."
        )
    return phi / totals[:, None]


def check_vocabulary(phi: np.ndarray, X: sp.csr_matrix, what: str) -> None:
    if X.shape[1] != phi.shape[1]:
        raise DataError(
            f"topic_word has a vocabulary of {phi.shape[1]} words but {what} has {X.shape[1]} columns; "
            "score documents over the model's training vocabulary (the same word ids, e.g. X[:, train_ids])."
        )


def checked_prior(prior, n_topics: int) -> np.ndarray:
    a = np.full(n_topics, 1.0 / n_topics) if prior is None else np.asarray(prior, dtype=np.float64)
    if a.ndim == 0:
        a = np.full(n_topics, float(a))
    if a.shape != (n_topics,) or not np.isfinite(a).all() or (a <= 0).any():
        raise DataError(f"prior must be a positive number or {n_topics} positive numbers (one per topic); got "
                        f"{prior!r}.")
    return a
