"""Bag-of-words counts: a CSR matrix (documents x vocabulary) with an optional vocabulary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from .errors import DataError, describe_rows


def _as_count_matrix(X, what: str) -> sp.csr_matrix:
    if sp.issparse(X):
        mat = sp.csr_matrix(X)
    else:
        arr = np.asarray(X)
        if arr.dtype.kind not in "biuf":
            raise DataError(f"{what} has dtype {arr.dtype}; word counts must be numeric.")
        if arr.ndim != 2:
            raise DataError(f"{what} must be 2-D (n_documents, vocabulary_size), got shape {arr.shape}.")
        mat = sp.csr_matrix(arr)
    if mat.dtype.kind not in "biuf":
        raise DataError(f"{what} has dtype {mat.dtype}; word counts must be numeric.")
    if mat.shape[0] == 0 or mat.shape[1] == 0:
        raise DataError(f"{what} has shape {mat.shape}; it needs at least one document and one word.")
    mat = mat.astype(np.float64)
    mat.sum_duplicates()
    mat.sort_indices()
    data = mat.data
    if not np.isfinite(data).all():
        raise DataError(f"{what} contains NaN or infinite counts; word counts must be finite.")
    if (data < 0).any():
        rows = np.unique(np.repeat(np.arange(mat.shape[0]), np.diff(mat.indptr))[data < 0])
        raise DataError(f"{what} has negative counts in documents {describe_rows(rows)}; counts must be >= 0.")
    if (data != np.round(data)).any():
        raise DataError(
            f"{what} has non-integer counts (e.g. {data[data != np.round(data)][0]}); "
            "the multinomial model needs raw word counts, not tf-idf or normalised frequencies."
        )
    mat.eliminate_zeros()
    return mat


@dataclass(frozen=True, eq=False)
class BagOfWords:
    """Word counts as CSR (``counts[d, v]`` = times word v occurs in document d), float64 values."""

    counts: sp.csr_matrix
    vocabulary: tuple[str, ...] | None = None

    @classmethod
    def from_counts(cls, X, vocabulary: Sequence[str] | None = None, what: str = "X",
                    allow_empty: bool = False) -> "BagOfWords":
        mat = _as_count_matrix(X, what)
        if not allow_empty:
            empty = np.flatnonzero(np.diff(mat.indptr) == 0)
            if len(empty):
                raise DataError(
                    f"{what} has empty documents (no words) at rows {describe_rows(empty)}; "
                    "drop them first, e.g. X[np.asarray(X.sum(axis=1)).ravel() > 0]."
                )
        if vocabulary is not None:
            vocabulary = tuple(str(w) for w in vocabulary)
            if len(vocabulary) != mat.shape[1]:
                raise DataError(
                    f"vocabulary has {len(vocabulary)} words but {what} has {mat.shape[1]} columns; "
                    "they must match one word per column."
                )
        return cls(mat, vocabulary)

    @property
    def n_items(self) -> int:
        return self.counts.shape[0]

    @property
    def n_features(self) -> int:
        return self.counts.shape[1]

    @property
    def doc_lengths(self) -> np.ndarray:
        return np.diff(self.counts.indptr)  # number of distinct words; see total_counts for tokens

    @property
    def total_counts(self) -> np.ndarray:
        return np.asarray(self.counts.sum(axis=1)).ravel()

    def subset(self, index) -> "BagOfWords":
        return BagOfWords(self.counts[index], self.vocabulary)

    def words_used(self) -> np.ndarray:
        """The sorted columns (words) that occur in these documents."""
        return np.unique(self.counts.indices)

    def on_words(self, words: np.ndarray) -> "BagOfWords":
        """The documents with column ``j`` holding word ``words[j]`` (``words`` sorted, every word
        of the documents among them): a part kept on the words it uses."""
        counts = self.counts
        indices = np.searchsorted(words, counts.indices).astype(counts.indices.dtype)
        return BagOfWords(sp.csr_matrix((counts.data, indices, counts.indptr), shape=(counts.shape[0], len(words))))
