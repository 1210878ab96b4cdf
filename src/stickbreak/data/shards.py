"""Data sets stored on disk as batches ("shards"), memory-mapped when read.

Memoized VI visits one batch at a time and keeps only its summary statistics, so a data set larger
than memory can be fitted from shards: only the batch being visited is paged in.

Layout of a shard directory: ``shards.json`` (format, kind, sizes, vocabulary) and per shard either
``shard_00000.npy`` (dense rows) or ``shard_00000.{data,indices,indptr}.npy`` (CSR word counts).
Every chunk is validated when written, so reading needs no checks.

>>> store = ShardStore.write(DenseData.from_array(X), "/tmp/x_shards", n_batches=10)   # doctest: +SKIP
>>> DPMixture(algorithm="memoized", moves=("birth", "merge")).fit(store)                # doctest: +SKIP
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from .batching import batch_indices
from .bow import BagOfWords
from .dense import DenseData
from .errors import DataError

FORMAT = "stickbreak-shards"
VERSION = 1


class ShardStore(Sequence):
    """A sequence of batches on disk; ``store[b]`` memory-maps batch ``b``.

    Create one with :meth:`write` (in-memory data split into random batches) or :meth:`from_chunks`
    (one shard per chunk, e.g. read piece by piece from a large file), reopen it with :meth:`open`,
    and pass it to ``fit`` of a memoized estimator in place of the data. Each batch read is a
    :class:`DenseData` or a :class:`BagOfWords` whose arrays are memory-mapped, and is checked
    against ``shards.json`` (a damaged shard raises :class:`DataError`).

    Parameters
    ----------
    directory : str or path-like
        The shard directory.
    meta : dict
        The contents of its ``shards.json`` (format, version, kind, n_features, sizes, vocabulary).

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak import DenseData, ShardStore
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> store = ShardStore.write(DenseData.from_array(X), "x_shards", n_batches=4)
    >>> len(store), store.kind, store.n_items, store.n_features
    (4, 'dense', 100, 3)
    >>> again = ShardStore.open("x_shards")
    >>> type(again[0]).__name__, sum(batch.n_items for batch in again)
    ('DenseData', 100)
    """

    def __init__(self, directory, meta: dict):
        self.directory = Path(directory)
        self.meta = meta

    # ---------------------------------------------------------------- writing
    @classmethod
    def from_chunks(cls, chunks: Iterable, directory, vocabulary=None) -> "ShardStore":
        """Write each chunk (dense rows, or word counts for ``kind="bow"``) as one shard.

        Chunks may be arrays, scipy sparse matrices, :class:`DenseData` or :class:`BagOfWords`;
        a dense array is a dense chunk, a sparse matrix a chunk of word counts. The chunks are
        validated as they come, so an iterator over a file larger than memory works.

        Parameters
        ----------
        chunks : iterable of array-like, sparse matrix, DenseData or BagOfWords
            The batches, in order, all of one kind and with the same number of features (a
            sparse chunk must have no empty document).
        directory : str or path-like
            Where to write; created if missing, and must not hold shards already.
        vocabulary : sequence of str, optional
            The words of the columns, stored in ``shards.json`` for bag-of-words shards.

        Returns
        -------
        ShardStore
            The store just written.

        Raises
        ------
        DataError
            If the directory already holds shards, there is no chunk, a chunk is invalid, or the
            chunks differ in kind or number of features.
        """
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        if any(directory.glob("shard_*")):
            raise DataError(f"{directory} already holds shards; write to an empty directory")
        sizes, kind, n_features = [], None, None
        for index, chunk in enumerate(chunks):
            data = _as_data(chunk, f"chunk {index}")
            chunk_kind = "bow" if isinstance(data, BagOfWords) else "dense"
            if kind is None:
                kind, n_features = chunk_kind, data.n_features
            elif chunk_kind != kind or data.n_features != n_features:
                raise DataError(f"chunk {index} is {chunk_kind} with {data.n_features} features; "
                                f"earlier chunks were {kind} with {n_features}")
            _write_shard(directory, index, data)
            sizes.append(data.n_items)
        if not sizes or n_features is None:
            raise DataError("no chunks to write; pass at least one non-empty chunk")
        meta = {"format": FORMAT, "version": VERSION, "kind": kind, "n_features": int(n_features), "sizes": sizes,
                "vocabulary": list(vocabulary) if vocabulary is not None else None}
        (directory / "shards.json").write_text(json.dumps(meta))
        return cls(directory, meta)

    @classmethod
    def write(cls, data, directory, n_batches: int, seed: int = 0) -> "ShardStore":
        """Split in-memory data into ``n_batches`` random batches (as :func:`batch_indices`) on disk.

        Parameters
        ----------
        data : DenseData or BagOfWords
            The validated data (its ``vocabulary``, if any, is stored too).
        directory : str or path-like
            Where to write; created if missing, and must not hold shards already.
        n_batches : int
            The number of batches (shards).
        seed : int, default=0
            Seed of the random assignment of items to batches.

        Returns
        -------
        ShardStore
            The store just written.
        """
        index = batch_indices(data.n_items, n_batches, seed)
        vocabulary = getattr(data, "vocabulary", None)
        return cls.from_chunks((data.subset(i) for i in index), directory, vocabulary)

    @classmethod
    def open(cls, directory) -> "ShardStore":
        """The store written earlier to ``directory``.

        Parameters
        ----------
        directory : str or path-like
            A directory written by :meth:`write` or :meth:`from_chunks`.

        Returns
        -------
        ShardStore
            The store; shards are read (and checked) only when indexed.

        Raises
        ------
        DataError
            If the directory has no ``shards.json`` or it is of an unknown format or a newer version.
        """
        path = Path(directory) / "shards.json"
        if not path.exists():
            raise DataError(f"{directory} is not a shard directory (no shards.json); write one with ShardStore.write")
        meta = json.loads(path.read_text())
        if meta.get("format") != FORMAT or meta.get("version", 0) > VERSION:
            raise DataError(f"{directory} holds shards in an unknown format or a newer version")
        return cls(directory, meta)

    # ---------------------------------------------------------------- reading
    def __len__(self) -> int:
        return len(self.meta["sizes"])

    def __getitem__(self, b):
        if isinstance(b, slice):
            return [self[i] for i in range(*b.indices(len(self)))]
        b = int(b)
        if not 0 <= b < len(self):
            raise IndexError(f"shard {b} out of range (0..{len(self) - 1})")
        stem = self.directory / f"shard_{b:05d}"
        size = int(self.meta["sizes"][b])
        if self.meta["kind"] == "dense":
            X = np.load(f"{stem}.npy", mmap_mode="r")
            _check_shard(stem, X.ndim == 2 and X.shape == (size, self.n_features), np.isfinite(X).all())
            return DenseData(X)
        data, indices, indptr = (np.load(f"{stem}.{name}.npy", mmap_mode="r") for name in ("data", "indices", "indptr"))
        structure = (indptr.ndim == 1 and len(indptr) == size + 1 and len(indices) == len(data) and indptr[0] == 0
                     and indptr[-1] == len(data) and bool(np.all(np.diff(indptr) >= 0))
                     and (len(indices) == 0 or (indices.min() >= 0 and indices.max() < self.n_features)))
        _check_shard(stem, structure, np.isfinite(data).all() and not (data < 0).any())
        counts = sp.csr_matrix((data, indices, indptr), shape=(size, self.n_features), copy=False)
        return BagOfWords(counts, self.vocabulary)

    @property
    def kind(self) -> str:
        """``"dense"`` (rows, read as :class:`DenseData`) or ``"bow"`` (word counts, as :class:`BagOfWords`)."""
        return self.meta["kind"]

    @property
    def vocabulary(self) -> tuple[str, ...] | None:
        """The words of the columns (bag-of-words shards written with a vocabulary), else None."""
        words = self.meta.get("vocabulary")
        return tuple(words) if words else None

    @property
    def n_items(self) -> int:
        """The number of items (rows) of all shards together."""
        return int(sum(self.meta["sizes"]))

    @property
    def n_features(self) -> int:
        """The number of features (vocabulary size for word counts)."""
        return int(self.meta["n_features"])

    def sample(self, n_items: int, rng: np.random.Generator):
        """An in-memory random sample of about ``n_items`` items, drawn shard by shard (for initialisation).

        Each shard contributes the same fraction ``n_items / self.n_items`` of its items (rounded,
        at least one), drawn without replacement and kept in their order.

        Parameters
        ----------
        n_items : int
            The sample size wanted (at most all items).
        rng : numpy.random.Generator
            The random generator.

        Returns
        -------
        DenseData or BagOfWords
            The sample, in memory.
        """
        fraction = min(1.0, n_items / self.n_items)
        parts = []
        for b in range(len(self)):
            batch = self[b]
            take = max(1, int(round(fraction * batch.n_items)))
            parts.append(batch.subset(np.sort(rng.choice(batch.n_items, take, replace=False))))
        if self.kind == "dense":
            return DenseData(np.concatenate([np.asarray(p.X) for p in parts]))
        return BagOfWords(sp.vstack([p.counts for p in parts]).tocsr(), parts[0].vocabulary)


def _check_shard(stem: Path, structure_ok: bool, values_ok: bool) -> None:
    """Every read checks its shard (O(size)): a file edited or damaged since it was written is refused."""
    if not structure_ok:
        problem = "its arrays do not match shards.json (shape, row pointers or word ids out of range)"
    elif not values_ok:
        problem = "it holds NaN, infinite or negative values"
    else:
        return
    raise DataError(f"shard {stem.name} in {stem.parent} is corrupt: {problem}; write the shards again "
                    "(ShardStore.write) from the source data.")


def _as_data(chunk, what: str):
    if isinstance(chunk, (DenseData, BagOfWords)):
        return chunk
    if sp.issparse(chunk):
        return BagOfWords.from_counts(chunk, what=what)
    return DenseData.from_array(chunk, what)


def _write_shard(directory: Path, index: int, data) -> None:
    stem = directory / f"shard_{index:05d}"
    if isinstance(data, DenseData):
        np.save(f"{stem}.npy", np.ascontiguousarray(data.X))
        return
    counts = data.counts
    for name in ("data", "indices", "indptr"):
        np.save(f"{stem}.{name}.npy", getattr(counts, name))
