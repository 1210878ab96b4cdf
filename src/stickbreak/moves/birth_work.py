"""A birth's per-batch pieces, run where the batch lives (Hughes 2016, §4.2; the distributed
births of §8.1's future work).

At a memoized visit the learner asks each part of the batch, on the local parameters of its local
step and without sending them anywhere (:class:`~.part_work.LocalWork`):

* :class:`BirthWork` ``owned``: how many items each component owns there (share above the
  threshold) and the sums behind the b-scores, from which the learner picks targets;
* :class:`Collect`: a collecting birth's candidate items, a uniform sample without replacement of
  at most ``room`` of the target's items: those of lowest random key, a hash of the row
  (:func:`row_keys`), so the sample is the same however the batch is split among workers;
* :class:`Expand`: a created birth's expansion (:meth:`~stickbreak.core.protocols.TrackedBirths.birth_expansion`).

Every answer adds up over parts (or, for the pool, merges by key), so the batch's answer is the same
on every executor: the owned counts and the pool exactly, the expansion up to round-off. Parts kept
on their own features (a :class:`~stickbreak.core.protocols.FeatureSliced` model on a worker) are
sent the newborns' parameters on those features and map what they pool and expand back to all
features.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from ..core import sparse_resp
from ..data import concat_items


@dataclass(frozen=True)
class Collect:
    """Pool at most ``room`` of the items whose share of the component at ``column`` exceeds
    ``threshold``; ``seed`` draws the items' keys."""

    column: int
    room: int
    threshold: float
    seed: int


@dataclass(frozen=True, eq=False)
class Expand:
    """Split the mass of the component at ``column`` over [target, newborns] (``centers``,
    ``log_weights``, ``uids``)."""

    column: int
    centers: Any
    log_weights: np.ndarray
    uids: np.ndarray


@dataclass(frozen=True, eq=False)
class Pooled:
    """A batch's collected items (None if none) and how many."""

    items: Any
    size: int


@dataclass(frozen=True, eq=False)
class BatchBirths:
    """A batch's answer: ``owned`` items per component and ``scores`` (None: not asked; scores also
    None when the model has none), and each ask's result (:class:`Pooled` or expansion statistics)."""

    owned: np.ndarray | None
    scores: np.ndarray | None
    results: tuple


def row_keys(seed: int, items: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Uniform keys in [0, 1) of the rows (item of the batch, position within the item), a hash
    (splitmix64) of the row and ``seed``: the same values whatever part of the batch asks."""
    x = (np.asarray(items).astype(np.uint64) << np.uint64(32)) ^ np.asarray(positions).astype(np.uint64)
    with np.errstate(over="ignore"):
        z = (x ^ np.uint64(seed)) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


@dataclass(frozen=True, eq=False)
class BirthWork:
    """The birth work of one visit: ``owned`` (for choosing targets) and ``asks``, one per proposal."""

    owned: bool = False
    threshold: float = 0.0
    asks: tuple = ()
    on_part_features: bool = False  # the Expand asks' centers are already cut to the part's features

    def on_features(self, model, features) -> "BirthWork":
        """The newborns' parameters cut to ``features`` before they travel."""
        asks = tuple(replace(a, centers=model.centers_on_features(a.centers, features)) if isinstance(a, Expand) else a
                     for a in self.asks)
        return replace(self, asks=asks, on_part_features=True)

    def travelling(self) -> "BirthWork":
        return self

    def on_part(self, model, params, batch, local, start: int, features=None, n_features: int = 0,
                kept: dict | None = None):
        """``(owned counts, (score sums, mass) or None, one result per ask)`` of this part."""
        owned = scores = None
        if self.owned:
            share = model.birth_ownership(local)
            owned = np.asarray((share > self.threshold).sum(axis=0)).ravel()
            score = model.birth_scores(local)
            mass = sparse_resp.column_sums(share)
            scores = None if score is None else (score * mass, mass)
        results = tuple(self._collect(model, params, batch, local, start, ask, features, n_features)
                        if isinstance(ask, Collect)
                        else self._expand(model, params, batch, local, ask, features, n_features, self.on_part_features)
                        for ask in self.asks)
        return owned, scores, results

    @staticmethod
    def _collect(model, params, batch, local, start, ask: Collect, features, n_features):
        """``(keys, pooled data)`` of this part's ``room`` lowest-keyed members (in row order)."""
        members = np.flatnonzero(sparse_resp.column(model.birth_ownership(local), ask.column) > ask.threshold)
        items_of_rows = model.birth_row_items(batch)
        row_items = items_of_rows[members]
        first_row = np.searchsorted(items_of_rows, row_items)
        keys = row_keys(ask.seed, start + row_items, members - first_row)
        if len(members) > ask.room:
            chosen = np.sort(np.argsort(keys, kind="stable")[:ask.room])
            members, keys = members[chosen], keys[chosen]
        if not len(members):
            return keys, None
        items = model.birth_pool_items(batch, local, params, ask.column, members)
        if features is not None:
            items = model.items_to_all_features(items, features, n_features)
        return keys, items

    @staticmethod
    def _expand(model, params, batch, local, ask: Expand, features, n_features, cut: bool):
        centers = ask.centers if features is None or cut else model.centers_on_features(ask.centers, features)
        stats = model.birth_expansion(batch, local, params, ask.column, centers, ask.log_weights, ask.uids)
        return stats if features is None else model.expansion_to_all_features(stats, features, n_features)

    def joined(self, answers: Sequence) -> BatchBirths:
        """The batch's answer: counts and sums added in part order, pools merged by key."""
        owned = scores = None
        if self.owned:
            owned = sum(a[0] for a in answers[1:]) + answers[0][0]
            if answers[0][1] is not None:
                mass = sum(a[1][1] for a in answers[1:]) + answers[0][1][1]
                scores = (sum(a[1][0] for a in answers[1:]) + answers[0][1][0]) / np.maximum(mass, 1e-300)
        results = []
        for i, ask in enumerate(self.asks):
            parts = [a[2][i] for a in answers]
            results.append(_pooled(parts, ask.room) if isinstance(ask, Collect) else sum(parts[1:], parts[0]))
        return BatchBirths(owned, scores, tuple(results))


def _pooled(parts: Sequence, room: int) -> Pooled:
    """The ``room`` lowest-keyed of the parts' candidates ``(keys, items)``, in row order."""
    keys = np.concatenate([p[0] for p in parts])
    if not len(keys):
        return Pooled(None, 0)
    keep = np.ones(len(keys), dtype=bool)
    if len(keys) > room:
        keep[:] = False
        keep[np.argsort(keys, kind="stable")[:room]] = True
    chosen, offset = [], 0
    for part_keys, items in parts:
        mine = np.flatnonzero(keep[offset:offset + len(part_keys)])
        offset += len(part_keys)
        if len(mine):
            chosen.append(items if len(mine) == len(part_keys) else items.subset(mine))
    return Pooled(concat_items(chosen) if len(chosen) > 1 else chosen[0], int(keep.sum()))


def on_local(model, params, batch, local, ask):
    """One ask answered here, on a whole batch's ``local`` (serial use and tests)."""
    work = BirthWork(asks=(ask,))
    return work.joined([work.on_part(model, params, batch, local, 0)]).results[0]
