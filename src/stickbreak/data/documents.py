"""Documents as word counts: matrices, gensim-style corpora (lists of ``(word_id, count)`` pairs),
token lists and raw text (counted by scikit-learn's ``CountVectorizer``), in memory or streamed in
chunks; and the empty-document policy the file readers of :mod:`.text_io` share.

>>> as_bag_of_words(["The cat sat on the mat.", "A dog barked."]).vocabulary
('barked', 'cat', 'dog', 'mat', 'sat')
>>> for chunk in iter_bag_of_words(MmCorpus("wiki.mm"), 5000, n_words=100_000):  # doctest: +SKIP
...     lda.partial_fit(chunk)                                   # never holds the corpus whole
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sized
from itertools import chain, islice
from numbers import Real

import numpy as np
import scipy.sparse as sp

from ..core.caller import stacklevel_outside
from .bow import BagOfWords
from .errors import DataError, describe_rows
from .text_parse import check_entries, read_vocabulary

EMPTY_POLICIES = ("error", "skip", "keep")
#: Documents converted at a time from a gensim-style corpus: its Python tuples take about ten times
#: the memory of the CSR rows they become, so only one chunk of them is held at once.
CHUNK_DOCUMENTS = 10_000
#: How raw text is counted when no vectoriser is given: CountVectorizer's words (lowercased, two or
#: more letters or digits) without English stop words.
STOP_WORDS = "english"


def as_bag_of_words(X, vocabulary=None, *, n_words: int | None = None, empty: str = "keep",
                    integer: bool = True, tokens_over=None) -> BagOfWords:
    """A :class:`BagOfWords` from counts in any common form.

    ``X``: a BagOfWords, a scipy.sparse matrix (e.g. ``CountVectorizer.fit_transform`` output), a
    dense array or DataFrame, a gensim-style corpus (documents as lists of ``(word_id, count)``
    pairs, e.g. a gensim ``MmCorpus``: read a chunk at a time, never held whole as tuples; the
    vocabulary size is ``len(vocabulary)``, else ``n_words``, else the largest id + 1), token lists
    (``[["apple", "pie"], ["pie"]]``) or raw text (``["apple pie", "pie"]``, counted as
    ``CountVectorizer(stop_words="english")`` counts: lowercased words of two or more letters or
    digits; vectorise the text yourself for other choices). Token lists and raw text are counted over
    ``vocabulary`` if given (other words are dropped, as ``CountVectorizer.transform`` does), else over
    their own sorted words, which become the vocabulary; ``tokens_over`` (a fitted model's vocabulary)
    counts them over it and leaves other input alone.
    ``vocabulary``: words in column order, a vocabulary file, a fitted ``CountVectorizer``, a
    ``{word: id}`` mapping, or a gensim ``Dictionary``-like object (``len`` and ``id2token`` / ``[id]``).
    ``empty``: what to do with documents without words, ``"keep"`` (the default, as ``fit`` does),
    ``"skip"`` (drop them, with a warning) or ``"error"``. ``integer=False`` accepts non-integer weights (e.g. tf-idf).
    """
    check_empty_policy(empty)
    vocab = words_of(vocabulary)
    if isinstance(X, BagOfWords):
        return finish_counts(X.counts, X.vocabulary if vocab is None else vocab, "X", empty, integer)
    if sp.issparse(X) or hasattr(X, "__array__") or isinstance(X, (str, bytes)):
        return finish_counts(X, vocab, "X", empty, integer)
    kind, docs = _document_kind(X)
    over = vocab if tokens_over is None else tokens_over
    if kind == "text":
        return finish_counts(*_count_text(list(docs), over), "X", empty)
    if kind == "tokens":
        return finish_counts(*_count_tokens(list(docs), over), "X", empty)
    if kind == "rows":
        return finish_counts(list(docs), vocab, "X", empty, integer)
    size = vocabulary_size(vocab, n_words)
    mats = list(_pair_chunks(docs, size, CHUNK_DOCUMENTS))
    if not mats:
        raise DataError("X holds no documents; pass at least one.")
    width = size if size is not None else max(m.shape[1] for m in mats)
    for m in mats:
        m.resize((m.shape[0], width))  # chunks of an unsized corpus end at their own largest id
    return finish_counts(sp.vstack(mats, format="csr"), vocab, "X", empty)


def iter_bag_of_words(corpus: Iterable, chunk_size: int = CHUNK_DOCUMENTS, *, vocabulary=None,
                      n_words: int | None = None) -> Iterator[BagOfWords]:
    """A corpus as :class:`BagOfWords` chunks of ``chunk_size`` documents, read as they are needed:
    for ``partial_fit`` over a stream, or ``ShardStore.from_chunks`` for out-of-core fits.

    ``corpus`` iterates gensim-style documents (e.g. a gensim ``MmCorpus``; then ``n_words``, e.g.
    ``corpus.num_terms``, or ``vocabulary`` fixes the columns), token lists or raw text (then
    ``vocabulary`` gives the words to count, since a stream's own words are known only at its end).
    Every chunk has the same columns and keeps its empty documents. The arguments and the first
    document are checked here, before any chunk is read.
    """
    vocab = words_of(vocabulary)
    size = vocabulary_size(vocab, n_words)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise DataError(f"chunk_size must be a positive integer (documents per chunk), got {chunk_size!r}.")
    if sp.issparse(corpus) or hasattr(corpus, "__array__") or isinstance(corpus, (str, bytes, BagOfWords)):
        raise DataError("iter_bag_of_words streams an iterable of documents; a matrix is already in memory: "
                        "pass it to as_bag_of_words, or slice it (bow[a:b]).")
    kind, docs = _document_kind(corpus)
    if kind in ("text", "tokens") and vocab is None:
        raise DataError(f"streaming {'raw text' if kind == 'text' else 'token lists'} needs vocabulary=: the words to "
                        "count (a list, a gensim Dictionary or a fitted CountVectorizer); a stream's own words are "
                        "known only at its end.")
    if kind == "pairs" and size is None:
        raise DataError("streaming a gensim-style corpus needs n_words= (gensim: corpus.num_terms) or vocabulary=, "
                        "so that every chunk has the same columns.")
    if kind == "rows":
        raise DataError("the corpus yields rows of numbers; iter_bag_of_words streams documents (word lists, "
                        "raw text or (word_id, count) pairs): pass a matrix to as_bag_of_words.")
    return _chunks(kind, docs, size, vocab, int(chunk_size))


def _chunks(kind, docs, size, vocab, chunk_size) -> Iterator[BagOfWords]:
    if kind == "pairs":
        for counts in _pair_chunks(docs, size, chunk_size):
            yield BagOfWords(counts, vocab)
        return
    count = _count_text if kind == "text" else _count_tokens
    start = 0
    for chunk in _batched(docs, chunk_size):
        yield BagOfWords(count(chunk, vocab, start)[0], vocab)
        start += len(chunk)


def to_gensim_corpus(bow) -> list[list[tuple[int, int]]]:
    """Documents as gensim bag-of-words lists ``[(word_id, count), ...]`` (ints, ids ascending)."""
    mat = as_bag_of_words(bow, empty="keep").counts
    ids, counts, ptr = mat.indices.tolist(), mat.data.astype(np.int64).tolist(), mat.indptr.tolist()
    return [list(zip(ids[a:b], counts[a:b])) for a, b in zip(ptr[:-1], ptr[1:])]


def drop_empty_documents(bow: BagOfWords, *, warn: bool = True) -> tuple[BagOfWords, np.ndarray]:
    """``(bow without its empty documents, kept_index)``: ``kept_index[i]`` is the original row of row ``i``."""
    return _drop_empty(bow, "the corpus", warn)




# ------------------------------------------------------------------------------------- internals
def check_empty_policy(empty) -> None:
    if empty not in EMPTY_POLICIES:
        raise DataError(f"empty={empty!r} is not an option; use one of {EMPTY_POLICIES}.")


def vocabulary_size(vocab, n_words) -> int | None:
    if vocab is not None and n_words is not None and len(vocab) != n_words:
        raise DataError(f"the vocabulary has {len(vocab)} words but n_words={n_words}; pass one of them, "
                        "or matching ones.")
    return len(vocab) if vocab is not None else n_words


def finish_counts(X, vocab, source, empty, integer: bool = True) -> BagOfWords:
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
                      UserWarning, stacklevel=stacklevel_outside("stickbreak.data"))
    return BagOfWords(bow.counts[kept], bow.vocabulary), kept


def _batched(items: Iterable, size: int) -> Iterator[list]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def holds_text(X) -> bool:
    """Whether ``X`` is documents of raw text or token lists (a list or tuple of them), not counts."""
    return isinstance(X, (list, tuple)) and _document_kind(X)[0] in ("text", "tokens")


def _document_kind(X) -> tuple[str, Iterable]:
    """``(kind, documents)`` from the first document with words: "text", "tokens", "pairs" (also when
    every document is empty) or "rows" (numbers: a list of matrix rows); the documents read to find
    it are put back in front."""
    docs, head = iter(X), []
    for doc in docs:
        head.append(doc)
        if isinstance(doc, (str, bytes)) or not isinstance(doc, Sized) or len(doc):
            break
    first, docs = (head[-1] if head else None), chain(head, docs)
    if isinstance(first, (str, bytes)):
        return "text", docs
    if first is not None and not isinstance(first, Sized):
        return "rows", docs
    if first is not None and len(first) and isinstance(first[0], str):  # type: ignore[index]  # (a sequence)
        return "tokens", docs
    if first is not None and len(first) and np.isscalar(first[0]):  # type: ignore[index]
        return "rows", docs
    return "pairs", docs


def _count_text(texts: list, vocab, start: int = 0) -> tuple[sp.csr_matrix, tuple[str, ...]]:
    """Raw text counted by ``CountVectorizer``: over ``vocab``, or over its own words without stop words."""
    from sklearn.feature_extraction.text import CountVectorizer  # only raw text needs it

    bad = next((k for k, text in enumerate(texts) if not isinstance(text, (str, bytes))), None)
    if bad is not None:
        raise DataError(f"document {start + bad} is {type(texts[bad]).__name__}, among raw text; give every "
                        "document as a string (or every one as a list of words).")
    vectorizer = CountVectorizer(stop_words=None if vocab is not None else STOP_WORDS,
                                 vocabulary=None if vocab is None else list(vocab))
    try:
        counts = vectorizer.fit_transform(texts)
    except ValueError as exc:  # only stop words, or a vocabulary with repeated words
        raise DataError(f"cannot count the words of the raw text: {exc}. Vectorise it yourself (e.g. "
                        "CountVectorizer with your settings) and pass the counts.") from None
    return counts.astype(np.float64), tuple(vectorizer.get_feature_names_out())


def _count_tokens(docs: list, vocab, start: int = 0) -> tuple[sp.csr_matrix, tuple[str, ...]]:
    """Documents as lists of word strings, counted over ``vocab`` (others dropped) or their own words."""
    if any(isinstance(doc, (str, bytes)) for doc in docs):
        raise DataError("X mixes token lists and raw text; give every document as a list of words.")
    lengths = np.array([len(doc) for doc in docs], np.int64)
    flat = list(chain.from_iterable(docs))
    if not all(isinstance(word, str) for word in flat):
        k = next(k for k, word in enumerate(flat) if not isinstance(word, str))
        raise DataError(f"document {start + _doc_of(np.concatenate(([0], np.cumsum(lengths))), k)} holds "
                        f"{flat[k]!r} among its words; token lists hold strings (or pass (word_id, count) pairs, "
                        "gensim-style).")
    words = tuple(sorted(set(flat))) if vocab is None else tuple(vocab)
    index = {word: i for i, word in enumerate(words)}
    ids = np.fromiter((index.get(word, -1) for word in flat), dtype=np.int64, count=len(flat))
    known = ids >= 0
    rows = np.repeat(np.arange(len(docs)), lengths)[known]
    counts = sp.csr_matrix((np.ones(int(known.sum())), (rows, ids[known])), shape=(len(docs), len(words)))
    return counts, words


def _pair_chunks(docs: Iterable, size: int | None, chunk_size: int) -> Iterator[sp.csr_matrix]:
    start = 0
    for chunk in _batched(docs, chunk_size):
        yield _pairs_matrix(chunk, size, start)
        start += len(chunk)


def _pairs_matrix(docs: list, size: int | None, start: int) -> sp.csr_matrix:
    """Gensim-style documents (lists of (word_id, count) pairs) as CSR counts; messages number the
    documents from ``start``. ``size`` None: as many columns as the largest id + 1."""
    lengths = np.array([len(doc) for doc in docs], np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    flat = list(chain.from_iterable(docs))
    try:
        pairs = np.array(flat, dtype=np.float64).reshape(len(flat), -1)
    except (ValueError, TypeError):
        pairs = None
    if pairs is None or (len(flat) and pairs.shape[1] != 2):
        k = next((k for k, p in enumerate(flat) if np.shape(p) != (2,) or not all(isinstance(v, Real) for v in p)), 0)
        raise DataError(f"document {start + _doc_of(offsets, k)} holds {flat[k]!r}; gensim-style documents are "
                        "lists of (word_id, count) pairs of numbers.")
    pairs = pairs.reshape(len(flat), 2)

    def locate(k):
        d = _doc_of(offsets, k)
        return f"document {start + d}, pair {k - offsets[d]}"

    words = pairs[:, 0]
    bad = np.flatnonzero(~np.isfinite(words) | (words != np.round(words)))
    if len(bad):
        raise DataError(f"word id {words[bad[0]]} at {locate(bad[0])} is not an integer; word ids index the "
                        "vocabulary.")
    words = words.astype(np.int64)
    size = size if size is not None else int(words.max(initial=0)) + 1
    docs_of = np.repeat(np.arange(len(docs)), lengths)
    check_entries(docs_of, words, pairs[:, 1], (len(docs), size), locate, fix="fix the corpus")
    return sp.csr_matrix((pairs[:, 1], (docs_of, words)), shape=(len(docs), size))  # sums repeated ids


def _doc_of(offsets, k) -> int:
    return int(np.searchsorted(offsets, k, side="right")) - 1


def words_of(vocabulary) -> tuple[str, ...] | None:
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
