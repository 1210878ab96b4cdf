"""Text corpora in and out: UCI bag-of-words, LDA-C, Matrix Market and npz; scikit-learn and gensim adapters.

Every reader returns a :class:`BagOfWords` (documents x vocabulary, CSR float64 counts) and every
writer round-trips exactly with its reader; a path ending in ``.gz`` is gzip-compressed (readers
detect gzip by content). Duplicate (document, word) entries in a file are summed. ``vocab_path`` is
a one-word-per-line file (line ``i`` = word id ``i``) or a sequence of words.

Empty documents: ``empty="error"`` (default) raises listing them; ``empty="skip"`` drops them with a
``UserWarning`` naming them; ``empty="keep"`` keeps them, and ``drop_empty_documents(bow)`` then
returns ``(bow, kept_index)``.

>>> bow = read_corpus("../shared/data/ap/ap.dat.gz", "../shared/data/ap/vocab.txt.gz")  # doctest: +SKIP
>>> bow = as_bag_of_words(CountVectorizer().fit_transform(texts), vocabulary=vectorizer)  # doctest: +SKIP
"""

from __future__ import annotations

import io
import os
import sys
import warnings
import zipfile
from collections.abc import Mapping
from itertools import chain
from numbers import Real
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

from .bow import BagOfWords
from .errors import DAMAGED_FILE_ERRORS, DataError, describe_rows
from .text_parse import (check_declared_size, check_entries, join_columns, ldac_entries, parse_ldac_lines,
                         parse_uci_lines, read_bytes, read_vocabulary, split_mm_header, split_uci_header, uci_entries,
                         write_bytes, write_vocabulary)

EMPTY_POLICIES = ("error", "skip", "keep")
_SUFFIXES = {".npz": "npz", ".mm": "mm", ".mtx": "mm", ".dat": "ldac", ".ldac": "ldac"}


# -------------------------------------------------------------------------------------- readers
def read_uci(docword_path, vocab_path=None, *, empty: str = "error") -> BagOfWords:
    """UCI bag-of-words: header lines D, W, NNZ, then ``docID wordID count`` lines (1-based ids)."""
    _check_policy(empty)
    name = Path(docword_path).name
    raw = read_bytes(docword_path)
    (n_docs, n_words, nnz), body, n_header = split_uci_header(raw, name)
    check_declared_size(n_docs, name)
    vocab = _vocab_of(vocab_path)
    entries = uci_entries(body, n_header + 1) or parse_uci_lines(body, name, n_header)
    if len(entries.counts) != nnz:
        raise DataError(f"{name} declares NNZ={nnz} entries in its header (line 3) but lists {len(entries.counts)}; "
                        "fix the header, or restore the missing lines if the file was truncated.")
    if vocab is not None and len(vocab) != n_words:
        raise DataError(f"the vocabulary has {len(vocab)} words but {name} declares W={n_words}; "
                        "give the vocab file of this corpus (one word per line, in word-id order).")
    docs, words = entries.docs - 1, entries.words - 1
    check_entries(docs, words, entries.counts, (n_docs, n_words), _at_line(entries.lines, name), id_base=1)
    return _assemble(docs, words, entries.counts, (n_docs, n_words), vocab, name, empty)


def read_ldac(dat_path, vocab_path=None, *, n_words: int | None = None, empty: str = "error") -> BagOfWords:
    """LDA-C (Blei): one document per line, ``N id:count id:count ...`` with 0-based word ids.

    The vocabulary size is ``len(vocabulary)``, else ``n_words``, else the largest id + 1.
    """
    _check_policy(empty)
    name = Path(dat_path).name
    vocab = _vocab_of(vocab_path)
    size = _vocabulary_size(vocab, n_words)
    raw = read_bytes(dat_path)
    entries, n_docs = ldac_entries(raw) or parse_ldac_lines(raw, name)
    size = int(entries.words.max(initial=0)) + 1 if size is None else size
    check_entries(entries.docs, entries.words, entries.counts, (n_docs, size), _at_line(entries.lines, name))
    return _assemble(entries.docs, entries.words, entries.counts, (n_docs, size), vocab, name, empty)


def read_matrix_market(path, vocab_path=None, *, transpose: bool = False, empty: str = "error") -> BagOfWords:
    """Matrix Market coordinate files with documents as rows, as gensim's ``MmCorpus`` writes them.

    Pass ``transpose=True`` for a term-document file (words as rows, documents as columns).
    """
    _check_policy(empty)
    name = Path(path).name
    (n_rows, n_cols, nnz), body, n_header = split_mm_header(read_bytes(path), name)
    check_declared_size(n_cols if transpose else n_rows, name)
    entries = uci_entries(body, n_header + 1) or parse_uci_lines(body, name, n_header)
    if len(entries.counts) != nnz:
        raise DataError(f"{name} declares {nnz} entries in its size line but lists {len(entries.counts)}; "
                        "restore the missing lines if the file was truncated, or fix the size line.")
    rows, cols = entries.docs - 1, entries.words - 1
    shape = (n_rows, n_cols)
    if transpose:
        rows, cols, shape = cols, rows, (n_cols, n_rows)
    check_entries(rows, cols, entries.counts, shape, _at_line(entries.lines, name), id_base=1)
    return _assemble(rows, cols, entries.counts, shape, _vocab_of(vocab_path), name, empty)


def read_npz(path, vocab_path=None, *, empty: str = "error") -> BagOfWords:
    """CSR arrays ``data, indices, indptr, shape`` and an optional unicode ``vocabulary`` (no pickle).

    Without a stored vocabulary, a sibling ``vocab.txt.gz`` / ``vocab.txt`` is used when present
    (the layout of the shared data sets: ``NAME/bow.npz`` + ``NAME/vocab.txt.gz``).
    """
    _check_policy(empty)
    path = Path(path)
    name = f"{path.parent.name}/{path.name}" if path.name == "bow.npz" else path.name
    if path.is_file() and not zipfile.is_zipfile(path):
        raise DataError(f"{name} is not an npz (zip) archive; write one with write_npz, or use read_corpus "
                        "for the text formats.")
    try:
        with np.load(path, allow_pickle=False) as z:
            mat = _stored_matrix(z, name)
            stored = tuple(str(w) for w in z["vocabulary"]) if "vocabulary" in z.files else None
    except DAMAGED_FILE_ERRORS as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(f"cannot read {name} as a bag-of-words npz ({type(exc).__name__}: {exc}); the file is "
                        "damaged or not written by write_npz: write it again.") from exc
    vocab = _vocab_of(vocab_path) if vocab_path is not None else stored
    if vocab is None:
        vocab = _vocab_of(next((p for p in _siblings(path, "vocab.txt") if p.exists()), None))
    return _finish(mat, vocab, name, empty)


def _stored_matrix(z, name: str) -> sp.csr_matrix:
    """The counts of an npz: our CSR arrays, or what ``scipy.sparse.save_npz`` wrote (its ``format``
    says csr, csc or coo), validated structurally (indices in range, pointers monotone)."""
    layout = z["format"].item() if "format" in z.files else b"csr"
    layout = layout.decode("ascii", "replace") if isinstance(layout, bytes) else str(layout)
    needed = {"csr": ("data", "indices", "indptr"), "csc": ("data", "indices", "indptr"), "coo": ("data", "row", "col")}
    if layout not in needed:
        raise DataError(f"{name} holds a scipy '{layout}' matrix; save word counts as csr (write_npz, or "
                        "scipy.sparse.save_npz of a csr/csc/coo matrix).")
    missing = sorted({*needed[layout], "shape"} - set(z.files))
    if missing:
        raise DataError(f"{name} lacks the {layout.upper()} arrays {missing}; a bag-of-words npz holds data, "
                        "indices, indptr and shape (write one with write_npz).")
    shape = tuple(int(s) for s in z["shape"])
    if layout == "coo":
        mat = sp.coo_matrix((z["data"], (z["row"], z["col"])), shape=shape)
    else:
        mat = (sp.csr_matrix if layout == "csr" else sp.csc_matrix)((z["data"], z["indices"], z["indptr"]), shape=shape)
        mat.check_format(full_check=True)
    return mat.tocsr()


def corpus_format(path) -> str | None:
    """``"npz"``, ``"uci"``, ``"ldac"`` or ``"mm"`` for a file name (``.gz`` allowed) or corpus directory, else None."""
    path = Path(path)
    if path.is_dir():
        inner = _corpus_file(path)
        return None if inner is None else corpus_format(inner)
    name = path.name.lower().removesuffix(".gz")
    if name.startswith("docword"):
        return "uci"
    return _SUFFIXES.get(Path(name).suffix)


def read_corpus(path, vocab=None, *, empty: str = "error") -> BagOfWords:
    """Read any supported corpus, choosing the reader by name (see :func:`corpus_format`).

    A directory is read through its ``bow.npz`` (else its ``docword.*`` file). Without ``vocab``, a
    sibling vocabulary is used when present: ``vocab.NAME.txt[.gz]`` for ``docword.NAME.txt[.gz]``,
    else ``vocab.txt[.gz]``.
    """
    path = Path(path)
    fmt = corpus_format(path)
    if fmt is None:
        raise DataError(f"cannot tell the corpus format of {path}: use .npz, .mm/.mtx, docword.*.txt (UCI), .dat/.ldac "
                        "(LDA-C), optionally .gz, or a directory holding bow.npz (or docword.*).")
    path = _corpus_file(path) if path.is_dir() else path
    if vocab is None and fmt != "npz":
        stem = path.name.removesuffix(".gz")
        names = ["vocab" + stem[len("docword"):]] if fmt == "uci" else ["vocab.txt"]
        vocab = next((p for p in _siblings(path, *names) if p.exists()), None)
    reader = {"npz": read_npz, "uci": read_uci, "ldac": read_ldac, "mm": read_matrix_market}[fmt]
    return reader(path, vocab, empty=empty)


# -------------------------------------------------------------------------------------- writers
def write_uci(bow, docword_path, vocab_path=None) -> None:
    """UCI docword file (1-based ids, entries in document order) and, if asked, the vocab file."""
    bow = _for_writing(bow, vocab_path)
    mat = bow.counts
    coo = mat.tocoo()
    header = f"{mat.shape[0]}\n{mat.shape[1]}\n{mat.nnz}\n"
    lines = join_columns([coo.row + 1, coo.col + 1, coo.data.astype(np.int64)], [" ", " ", "\n"])
    write_bytes(docword_path, (header + "".join(lines.tolist())).encode())
    _write_vocab(bow, vocab_path)


def write_ldac(bow, path, vocab_path=None) -> None:
    """LDA-C file (``N id:count ...`` per document, 0-based ids; an empty document is ``0``)."""
    bow = _for_writing(bow, vocab_path)
    mat = bow.counts
    n_docs = mat.shape[0]
    pairs = join_columns([mat.indices, mat.data.astype(np.int64)], [":", ""])
    tokens = np.insert(pairs, mat.indptr[:-1], np.diff(mat.indptr).astype(pairs.dtype))
    seps = np.full(len(tokens), " ", dtype=pairs.dtype)
    seps[mat.indptr[1:] + np.arange(n_docs)] = "\n"
    write_bytes(path, "".join(join_columns([tokens], [seps]).tolist()).encode())
    _write_vocab(bow, vocab_path)


def write_matrix_market(bow, path, vocab_path=None) -> None:
    """Matrix Market coordinate file, integer field, documents as rows."""
    bow = _for_writing(bow, vocab_path)
    mat = bow.counts
    buffer = io.BytesIO()
    scipy.io.mmwrite(buffer, sp.coo_matrix(mat.astype(np.int64)), field="integer")
    write_bytes(path, buffer.getvalue())
    _write_vocab(bow, vocab_path)


def write_npz(bow, path) -> None:
    """Compressed npz readable by :func:`read_npz` (no pickle; vocabulary as a unicode array)."""
    bow = as_bag_of_words(bow, empty="keep")
    mat = bow.counts
    arrays = dict(data=mat.data.astype(np.int64), indices=mat.indices, indptr=mat.indptr,
                  shape=np.array(mat.shape, np.int64))
    if bow.vocabulary is not None:
        arrays["vocabulary"] = np.array(bow.vocabulary, dtype=str)
    with open(path, "wb") as fh:  # a file handle, so numpy does not append ".npz"
        np.savez_compressed(fh, **arrays)


# ------------------------------------------------------------------------------------- adapters
def as_bag_of_words(X, vocabulary=None, *, n_words: int | None = None, empty: str = "error",
                    integer: bool = True, tokens_over=None) -> BagOfWords:
    """A :class:`BagOfWords` from counts in any common form.

    ``X``: a BagOfWords, a scipy.sparse matrix (e.g. ``CountVectorizer.fit_transform`` output), a
    dense array, or a gensim-style corpus (documents as lists of ``(word_id, count)`` pairs; the
    vocabulary size is ``len(vocabulary)``, else ``n_words``, else the largest id + 1).
    ``vocabulary``: words in column order, a vocabulary file, a fitted ``CountVectorizer``, a
    ``{word: id}`` mapping, or a gensim ``Dictionary``-like object (``len`` and ``id2token`` / ``[id]``).
    Token lists (``[["apple", "pie"], ["pie"]]``: documents as lists of words) are counted over
    ``vocabulary`` if given (words outside it are dropped, as ``CountVectorizer.transform`` does),
    else over their own sorted words, which become the vocabulary. Raw text is refused with the
    vectoriser to use; ``tokens_over`` (a fitted model's vocabulary) counts token lists over it
    and leaves other input alone. ``empty``: what to do with documents without words, ``"error"``, ``"skip"``
    (drop them, with a warning) or ``"keep"``. ``integer=False`` accepts non-integer weights (e.g. tf-idf).
    """
    _check_policy(empty)
    vocab = _vocab_of(vocabulary)
    if isinstance(X, BagOfWords):
        return _finish(X.counts, X.vocabulary if vocab is None else vocab, "X", empty, integer)
    if not (sp.issparse(X) or hasattr(X, "__array__") or isinstance(X, (str, bytes))):
        X = list(X)
        first = next((doc for doc in X if isinstance(doc, (str, bytes)) or len(doc)), None)
        if isinstance(first, (str, bytes)):
            raise DataError("X holds raw text; count the words first, e.g. "
                            "as_bag_of_words(CountVectorizer().fit_transform(texts), vocabulary=vectorizer).")
        if first is not None and isinstance(first[0], str):
            return _from_tokens(X, vocab if tokens_over is None else tokens_over, empty)
        if first is None or not np.isscalar(first[0]):
            return _from_pairs(X, _vocabulary_size(vocab, n_words), vocab, empty)
    return _finish(X, vocab, "X", empty, integer)


def to_gensim_corpus(bow) -> list[list[tuple[int, int]]]:
    """Documents as gensim bag-of-words lists ``[(word_id, count), ...]`` (ints, ids ascending)."""
    mat = as_bag_of_words(bow, empty="keep").counts
    ids, counts, ptr = mat.indices.tolist(), mat.data.astype(np.int64).tolist(), mat.indptr.tolist()
    return [list(zip(ids[a:b], counts[a:b])) for a, b in zip(ptr[:-1], ptr[1:])]


def drop_empty_documents(bow: BagOfWords, *, warn: bool = True) -> tuple[BagOfWords, np.ndarray]:
    """``(bow without its empty documents, kept_index)``: ``kept_index[i]`` is the original row of row ``i``."""
    return _drop_empty(bow, "the corpus", warn)


# ------------------------------------------------------------------------------------- internals
def _check_policy(empty) -> None:
    if empty not in EMPTY_POLICIES:
        raise DataError(f"empty={empty!r} is not an option; use one of {EMPTY_POLICIES}.")


def _vocabulary_size(vocab, n_words) -> int | None:
    if vocab is not None and n_words is not None and len(vocab) != n_words:
        raise DataError(f"the vocabulary has {len(vocab)} words but n_words={n_words}; pass one of them, "
                        "or matching ones.")
    return len(vocab) if vocab is not None else n_words


def _at_line(lines, name):
    return lambda k: f"line {lines[k]} of {name}"


def _siblings(path: Path, *names):
    return [path.parent / n for name in names for n in (name + ".gz", name)]


def _corpus_file(directory: Path) -> Path | None:
    if (directory / "bow.npz").is_file():
        return directory / "bow.npz"
    found = sorted(p for p in directory.glob("docword*") if p.is_file())
    return found[0] if len(found) == 1 else None


def _assemble(docs, words, counts, shape, vocab, source, empty) -> BagOfWords:
    if shape[0] == 0:
        raise DataError(f"{source} holds no documents; check that it is the right file and not truncated.")
    mat = sp.csr_matrix((counts, (docs, words)), shape=shape)  # sums duplicate (document, word) entries
    return _finish(mat, vocab, source, empty)


def _finish(X, vocab, source, empty, integer: bool = True) -> BagOfWords:
    bow = BagOfWords.from_counts(X, what=source, allow_empty=True, integer=integer)
    if vocab is not None:
        if len(vocab) != bow.n_features:
            raise DataError(f"the vocabulary has {len(vocab)} words but {source} has {bow.n_features} word columns; "
                            "give the vocabulary of this corpus (one word per column, in id order).")
        bow = BagOfWords(bow.counts, vocab)
    if empty == "keep":
        return bow
    if empty == "skip":
        return _drop_empty(bow, source, True, " For the kept row indices, read with empty='keep' and call "
                           "drop_empty_documents(bow).")[0]
    rows = np.flatnonzero(bow.total_counts == 0)
    if len(rows):
        raise DataError(f"{source} has {len(rows)} empty document(s) (no words) at rows {describe_rows(rows)} "
                        "(0-based); pass empty='skip' to drop them with a warning, or empty='keep' and then "
                        "drop_empty_documents(bow) to also get the kept row indices.")
    return bow


def _drop_empty(bow: BagOfWords, source: str, warn: bool, hint: str = ""):
    nonempty = bow.total_counts > 0
    kept = np.flatnonzero(nonempty)
    if len(kept) == bow.n_items:
        return bow, kept
    if len(kept) == 0:
        raise DataError(f"all {bow.n_items} documents of {source} are empty; there is nothing to fit.")
    if warn:
        dropped = np.flatnonzero(~nonempty)
        warnings.warn(f"skipped {len(dropped)} empty document(s) (no words) of {source} at rows "
                      f"{describe_rows(dropped)} (0-based); the other {len(kept)} keep their order.{hint}",
                      UserWarning, stacklevel=_caller_level())
    return BagOfWords(bow.counts[kept], bow.vocabulary), kept


def _caller_level() -> int:
    """``stacklevel`` (as seen from the caller of this function) of the first frame outside stickbreak.data."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("stickbreak.data"):
        frame, level = frame.f_back, level + 1
    return level


def _from_tokens(docs, vocab, empty) -> BagOfWords:
    """Documents as lists of word strings, counted over ``vocab`` (others dropped) or their own words."""
    if any(isinstance(doc, (str, bytes)) for doc in docs):
        raise DataError("X mixes token lists and raw text; give every document as a list of words.")
    lengths = np.array([len(doc) for doc in docs], np.int64)
    flat = list(chain.from_iterable(docs))
    if not all(isinstance(word, str) for word in flat):
        k = next(k for k, word in enumerate(flat) if not isinstance(word, str))
        raise DataError(f"document {_doc_of(np.concatenate(([0], np.cumsum(lengths))), k)} holds {flat[k]!r} among "
                        "its words; token lists hold strings (or pass (word_id, count) pairs, gensim-style).")
    words = tuple(sorted(set(flat))) if vocab is None else tuple(vocab)
    index = {word: i for i, word in enumerate(words)}
    ids = np.fromiter((index.get(word, -1) for word in flat), dtype=np.int64, count=len(flat))
    known = ids >= 0
    rows = np.repeat(np.arange(len(docs)), lengths)[known]
    counts = sp.csr_matrix((np.ones(int(known.sum())), (rows, ids[known])), shape=(len(docs), len(words)))
    return _finish(counts, words, "X", empty)


def _from_pairs(docs, size, vocab, empty) -> BagOfWords:
    """A gensim-style corpus (lists of (word_id, count) pairs) as a BagOfWords."""
    lengths = np.array([len(doc) for doc in docs], np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    flat = list(chain.from_iterable(docs))
    try:
        pairs = np.array(flat, dtype=np.float64).reshape(len(flat), -1)
    except (ValueError, TypeError):
        pairs = None
    if pairs is None or (len(flat) and pairs.shape[1] != 2):
        k = next((k for k, p in enumerate(flat) if np.shape(p) != (2,) or not all(isinstance(v, Real) for v in p)), 0)
        raise DataError(f"document {_doc_of(offsets, k)} holds {flat[k]!r}; gensim-style documents are lists "
                        "of (word_id, count) pairs of numbers.")
    pairs = pairs.reshape(len(flat), 2)

    def locate(k):
        d = _doc_of(offsets, k)
        return f"document {d}, pair {k - offsets[d]}"

    words = pairs[:, 0]
    bad = np.flatnonzero(~np.isfinite(words) | (words != np.round(words)))
    if len(bad):
        raise DataError(f"word id {words[bad[0]]} at {locate(bad[0])} is not an integer; word ids index the "
                        "vocabulary.")
    words = words.astype(np.int64)
    size = size if size is not None else int(words.max(initial=0)) + 1
    docs_of = np.repeat(np.arange(len(docs)), lengths)
    check_entries(docs_of, words, pairs[:, 1], (len(docs), size), locate, fix="fix the corpus")
    return _assemble(docs_of, words, pairs[:, 1], (len(docs), size), vocab, "X", empty)


def _doc_of(offsets, k) -> int:
    return int(np.searchsorted(offsets, k, side="right")) - 1


def _vocab_of(vocabulary) -> tuple[str, ...] | None:
    """Words in column order from a path, a sequence, a fitted vectorizer, a mapping or a gensim Dictionary."""
    if vocabulary is None:
        return None
    if isinstance(vocabulary, (str, os.PathLike)):
        return read_vocabulary(vocabulary)
    try:
        if hasattr(vocabulary, "get_feature_names_out"):
            words = vocabulary.get_feature_names_out()
        elif hasattr(vocabulary, "id2token") or (isinstance(vocabulary, Mapping) and
                                                 all(isinstance(k, (int, np.integer)) for k in vocabulary)):
            id2token = dict(getattr(vocabulary, "id2token", None) or {})
            words = [id2token[i] if i in id2token else vocabulary[i] for i in range(len(vocabulary))]
        elif isinstance(vocabulary, Mapping):  # {word: column}, e.g. CountVectorizer.vocabulary_
            words = sorted(vocabulary, key=vocabulary.__getitem__)
            if sorted(vocabulary.values()) != list(range(len(vocabulary))):
                raise DataError("the {word: id} vocabulary mapping must use each id 0..n-1 exactly once.")
        else:
            words = list(vocabulary)
    except DataError:
        raise
    except Exception as exc:  # unfitted vectorizer, missing ids, not iterable
        raise DataError(f"cannot get the words from vocabulary={type(vocabulary).__name__} ({exc}); pass the words "
                        "in column order, a vocab file, a fitted CountVectorizer or a gensim Dictionary.") from exc
    return tuple(str(w) for w in words)


def _for_writing(bow, vocab_path) -> BagOfWords:
    bow = as_bag_of_words(bow, empty="keep")
    if vocab_path is not None and bow.vocabulary is None:
        raise DataError("vocab_path was given but the corpus has no vocabulary; build it with "
                        "as_bag_of_words(X, vocabulary=words), or leave vocab_path out.")
    return bow


def _write_vocab(bow: BagOfWords, vocab_path) -> None:
    if vocab_path is not None:
        write_vocabulary(vocab_path, bow.vocabulary)
