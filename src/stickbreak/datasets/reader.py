"""Reading data from files or bundled names, for the CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..data.csv_table import fast_table, is_number, opener
from ..data.errors import DAMAGED_FILE_ERRORS, DataError, damaged_file
from ..data.shards import ShardStore
from ..data.text_io import corpus_format, read_corpus
from . import bundled as datasets


def _read_csv(path: Path) -> np.ndarray:
    """A numeric CSV table (gzipped when its name ends in .gz), skipping one header line if present:
    by pandas' C reader (7x np.loadtxt on 300,000 rows), else np.loadtxt, which names the bad cell."""
    table = fast_table(path)
    if table is not None and all(column.dtype.kind in "iuf" for column in table.columns):
        return np.column_stack(table.columns).astype(np.float64)
    with opener(path)(path, "rt", newline=None) as fh:
        first = fh.readline()
    skip = 0 if all(is_number(v) for v in first.strip().split(",")) else 1  # 1: a header line
    try:
        return np.loadtxt(path, delimiter=",", skiprows=skip, ndmin=2)
    except ValueError as exc:
        raise DataError(f"{path} is not a numeric CSV table ({exc}); every value after the header must be "
                        "a number.") from exc


def _read_npz(path: Path):
    with np.load(path, allow_pickle=False) as z:
        keys = set(z.files)
        if {"data", "indices", "indptr", "shape"} <= keys:
            return sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
        if "X" in keys:
            return z["X"]
        if len(keys) == 1:
            return z[next(iter(keys))]
    raise DataError(
        f"{path} holds arrays {sorted(keys)}; expected 'X', a single array, or a CSR matrix "
        "('data', 'indices', 'indptr', 'shape')."
    )


def _corpus_name(path: Path) -> str:
    parts = path.name.split(".")
    return parts[1] if parts[0] == "docword" and len(parts) > 2 else parts[0]


def read_data(spec: str):
    """``(X, labels, name)`` from a bundled data set name, a .npy / .npz / .csv file or a shard directory.

    This is how the command line reads its data argument. Text corpora (LDA-C .dat/.ldac, Matrix
    Market .mm/.mtx, UCI docword.*, optionally .gz, and directories holding bow.npz or docword.*)
    give ``(BagOfWords, None, name)``; their empty documents are dropped with a warning. A
    directory with ``shards.json`` gives a :class:`~stickbreak.ShardStore`. A ``.npz`` file may
    hold ``X``, a single array, or a CSR matrix (``data``, ``indices``, ``indptr``, ``shape``); a
    CSV table may be gzipped and start with one header line. Nothing is unpickled.

    Parameters
    ----------
    spec : str
        A bundled data set name (:func:`names`), or the path of a file or directory.

    Returns
    -------
    X : ndarray, scipy.sparse.csr_matrix, BagOfWords, Sequences or ShardStore
        The data, as read (not yet validated for a model).
    labels : ndarray or None
        The true labels of a bundled data set, else None.
    name : str
        A short name for the data (the data set's, or one taken from the file name).

    Raises
    ------
    DataError
        If ``spec`` is neither a bundled name nor an existing path, or the file cannot be read.

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak.datasets import read_data
    >>> X, labels, name = read_data("digits")
    >>> X.shape, labels.shape, name
    ((1797, 64), (1797,), 'digits')
    >>> np.save("points.npy", np.zeros((4, 2)))
    >>> X, labels, name = read_data("points.npy")
    >>> X.shape, labels, name
    ((4, 2), None, 'points')
    """
    if spec in datasets.names():
        ds = datasets.load(spec)
        return ds.X, ds.labels, ds.name
    path = Path(spec)
    if path.is_dir() and not (path / "shards.json").exists() and corpus_format(path) is not None:
        return read_corpus(path, empty="skip"), None, path.name
    if path.is_dir():
        return ShardStore.open(path), None, path.name
    if not path.exists():
        raise DataError(f"{spec!r} is neither a bundled data set ({datasets.names()}) nor an existing file.")
    if corpus_format(path) in ("uci", "ldac", "mm"):
        return read_corpus(path, empty="skip"), None, _corpus_name(path)
    suffix = "".join(path.suffixes[-2:]) if path.suffix == ".gz" else path.suffix
    try:
        if suffix == ".npy":
            return np.load(path, allow_pickle=False), None, path.stem
        if suffix == ".npz":
            return _read_npz(path), None, path.stem
        if suffix in (".csv", ".csv.gz"):
            return _read_csv(path), None, path.name.split(".")[0]
    except DAMAGED_FILE_ERRORS as exc:
        raise damaged_file(exc, path.name, f"a {suffix} file of numbers (object arrays are refused: they would "
                                           "need pickle)") from exc
    raise DataError(f"cannot read {path.name}: use a .npy, .npz or .csv file, a text corpus (.dat/.ldac, .mm/.mtx, "
                    "docword.*), a corpus directory, or a bundled data set name.")
