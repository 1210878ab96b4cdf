"""Memoized VI's births at a batch (Hughes 2016, §4.2; :mod:`stickbreak.moves.birth`): each tracked
proposal advances with the batch's answer, a complete one is judged on the exact whole-data ELBO,
and new ones start from the items each component owns there. Each function returns a new
:class:`~.memo_state.MemoLap`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core.protocols import WholeDataBirths, declares, total_elbo
from ..moves import birth
from ..moves.birth_work import BirthWork
from ..moves.planner import birth_targets, replace_busy
from ..moves.records import BirthRecord, ReorderRecord
from ..parallel import Request
from .memo_lap import LapContext, bound, counted, failed, recorded, sizes, whole
from .memo_parts import MemoVisit, memo_work
from .memo_state import MemoLap


def births_at(ctx: LapContext, lap: MemoLap, b: int, visit: MemoVisit, answer, params_before,
              want_births: bool) -> MemoLap:
    """Advance every birth proposal, in order, with batch ``b``'s answer (collected items or its
    expansion), evaluating the complete ones; then start new ones, one at a time, from the items
    each component owns there. A proposal just started or created asks the batch again, on the
    local parameters its parts kept where they live (:func:`~.memo_parts.memo_work`)."""
    asked, lap = list(zip(lap.active, answer.results)), replace(lap, active=())
    accepted_before = lap.births
    for proposal, result in asked:
        lap = _settled(ctx, lap, b, visit, proposal, result, params_before)
    # after an accepted birth this batch's responsibilities are stale: start no proposal from them
    if want_births and lap.births == accepted_before:
        lap = _started(ctx, lap, b, visit, answer, params_before)
    return lap


def _settled(ctx: LapContext, lap: MemoLap, b: int, visit: MemoVisit, proposal, result, params_before,
             evaluate: bool = True) -> MemoLap:
    """The proposal advanced at batch ``b`` until it has nothing more to ask there: failed
    (recorded), complete (evaluated, if ``evaluate``) or tracked on (``lap.active``)."""
    while True:
        advanced, more = birth.advance(ctx.model, proposal, b, result, params_before, ctx.cfg, ctx.rng,
                                       _expand_all(ctx, lap))
        if advanced is None:
            return _birth_failed(lap, proposal.target)
        if not more:
            break
        proposal, result = advanced, _ask_again(ctx, lap, visit, advanced, params_before)
    if advanced.complete and evaluate:
        return _evaluated(ctx, lap, advanced)
    return replace(lap, active=lap.active + (advanced,))


def _ask_again(ctx: LapContext, lap: MemoLap, visit: MemoVisit, proposal, params_before):
    """The proposal's :func:`~stickbreak.moves.birth.ask` answered by the visited batch's parts."""
    work = BirthWork(asks=(birth.ask(proposal, params_before, ctx.cfg, ctx.rng),))
    return memo_work(ctx.executor, ctx.model, params_before, ctx.batches, replace(visit, work=work),
                     lap.plan.merge_pairs, True).results[0]


def _birth_failed(lap: MemoLap, target: int) -> MemoLap:
    return failed(lap, "birth", target, sizes(whole(lap)).get(target, 0.0))


def _started(ctx: LapContext, lap: MemoLap, b: int, visit: MemoVisit, answer, params_before,
             evaluate: bool = True) -> MemoLap:
    """New proposals, collecting from this batch on, for the targets its owned items and scores
    pick, one at a time while fewer than ``birth_max_active`` are tracked and K has room."""
    cfg = ctx.cfg
    counts_now = sizes(whole(lap))
    counts = np.array([counts_now.get(int(u), 0.0) for u in params_before.uids])
    planned = replace_busy(lap.plan, {p.target for p in lap.active})
    for target in birth_targets(params_before, answer.owned, answer.scores, planned, lap.history, lap.number,
                                cfg, counts):
        pending = sum(len(p.new_uids) for p in lap.active)
        room = min(cfg.birth_max_new, cfg.max_components - lap.params.n_components - pending)
        if len(lap.active) >= cfg.birth_max_active or room < 2:
            break
        proposal = birth.TrackedBirth(target, tuple(range(lap.next_uid, lap.next_uid + room)), len(ctx.batches))
        lap = replace(lap, next_uid=lap.next_uid + room)  # reserved whether or not the birth is accepted
        lap = _settled(ctx, lap, b, visit, proposal, _ask_again(ctx, lap, visit, proposal, params_before),
                       params_before, evaluate)
    return lap


def births_synchronous(ctx: LapContext, lap: MemoLap, visits, answers, params_before, want_births: bool) -> MemoLap:
    """A lap-synchronous lap's births (:mod:`.memo_sync`): every batch answered, in one call under
    ``params_before``, what the proposals tracked at the lap's start asked of it (``visits``, their
    ``answers`` in the lap's order). Each proposal advances with each batch's answer in that order
    while it is in the phase it was asked in (a proposal created during the lap is expanded at the
    batch that created it, then waits for the next lap's batches); new ones start from each batch's
    owned items. A complete proposal goes on being expanded at every batch of the lap, so that all
    its expansions match the batches' caches, and is evaluated on the exact ELBO once every batch
    has answered."""
    asked = {p.new_uids: p.created for p in lap.active}
    asked_order = tuple(p.new_uids for p in lap.active)
    for visit, answer in zip(visits, answers):
        results = dict(zip(asked_order, answer.results))
        tracked, lap = lap.active, replace(lap, active=())
        for proposal in tracked:
            if proposal.new_uids in results and asked[proposal.new_uids] == proposal.created:
                lap = _settled(ctx, lap, visit.batch, visit, proposal, results[proposal.new_uids], params_before,
                               evaluate=False)
            else:  # started or created during this lap: asked again by the next lap's batches
                lap = replace(lap, active=lap.active + (proposal,))
        if want_births:
            lap = _started(ctx, lap, visit.batch, visit, answer, params_before, evaluate=False)
    complete = [p for p in lap.active if p.complete]
    lap = replace(lap, active=tuple(p for p in lap.active if not p.complete))
    for proposal in complete:
        lap = _evaluated(ctx, lap, proposal)
    return lap


def _expand_all(ctx: LapContext, lap: MemoLap):
    """For :class:`~stickbreak.core.protocols.WholeDataBirths` models (HMMs): expand a created
    proposal on every batch at once into full-width statistics (with this lap's merge pairs),
    leaving it complete. ``None`` for tracked births."""
    if not declares(ctx.model, WholeDataBirths):
        return None

    requests = [Request(b) for b in range(len(ctx.batches))]

    def sweep(model, params, merge_pairs=None):  # every batch's local step, where it lives
        return [s for s, _ in ctx.executor.local_summaries(model, params, ctx.batches, requests, merge_pairs)]

    def expand(proposal):
        parts = ctx.model.birth_proposal(sweep, lap.params, lap.stats, proposal.target, proposal.centers,
                                         proposal.log_weights, proposal.born, ctx.cfg.birth_refine_steps,
                                         lap.plan.merge_pairs)
        return replace(proposal, expansions=dict(enumerate(parts)), remaining=frozenset(), full_width=True)

    return expand


def _evaluated(ctx: LapContext, lap: MemoLap, proposal) -> MemoLap:
    """A fully tracked birth accepted iff the exact whole-data ELBO rises (trying size order too)."""
    lap = counted(lap, "birth", tried=1)
    target = proposal.target
    proposal = birth.cleaned(ctx.model, whole(lap), proposal)
    candidate, params, terms, reordered = birth.best_order(ctx.model, birth.candidate(whole(lap), proposal))
    lap = ctx.current_elbo(lap)
    if not total_elbo(terms) > bound(lap):  # a NaN candidate is refused too
        return _birth_failed(lap, target)
    lap = ctx.rescored(lap, candidate, params, terms)
    lap = recorded(lap, BirthRecord(lap.number, target, tuple(int(u) for u in proposal.born), proposal.expansions,
                                    proposal.full_width))
    if proposal.full_width:  # every state's chain entropy changed: so did the pairs' gathered so far
        lap = replace(lap, pair_entropy=sum((proposal.expansions[b].merge_entropy for b in lap.visited),
                                            np.zeros(len(lap.plan.merge_pairs))))
    if reordered:
        lap = recorded(lap, ReorderRecord(lap.number, tuple(int(u) for u in candidate.uids)))
    return replace(counted(lap, "birth", accepted=1), births=lap.births + 1)
