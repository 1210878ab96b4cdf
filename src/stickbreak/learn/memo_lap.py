"""What every step of a memoized lap shares: the lap's fixed context (:class:`LapContext`), a batch's
visit (:func:`visit_of`) and a delete's refinement where the batch lives (:func:`delete_refined`),
and how a step re-scores the lap, records an accepted move or a failed one. Each returns a new
:class:`~.memo_state.MemoLap`; none changes the one it is given."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from ..core.protocols import total_elbo
from ..core.suffstats import SuffStats
from ..moves import delete
from ..moves.birth import ask as birth_ask
from ..moves.birth_work import BirthWork
from ..moves.records import describe
from .base import ELBODecreaseWarning
from .memo_parts import MemoVisit, memo_work
from .memo_state import MemoLap

#: Relative ELBO drop tolerated as round-off before a decrease is reported.
MONOTONE_TOLERANCE = 1e-9


@dataclass(frozen=True, eq=False)
class LapContext:
    """What stays fixed through a lap: the moves' configuration ``cfg``, the learner's generator,
    the model, the batches and the executor where they live."""

    cfg: Any
    rng: np.random.Generator
    model: Any
    batches: Sequence
    executor: Any

    def current_elbo(self, lap: MemoLap) -> MemoLap:
        """``lap`` with the ELBO of its statistics and parameters, computed now if it lags them."""
        if not lap.stale:
            return lap
        stats = whole(lap)
        return self.rescored(lap, stats, lap.params, self.model.elbo_terms(lap.params, stats))

    def rescored(self, lap: MemoLap, stats: SuffStats, params=None, terms=None) -> MemoLap:
        """``lap`` with ``stats``, and ``params`` and ``terms`` (by the model's ``score`` if None);
        a decrease of a monotone model's ELBO beyond round-off is warned of."""
        if params is None:
            params, terms = self.model.score(stats, lap.params)
        elbo = total_elbo(terms)
        if (lap.number > 1 and lap.elbo is not None and self.model.monotone
                and elbo < lap.elbo - MONOTONE_TOLERANCE * abs(lap.elbo)):
            warnings.warn(f"memoized ELBO decreased from {lap.elbo:.10g} to {elbo:.10g} in lap {lap.number}",
                          ELBODecreaseWarning, stacklevel=3)
        return replace(lap, stats=stats, params=params, terms=terms, elbo=elbo, stale=False)

    def if_better(self, lap: MemoLap, candidate: SuffStats) -> MemoLap | None:
        """``lap`` with ``candidate`` if its exact ELBO is higher, else None."""
        params, terms = self.model.score(candidate, lap.params)
        if total_elbo(terms) > bound(lap):
            return self.rescored(lap, candidate, params, terms)
        return None


def whole(lap: MemoLap) -> SuffStats:
    """The lap's whole-data statistics (there from the first visit of the first lap on)."""
    if lap.stats is None:
        raise RuntimeError(f"memoized lap {lap.number} has no statistics before its first visit")
    return lap.stats


def bound(lap: MemoLap) -> float:
    """The lap's exact ELBO (there from the first lap's end on)."""
    if lap.elbo is None:
        raise RuntimeError(f"memoized lap {lap.number} has no ELBO before the first lap's end")
    return lap.elbo


def recorded(lap: MemoLap, record) -> MemoLap:
    """``lap`` with an accepted move appended to the move log (and described for the user)."""
    return replace(lap, log=lap.log + (record,), accepted=lap.accepted + (describe(record),))


def counted(lap: MemoLap, kind: str, tried: int = 0, accepted: int = 0) -> MemoLap:
    """``lap`` with ``tried`` and ``accepted`` added to its counts of moves of ``kind``."""
    counts = {k: dict(v) for k, v in lap.counts.items()}
    counts[kind]["tried"] += tried
    counts[kind]["accepted"] += accepted
    return replace(lap, counts=counts)


def failed(lap: MemoLap, kind: str, key, size: float) -> MemoLap:
    """``lap`` with a failed move of ``kind`` on ``key`` (a uid, or a uid pair) of ``size`` items
    in its history (a copy: the history of the lap before stays as it was)."""
    history = lap.history.copy()
    {"birth": history.birth, "merge": history.merge, "delete": history.delete}[kind][key] = (lap.number, float(size))
    return replace(lap, history=history)


def sizes(stats: SuffStats) -> dict:
    """Each component's expected number of items, by uid."""
    return dict(zip(stats.uids.tolist(), stats.counts))


def set_at(values: tuple, i: int, value) -> tuple:
    """``values`` with entry ``i`` replaced."""
    return values[:i] + (value,) + values[i + 1:]


def wants_births(ctx: LapContext, lap: MemoLap) -> bool:
    """Whether the lap starts birth proposals (planned, and K has room)."""
    return lap.plan.births and lap.params.n_components < ctx.cfg.max_components


def visit_of(ctx: LapContext, lap: MemoLap, b: int, params, kept_per_batch: bool = False) -> MemoVisit:
    """Batch ``b``'s visit in ``lap`` under ``params``: the moves accepted since its last visit, its
    cache (or the one a resumed state carries), the births' per-batch work (what each tracked
    birth asks of it, and whether to start new ones from its owned items), and whether a delete
    is refined there; then its local parameters stay where it lives for the follow-ups."""
    cfg = ctx.cfg
    want_births = wants_births(ctx, lap)
    wants_delete = bool(lap.plan.delete_targets) and not lap.births
    install = None if lap.memo[b] is None else (lap.memo[b], lap.warm[b])
    births = None
    if want_births or lap.active:  # what every tracked birth asks of this batch, and its owned items
        asks = tuple(birth_ask(p, params, cfg, ctx.rng) for p in lap.active)
        births = BirthWork(want_births, cfg.birth_resp_threshold, asks)
    return MemoVisit(b, lap.number, lap.log[lap.seen[b]:], lap.placed[b], install, wants_delete, births,
                     follow_ups=births is not None or wants_delete, kept_per_batch=kept_per_batch)


def delete_refined(ctx: LapContext, lap: MemoLap, visit: MemoVisit, fresh: SuffStats, params) -> MemoLap:
    """``lap`` with batch ``visit.batch``'s proposal for the planned delete added to the lap's
    total: refined where the batch lives (:func:`~stickbreak.moves.delete.refined`), from the local
    parameters its visit under ``params`` kept there; ``fresh``: the batch's fresh statistics."""
    def run_round(work):
        return memo_work(ctx.executor, ctx.model, params, ctx.batches, replace(visit, work=work),
                         lap.plan.merge_pairs, visit.work is not None)

    proposal = delete.refined(ctx.model, run_round, lap.number, lap.params, lap.plan.delete_targets, whole(lap),
                              fresh, ctx.cfg.delete_refine_steps, lap.plan.merge_pairs)
    return replace(lap, delete_total=proposal if lap.delete_total is None else lap.delete_total + proposal)


def with_delta(lap: MemoLap, delta: SuffStats) -> MemoLap:
    """``lap`` with a change of cached statistics (fresh minus cached, moves replayed) added to the
    whole-data statistics, and the planned pairs' merged terms it carries gathered."""
    new = delta.without_merge_terms()
    stats = (new if lap.stats is None else lap.stats + new).clipped()
    pair_fields = dict(lap.pair_fields)
    for name, value in delta.merge_fields.items():
        pair_fields[name] = pair_fields.get(name, 0.0) + value
    return replace(lap, stats=stats, pair_entropy=lap.pair_entropy + delta.merge_entropy, pair_fields=pair_fields)
