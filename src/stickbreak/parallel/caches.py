"""Memoized VI's batch caches, kept where the batches live (Hughes 2016, Alg. 3.3; thesis §8.1).

Each part of a batch (:mod:`.parts`) keeps, on the worker (or thread pool) that holds it, the
statistics of its last visit and the warm start of its next one. A visit replays on them the
moves accepted since (the move log, each record cut to the part: ``for_part``), runs the local
step from the warm start, caches the fresh statistics and sends back only their difference from
the cached ones: the driver adds the parts' differences to its whole-data statistics and holds
one set of them, whatever the number of batches.

Worker processes write each part's cache through to ``spill`` (a directory of ``.npz`` files, no
pickle) after every visit, so a worker that died and was replaced reads it back: a fault costs a
retry, never the run's exactness. A saved state (a checkpoint) fetches the caches to the driver
(:func:`fetch_part`) and a resumed run installs them at each batch's next visit.

A move's per-batch proposal can be held there too (a delete's refinement:
:class:`~stickbreak.moves.delete.DeleteRound`): the work answers :class:`Held`, the part keeps
the proposal's share by lap (:func:`keep_held`, written through like the caches) and a held
record fills it in where it is replayed (:func:`read_held`).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from ..core.local_parts import local_summary
from ..core.suffstats import SuffStats
from .parts import added, joined_rows, rows_of


class CacheLost(RuntimeError):
    """A part's cache is gone (its worker died and no spill file holds it)."""


#: A follow-up's answer (sent without the call's parameters) for a part whose kept local parameters
#: are gone: the driver asks again with the parameters, and the visit is run again.
KEPT_LOST = b"stickbreak-kept-local-lost"


class LocalWork(Protocol):
    """Work a memoized visit does on each part's local parameters where the part lives, right after
    its local step or in a follow-up, so that they never travel (a birth's per-batch pieces:
    :mod:`stickbreak.moves.birth_work`; a delete's refinement: :mod:`stickbreak.moves.delete`)."""

    def on_part(self, model, params, batch, local, start: int, features=None, n_features: int = 0,
                kept: dict | None = None) -> Any:
        """The part's answer: ``batch`` holds the batch's items from ``start`` on, ``params`` and
        ``local`` are those of its local step (on ``features`` of ``n_features``, if not None);
        ``kept``: a dict kept with the local parameters, for what later follow-ups build on.
        An answer :class:`Held` leaves a proposal where the part lives."""

    def joined(self, answers: Sequence) -> Any:
        """The batch's answer from its parts' (in part order)."""

    def on_features(self, model, features) -> "LocalWork":
        """This work as a part kept on ``features`` receives it (a
        :class:`~stickbreak.core.protocols.FeatureSliced` model's: what it sends cut to them)."""

    def travelling(self) -> "LocalWork":
        """What a follow-up sends first; the work itself goes only to parts that lost what the
        visit kept (:data:`KEPT_LOST`), with what they need to rebuild it."""


@dataclass(frozen=True, eq=False)
class Held:
    """A part's answer that also leaves ``cache`` (``(stats, (uids, warm) or None)``, the part's
    share of a per-batch proposal) where the part lives, under ``lap`` (:func:`keep_held`)."""

    answer: Any
    lap: int
    cache: Any


@dataclass(frozen=True, eq=False)
class MemoVisit:
    """Memoized VI's visit of batch ``batch``: ``records`` are the moves accepted since its last
    visit; ``cached``: its parts hold caches where they live; ``install``: a cache ``(stats, warm)``
    of the whole batch carried by a resumed state, to place (instead) before the records replay;
    ``keep_fresh``: send back the fresh statistics too (a delete's proposal starts from them);
    ``version``: increases from visit to visit of a batch (the lap), so that a retried visit finds
    the cache its first try replaced; ``work``: a :class:`LocalWork` to run on the parts' local
    parameters; ``follow_ups``: the parts keep those local parameters for follow-up work
    (:func:`part_work`) until the part's next visit."""

    batch: int
    version: int
    records: tuple = ()
    cached: bool = False
    install: Any = None
    keep_fresh: bool = False
    work: Any = None
    follow_ups: bool = False


@dataclass(frozen=True, eq=False)
class PartVisit:
    """A :class:`MemoVisit` as one part receives it: the records cut to the part, its share of an
    installed cache, where its worker writes the cache through (None: nowhere), the part's first
    item ``start`` in the batch, and with ``again`` only the visit's ``work`` is asked (a follow-up:
    :func:`part_work`)."""

    records: tuple
    cached: bool
    install: Any
    keep_fresh: bool
    version: int = 0
    spill: str | None = None
    work: Any = None
    start: int = 0
    again: bool = False
    follow_ups: bool = False


def part_visit(visit: MemoVisit, index: int, start: int, stop: int, spill: str | None = None) -> PartVisit:
    """Part ``index`` (items ``[start, stop)``) of ``visit``."""
    first = index == 0
    records = tuple(record.for_part(visit.batch, first, start, stop) for record in visit.records)
    install = None
    if visit.install is not None:
        stats, warm = visit.install
        install = (stats if first else stats.scaled(0.0),
                   None if warm is None else (warm[0], rows_of(warm[1], start, stop)))
    return PartVisit(records, visit.cached or install is not None, install, visit.keep_fresh, visit.version, spill,
                     visit.work, start, follow_ups=visit.follow_ups)


def visit_part(store: dict, slot: tuple, model, params, batch, visit: PartVisit, merge_pairs,
               keep_loglik: bool = False, features=None, n_features: int = 0) -> tuple:
    """One part's visit (``slot``: its key in ``store``): ``(delta, fresh or None, work's answer or
    None)`` with ``delta`` the fresh statistics minus the cached ones replayed,
    carrying the fresh merge terms (``features``, ``n_features``: as
    :func:`~stickbreak.core.local_parts.local_summary`'s).

    The cache is that of the part's last visit before this one (``visit.version``): the store's if
    older, else (a retried visit, or a replaced worker) the spill file's. With ``visit.follow_ups``
    the part's local parameters are kept in ``store`` (one set per part index) for follow-up work,
    else the part's kept ones are dropped."""
    cached = visit.install
    if cached is None and visit.cached:
        kept = store.get(slot)
        cached = kept[1] if kept is not None and kept[0] < visit.version else read_spill(visit.spill, slot,
                                                                                         before=visit.version)
    old, warm = None, None
    if cached is not None:
        old, warm = cached
        b = slot[1]
        for record in visit.records:
            record = record.with_held(lambda lap: read_held(store, slot, lap, visit.spill), b)
            old = record.replay(old, b)
            warm = None if warm is None else record.replay_warm(warm, b)
        warm = warm[1] if warm is not None and np.array_equal(warm[0], params.uids) else None
    working = visit.work is not None
    answer = local_summary(model, params, batch, warm, merge_pairs, keep_loglik, features=features,
                           n_features=n_features, keep_own_local=working or visit.follow_ups)
    fresh = answer[0]
    store[slot] = (visit.version, (fresh, None if answer[1] is None else (np.asarray(params.uids), answer[1])))
    if visit.spill is not None:
        write_spill(visit.spill, slot, visit.version, store[slot][1])
    # held proposals no record of this visit replays, and older than its lap, are replayed or rejected
    needed = {lap for record in visit.records for lap in record.held_laps(slot[1])}
    release_held(store, slot, lambda lap: lap >= visit.version or lap in needed, visit.spill)
    new = fresh.without_merge_terms()
    delta = new if old is None else new - old.without_merge_terms()
    delta = delta.with_merge_terms(fresh.merge_pairs, fresh.merge_entropy, fresh.merge_fields)
    kept = {}
    if visit.follow_ups:
        store[_kept_slot(slot)] = (slot[1], visit.version, params, batch, answer[-1], kept)
    else:
        store.pop(_kept_slot(slot), None)
    work = None
    if working:
        work = _held(store, slot, visit.spill, visit.work.on_part(model, params, batch, answer[-1], visit.start,
                                                                  features, n_features, kept))
    return delta, fresh if visit.keep_fresh else None, work


def _kept_slot(slot: tuple) -> tuple:
    """Where a part's local parameters are kept for follow-up work: one set per placement and part."""
    return ("kept-local", slot[0], slot[2])


def part_work(store: dict, slot: tuple, model, params, part_data: Callable, visit: PartVisit, merge_pairs,
              keep_loglik: bool = False, features=None, n_features: int = 0):
    """``visit.work``'s answer on the local parameters that this visit of the part kept; if they are
    gone (a replaced worker), the visit is run again first, as a retried visit (the same cache,
    the same local parameters), or :data:`KEPT_LOST` is answered if ``params`` is None;
    ``part_data()`` gives the part's data, only read then."""
    kept = store.get(_kept_slot(slot))
    if kept is None or kept[:2] != (slot[1], visit.version):
        if params is None:  # asked without the parameters, which the visit needs
            return KEPT_LOST
        visit_part(store, slot, model, params, part_data(), replace(visit, again=False, work=None, follow_ups=True),
                   merge_pairs, keep_loglik, features, n_features)
        kept = store[_kept_slot(slot)]
    _, _, params, batch, local, state = kept
    return _held(store, slot, visit.spill, visit.work.on_part(model, params, batch, local, visit.start, features,
                                                              n_features, state))


def _held(store: dict, slot: tuple, spill: str | None, answer):
    """A work's answer, its :class:`Held` cache left here (:func:`keep_held`)."""
    if isinstance(answer, Held):
        keep_held(store, slot, answer.lap, answer.cache, spill)
        return answer.answer
    return answer


def _held_slot(slot: tuple) -> tuple:
    """Where a part's held proposals are kept (and spilled: a folder inside the placement's)."""
    return (f"{slot[0]}/held", slot[1], slot[2])


def keep_held(store: dict, slot: tuple, lap: int, cache, spill: str | None = None) -> None:
    """Keep a part's share of lap ``lap``'s proposal (written through to ``spill``)."""
    store.setdefault(_held_slot(slot), {})[lap] = cache
    if spill is not None:
        write_spill(spill, _held_slot(slot), lap, cache)


def release_held(store: dict, slot: tuple, keep: Callable[[int], bool], spill: str | None = None) -> None:
    """Drop the part's held proposals of the laps ``keep`` refuses, and their spill files (a
    part's visit releases those no record it replays names: replayed, or never accepted)."""
    held = store.get(_held_slot(slot), {})
    for lap in [lap for lap in held if not keep(lap)]:
        del held[lap]
    if spill is not None:
        for lap, path in _spill_files(spill, _held_slot(slot)).items():
            if not keep(lap):
                path.unlink(missing_ok=True)


def read_held(store: dict, slot: tuple, lap: int, spill: str | None = None):
    """A part's share of lap ``lap``'s held proposal (from ``spill`` if this process lost it);
    :class:`CacheLost` if it is gone."""
    held = store.get(_held_slot(slot), {})
    if lap in held:
        return held[lap]
    return read_spill(spill, _held_slot(slot), exact=lap)


def fetch_part(store: dict, slot: tuple, spill: str | None = None, held: int | None = None):
    """A part's cache ``(stats, (uids, warm) or None)`` as it is now (not replayed), or with
    ``held`` its share of that lap's held proposal."""
    if held is not None:
        return read_held(store, slot, held, spill)
    kept = store.get(slot)
    return kept[1] if kept is not None else read_spill(spill, slot)


def joined_caches(parts: list):
    """A batch's cache from its parts' (statistics added in part order, warm starts stacked)."""
    stats = added(parts)
    warms = [p[1] for p in parts]
    if any(w is None for w in warms) or any(not np.array_equal(w[0], warms[0][0]) for w in warms):
        return stats, None
    return stats, (warms[0][0], joined_rows([w[1] for w in warms]))


def _spill_files(spill: str, slot: tuple) -> dict[int, Path]:
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
    files = _spill_files(spill, slot)
    older = sorted(v for v in files if v < version)
    for v in older[:-1]:
        files[v].unlink(missing_ok=True)


def read_spill(spill: str | None, slot: tuple, before: int | None = None, exact: int | None = None):
    """A part's newest cache written by :func:`write_spill` (of a version below ``before``, or
    version ``exact``, if given); :class:`CacheLost` if there is none."""
    files = {} if spill is None else _spill_files(spill, slot)
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


def drop_caches(store: dict, key: str) -> None:
    """Forget placement ``key``'s caches, kept local parameters and held proposals in ``store``."""
    for slot in [slot for slot in store if _placement_of(slot) == key]:
        del store[slot]


def _placement_of(slot: tuple) -> str:
    """The placement key of a slot of :func:`visit_part` (``(key, batch, part)``), :func:`_kept_slot`
    or :func:`_held_slot`."""
    return slot[1] if slot[0] == "kept-local" else str(slot[0]).removesuffix("/held")


def drop_spill(spill: str | None, key: str) -> None:
    """Remove placement ``key``'s spill files (a fit's end)."""
    if spill is None:
        return
    shutil.rmtree(Path(spill) / str(key), ignore_errors=True)
