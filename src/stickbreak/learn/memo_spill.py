"""Memoized VI's part caches written through to a spill directory, so that a worker that died and
was replaced reads them back: a fault costs a retry, never the run's exactness (Hughes 2016, §8.1).

A spill file is a sequence of ``.npy`` records (``numpy.lib.format``, no pickle): the arrays' names,
then each array; wide mostly-zero arrays are kept as their non-zero columns. Unlike an ``.npz``
(a zip with a checksum of every byte) it is written at the speed of a copy, and it is written at
every visit, on the lap's critical path."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
from numpy.lib.format import read_array, write_array

from ..core.suffstats import SuffStats
from ..parallel.compact import compacted, expanded

#: A spill file's suffix (a sequence of ``.npy`` records).
SUFFIX = ".npys"


class CacheLost(RuntimeError):
    """A part's cache is gone (its worker died and no spill file holds it)."""


def spill_files(spill: str, slot: tuple) -> dict[int, Path]:
    """A part's spill files by version."""
    key, batch, part = slot
    folder = Path(spill) / str(key)
    pattern = re.compile(rf"b{batch}-p{part}-v(\d+)\{SUFFIX}")
    if not folder.is_dir():
        return {}
    return {int(m.group(1)): path for path in folder.iterdir() if (m := pattern.fullmatch(path.name))}


def write_spill(spill: str, slot: tuple, version: int, cached) -> None:
    """Write a part's cache of visit ``version`` atomically (a temporary file renamed into place)
    and remove the versions before the one it replaced (a retried visit still finds that one)."""
    key, batch, part = slot
    path = Path(spill) / str(key) / f"b{batch}-p{part}-v{version}{SUFFIX}"
    path.parent.mkdir(parents=True, exist_ok=True)
    stats, warm = cached
    arrays = stats.to_arrays("stats.")
    if warm is not None:
        arrays["warm.uids"] = np.asarray(warm[0])
        rows = warm[1] if isinstance(warm[1], tuple) else (warm[1],)
        arrays.update({f"warm.rows{i}": np.asarray(r) for i, r in enumerate(rows)})
        arrays["warm.tuple"] = np.array(isinstance(warm[1], tuple))
    temporary = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
    with open(temporary, "wb") as out:
        arrays = _compact(arrays)
        write_array(out, np.array(list(arrays), dtype=str), allow_pickle=False)
        for array in arrays.values():
            write_array(out, np.asarray(array), allow_pickle=False)
    os.replace(temporary, path)
    files = spill_files(spill, slot)
    older = sorted(v for v in files if v < version)
    for v in older[:-1]:
        files[v].unlink(missing_ok=True)


def read_spill(spill: str | None, slot: tuple, before: int | None = None, exact: int | None = None):
    """A part's newest cache written by :func:`write_spill` (of a version below ``before``, or
    version ``exact``, if given); :class:`CacheLost` if there is none."""
    files = {} if spill is None else spill_files(spill, slot)
    versions = [v for v in files if (before is None or v < before) and (exact is None or v == exact)]
    if not versions:
        raise CacheLost(f"the cached statistics of part {slot[2]} of batch {slot[1]} were lost with the worker "
                        "that held them" + ("" if spill is None else f" and are not in {spill}") +
                        "; the workers must be able to read the directory their caches are written to (the "
                        "executor's spill directory), or resume the fit from its last checkpoint")
    with open(files[max(versions)], "rb") as records:
        names = read_array(records, allow_pickle=False)
        arrays = _expanded({str(name): read_array(records, allow_pickle=False) for name in names})
    stats = SuffStats.from_arrays(arrays, "stats.")
    if "warm.uids" not in arrays:
        return stats, None
    rows = tuple(arrays[f"warm.rows{i}"] for i in range(sum(k.startswith("warm.rows") for k in arrays)))
    return stats, (arrays["warm.uids"], rows if bool(arrays["warm.tuple"]) else rows[0])


def _compact(arrays: dict) -> dict:
    """``arrays`` with each wide, mostly-zero one (a part's word counts over the whole vocabulary)
    kept as its non-zero columns or rows (:func:`~stickbreak.parallel.compact.compacted`)."""
    out = {}
    for name, array in arrays.items():
        kept = compacted(array)
        if kept is None:
            out[name] = array
            continue
        axis, index, values = kept
        out.update({f"{name}@shape": np.asarray(array.shape), f"{name}@axis": np.asarray(axis),
                    f"{name}@index": index, f"{name}@values": values})
    return out


def _expanded(arrays: dict) -> dict:
    """The arrays :func:`_compact` wrote, whole again."""
    out = {name: array for name, array in arrays.items() if "@" not in name}
    for name in [n[:-len("@values")] for n in arrays if n.endswith("@values")]:
        values = arrays[f"{name}@values"]
        out[name] = expanded(tuple(arrays[f"{name}@shape"]), values.dtype.str, int(arrays[f"{name}@axis"]),
                             arrays[f"{name}@index"], values)
    return out
