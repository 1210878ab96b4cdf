"""Bag-of-words counts: a CSR matrix (documents x vocabulary) with an optional vocabulary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from .errors import DataError, DataTypeError, describe_rows


def _numeric_array(X, what: str) -> np.ndarray:
    """``X`` as a numeric array; object arrays of numbers are converted (as scikit-learn does)."""
    arr = np.asarray(X)
    if arr.dtype.kind == "c":
        raise DataError(f"Complex data not supported: {what} has complex values; word counts are real numbers.")
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise DataTypeError(f"{what} holds values that are not numbers; each argument must be a string holding "
                                "a number, or a number (word counts: count raw text first, e.g. with "
                                "sklearn's CountVectorizer).") from None
    if arr.dtype.kind not in "biuf":
        raise DataTypeError(f"{what} has dtype {arr.dtype}; word counts must be numeric (count raw text first, "
                            "e.g. with sklearn's CountVectorizer).")
    if arr.ndim != 2:
        raise DataError(f"{what} must be 2-D (n_documents, vocabulary_size), got shape {arr.shape}; Reshape your "
                        "data: X.reshape(1, -1) for a single document.")
    return arr


def _valid_sparse(X, what: str) -> sp.csr_matrix:
    """A scipy sparse matrix as CSR after checking its structure (indices in range, pointers monotone)."""
    try:
        if X.format in ("csr", "csc"):
            X.check_format(full_check=True)
        return sp.csr_matrix(X)
    except (ValueError, IndexError) as exc:
        raise DataError(f"{what} is a malformed {X.format.upper()} matrix ({exc}); build it with scipy's "
                        "constructors from valid row/column indices.") from exc


#: Why the token samplers need whole-number counts (the message of :func:`_as_count_matrix`'s default).
SAMPLED_TOKENS = ("this algorithm samples word tokens, so it needs raw word counts, not tf-idf or normalised "
                  "frequencies (the variational algorithms 'vb', 'stochastic' and 'memoized' take any non-negative "
                  "weights)")


def _as_count_matrix(X, what: str, integer: bool = True, integer_because: str = SAMPLED_TOKENS) -> sp.csr_matrix:
    mat = _valid_sparse(X, what) if sp.issparse(X) else sp.csr_matrix(_numeric_array(X, what))
    if mat.dtype.kind == "c":
        raise DataError(f"Complex data not supported: {what} has complex values; word counts are real numbers.")
    if mat.dtype.kind not in "biuf":
        raise DataTypeError(f"{what} has dtype {mat.dtype}; word counts must be numeric.")
    if mat.shape[0] == 0 or mat.shape[1] == 0:
        raise DataError(f"{what} has {mat.shape[0]} sample(s) and {mat.shape[1]} feature(s) (shape={mat.shape}) "
                        "while a minimum of 1 is required: it needs at least one document and one word.")
    mat = mat.astype(np.float64)
    mat.sum_duplicates()
    mat.sort_indices()
    data = mat.data
    if not np.isfinite(data).all():
        raise DataError(f"{what} contains NaN or infinite counts; word counts must be finite.")
    if (data < 0).any():
        rows = np.unique(np.repeat(np.arange(mat.shape[0]), np.diff(mat.indptr))[data < 0])
        raise DataError(f"Negative values in data passed to {what}: documents {describe_rows(rows)} have negative "
                        "counts; word counts must be >= 0.")
    if integer and not is_integral(data):
        raise DataError(
            f"{what} has non-integer counts (e.g. {data[data != np.round(data)][0]}); {integer_because}.")
    mat.eliminate_zeros()
    return mat


def is_integral(values: np.ndarray) -> bool:
    """Whether every value is a whole number (word counts, not weights)."""
    return bool(np.all(values == np.round(values)))


@dataclass(frozen=True, eq=False)
class BagOfWords:
    """Word counts as CSR (``counts[d, v]`` = times word v occurs in document d), float64 values.

    Behaves like the sparse matrix it wraps where a corpus is used as one: ``shape``, ``len`` (the
    documents), ``bow[rows]`` and ``bow[rows, columns]`` (a BagOfWords, the vocabulary cut to the
    columns), iteration over one-document BagOfWords, ``nnz``, ``sum`` and ``toarray``.

    Parameters
    ----------
    counts : scipy.sparse.csr_matrix of shape (n_documents, n_words)
        The counts, taken as given (no checks); build from user data with :meth:`from_counts`,
        which validates them.
    vocabulary : tuple of str of length n_words, optional
        The word of each column, or None.

    See Also
    --------
    BagOfWords.from_counts : Validated construction from an array or sparse matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak import BagOfWords
    >>> bow = BagOfWords.from_counts(np.array([[2, 0, 1], [0, 3, 0]]), vocabulary=["a", "b", "c"])
    >>> bow.shape, bow.nnz, len(bow)
    ((2, 3), 3, 2)
    >>> bow.total_counts
    array([3., 3.])
    >>> bow[1, [1, 2]].vocabulary
    ('b', 'c')
    """

    counts: sp.csr_matrix
    vocabulary: tuple[str, ...] | None = None

    @classmethod
    def from_counts(cls, X, vocabulary: Sequence[str] | None = None, what: str = "X",
                    allow_empty: bool = False, integer: bool = True,
                    integer_because: str = SAMPLED_TOKENS) -> "BagOfWords":
        """Validated counts (finite, >= 0; whole numbers unless ``integer=False``: weights).

        Duplicate entries are summed, explicit zeros dropped and the values cast to float64.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_words)
            The word counts, one row per document.
        vocabulary : sequence of str of length n_words, optional
            The word of each column (stored as a tuple of str).
        what : str, default="X"
            The name of ``X`` in error messages.
        allow_empty : bool, default=False
            Accept documents without words (else a :class:`DataError` names them).
        integer : bool, default=True
            Require whole-number counts; ``False`` accepts non-negative weights (e.g. tf-idf).
        integer_because : str, optional
            Why whole numbers are needed, for the message (default: the token samplers' reason).

        Returns
        -------
        BagOfWords
            The validated counts as float64 CSR, with the vocabulary.

        Raises
        ------
        DataError
            If ``X`` is not 2-D, is empty, holds NaN, infinite, negative or (with ``integer``)
            fractional values or (without ``allow_empty``) empty documents, or the vocabulary has
            the wrong length.
        """
        mat = _as_count_matrix(X, what, integer, integer_because)
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
        """The number of documents (rows)."""
        return self.counts.shape[0]

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_documents, n_words)``, as the sparse matrix's."""
        return self.counts.shape

    @property
    def ndim(self) -> int:
        """Always 2, as for a matrix."""
        return 2

    @property
    def nnz(self) -> int:
        """The number of stored (document, word) entries."""
        return self.counts.nnz

    def __len__(self) -> int:
        return self.counts.shape[0]

    def __getitem__(self, index) -> "BagOfWords":
        """Documents (and, with a pair, word columns) as a BagOfWords; a single document stays a row."""
        rows, columns = index if isinstance(index, tuple) else (index, slice(None))
        counts, vocabulary = self.counts[[rows] if np.isscalar(rows) else rows], self.vocabulary
        if not (isinstance(columns, slice) and columns == slice(None)):
            counts = counts[:, columns]
            if vocabulary is not None:
                vocabulary = tuple(np.asarray(vocabulary, dtype=object)[columns])
        return BagOfWords(sp.csr_matrix(counts), vocabulary)

    def __iter__(self):
        for d in range(self.n_items):
            yield self[d]

    def sum(self, axis=None):
        """Total tokens (``axis=None``), per word (0) or per document (1), as ``scipy.sparse`` sums.

        Parameters
        ----------
        axis : {None, 0, 1}, default=None
            The axis summed over, as in ``scipy.sparse.csr_matrix.sum``.

        Returns
        -------
        float or numpy.matrix
            The total (``axis=None``), or a matrix of shape (1, n_words) (``axis=0``) or
            (n_documents, 1) (``axis=1``).
        """
        return self.counts.sum(axis=axis)

    def toarray(self) -> np.ndarray:
        """The dense (documents x words) counts.

        Returns
        -------
        ndarray of shape (n_documents, n_words)
            The counts as a dense float64 array.
        """
        return self.counts.toarray()

    def tocsr(self) -> sp.csr_matrix:
        """The counts as the CSR matrix held (not a copy).

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_documents, n_words)
            The counts themselves.
        """
        return self.counts

    @property
    def n_features(self) -> int:
        """The vocabulary size (columns)."""
        return self.counts.shape[1]

    @property
    def doc_lengths(self) -> np.ndarray:
        """The number of distinct words of each document, shape (n_documents,) (tokens: :attr:`total_counts`)."""
        return np.diff(self.counts.indptr)  # number of distinct words; see total_counts for tokens

    @property
    def total_counts(self) -> np.ndarray:
        """The number of tokens (sum of counts) of each document, shape (n_documents,)."""
        return np.asarray(self.counts.sum(axis=1)).ravel()

    def subset(self, index) -> "BagOfWords":
        """The documents at ``index``, with the same vocabulary.

        Parameters
        ----------
        index : int, slice, array-like of int or bool mask
            The rows to keep, in that order.

        Returns
        -------
        BagOfWords
            The selected documents over all the words.
        """
        return BagOfWords(self.counts[index], self.vocabulary)

    def words_used(self) -> np.ndarray:
        """The sorted columns (words) that occur in these documents.

        Returns
        -------
        ndarray of shape (n_used,)
            The word ids with a stored count in at least one document, ascending.
        """
        return np.unique(self.counts.indices)

    def on_words(self, words: np.ndarray) -> "BagOfWords":
        """The documents with column ``j`` holding word ``words[j]``: a part kept on the words it uses.

        Parameters
        ----------
        words : ndarray of shape (n_kept,)
            Sorted word ids that include every word of these documents (e.g. :meth:`words_used`).

        Returns
        -------
        BagOfWords
            The counts of shape (n_documents, n_kept), without a vocabulary.

        Raises
        ------
        DataError
            If a word of these documents is not in ``words``.
        """
        counts = self.counts
        words = np.asarray(words)
        indices = np.searchsorted(words, counts.indices).astype(counts.indices.dtype)
        if counts.nnz and (indices.max() >= len(words) or np.any(words[indices] != counts.indices)):
            raise DataError("on_words: the documents use words that are not in `words`; pass every word they "
                            "use (e.g. words_used()), sorted")
        return BagOfWords(sp.csr_matrix((counts.data, indices, counts.indptr), shape=(counts.shape[0], len(words))))
