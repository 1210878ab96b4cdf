"""Checkpoint files: ``DIR/checkpoint.npz``, replaced atomically after every lap of a fit.

The file is an uncompressed ``.npz`` of the state's arrays plus three string entries: the JSON
document (format, versions, estimator, data fingerprint, the encoded state, RNG states, trace),
the sha256 of the whole payload (damage) and its HMAC under this user's key (who wrote it:
:mod:`.authenticity`), both checked before anything is decoded. A new checkpoint is
written under a temporary name in the same directory, flushed to disk and renamed over the old
one (``os.replace``), so a crash at any moment leaves the old or the new checkpoint, never a torn
one. Nothing is unpickled (``allow_pickle=False``).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Iterator

import numpy as np

from .._version import __version__
from ..data import BagOfWords, DenseData, LaggedData, Sequences, ShardStore
from . import authenticity
from .codec import CheckpointError
from .npz import read_arrays

FORMAT = "stickbreak-checkpoint"
FORMAT_VERSION = 2
FILENAME = "checkpoint.npz"
DOCUMENT_KEY = "__checkpoint__"
CHECKSUM_KEY = "__sha256__"
MAC_KEY = "__hmac_sha256__"  # under this user's key (:mod:`.authenticity`); "" where there is no key


def _data_arrays(data) -> Iterator[np.ndarray]:
    """The arrays that make up ``data``, in order; a shard store's one shard at a time (each is
    released before the next is read, so the driver never holds the store)."""
    if isinstance(data, (DenseData, LaggedData)):
        yield from [data.X] + ([data.Xprev] if isinstance(data, LaggedData) else [])
    elif isinstance(data, BagOfWords):
        counts = data.counts
        yield from [np.asarray(counts.shape), counts.data, counts.indices, counts.indptr]
    elif isinstance(data, Sequences):
        yield from [data.X, data.offsets] + ([] if data.Xprev is None else [data.Xprev])
    elif isinstance(data, ShardStore):
        for b in range(len(data)):
            yield from _data_arrays(data[b])
    else:
        raise TypeError(f"cannot fingerprint training data of type {type(data).__name__}")


def fingerprint(data) -> dict:
    """``{"kind", "shape", "sha256"}`` of validated training data: its type, size and arrays' bytes."""
    digest = hashlib.sha256()
    for a in _data_arrays(data):
        _hash_array(digest, a)
    n_features = data.n_features
    return {"kind": type(data).__name__, "shape": [int(data.n_items), int(n_features)], "sha256": digest.hexdigest()}


def _hash_array(digest, a: np.ndarray) -> None:
    a = np.ascontiguousarray(a)
    digest.update(f"{a.dtype.str}{a.shape}".encode())
    digest.update(a.data if a.size else b"")


def _checksum(text: str, arrays, digest=None) -> str:
    """The SHA-256 of the document and arrays (or, given ``digest``, e.g. an HMAC, its value over them)."""
    digest = hashlib.sha256() if digest is None else digest
    digest.update(text.encode())
    for name in sorted(arrays):
        digest.update(name.encode())
        _hash_array(digest, arrays[name])
    return digest.hexdigest()


#: The bit generators a saved generator state may name.
BIT_GENERATORS = {cls.__name__: cls for cls in (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937,
                                                np.random.Philox, np.random.SFC64)}


def generator(state: dict) -> np.random.Generator:
    """A generator in the saved ``state`` (``Generator.bit_generator.state``)."""
    if state.get("bit_generator") not in BIT_GENERATORS:
        raise CheckpointError(f"the checkpoint names an unknown random generator {state.get('bit_generator')!r}")
    bits = BIT_GENERATORS[state["bit_generator"]]()
    bits.state = state  # type: ignore[assignment]  # (a saved bit generator's state dict)
    return np.random.Generator(bits)


def checkpoint_path(directory) -> Path:
    return Path(directory) / FILENAME


def write(directory, document: dict, arrays: dict[str, np.ndarray]) -> Path:
    """Write ``document`` (JSON-able) and ``arrays`` as the checkpoint of ``directory``, atomically."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document)
    key = authenticity.load_key(create=True)
    mac = "" if key is None else _checksum(text, arrays, authenticity.new_mac(key))
    entries = {DOCUMENT_KEY: np.array(text), CHECKSUM_KEY: np.array(_checksum(text, arrays)), MAC_KEY: np.array(mac),
               **arrays}
    path, tmp = checkpoint_path(directory), directory / f".{FILENAME}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **entries)  # type: ignore[arg-type]  # (numpy's stub types **kwds as allow_pickle)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    for stale in directory.glob(f".{FILENAME}.*.tmp"):  # left by writers killed mid-write
        stale.unlink(missing_ok=True)
    fd = os.open(directory, os.O_RDONLY)  # the rename itself is durable once the directory is synced
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def read(directory, trust: bool = False) -> tuple[dict, dict[str, np.ndarray]]:
    """``(document, arrays)`` of the checkpoint in ``directory``; a CheckpointError says what is
    wrong with a missing, truncated, corrupt or foreign file (which is left as it is), or, unless
    ``trust``, with one this user's stickbreak did not write (:mod:`.authenticity`)."""
    path = checkpoint_path(directory)
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {path}: pass the directory given as checkpoint= (or --checkpoint) "
                              "to a fit that completed at least one lap")
    arrays = read_arrays(path, CheckpointError,
                         f"{path} is truncated or corrupt (not an npz zip archive) and cannot be resumed; "
                         "start the fit again",
                         lambda exc: f"{path} is truncated or corrupt and cannot be read ({type(exc).__name__}: "
                                     f"{exc}); it cannot be resumed: start the fit again")
    if DOCUMENT_KEY not in arrays or CHECKSUM_KEY not in arrays:
        raise CheckpointError(f"{path} is an .npz file but not a stickbreak checkpoint")
    text, checksum = str(arrays.pop(DOCUMENT_KEY)), str(arrays.pop(CHECKSUM_KEY))
    mac = str(arrays.pop(MAC_KEY)) if MAC_KEY in arrays else ""
    if _checksum(text, arrays) != checksum:
        raise CheckpointError(f"{path} is corrupt (its sha256 checksum does not match its contents); "
                              "it cannot be resumed: start the fit again")
    if not trust:
        _check_author(path, text, arrays, mac)
    document = json.loads(text)
    if document.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a stickbreak checkpoint")
    if document.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(f"{path} has checkpoint format version {document.get('format_version')} (written by "
                              f"stickbreak {document.get('stickbreak_version')}); this stickbreak {__version__} reads "
                              f"version {FORMAT_VERSION}: resume it with that version, or start the fit again")
    return document, arrays


def _check_author(path: Path, text: str, arrays, mac: str) -> None:
    """Refuse a checkpoint whose HMAC is missing or does not match under this user's key."""
    key = authenticity.load_key(create=False)
    if key is not None and mac and authenticity.same(_checksum(text, arrays, authenticity.new_mac(key)), mac):
        return
    why = ("it carries no authentication code" if not mac else
           f"there is no key at {authenticity.key_path()} to check it with" if key is None else
           f"its authentication code does not match the key at {authenticity.key_path()}")
    raise CheckpointError(f"{path} was not written by this user's stickbreak on this machine, or was edited since "
                          f"({why}); resuming runs what it says, outputs included, so resume it only if you trust "
                          "it: stickbreak.resume(DIR, X, trust=True) or `stickbreak resume DIR --trust`")


def new_document(**content) -> dict:
    """The document of a checkpoint: format and versions, then ``content``."""
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "stickbreak_version": __version__, **content}
