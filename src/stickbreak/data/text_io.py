"""Text corpora in and out of files: UCI bag-of-words, LDA-C, Matrix Market and npz (in-memory
documents, token lists, raw text and gensim corpora: :mod:`.documents`).

Every reader returns a :class:`BagOfWords` (documents x vocabulary, CSR float64 counts) and every
writer round-trips exactly with its reader; a path ending in ``.gz`` is gzip-compressed (readers
detect gzip by content). Duplicate (document, word) entries in a file are summed. ``vocab_path`` is
a one-word-per-line file (line ``i`` = word id ``i``) or a sequence of words.

Empty documents: ``empty="keep"`` (default, as ``fit`` keeps them) keeps them, and
``drop_empty_documents(bow)`` then returns ``(bow, kept_index)``; ``empty="skip"`` drops them with a
``UserWarning`` naming them; ``empty="error"`` raises listing them.

>>> bow = read_corpus("../shared/data/ap/ap.dat.gz", "../shared/data/ap/vocab.txt.gz")  # doctest: +SKIP
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

from .bow import BagOfWords
from .documents import (as_bag_of_words, check_empty_policy, finish_counts,
                        vocabulary_size, words_of)
from .errors import DAMAGED_FILE_ERRORS, DataError, damaged_file
from .text_parse import (check_declared_size, check_entries, join_columns, ldac_entries, parse_ldac_lines,
                         parse_uci_lines, read_bytes, split_mm_header, split_uci_header, triple_entries,
                         write_bytes, write_vocabulary)

_SUFFIXES = {".npz": "npz", ".mm": "mm", ".mtx": "mm", ".dat": "ldac", ".ldac": "ldac"}


# -------------------------------------------------------------------------------------- readers
def read_uci(docword_path, vocab_path=None, *, empty: str = "keep") -> BagOfWords:
    """UCI bag-of-words: header lines D, W, NNZ, then ``docID wordID count`` lines (1-based ids)."""
    check_empty_policy(empty)
    name = Path(docword_path).name
    raw = read_bytes(docword_path)
    (n_docs, n_words, nnz), body, n_header = split_uci_header(raw, name)
    check_declared_size(n_docs, name)
    vocab = words_of(vocab_path)
    entries = triple_entries(body, n_header + 1) or parse_uci_lines(body, name, n_header)
    if len(entries.counts) != nnz:
        raise DataError(f"{name} declares NNZ={nnz} entries in its header (line 3) but lists {len(entries.counts)}; "
                        "fix the header, or restore the missing lines if the file was truncated.")
    if vocab is not None and len(vocab) != n_words:
        raise DataError(f"the vocabulary has {len(vocab)} words but {name} declares W={n_words}; "
                        "give the vocab file of this corpus (one word per line, in word-id order).")
    docs, words = entries.docs - 1, entries.words - 1
    check_entries(docs, words, entries.counts, (n_docs, n_words), _at_line(entries.lines, name), id_base=1)
    return _assemble(docs, words, entries.counts, (n_docs, n_words), vocab, name, empty)


def read_ldac(dat_path, vocab_path=None, *, n_words: int | None = None, empty: str = "keep") -> BagOfWords:
    """LDA-C (Blei): one document per line, ``N id:count id:count ...`` with 0-based word ids.

    The vocabulary size is ``len(vocabulary)``, else ``n_words``, else the largest id + 1.
    """
    check_empty_policy(empty)
    name = Path(dat_path).name
    vocab = words_of(vocab_path)
    size = vocabulary_size(vocab, n_words)
    raw = read_bytes(dat_path)
    entries, n_docs = ldac_entries(raw) or parse_ldac_lines(raw, name)
    size = int(entries.words.max(initial=0)) + 1 if size is None else size
    check_entries(entries.docs, entries.words, entries.counts, (n_docs, size), _at_line(entries.lines, name))
    return _assemble(entries.docs, entries.words, entries.counts, (n_docs, size), vocab, name, empty)


def read_matrix_market(path, vocab_path=None, *, transpose: bool = False, empty: str = "keep") -> BagOfWords:
    """Matrix Market coordinate files with documents as rows, as gensim's ``MmCorpus`` writes them.

    Pass ``transpose=True`` for a term-document file (words as rows, documents as columns).
    """
    check_empty_policy(empty)
    name = Path(path).name
    (n_rows, n_cols, nnz), body, n_header = split_mm_header(read_bytes(path), name)
    check_declared_size(n_cols if transpose else n_rows, name)
    entries = triple_entries(body, n_header + 1) or parse_uci_lines(body, name, n_header)
    if len(entries.counts) != nnz:
        raise DataError(f"{name} declares {nnz} entries in its size line but lists {len(entries.counts)}; "
                        "restore the missing lines if the file was truncated, or fix the size line.")
    rows, cols = entries.docs - 1, entries.words - 1
    shape = (n_rows, n_cols)
    if transpose:
        rows, cols, shape = cols, rows, (n_cols, n_rows)
    check_entries(rows, cols, entries.counts, shape, _at_line(entries.lines, name), id_base=1)
    return _assemble(rows, cols, entries.counts, shape, words_of(vocab_path), name, empty)


def read_npz(path, vocab_path=None, *, empty: str = "keep") -> BagOfWords:
    """CSR arrays ``data, indices, indptr, shape`` and an optional unicode ``vocabulary`` (no pickle).

    Without a stored vocabulary, a sibling ``vocab.txt.gz`` / ``vocab.txt`` is used when present
    (the layout of the shared data sets: ``NAME/bow.npz`` + ``NAME/vocab.txt.gz``).
    """
    check_empty_policy(empty)
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
        raise damaged_file(exc, name, "a bag-of-words npz written by write_npz: write it again") from exc
    vocab = words_of(vocab_path) if vocab_path is not None else stored
    if vocab is None:
        vocab = words_of(next((p for p in _siblings(path, "vocab.txt") if p.exists()), None))
    return finish_counts(mat, vocab, name, empty)


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


def read_corpus(path, vocab=None, *, empty: str = "keep") -> BagOfWords:
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
    """Matrix Market coordinate file, documents as rows, in the "real" field gensim's ``MmCorpus`` reads
    (the only one it reads), with the counts written as whole numbers."""
    bow = _for_writing(bow, vocab_path)
    mat = bow.counts
    buffer = io.BytesIO()
    scipy.io.mmwrite(buffer, sp.coo_matrix(mat.astype(np.int64)), field="integer")
    banner, rest = buffer.getvalue().split(b"\n", 1)
    write_bytes(path, banner.replace(b" integer ", b" real ") + b"\n" + rest)
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


# ------------------------------------------------------------------------------------- internals
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
    return finish_counts(mat, vocab, source, empty)


def _for_writing(bow, vocab_path) -> BagOfWords:
    bow = as_bag_of_words(bow, empty="keep")
    if vocab_path is not None and bow.vocabulary is None:
        raise DataError("vocab_path was given but the corpus has no vocabulary; build it with "
                        "as_bag_of_words(X, vocabulary=words), or leave vocab_path out.")
    return bow


def _write_vocab(bow: BagOfWords, vocab_path) -> None:
    if vocab_path is not None:
        write_vocabulary(vocab_path, bow.vocabulary)
