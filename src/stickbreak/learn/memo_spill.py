"""Memoized VI's part caches written through to a spill directory (``.npz`` files, no pickle), so
that a worker that died and was replaced reads them back: a fault costs a retry, never the run's
exactness (Hughes 2016, §8.1)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from ..core.suffstats import SuffStats


class CacheLost(RuntimeError):
    """A part's cache is gone (its worker died and no spill file holds it)."""


def spill_files(spill: str, slot: tuple) -> dict[int, Path]:
    """A part's spill files by version."""
    key, batch, part = slot
    folder = Path(spill) / str(key)
    pattern = re.compile(rf"b{batch}-p{part}-v(\d+)\.npz")
    if not folder.is_dir():
        return {}
    return {int(m.group(1)): path for path in folder.iterdir() if (m := pattern.fullmatch(path.name))}


def write_spill(spill: str, slot: tuple, version: int, cached) -> None:
    """Write a part's cache of visit ``version`` atomically (a temporary file renamed into place)
    and remove the versions before the one it replaced (a retried visit still finds that one)."""
    key, batch, part = slot
    path = Path(spill) / str(key) / f"b{batch}-p{part}-v{version}.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    stats, warm = cached
    arrays = stats.to_arrays("stats.")
    if warm is not None:
        arrays["warm.uids"] = np.asarray(warm[0])
        rows = warm[1] if isinstance(warm[1], tuple) else (warm[1],)
        arrays.update({f"warm.rows{i}": np.asarray(r) for i, r in enumerate(rows)})
        arrays["warm.tuple"] = np.array(isinstance(warm[1], tuple))
    temporary = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    np.savez(temporary, **arrays)
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
    with np.load(files[max(versions)], allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files}
    stats = SuffStats.from_arrays(arrays, "stats.")
    if "warm.uids" not in arrays:
        return stats, None
    rows = tuple(arrays[f"warm.rows{i}"] for i in range(sum(k.startswith("warm.rows") for k in arrays)))
    return stats, (arrays["warm.uids"], rows if bool(arrays["warm.tuple"]) else rows[0])
