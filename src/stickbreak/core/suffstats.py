"""Additive sufficient statistics over components with stable uids (Hughes 2016, §2.4 and §4).

A :class:`SuffStats` is everything the global step and the exact ELBO need from the data once the
local step has run; its size does not depend on the number of items. Statistics of disjoint data
subsets add up: ``stats(A ∪ B) == stats(A) + stats(B)``. That property is what batch sums, memoized
VI (subtract the old batch, add the new one) and parallel executors rely on.

Each component carries a stable integer uid, so that cached statistics, merge pairs and move
records stay valid when components are inserted, removed, merged or reordered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

_NO_PAIRS = np.zeros((0, 2), dtype=np.int64)


def _as_uids(uids) -> np.ndarray:
    out = np.asarray(uids, dtype=np.int64).reshape(-1)
    if len(np.unique(out)) != len(out):
        raise ValueError(f"component uids must be unique, got {out.tolist()}")
    return out


def fold(value: np.ndarray, a: int, b: int, square: bool = False) -> np.ndarray:
    """A copy of ``value`` with component ``b`` added into component ``a`` (both axes if ``square``);
    ``b`` stays in place (the merge's additive part, Hughes 2016 Eq. 4.1 and 6.49)."""
    value = value.copy()
    value[a] += value[b]
    if square:
        value[:, a] += value[:, b]
    return value


@dataclass(frozen=True, eq=False)
class SuffStats:
    """Named arrays over components, all additive.

    Attributes
    ----------
    uids : (n_components,) int64
        Stable id of each component.
    fields : mapping name -> array with leading axis n_components
        Statistics used by the global step; always holds ``"N"``, the expected count per component.
    elbo_terms : mapping name -> (n_components,) array
        Cached per-component ELBO terms, e.g. ``"entropy"`` = ``-sum_n r_nk log r_nk``.
    scalars : mapping name -> float
        Additive quantities not tied to a component, e.g. ``"n_items"`` and ``"log_base"``
        (the data's base-measure term ``sum_n log h(x_n)``).
    merge_pairs : (n_pairs, 2) int64
        Uid pairs whose merged entropy was gathered during the local step.
    merge_entropy : (n_pairs,) float
        ``-sum_n (r_na + r_nb) log(r_na + r_nb)`` for each pair.
    merge_fields : mapping name -> (n_pairs,) array
        The merged value of fields that do not simply add up under a merge (topic models: the
        document terms ``log_pi`` and ``doc_gamma``, non-linear in the document counts), per pair.
    square : tuple of field names
        Fields indexed by components on their first *two* axes (hidden Markov models: the
        transition counts ``M_jk``). Reordering, selecting, padding and merging act on both axes.
    """

    uids: np.ndarray
    fields: Mapping[str, np.ndarray]
    elbo_terms: Mapping[str, np.ndarray] = field(default_factory=dict)
    scalars: Mapping[str, float] = field(default_factory=dict)
    merge_pairs: np.ndarray = field(default_factory=lambda: _NO_PAIRS)
    merge_entropy: np.ndarray = field(default_factory=lambda: np.zeros(0))
    merge_fields: Mapping[str, np.ndarray] = field(default_factory=dict)
    square: tuple = ()

    def __post_init__(self):
        uids = _as_uids(self.uids)
        object.__setattr__(self, "uids", uids)
        object.__setattr__(self, "square", tuple(self.square))
        if "N" not in self.fields:
            raise ValueError("SuffStats.fields must contain the counts 'N'")
        for name in self.square:
            if name not in self.fields or np.shape(self.fields[name])[:2] != (len(uids), len(uids)):
                raise ValueError(f"square statistic {name!r} must be a field of shape ({len(uids)}, {len(uids)}, ...)")
        for group in (self.fields, self.elbo_terms):
            for name, value in group.items():
                if np.shape(value)[:1] != (len(uids),):
                    raise ValueError(
                        f"statistic {name!r} has shape {np.shape(value)}, expected leading axis {len(uids)}"
                    )
        pairs = np.asarray(self.merge_pairs, dtype=np.int64).reshape(-1, 2)
        object.__setattr__(self, "merge_pairs", pairs)
        object.__setattr__(self, "merge_entropy", np.asarray(self.merge_entropy, dtype=float).reshape(-1))
        if len(pairs) != len(self.merge_entropy):
            raise ValueError("merge_pairs and merge_entropy must have the same length")
        merge_fields = {k: np.asarray(v, dtype=float).reshape(-1) for k, v in self.merge_fields.items()}
        object.__setattr__(self, "merge_fields", merge_fields)
        for name, value in merge_fields.items():
            if name not in self.fields or len(value) != len(pairs):
                raise ValueError(f"merge field {name!r} must name a field and have one value per merge pair")

    # ------------------------------------------------------------------ basic views
    @property
    def n_components(self) -> int:
        return len(self.uids)

    @property
    def counts(self) -> np.ndarray:
        """Expected number of items per component, ``N_k``."""
        return self.fields["N"]

    def index_of(self, uid: int) -> int:
        hits = np.flatnonzero(self.uids == uid)
        if len(hits) == 0:
            raise KeyError(f"no component with uid {uid}; uids are {self.uids.tolist()}")
        return int(hits[0])

    def indices_of(self, uids) -> np.ndarray:
        """Positions of ``uids`` (an array) among the components; KeyError names a missing one."""
        uids = np.asarray(uids, dtype=np.int64).reshape(-1)
        sorter = np.argsort(self.uids, kind="stable")
        found = sorter[np.minimum(np.searchsorted(self.uids, uids, sorter=sorter),
                                  len(sorter) - 1)] if len(sorter) else \
            np.zeros(len(uids), dtype=np.int64)
        missing = np.flatnonzero(self.uids[found] != uids) if len(sorter) else np.arange(len(uids))
        if len(missing):
            self.index_of(int(uids[missing[0]]))  # raises, naming the uid
        return found

    def _replace(self, **changes) -> "SuffStats":
        values: dict = dict(
            uids=self.uids,
            fields=self.fields,
            elbo_terms=self.elbo_terms,
            scalars=self.scalars,
            merge_pairs=self.merge_pairs,
            merge_entropy=self.merge_entropy,
            merge_fields=self.merge_fields,
            square=self.square,
        )
        values.update(changes)
        return SuffStats(**values)

    def _map_components(self, fn, **changes) -> "SuffStats":
        """Apply ``fn`` (a re-indexing of the component axis) to every per-component array, on both
        component axes of the square fields, with other ``changes``."""
        def both_axes(v):
            return np.swapaxes(fn(np.swapaxes(fn(v), 0, 1)), 0, 1)

        return self._replace(
            fields={k: both_axes(v) if k in self.square else fn(v) for k, v in self.fields.items()},
            elbo_terms={k: fn(v) for k, v in self.elbo_terms.items()},
            **changes,
        )

    # ------------------------------------------------------------------ arithmetic
    def _check_aligned(self, other: "SuffStats") -> None:
        if not np.array_equal(self.uids, other.uids):
            raise ValueError(
                f"cannot combine statistics over different components: {self.uids.tolist()} vs {other.uids.tolist()}"
            )
        if self.fields.keys() != other.fields.keys() or self.elbo_terms.keys() != other.elbo_terms.keys():
            raise ValueError("cannot combine statistics with different named fields")
        if self.scalars.keys() != other.scalars.keys() or self.square != other.square:
            raise ValueError("cannot combine statistics with different scalars or square fields")
        if not np.array_equal(self.merge_pairs,
                              other.merge_pairs) or self.merge_fields.keys() != other.merge_fields.keys():
            raise ValueError("cannot combine statistics gathered for different merge pairs")

    def _combine(self, other: "SuffStats", sign: float) -> "SuffStats":
        self._check_aligned(other)
        return self._replace(
            fields={k: v + sign * other.fields[k] for k, v in self.fields.items()},
            elbo_terms={k: v + sign * other.elbo_terms[k] for k, v in self.elbo_terms.items()},
            scalars={k: v + sign * other.scalars[k] for k, v in self.scalars.items()},
            merge_entropy=self.merge_entropy + sign * other.merge_entropy,
            merge_fields={k: v + sign * other.merge_fields[k] for k, v in self.merge_fields.items()},
        )

    def __add__(self, other: "SuffStats") -> "SuffStats":
        return self._combine(other, 1.0)

    def __sub__(self, other: "SuffStats") -> "SuffStats":
        return self._combine(other, -1.0)

    def __radd__(self, other):
        # lets ``sum(list_of_stats)`` work: sum starts from the integer 0
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    def scaled(self, factor: float) -> "SuffStats":
        """All statistics multiplied by ``factor`` (e.g. the N / N_batch amplification of SVI)."""
        return self._replace(
            fields={k: v * factor for k, v in self.fields.items()},
            elbo_terms={k: v * factor for k, v in self.elbo_terms.items()},
            scalars={k: v * factor for k, v in self.scalars.items()},
            merge_entropy=self.merge_entropy * factor,
            merge_fields={k: v * factor for k, v in self.merge_fields.items()},
        )

    # ------------------------------------------------------------------ component surgery
    def insert_empty(self, new_uids) -> "SuffStats":
        """Append zero-statistics components (exact under nested truncation, Hughes 2016 Eq. 3.50)."""
        new_uids = np.asarray(new_uids, dtype=np.int64).reshape(-1)
        pad = len(new_uids)

        def grow(v):
            return np.concatenate([v, np.zeros((pad,) + v.shape[1:], dtype=v.dtype)])

        return self._map_components(grow, uids=np.concatenate([self.uids, new_uids]))

    def select(self, uids) -> "SuffStats":
        """Keep only (and reorder to) the given uids; merge pairs touching dropped ones are discarded."""
        uids = _as_uids(uids)
        order = self.indices_of(uids)
        keep = np.isin(self.merge_pairs, uids).all(axis=1)
        return self._map_components(
            lambda v: v[order], uids=uids, merge_pairs=self.merge_pairs[keep], merge_entropy=self.merge_entropy[keep],
            merge_fields={k: v[keep] for k, v in self.merge_fields.items()},
        )

    def remove(self, uid: int) -> "SuffStats":
        self.index_of(uid)  # raises for an unknown uid
        return self.select(self.uids[self.uids != uid])

    def reorder(self, uids) -> "SuffStats":
        uids = _as_uids(uids)
        if set(uids.tolist()) != set(self.uids.tolist()):
            raise ValueError("reorder needs a permutation of the existing uids")
        return self.select(uids)

    def merge(self, uid_a: int, uid_b: int, bound_against=()) -> "SuffStats":
        """Merge component ``uid_b`` into ``uid_a`` (Hughes 2016, Eq. 4.1-4.4; Eq. 6.49 for chains).

        Fields add up (square fields along both axes), except those in ``merge_fields``, which take
        the pair's cached value. The entropy of the merged component is the cached merge term of
        the pair, which must have been gathered during the local step; every other pair that
        involves ``uid_a`` or ``uid_b`` is dropped because its cached terms are now stale.

        Chains (square fields present): a pair's cached entropy was gathered while the components
        in ``bound_against`` (merged earlier in the same lap) were still apart. Merging both
        pairs lowers the entropy further, by at most ``log 2`` times the transition mass between
        them (a two-way split has entropy at most ``log 2``), which is subtracted: the ELBO stays a
        lower bound, exact again after the next visit (the thesis drops such terms, §6.5).
        """
        a, b = self.index_of(uid_a), self.index_of(uid_b)
        pair = self._pair_index(uid_a, uid_b) if (self.merge_fields or "entropy" in self.elbo_terms) else None
        fields = {}
        for name, value in self.fields.items():
            if name in self.merge_fields:
                value = value.copy()
                value[a] = self.merge_fields[name][pair]
            else:
                value = fold(value, a, b, name in self.square)
            fields[name] = value
        elbo_terms = {name: value.copy() for name, value in self.elbo_terms.items()}
        if "entropy" in elbo_terms:
            elbo_terms["entropy"][a] = self.merge_entropy[pair]
            if self.square and len(bound_against):
                flow = fields[self.square[0]]
                others = [self.index_of(u) for u in bound_against]
                elbo_terms["entropy"][a] -= np.log(2.0) * float(flow[a, others].sum() + flow[others, a].sum())
        touched = np.isin(self.merge_pairs, [uid_a, uid_b]).any(axis=1)
        merged = self._replace(
            fields=fields,
            elbo_terms=elbo_terms,
            merge_pairs=self.merge_pairs[~touched],
            merge_entropy=self.merge_entropy[~touched],
            merge_fields={k: v[~touched] for k, v in self.merge_fields.items()},
        )
        return merged.remove(uid_b)

    def _pair_index(self, uid_a: int, uid_b: int) -> int:
        hit = ((self.merge_pairs[:, 0] == uid_a) & (self.merge_pairs[:, 1] == uid_b)) | (
            (self.merge_pairs[:, 0] == uid_b) & (self.merge_pairs[:, 1] == uid_a)
        )
        if not hit.any():
            raise KeyError(f"no cached merge terms for the pair ({uid_a}, {uid_b}); plan the pair before the lap")
        return int(np.flatnonzero(hit)[0])

    def pair_entropy(self, uid_a: int, uid_b: int) -> float:
        return float(self.merge_entropy[self._pair_index(uid_a, uid_b)])

    def zero_components(self, uids) -> "SuffStats":
        """The same components, with every statistic of ``uids`` set to zero."""
        rows = np.array([self.index_of(u) for u in np.atleast_1d(uids)], dtype=np.int64)

        def zeroed(v):
            v = v.copy()
            v[rows] = 0.0
            return v

        return self._map_components(zeroed)

    def _no_square(self, what: str) -> None:
        if self.square:
            raise NotImplementedError(f"{what} is not defined for statistics with square fields {list(self.square)}")

    def append(self, other: "SuffStats") -> "SuffStats":
        """Components of ``other`` appended after ours; scalars and merge terms stay ours."""
        self._no_square("append")
        if np.isin(other.uids, self.uids).any():
            raise ValueError(f"cannot append components with uids already present: {other.uids.tolist()}")
        if self.fields.keys() != other.fields.keys() or self.elbo_terms.keys() != other.elbo_terms.keys():
            raise ValueError("cannot append statistics with different named fields")
        return self._replace(
            uids=np.concatenate([self.uids, other.uids]),
            fields={k: np.concatenate([v, other.fields[k]]) for k, v in self.fields.items()},
            elbo_terms={k: np.concatenate([v, other.elbo_terms[k]]) for k, v in self.elbo_terms.items()},
        )

    def with_components(self, other: "SuffStats") -> "SuffStats":
        """``other``'s components written in: rows of uids we have are overwritten, new uids appended.
        Our scalars and merge terms are kept (a move that re-splits some components' mass)."""
        self._no_square("with_components")
        if self.fields.keys() != other.fields.keys() or self.elbo_terms.keys() != other.elbo_terms.keys():
            raise ValueError("cannot combine statistics with different named fields")
        present = np.isin(other.uids, self.uids)
        rows = np.array([self.index_of(u) for u in other.uids[present]], dtype=np.int64)

        def write(v, w):
            v = v.copy()
            v[rows] = w[present]
            return np.concatenate([v, w[~present]])

        return self._replace(
            uids=np.concatenate([self.uids, other.uids[~present]]),
            fields={k: write(v, other.fields[k]) for k, v in self.fields.items()},
            elbo_terms={k: write(v, other.elbo_terms[k]) for k, v in self.elbo_terms.items()},
        )

    def with_merge_terms(self, pairs, entropy, fields=None) -> "SuffStats":
        return self._replace(merge_pairs=pairs, merge_entropy=entropy, merge_fields=dict(fields or {}))

    def clipped(self, relative_tolerance: float = 1e-6) -> "SuffStats":
        """Counts and entropies clipped at zero after subtract-old/add-new round-off (Hughes 2016, §8).

        Raises if a violation is larger than round-off could explain, which signals a bookkeeping bug.
        """
        scale = 1.0 + float(np.abs(self.counts).sum())
        # chains: a state's entropy carries its merges' changes and the lap's log 2 bounds (see merge),
        # so it may be negative until the batch is next visited
        entropy = self.elbo_terms.get("entropy", np.zeros(0))
        entropy_worst = 0.0 if self.square else float(entropy.min(initial=0.0))
        worst = min([float(self.counts.min(initial=0.0)), entropy_worst]
                    + [float(self.fields[k].min(initial=0.0)) for k in self.square])
        if worst < -relative_tolerance * scale:
            raise AssertionError(f"statistics went negative by {worst:.3g}; memoized bookkeeping is inconsistent")
        if worst >= 0.0:
            return self
        fields = dict(self.fields, N=np.maximum(self.counts, 0.0))
        fields.update({k: np.maximum(self.fields[k], 0.0) for k in self.square})
        terms = dict(self.elbo_terms)
        if "entropy" in terms and not self.square:
            terms["entropy"] = np.maximum(terms["entropy"], 0.0)
        return self._replace(fields=fields, elbo_terms=terms)

    def without_merge_terms(self) -> "SuffStats":
        return self._replace(merge_pairs=_NO_PAIRS, merge_entropy=np.zeros(0), merge_fields={})

    def without_fields(self, names) -> "SuffStats":
        """The same statistics without the fields ``names`` (no copy): what a move that reads those
        fields at a few rows only needs to carry through a merge (``"N"`` always stays)."""
        if "N" in names:
            raise ValueError("the counts 'N' cannot be dropped")
        return self._replace(fields={k: v for k, v in self.fields.items() if k not in names},
                             merge_fields={k: v for k, v in self.merge_fields.items() if k not in names},
                             square=tuple(k for k in self.square if k not in names))

    def to_arrays(self, prefix: str = "") -> dict[str, np.ndarray]:
        """Flat name -> array mapping, for saving (inverse: :meth:`from_arrays`)."""
        out = {f"{prefix}uids": self.uids, f"{prefix}merge_pairs": self.merge_pairs,
               f"{prefix}merge_entropy": self.merge_entropy}
        out.update({f"{prefix}field.{k}": v for k, v in self.fields.items()})
        out.update({f"{prefix}mergefield.{k}": v for k, v in self.merge_fields.items()})
        out.update({f"{prefix}elbo.{k}": v for k, v in self.elbo_terms.items()})
        out.update({f"{prefix}scalar.{k}": np.asarray(v) for k, v in self.scalars.items()})
        if self.square:
            out[f"{prefix}square"] = np.array(self.square, dtype=str)
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], prefix: str = "") -> "SuffStats":
        def group(tag):
            start = f"{prefix}{tag}."
            return {k[len(start):]: np.asarray(v) for k, v in arrays.items() if k.startswith(start)}

        return cls(
            uids=arrays[f"{prefix}uids"],
            fields=group("field"),
            elbo_terms=group("elbo"),
            scalars={k: float(v) for k, v in group("scalar").items()},
            merge_pairs=arrays[f"{prefix}merge_pairs"],
            merge_entropy=arrays[f"{prefix}merge_entropy"],
            merge_fields=group("mergefield"),
            square=tuple(str(v) for v in arrays.get(f"{prefix}square", ())),
        )
