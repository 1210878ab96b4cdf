"""Splitting test documents into an observed and a held-out part, for document completion."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..data import DataError
from ..data.bow import is_integral
from ..data.memory import check_memory
from ._checks import checked_counts

SPLIT_MODES = ("tokens", "types")
TOKEN_SPLIT_BYTES = 72  # a token split's peak: about nine int64 values per token (entry, row, key, order, rank...)


def _ranks_within_rows(rows: np.ndarray, n_per_row: np.ndarray, rng: np.random.Generator):
    """Random permutation within each row: ``rank[i]`` is item i's position inside its row.

    One sort on the int64 key ``row << 32 | random 32-bit`` (a lexsort on (row, random key), ~10x
    faster than ``np.lexsort``; rows < 2**31).
    """
    key = (rows.astype(np.int64) << 32) | rng.integers(0, 2**32, size=len(rows), dtype=np.int64)
    order = np.argsort(key, kind="stable")
    starts = np.concatenate(([0], np.cumsum(n_per_row)[:-1]))
    ranks = np.empty(len(rows), dtype=np.int64)
    ranks[order] = np.arange(len(rows)) - starts[rows[order]]
    return ranks


def _n_observed(n: np.ndarray, heldout_fraction: float) -> np.ndarray:
    """``floor((1 - f) n)`` observed; the rest (``ceil(f n)``) held out, as the peers' "cut in half"."""
    return np.floor((1.0 - heldout_fraction) * n + 1e-9).astype(np.int64)


def split_documents(X, mode: str = "tokens", heldout_fraction: float = 0.5, seed=0):
    """Split every document into ``(observed, heldout)`` count matrices with ``observed + heldout == X``.

    ``mode="tokens"`` (Hughes 2016, Eq. 5.59; peers.md §3.2): each document's tokens are randomly
    permuted; the first ``floor((1 - f) N_d)`` are observed and the other ``ceil(f N_d)`` held out.
    ``mode="types"`` (Hoffman/Wang SVI §4; Hughes 2016, Ch. 7): the distinct word types are split
    instead, ``ceil(f T_d)`` types held out with all their tokens (at least one type on each side when
    ``T_d >= 2``), so the two parts share no word. Documents whose observed or held-out part is empty
    stay as rows of zeros. Vectorised, no loop per document.

    Parameters
    ----------
    X : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words)
        The counts to split (whole numbers for ``mode="tokens"``; non-negative weights are
        accepted by ``mode="types"``).
    mode : {"tokens", "types"}, default="tokens"
        Hold out random tokens, or random word types with all their tokens.
    heldout_fraction : float, default=0.5
        The fraction f of each document's tokens (or types) held out, in (0, 1).
    seed : int or numpy.random.Generator, default=0
        The randomness of the split.

    Returns
    -------
    observed : scipy.sparse.csr_matrix of shape (n_documents, n_words)
        The observed part of each document.
    heldout : scipy.sparse.csr_matrix of shape (n_documents, n_words)
        The held-out part; ``observed + heldout`` equals ``X``.

    Examples
    --------
    >>> from stickbreak import datasets
    >>> from stickbreak.evaluate import split_documents
    >>> X = datasets.load("ap").X[:100]
    >>> observed, heldout = split_documents(X, heldout_fraction=0.5, seed=0)
    >>> observed.shape, (observed + heldout - X.counts).nnz
    ((100, 10473), 0)
    >>> observed, heldout = split_documents(X, mode="types", seed=0)
    >>> observed.multiply(heldout).nnz  # no word on both sides
    0
    """
    if mode not in SPLIT_MODES:
        raise DataError(f"unknown split mode {mode!r}; use one of {SPLIT_MODES}.")
    if not 0.0 < float(heldout_fraction) < 1.0:
        raise DataError(f"heldout_fraction must lie strictly between 0 and 1, got {heldout_fraction}.")
    X = checked_counts(X, "X")
    if mode == "tokens" and not is_integral(X.data):
        raise DataError("X has non-integer counts (weights such as tf-idf), which have no tokens to split; "
                        "use mode='types' (split word types) or pass raw word counts.")
    if mode == "tokens":
        n_tokens = float(X.data.sum())
        check_memory(TOKEN_SPLIT_BYTES * n_tokens, f"splitting {n_tokens:.3g} word tokens at random",
                     "split word types instead (mode='types': types are held out whole, no per-token arrays) "
                     "or pass fewer documents or smaller counts.")
    rng = np.random.default_rng(seed)
    n_docs = X.shape[0]
    entry_rows = np.repeat(np.arange(n_docs), np.diff(X.indptr))
    if mode == "tokens":
        multiplicity = X.data.astype(np.int64)
        tokens_per_doc = np.bincount(entry_rows, weights=multiplicity, minlength=n_docs).astype(np.int64)
        token_entry = np.repeat(np.arange(X.nnz), multiplicity)
        token_rows = entry_rows[token_entry]
        ranks = _ranks_within_rows(token_rows, tokens_per_doc, rng)
        held = ranks >= _n_observed(tokens_per_doc, heldout_fraction)[token_rows]
        heldout_data = np.bincount(token_entry[held], minlength=X.nnz).astype(np.float64)
    else:
        types_per_doc = np.diff(X.indptr).astype(np.int64)
        n_obs = _n_observed(types_per_doc, heldout_fraction)
        n_obs = np.where(types_per_doc >= 2, np.clip(n_obs, 1, types_per_doc - 1), n_obs)
        ranks = _ranks_within_rows(entry_rows, types_per_doc, rng)
        heldout_data = np.where(ranks >= n_obs[entry_rows], X.data, 0.0)
    return _with_data(X, X.data - heldout_data), _with_data(X, heldout_data)


def _with_data(X: sp.csr_matrix, data: np.ndarray) -> sp.csr_matrix:
    out = sp.csr_matrix((data, X.indices.copy(), X.indptr.copy()), shape=X.shape)
    out.eliminate_zeros()
    return out
