"""Versioned save/load of fitted models: one ``.npz`` of arrays plus JSON metadata, no pickle;
checkpoints of running fits (:mod:`.checkpoint`, states through :mod:`.codec`).

The file holds named arrays and a JSON document under the key ``__meta__`` with the format
version, the package version, the estimator class and its constructor parameters. Loading never
unpickles anything (``allow_pickle=False``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .._version import __version__
from . import checkpoint
from .codec import STATE_TYPES, CheckpointError, decode, encode, register_state_type

FORMAT = "stickbreak-model"
FORMAT_VERSION = 1
META_KEY = "__meta__"

#: Estimator class name -> class; filled in by each estimator module via :func:`register`.
ESTIMATORS: dict[str, type] = {}


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
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **{META_KEY: np.array(json.dumps(meta))}, **{k: np.asarray(v) for k, v in arrays.items()})
    tmp.replace(path)  # atomic: an interrupted save never leaves a half-written model
    return path


def read_model(path) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` of a saved model, with clear errors for files that are not one."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no saved model at {path}")
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except Exception as exc:
        raise ValueError(f"{path} is not a stickbreak model file (.npz): {exc}") from exc
    if META_KEY not in arrays:
        raise ValueError(f"{path} is an .npz file but not a stickbreak model (no {META_KEY!r} entry)")
    meta = json.loads(str(arrays.pop(META_KEY)))
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path} is not a stickbreak model file")
    if meta.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(
            f"{path} was written by stickbreak {meta.get('stickbreak_version')} in format version "
            f"{meta['format_version']}; this stickbreak reads up to version {FORMAT_VERSION}. Upgrade stickbreak."
        )
    meta["params"] = from_jsonable(meta["params"])
    meta["extra"] = from_jsonable(meta["extra"])
    return meta, arrays


def load(path):
    """Load any saved stickbreak estimator."""
    meta, arrays = read_model(path)
    name = meta["estimator"]
    if name not in ESTIMATORS:
        raise ValueError(f"{path} holds a {name!r}, which this version of stickbreak does not know")
    return ESTIMATORS[name]._from_saved(meta, arrays)


def nested_arrays(arrays: Mapping[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The entries under ``prefix`` (e.g. ``"obs."``) with the prefix stripped."""
    return {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}


def prefixed(prefix: str, values: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {f"{prefix}{k}": np.asarray(v) for k, v in values.items()}
