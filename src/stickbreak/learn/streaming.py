"""Streaming variational Bayes for mixtures that grows K: each chunk of a stream is fitted once,
against the statistics of everything seen before, which are held fixed (the streaming update of
Broderick et al. 2013 in the additive-statistics form of Hughes 2016, §2.4), and births split
components on the chunk (Hughes 2016, §4.2), each accepted only if the exact ELBO rises.

The ``q`` it optimises: the earlier items keep the responsibilities their own chunk gave them;
their statistics ``S_seen`` (K rows) are all that is kept of them, so memory is bounded by the
model, not the stream. On a chunk:

1. *Refine.* Coordinate ascent on ``L(S_seen + S_chunk)``: the chunk's local step, then the global
   step on the sum; the ELBO never decreases.
2. *Births.* For each component the chunk's items fit worst (lowest b-score, §4.2), its chunk items
   are pooled and split into newborns (:func:`stickbreak.moves.birth.start`, the memoized births'
   own proposals, the target keeping its share). The candidate is ``S_seen`` (nothing in the
   newborns) plus the chunk's statistics with the target's mass re-split over [target, newborns]
   (Eq. 4.22 on the chunk): the statistics of a valid ``q``, so its ELBO is exact.
3. *Merges of newborns.* A merge of a newborn into any component is exact too: the earlier items
   hold none of a newborn's mass, so their merged entropy is the other component's own, and the
   chunk's is gathered from its responsibilities (Eq. 4.3). Newborns that duplicate a component
   (or each other) are merged back this way.
4. *Births across the chunk* (models declaring :class:`~stickbreak.core.protocols.ResampledItems`:
   the DP mixture of multinomials). Documents of a kind first seen in this chunk are spread over
   many components, each of which they do not dominate, so splitting one target at a time rarely
   gathers them (a stream of StackOverflow titles kept about half the topics of a batch fit). The
   chunk's documents are dealt among new clusters and the model's collapsed Gibbs sampler moves
   each into a component (which also holds the counts of ``S_seen``) or a new cluster; the
   partition, refined and its newborns merged back as in 3, is accepted if the exact ELBO rises.

Components learned from earlier chunks are never merged or deleted here (their items are gone, so
those moves cannot be judged exactly); :meth:`~stickbreak.DPMixture.fit` on a sample does that.

*A window of recent items* (:func:`fit_with_window`). A birth judged on one small chunk gains only
what the chunk's items gain, and a new cluster rarely pays its cost on a few hundred items; so the
last ``WINDOW_ITEMS`` items are kept with the statistics they hold in ``S_seen``. Each chunk is then
fitted together with the window, against ``S_seen - S_window``: the window's items are re-assigned
like the chunk's (their old responsibilities leave ``S_seen`` exactly as they entered it), so a
birth is judged on up to ``WINDOW_ITEMS`` + the chunk's items, and the ELBO stays exact. Memory is
bounded by the window, not by the stream.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.protocols import ItemResponsibilities, Movable, ResampledItems, declares, require, total_elbo
from ..core.suffstats import SuffStats
from ..data import BagOfWords, DenseData, concat_items
from ..moves import birth
from ..moves.merge import try_merges
from .memoized import EMPTY_MASS

#: The most recent items refitted with each chunk (:func:`fit_with_window`).
WINDOW_ITEMS = 2000
#: A birth in a stream is kept only if, after its newborns were merged back where that helps, one of
#: them holds at least this many expected items of the chunk (a cluster, not a round-off re-split).
MIN_NEWBORN_ITEMS = 1.0


@dataclass(frozen=True)
class ChunkFit:
    """A chunk's result: the global parameters, the statistics of everything seen (the chunk's
    included), the chunk's local parameters over the components ``local_uids`` (before the empty
    ones were dropped and the rest sorted), the exact ELBO and the moves tried and accepted."""

    params: Any
    stats: SuffStats
    local: Any
    local_uids: np.ndarray
    terms: dict
    moves: dict


@dataclass(frozen=True)
class _Current:
    params: Any
    local: Any
    chunk: SuffStats
    terms: dict

    @property
    def elbo(self) -> float:
        return total_elbo(self.terms)


@dataclass(frozen=True)
class Window:
    """The most recent items of a stream and the statistics their responsibilities hold in the
    statistics seen so far (over the same components, in the same order)."""

    items: Any
    stats: SuffStats


def window_arrays(window: Window | None) -> dict[str, np.ndarray]:
    """The window as named arrays for a saved model (none when there is no window): its statistics
    and its items (dense rows, or word counts as CSR arrays)."""
    if window is None:
        return {}
    items = window.items
    if isinstance(items, BagOfWords):
        counts = items.counts
        rows = {"window.counts.data": counts.data, "window.counts.indices": counts.indices,
                "window.counts.indptr": counts.indptr, "window.counts.shape": np.array(counts.shape)}
    else:
        rows = {"window.X": np.asarray(items.X)}
    return {**rows, **window.stats.to_arrays("window.stats.")}


def window_from_arrays(arrays) -> Window | None:
    """The window kept by :func:`window_arrays`, or None."""
    if "window.X" in arrays:
        items: Any = DenseData(np.asarray(arrays["window.X"], dtype=float))
    elif "window.counts.data" in arrays:
        items = BagOfWords(sp.csr_matrix((arrays["window.counts.data"], arrays["window.counts.indices"],
                                          arrays["window.counts.indptr"]), shape=tuple(arrays["window.counts.shape"])))
    else:
        return None
    return Window(items, SuffStats.from_arrays(arrays, "window.stats."))


def fit_with_window(model: Any, params, seen: SuffStats, window: Window | None, chunk, moves,
                    rng: np.random.Generator, tol: float = 1e-6, max_steps: int = 50,
                    size: int = WINDOW_ITEMS) -> tuple[ChunkFit, Window | None, np.ndarray]:
    """:func:`fit_chunk` of the window's items and the chunk together, against ``seen - window.stats``
    (module docstring). Returns the fit, the next window (the last ``size`` items of both, with the
    statistics of their new responsibilities; None for ``size=0``) and the rows of the fit's local parameters that are
    the chunk's. ``model``: :class:`~stickbreak.core.protocols.Movable` with per-item
    responsibilities (:class:`~stickbreak.core.protocols.ItemResponsibilities`: a mixture)."""
    require(model, ItemResponsibilities, "a stream's window of recent items")
    batch, rest = chunk, seen
    if window is not None:
        batch = concat_items([window.items, chunk])
        rest = (seen.without_merge_terms() - window.stats).clipped()
    fitted = fit_chunk(model, params, rest, batch, moves, rng, tol=tol, max_steps=max_steps)
    n_items = model.n_items(batch)
    rows = np.arange(n_items - model.n_items(chunk), n_items)
    if size == 0:
        return fitted, None, rows
    recent = np.arange(max(0, n_items - size), n_items)
    stats = model.summarize_resp(batch.subset(recent), fitted.local.resp[recent], fitted.local_uids)
    kept = stats.insert_empty(np.setdiff1d(fitted.stats.uids, stats.uids)).select(fitted.stats.uids)
    return fitted, Window(batch.subset(recent), kept), rows


def refine(model, params, seen: SuffStats, chunk, tol: float, max_steps: int) -> _Current:
    """Coordinate ascent on the chunk, the earlier items' statistics ``seen`` fixed, until the ELBO
    gains less than ``tol`` per chunk item (at most ``max_steps`` local-global rounds)."""
    best = -np.inf
    for _ in range(max_steps):
        local = model.local_step(params, chunk, keep_loglik=True)
        chunk_stats = model.summarize(chunk, local, params.uids)
        params, terms = model.score(seen + chunk_stats)
        current = _Current(params, local, chunk_stats, terms)
        if current.elbo - best <= tol * max(model.n_items(chunk), 1):
            break
        best = current.elbo
    return current


def fit_chunk(model: Movable, params, seen: SuffStats, chunk, moves, rng: np.random.Generator, tol: float = 1e-6,
              max_steps: int = 50) -> ChunkFit:
    """One chunk of the stream (module docstring); ``seen``: the statistics of every earlier item,
    over ``params``' components in their order; ``moves``: a :class:`~stickbreak.config.MovesConfig`
    (births run when it holds ``"birth"``, with its ``birth_*`` settings)."""
    seen = seen.without_merge_terms()
    if not np.array_equal(seen.uids, params.uids):
        raise ValueError("the statistics seen so far must be over the parameters' components, in their order")
    current = refine(model, params, seen, chunk, tol, max_steps)
    counts = {kind: {"tried": 0, "accepted": 0} for kind in ("birth", "merge")}
    if "birth" in moves.moves:
        require(model, Movable, "births in a stream")
        config = replace(moves, birth_keep_target=True)
        targets, tried = _targets(model, current, config), set()
        while targets:
            target = targets.pop(0)
            tried.add(target)
            if target not in current.params.uids:
                continue
            first_new = int(current.params.uids.max()) + 1
            new_uids = np.arange(first_new, first_new + config.birth_max_new)
            proposal = _split(model, current, chunk, int(target), new_uids, config, rng)
            counts["birth"]["tried"] += 1
            if proposal is None:
                continue
            seen_padded = seen.insert_empty(proposal.born)
            grown = _judged(model, current, seen_padded, birth.candidate(current.chunk, proposal), chunk,
                            proposal.born, counts, tol, max_steps)
            if grown is not None:
                seen, current = grown
                targets = [uid for uid in _targets(model, current, config) if uid not in tried]  # newborns too
        seen, current = _resampled(model, current, seen, chunk, counts, rng, tol, max_steps)
    stats = seen + current.chunk
    keep = _without_trailing_empties(stats)
    if len(keep) < stats.n_components:
        stats = stats.select(keep)
    stats, params, terms, _ = birth.best_order(model, stats)
    return ChunkFit(params, stats, current.local, current.chunk.uids, terms, counts)


def _judged(model: Movable, current: _Current, seen: SuffStats, chunk_stats: SuffStats, chunk, born, counts: dict,
            tol: float, max_steps: int, min_newborn: float = MIN_NEWBORN_ITEMS) -> tuple[SuffStats, _Current] | None:
    """A proposal that gives the chunk the statistics ``chunk_stats`` over the components of ``seen``
    (which holds the newborns ``born``, empty), refined, its newborns merged back where that helps
    (:func:`_merge_newborns`) and accepted (``(seen, candidate)``, counted as a birth in ``counts``)
    only if the exact ELBO rises and a newborn still holds ``min_newborn`` items of the chunk (none
    needed for ``min_newborn=0``)."""
    params, _ = model.score(seen + chunk_stats)
    candidate = refine(model, params, seen, chunk, tol, max_steps)
    candidate, seen, merged = _merge_newborns(model, candidate, seen, chunk, born, tol, max_steps)
    grown = np.isin(candidate.chunk.uids, born) & (candidate.chunk.counts >= min_newborn)
    if not (candidate.elbo > current.elbo and (grown.any() or min_newborn == 0)):
        return None
    counts["birth"]["accepted"] += 1
    counts["merge"] = {key: counts["merge"][key] + merged[key] for key in merged}
    return seen, candidate


def _resampled(model: Any, current: _Current, seen: SuffStats, chunk, counts: dict, rng: np.random.Generator,
               tol: float, max_steps: int) -> tuple[SuffStats, _Current]:
    """Births across the whole chunk, for a DP mixture of multinomials: its documents re-partitioned
    by the model's collapsed Gibbs sampler among the components (each also holding what ``seen``
    holds) and new clusters (:class:`~stickbreak.core.protocols.ResampledItems`). The documents of a
    kind not seen before are spread over many components, each of which they do not dominate, so
    splitting one target at a time rarely gathers them; the sampler can open one cluster for them
    all. Judged by :func:`_judged` (one birth tried; accepted on the exact ELBO alone, the
    re-partition of the other documents being part of the proposal); ``(seen, current)`` unchanged
    when the model has no sampler or the sampler keeps no new cluster."""
    if not declares(model, ResampledItems):
        return seen, current
    uids = current.params.uids
    labels = model.resampled_labels(chunk, seen, rng)
    if labels is None or labels.max() < len(uids):
        return seen, current
    born = np.arange(int(uids.max()) + 1, int(uids.max()) + 1 + int(labels.max()) + 1 - len(uids))
    all_uids = np.concatenate([uids, born])
    counts["birth"]["tried"] += 1
    padded = seen.insert_empty(born)
    hard = sp.csr_matrix((np.ones(len(labels)), (np.arange(len(labels)), labels)), shape=(len(labels), len(all_uids)))
    chunk_stats = model.summarize_resp(chunk, hard, all_uids)
    grown = _judged(model, current, padded, chunk_stats, chunk, born, counts, tol, max_steps, min_newborn=0.0)
    return (seen, current) if grown is None else grown


def _targets(model: Movable, current: _Current, config) -> list[int]:
    """Components worth splitting on this chunk: enough of its items (``2 * birth_min_items`` above
    the share threshold), lowest b-score first, at most ``birth_max_active``."""
    ownership = model.birth_ownership(current.local)
    owned = np.asarray((ownership > config.birth_resp_threshold).sum(axis=0)).ravel()
    score = model.birth_scores(current.local)
    score = -current.chunk.counts if score is None else score  # no b-score: the largest first
    order = [k for k in np.argsort(score, kind="stable") if owned[k] >= 2 * config.birth_min_items]
    return [int(current.params.uids[k]) for k in order[:config.birth_max_active]]


def _split(model: Movable, current: _Current, chunk, target: int, new_uids: np.ndarray, config, rng):
    """The target's chunk items split into newborns and tracked through ``birth_passes`` expansions of
    the chunk (the chunk is the only batch); None if no split was found."""
    proposal = birth.start(model, 0, chunk, current.local, current.params, target, new_uids, 1, config, rng)
    while proposal is not None and not proposal.complete:
        proposal = birth.extend(model, proposal, 0, chunk, current.local, current.params, config, rng)
    return proposal


def _merge_newborns(model: Movable, current: _Current, seen: SuffStats, chunk, born: list[int], tol: float,
                    max_steps: int):
    """Greedy exact merges of pairs that hold a newborn (best m-score first); refined after any."""
    uids = current.params.uids
    newborn = np.isin(uids, born)
    first, second = np.nonzero(np.triu(newborn[:, None] | newborn[None, :], k=1))
    scores = model.merge_scores(current.params, seen + current.chunk, first, second)
    order = [m for m in np.argsort(-scores, kind="stable") if scores[m] > 0.0]
    counts = {"tried": 0, "accepted": 0}
    if not order:
        return current, seen, counts
    pairs = np.column_stack([uids[first[order]], uids[second[order]]]).astype(np.int64)
    outcome = try_merges(model, seen + current.chunk, current.params, current.terms, pairs,
                         merged_entropy(model, seen, chunk, current.local, uids, pairs))
    counts = {"tried": outcome.tried, "accepted": len(outcome.accepted)}
    for _, removed in outcome.accepted:  # the later column, so always a newborn: nothing of it was seen
        seen = seen.remove(removed)
    if outcome.accepted:
        current = refine(model, outcome.params, seen, chunk, tol, max_steps)
    return current, seen, counts


def merged_entropy(model: Movable, seen: SuffStats, chunk, local, uids: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Each pair's merged entropy ``-sum_n (r_na + r_nb) log(r_na + r_nb)`` over every item seen and
    the chunk (Hughes 2016, Eq. 4.3), for pairs of which one component holds nothing of ``seen``: the
    earlier items' part is then the sum of the pair's own entropies; the chunk's comes from ``local``."""
    first, second = seen.indices_of(pairs[:, 0]), seen.indices_of(pairs[:, 1])
    if np.any(np.minimum(seen.counts[first], seen.counts[second]) > 0.0):
        raise ValueError("a merge in a stream needs one component of each pair that holds no earlier item")
    entropy = seen.elbo_terms["entropy"]
    return model.summarize(chunk, local, uids, merge_pairs=pairs).merge_entropy + entropy[first] + entropy[second]


def _without_trailing_empties(stats: SuffStats) -> np.ndarray:
    """The uids but the empty components (less than ``EMPTY_MASS`` items) at the end of the order
    (dropping them leaves the ELBO unchanged up to round-off, nested truncation: Hughes 2016, Eq. 3.50);
    at least the first."""
    used = np.flatnonzero(stats.counts >= EMPTY_MASS)
    return stats.uids[:max(1, used[-1] + 1 if len(used) else 1)]
