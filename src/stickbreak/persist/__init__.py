"""Versioned save/load of fitted models: one ``.npz`` of arrays plus JSON metadata, no pickle;
checkpoints of running fits (:mod:`.checkpoint`, states through :mod:`.codec`).

The file holds named arrays and a JSON document under the key ``__meta__`` with the format
version, the package version, the estimator class and its constructor parameters. Loading never
unpickles anything (``allow_pickle=False``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .._version import __version__
from . import checkpoint
from .codec import STATE_TYPES, CheckpointError, decode, encode, register_state_type
from .npz import read_arrays

__all__ = ["FORMAT", "FORMAT_VERSION", "META_KEY", "STATE_TYPES", "CheckpointError", "ModelFileError", "checkpoint",
           "decode", "digest", "encode", "from_jsonable", "load", "nested_arrays", "prefixed", "read_model",
           "register", "register_state_type", "save_model", "to_jsonable"]

FORMAT = "stickbreak-model"
#: 2: the metadata holds a SHA-256 digest of the parameters, the fit record and every array.
FORMAT_VERSION = 2
META_KEY = "__meta__"

#: Estimator class name -> class; filled in by each estimator module via :func:`register`.
ESTIMATORS: dict[str, type] = {}
#: What rebuilding an estimator from a damaged or edited file can raise.
_DAMAGED = (KeyError, ValueError, TypeError, IndexError, AttributeError, np.linalg.LinAlgError)


class ModelFileError(ValueError):
    """A file that is not a stickbreak model, or one damaged or edited since it was saved."""


def register(cls: type) -> type:
    ESTIMATORS[cls.__name__] = cls
    return cls


def to_jsonable(value):
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot save a value of type {type(value).__name__} in model metadata")


def from_jsonable(value):
    if isinstance(value, dict):
        if "__ndarray__" in value:
            return np.asarray(value["__ndarray__"], dtype=value["dtype"])
        return {k: from_jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_jsonable(v) for v in value]
    return value


def digest(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> str:
    """SHA-256 of the estimator, its parameters and fit record (as JSON) and every array (name,
    dtype, shape, bytes): a file changed after saving no longer matches its own digest."""
    h = hashlib.sha256(json.dumps([meta["estimator"], meta["params"], meta["extra"]], sort_keys=True).encode())
    for name in sorted(arrays):
        value = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{value.dtype.str}|{value.shape}|".encode())
        h.update(value.tobytes())
    return h.hexdigest()


def save_model(path, estimator: str, params: Mapping[str, Any], arrays: Mapping[str, np.ndarray],
               extra: Mapping[str, Any]) -> Path:
    """Write ``arrays`` and JSON metadata to ``path`` (``.npz`` appended if missing)."""

    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "stickbreak_version": __version__,
        "estimator": estimator,
        "params": to_jsonable(dict(params)),
        "extra": to_jsonable(dict(extra)),
    }
    if META_KEY in arrays:
        raise ValueError(f"array name {META_KEY!r} is reserved")
    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    meta["sha256"] = digest(json.loads(json.dumps(meta)), arrays)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **{META_KEY: np.array(json.dumps(meta))}, **arrays)  # type: ignore[arg-type]  # (numpy's stub)
    tmp.replace(path)  # atomic: an interrupted save never leaves a half-written model
    return path


def read_model(path) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` of a saved model, with clear errors for files that are not one."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no saved model at {path}")
    arrays = read_arrays(path, ModelFileError,
                         f"{path} is not a stickbreak model file: not an npz (zip) archive; models are "
                         "written by est.save(path)",
                         lambda exc: f"{path} is not a stickbreak model file (.npz): {exc}")
    if META_KEY not in arrays:
        raise ModelFileError(f"{path} is an .npz file but not a stickbreak model (no {META_KEY!r} entry)")
    try:
        meta = json.loads(str(arrays.pop(META_KEY)))
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"{path}: its metadata is not valid JSON ({exc}); the file is damaged or was edited, "
                             "save the model again from its fit.") from exc
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a stickbreak model file")
    version = meta.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise ModelFileError(f"{path} has format version {version!r}, which no stickbreak wrote; the file is damaged")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{path} was written by stickbreak {meta.get('stickbreak_version')} in format version "
            f"{version}; this stickbreak reads up to version {FORMAT_VERSION}. Upgrade stickbreak."
        )
    if not isinstance(meta.get("params"), dict) or not isinstance(meta.get("extra"), dict):
        raise ModelFileError(f"{path} lacks its estimator's parameters or fit record; the file is damaged")
    if version >= 2 and meta.get("sha256") != digest(meta, arrays):
        raise ModelFileError(f"{path} was changed since it was saved (its arrays or metadata no longer match the "
                             "SHA-256 digest written with them): the file is damaged or was edited; save the "
                             "model again from its fit.")
    bad = [k for k, v in arrays.items() if v.dtype.kind in "fc" and not np.isfinite(v).all()]
    if bad:
        raise ModelFileError(f"{path} holds NaN or infinite values in {bad[:5]}; a fitted model has none: the file "
                             "is damaged or was edited, save the model again from its fit.")
    meta["params"] = from_jsonable(meta["params"])
    meta["extra"] = from_jsonable(meta["extra"])
    return meta, arrays


def load(path):
    """Load a fitted estimator of any stickbreak class from a file written by its ``save``.

    Nothing is unpickled (``allow_pickle=False``); the file's SHA-256 digest of the parameters,
    fit record and arrays is checked, so a damaged or edited file is refused.

    Parameters
    ----------
    path : str or path-like
        The ``.npz`` file written by the estimator's ``save``.

    Returns
    -------
    estimator : object
        The fitted estimator (e.g. a :class:`~stickbreak.DPMixture`), its class read from the
        file, ready to predict, score, report and save.

    Raises
    ------
    FileNotFoundError
        If there is no file at ``path``.
    ModelFileError
        If the file is not a stickbreak model, holds an estimator this version does not know,
        was written in a newer format version, or was damaged or edited since it was saved
        (a ValueError).

    Examples
    --------
    >>> import numpy as np
    >>> import stickbreak
    >>> from stickbreak import DPMixture, datasets
    >>> X = datasets.load("old_faithful").X
    >>> model = DPMixture(random_state=0).fit(X)
    >>> path = model.save("faithful")  # ".npz" is appended
    >>> path.name
    'faithful.npz'
    >>> loaded = stickbreak.load(path)
    >>> type(loaded).__name__, bool(np.allclose(loaded.predict_proba(X), model.predict_proba(X)))
    ('DPMixture', True)
    """
    meta, arrays = read_model(path)
    name = meta.get("estimator")
    if name not in ESTIMATORS:
        raise ModelFileError(f"{path} holds a {name!r}, which this version of stickbreak does not know; "
                             f"it knows {sorted(ESTIMATORS)}")
    try:
        return ESTIMATORS[name]._from_saved(meta, arrays)
    except ModelFileError:
        raise
    except _DAMAGED as exc:
        raise ModelFileError(f"{path} is damaged or was edited since it was saved ({type(exc).__name__}: {exc}); "
                             "save the model again from its fit.") from exc


def nested_arrays(arrays: Mapping[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The entries under ``prefix`` (e.g. ``"obs."``) with the prefix stripped."""
    return {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}


def prefixed(prefix: str, values: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {f"{prefix}{k}": np.asarray(v) for k, v in values.items()}
