"""Memoized variational inference with birth, merge and delete moves (Hughes 2016, Alg. 3.3 and §4, §6.4).

The data are split once into fixed batches. Each batch's statistics from its last visit are cached
where the batch lives (the executor's workers, :mod:`stickbreak.learn.memo_parts`); a visit computes
fresh ones there, replays on the cached ones every move accepted since (the move log), and sends
back their difference, which the driver adds to the whole-data statistics (the only statistics it
holds) before the global step. After the first lap the whole-data statistics cover every item, so
the ELBO is exact and (with warm-started local steps) never decreases, batch after batch and across
accepted moves (it is evaluated only when a move is judged against it or the lap ends: for topics
the O(K V) normalizers cost as much as a local step). With one batch and no moves this is batch VB.

Lap schedule (§6.4): plan merges (pairs) and a delete (a group of targets) from the whole-data
statistics at the start of the lap; try births at each batch; at the lap's end try the delete, then
merges, then reordering by size. Every move is accepted only if the exact whole-data ELBO rises.
Merges follow an accepted delete only when the delete's proposals carry the pairs' merged terms
(topic models); otherwise the pairs' cached terms are stale and merges wait for the next lap.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from ..core.protocols import Memoizable, Movable, WholeDataBirths, declares, require, total_elbo
from ..core.suffstats import SuffStats
from ..moves import birth, delete, merge
from ..moves.birth_work import BirthWork
from ..moves.planner import RETRY_LAPS, LapPlan, birth_shortlist, birth_targets, replace_busy
from ..moves.records import BirthRecord, DeleteRecord, MergeRecord, PruneRecord, ReorderRecord, describe
from ..parallel import LocalExecutor, Request
from .base import ELBODecreaseWarning, LapResult, SavesWithinLaps
from .memo_parts import MemoVisit, memo_step, memo_work
from .memo_state import MemoLapInProgress, MemoState, carried_log, fetched_caches, saved_values, working_values

#: Relative ELBO drop tolerated as round-off before a decrease is reported.
MONOTONE_TOLERANCE = 1e-9
#: Longest wait, in laps, between delete laps while single-target deletes keep failing (each
#: failure doubles it).
MAX_DELETE_WAIT = 4
#: Components at the end of the order with less expected mass than this (items) are dropped at a
#: lap's end: they hold nothing, so the ELBO does not change beyond round-off.
EMPTY_MASS = 1e-8


def _empty_counts(config) -> dict:
    return {kind: {"tried": 0, "accepted": 0} for kind in config.moves}


class MemoizedVI(SavesWithinLaps):
    """Memoized VI; ``moves`` is a :class:`~stickbreak.config.MovesConfig` (no moves by default).

    ``first_lap``: ``"streaming"`` runs the global step after every batch from the start;
    ``"full"`` keeps the initial global parameters for the whole first lap and steps once at its
    end, so that an informative initialisation is not overwritten by statistics of a few batches
    (the thesis's advice, bnpy's ``doFullPassBeforeMstep``); ``"auto"`` is full for more than one
    initial component and streaming from a single one (where births must grow K from lap 1).
    """

    name = "memoized"

    def __init__(self, moves, rng: np.random.Generator, first_lap: str = "auto"):
        if first_lap not in ("auto", "full", "streaming"):
            raise ValueError(f"first_lap={first_lap!r} is not valid; choose 'auto', 'full' or 'streaming'")
        self.moves = moves
        self.rng = rng
        self.first_lap = first_lap
        self._local = LocalExecutor()  # where the caches live when a lap is given no executor

    def defers_first_lap(self, params) -> bool:
        return self.first_lap == "full" or (self.first_lap == "auto" and params.n_components > 1)

    def start(self, model: Memoizable, batches, params) -> MemoState:
        """Memoized VI needs a :class:`~stickbreak.core.protocols.Memoizable` model, and with moves a
        :class:`~stickbreak.core.protocols.Movable` one."""
        require(model, Memoizable, "memoized VI")
        if self.moves.moves:
            require(model, Movable, f"memoized VI with moves {list(self.moves.moves)}")
        n = len(batches)
        return MemoState(params, None, (None,) * n, (0,) * n, next_uid=int(np.max(params.uids)) + 1)

    def lap(self, model: Memoizable, batches, state, executor=None, within=None) -> LapResult:
        """One lap (Alg. 3.3 with the moves of §6.4), or the rest of a :class:`MemoLapInProgress`;
        ``within`` (:class:`~.base.WithinLap`) is offered the lap in progress after every batch."""
        executor = executor or self._local
        if isinstance(state, MemoLapInProgress):
            run, order, position = _Lap(self, model, batches, None, executor, state.values), state.order, state.position
        else:
            run, order, position = _Lap(self, model, batches, state, executor), self.rng.permutation(len(batches)), 0
        for i in range(position, len(order)):
            run.visit(int(order[i]))
            if within is not None:
                within.visited(i + 1, len(order))
            if within is not None and i + 1 < len(order) and within.due():
                within.save(MemoLapInProgress(order, i + 1, run.values(batches, executor)))
        run.finish()
        state = run.new_state()
        # with moves, settled only once failed targets have all had their retry: a target that failed in
        # the first quiet lap is blocked for RETRY_LAPS laps, retried from quiet lap RETRY_LAPS + 1 and,
        # tracked through every batch, judged by the end of the next
        settled = not self.moves.moves or state.quiet_laps >= RETRY_LAPS + 2
        return LapResult(state, run.terms, exact=True, moves=run.counts, settled=settled)

    def saved_state(self, state: MemoState, batches, executor=None) -> MemoState:
        """``state`` with the batches' caches fetched from where they live (a checkpoint holds them;
        a run resumed from it installs each at the batch's next visit)."""
        if not any(state.placed):
            return state
        executor = executor or self._local
        log = carried_log(state.log, state.seen, state.placed, batches, executor)
        memo, warm = fetched_caches(state.memo, state.warm, state.placed, batches, executor)
        return replace(state, memo=memo, warm=warm, placed=(), log=log)


class _Lap:
    """The working copy of one lap; the learner's state is only replaced once the lap is complete.
    ``values``: the working values of a lap in progress to go on from (then ``state`` is None)."""

    def __init__(self, learner: MemoizedVI, model: Memoizable, batches, state: MemoState | None, executor,
                 values: dict | None = None):
        self.cfg, self.rng, self.model, self.batches = learner.moves, learner.rng, model, batches
        self.executor = executor
        if values is not None:
            vars(self).update(working_values(values))
            return
        self.number = state.lap + 1
        self.params, self.stats, self.elbo = state.params, state.stats, state.elbo
        self.memo, self.seen, self.log = list(state.memo), list(state.seen), list(state.log)
        self.warm = list(state.warm) if state.warm else [None] * len(batches)
        self.placed = list(state.placed) if state.placed else [False] * len(batches)
        self.next_uid, self.history = state.next_uid, state.history.copy()
        self.accepted = list(state.accepted)
        self.active = list(state.births)
        self.delete_lap = state.delete_lap
        self.delete_group = state.delete_group
        self.delete_wait = state.delete_wait
        self.quiet_laps = state.quiet_laps
        self.counts = _empty_counts(self.cfg)
        self.births = 0
        self.deferred = self.number == 1 and learner.defers_first_lap(state.params)
        self.stale = False  # the ELBO and terms lag the global parameters (see _current_elbo)
        self.terms: dict[str, float] = {}
        self.plan = self._plan(state)
        self.pair_entropy = np.zeros(len(self.plan.merge_pairs))
        self.pair_fields: dict = {}  # non-additive merged fields per pair (topic models), summed over batches
        self.delete_total: SuffStats | None = None  # the delete's proposals added up (each held where its batch lives)
        self.delete_carried: dict = {}  # batch -> its proposal (stats, warm), fetched by a checkpoint within the lap
        self.visited: set = set()  # batches visited so far this lap

    def values(self, batches, executor) -> dict:
        """The working values of this lap in progress, with the batches' caches fetched."""
        return saved_values(vars(self), batches, executor)

    # ---------------------------------------------------------------- planning
    def _plan(self, state: MemoState) -> LapPlan:
        """Births first (a shortlist of targets, left out of merges), then a delete, then merge pairs.

        A delete is planned only when no birth was accepted last lap and, with births on, at most
        every other lap; each failed single-target delete doubles the wait until the next delete
        lap (up to ``MAX_DELETE_WAIT`` laps), an accepted delete resets it. Births still being
        tracked do not hold deletes back (they would, forever, on data where births keep failing):
        their targets are not deleted and they go on being tracked; one that completes and is
        accepted in the delete's lap wins (the delete is dropped for the lap), and an accepted
        delete, which moves mass into every other component, restarts the created ones (their
        expansions are stale).
        """
        cfg, lap = self.cfg, self.number
        pairs, targets, shortlist = np.zeros((0, 2), dtype=np.int64), (), frozenset()
        births = cfg.enabled("birth") and lap >= cfg.birth_start_lap and not (lap == 1 and self.deferred)
        if self.stats is None:
            return LapPlan(pairs, (), births)
        in_flight = {p.target for p in state.births}
        if births:
            shortlist = birth_shortlist(self.stats, self.history, lap, cfg, in_flight)
        cadence = cfg.delete_every or (2 if cfg.enabled("birth") else 1)
        if (cfg.enabled("delete") and lap >= cfg.delete_start_lap and state.births_last_lap == 0
                and lap - state.delete_lap >= max(cadence, state.delete_wait)):
            targets = delete.choose_targets(self.stats, self.history, lap, cfg.delete_max_fraction,
                                            min(self.delete_group, cfg.delete_max_targets), exclude=in_flight)
            births = births and not targets  # one kind of move per component per lap
        if cfg.enabled("merge") and lap >= cfg.merge_start_lap:
            exclude = in_flight | set(shortlist) | set(targets)
            counts = dict(zip(self.stats.uids.tolist(), self.stats.counts))
            pairs = merge.plan_pairs(self.model, self.params, self.stats, cfg.merge_max_pairs,
                                     cfg.merge_pairs_per_component, exclude,
                                     skip=lambda p: self.history.merge_blocked(p, min(counts[p[0]], counts[p[1]]), lap))
        return LapPlan(pairs, targets, births)

    # ---------------------------------------------------------------- one batch
    def visit(self, b: int) -> None:
        """The batch's visit where it lives (its local step, the change of its cached statistics and
        the births' per-batch pieces: :func:`~.memo_parts.memo_step`)
        swapped in; a delete's proposal is then refined there, from the local parameters the
        visit kept (:func:`~stickbreak.moves.delete.refined`), and births advance."""
        params_before = self.params
        self.visited.add(b)
        want_births = self.plan.births and self.params.n_components < self.cfg.max_components
        wants_delete = bool(self.plan.delete_targets) and not self.births
        install = None if self.memo[b] is None else (self.memo[b], self.warm[b])
        births = None
        if want_births or self.active:  # what every tracked birth asks of this batch, and its owned items
            asks = tuple(birth.ask(p, params_before, self.cfg, self.rng) for p in self.active)
            births = BirthWork(want_births, self.cfg.birth_resp_threshold, asks)
        visit = MemoVisit(b, self.number, tuple(self.log[self.seen[b]:]), self.placed[b], install, wants_delete,
                          births, follow_ups=births is not None or wants_delete)
        keep_loglik = births is not None
        delta, fresh, answer = memo_step(self.executor, self.model, params_before, self.batches, visit,
                                                       self.plan.merge_pairs, keep_loglik=keep_loglik)
        self._swap_in(b, delta)
        # once a birth has been accepted the components differ from the delete's plan and the delete waits
        if wants_delete:
            def run_round(work):
                return memo_work(self.executor, self.model, params_before, self.batches, replace(visit, work=work),
                                               self.plan.merge_pairs, keep_loglik)

            proposal = delete.refined(self.model, run_round, self.number, self.params, self.plan.delete_targets,
                                      self.stats, fresh, self.cfg.delete_refine_steps, self.plan.merge_pairs)
            self.delete_total = proposal if self.delete_total is None else self.delete_total + proposal
        if births is not None:
            self._births_at(b, visit, answer, params_before, want_births)

    def _births_at(self, b: int, visit: MemoVisit, answer, params_before, want_births: bool) -> None:
        """Advance every birth proposal, in order, with batch ``b``'s answer (collected items or its
        expansion), evaluating the complete ones; then start new ones, one at a time, from the items
        each component owns there. A proposal just started or created asks the batch again, on the
        local parameters its parts kept where they live
        (:func:`~.memo_parts.memo_work`)."""
        asked, self.active = list(zip(self.active, answer.results)), []
        accepted_before = self.births
        for proposal, result in asked:
            self._settle(b, visit, proposal, result, params_before)
        # after an accepted birth this batch's responsibilities are stale: start no proposal from them
        if want_births and self.births == accepted_before:
            self._start_births(b, visit, answer, params_before)

    def _settle(self, b: int, visit: MemoVisit, proposal, result, params_before) -> None:
        """The proposal advanced at batch ``b`` until it has nothing more to ask there: failed
        (recorded), complete (evaluated) or tracked on (``self.active``)."""
        while True:
            advanced, more = birth.advance(self.model, proposal, b, result, params_before, self.cfg, self.rng,
                                           self._expand_all)
            if advanced is None:
                self._birth_failed(proposal.target)
                return
            if not more:
                break
            proposal, result = advanced, self._ask_again(visit, advanced, params_before)
        if advanced.complete:
            self._evaluate_birth(advanced)
        else:
            self.active.append(advanced)

    def _ask_again(self, visit: MemoVisit, proposal, params_before):
        """The proposal's :func:`~stickbreak.moves.birth.ask` answered by the visited batch's parts."""
        work = BirthWork(asks=(birth.ask(proposal, params_before, self.cfg, self.rng),))
        return memo_work(self.executor, self.model, params_before, self.batches, replace(visit, work=work),
                                       self.plan.merge_pairs, True).results[0]

    def _swap_in(self, b: int, delta: SuffStats) -> None:
        """Add the change of the batch's cached statistics (fresh minus cached, moves replayed) to
        the whole-data statistics, gather the pairs' merged terms, global step."""
        new = delta.without_merge_terms()
        self.stats = (new if self.stats is None else self.stats + new).clipped()
        self.pair_entropy = self.pair_entropy + delta.merge_entropy
        for name, value in delta.merge_fields.items():
            self.pair_fields[name] = self.pair_fields.get(name, 0.0) + value
        self.memo[b], self.warm[b], self.placed[b], self.seen[b] = None, None, True, len(self.log)
        if self.deferred:
            return
        # the global step only; the ELBO (O(K) normalizers, e.g. K x V for topics) waits until a move
        # is judged against it (:meth:`_current_elbo`) or the lap ends
        self.params = self.model.global_step(self.stats, self.params)
        self.stale = True

    def _current_elbo(self) -> float:
        """The ELBO of the current statistics and parameters, computed now if it lags them."""
        if self.stale:
            self._rescore(self.stats, self.params, self.model.elbo_terms(self.params, self.stats))
        return self.elbo

    def _rescore(self, stats: SuffStats, params=None, terms=None) -> None:
        if params is None:
            params, terms = self.model.score(stats, self.params)
        elbo = total_elbo(terms)
        if (self.number > 1 and self.elbo is not None and self.model.monotone
                and elbo < self.elbo - MONOTONE_TOLERANCE * abs(self.elbo)):
            warnings.warn(f"memoized ELBO decreased from {self.elbo:.10g} to {elbo:.10g} in lap {self.number}",
                          ELBODecreaseWarning, stacklevel=2)
        self.stats, self.params, self.terms, self.elbo = stats, params, terms, elbo
        self.stale = False

    def _record(self, record) -> None:
        self.log.append(record)
        self.accepted.append(describe(record))

    def _accept_if_better(self, candidate: SuffStats) -> bool:
        params, terms = self.model.score(candidate, self.params)
        if total_elbo(terms) > self.elbo:
            self._rescore(candidate, params, terms)
            return True
        return False

    # ---------------------------------------------------------------- births
    def _birth_failed(self, target: int) -> None:
        size = dict(zip(self.stats.uids.tolist(), self.stats.counts)).get(target, 0.0)
        self.history.birth[target] = (self.number, float(size))

    def _start_births(self, b: int, visit: MemoVisit, answer, params_before) -> None:
        """New proposals, collecting from this batch on, for the targets its owned items and scores
        pick, one at a time while fewer than ``birth_max_active`` are tracked and K has room."""
        cfg = self.cfg
        whole = dict(zip(self.stats.uids.tolist(), self.stats.counts))
        counts = np.array([whole.get(int(u), 0.0) for u in params_before.uids])
        planned = replace_busy(self.plan, {p.target for p in self.active})
        for target in birth_targets(params_before, answer.owned, answer.scores, planned, self.history, self.number,
                                    cfg, counts):
            pending = sum(len(p.new_uids) for p in self.active)
            room = min(cfg.birth_max_new, cfg.max_components - self.params.n_components - pending)
            if len(self.active) >= cfg.birth_max_active or room < 2:
                break
            proposal = birth.TrackedBirth(target, tuple(range(self.next_uid, self.next_uid + room)), len(self.batches))
            self.next_uid += room  # reserved whether or not the birth is accepted: uids are never reused
            self._settle(b, visit, proposal, self._ask_again(visit, proposal, params_before), params_before)

    @property
    def _expand_all(self):
        """For :class:`~stickbreak.core.protocols.WholeDataBirths` models (HMMs): expand a created
        proposal on every batch at once into full-width statistics (with this lap's merge pairs),
        leaving it complete. ``None`` for tracked births."""
        if not declares(self.model, WholeDataBirths):
            return None

        requests = [Request(b) for b in range(len(self.batches))]

        def sweep(model, params, merge_pairs=None):  # every batch's local step, where it lives
            return [s for s, _ in self.executor.local_summaries(model, params, self.batches, requests, merge_pairs)]

        def expand(proposal):
            parts = self.model.birth_proposal(sweep, self.params, self.stats, proposal.target, proposal.centers,
                                              proposal.log_weights, proposal.born, self.cfg.birth_refine_steps,
                                              self.plan.merge_pairs)
            return replace(proposal, expansions=dict(enumerate(parts)), remaining=frozenset(), full_width=True)

        return expand

    def _evaluate_birth(self, proposal) -> None:
        """Accept a fully tracked birth iff the exact whole-data ELBO rises (trying size order too)."""
        self.counts["birth"]["tried"] += 1
        target = proposal.target
        proposal = birth.cleaned(self.model, self.stats, proposal)
        candidate, params, terms, reordered = birth.best_order(self.model, birth.candidate(self.stats, proposal))
        if not total_elbo(terms) > self._current_elbo():  # a NaN candidate is refused too
            self._birth_failed(target)
            return
        self._rescore(candidate, params, terms)
        self._record(BirthRecord(self.number, target, tuple(int(u) for u in proposal.born), proposal.expansions,
                                 proposal.full_width))
        if proposal.full_width:  # every state's chain entropy changed: so did the pairs' gathered so far
            self.pair_entropy = sum((proposal.expansions[b].merge_entropy for b in self.visited),
                                    np.zeros(len(self.plan.merge_pairs)))
        if reordered:
            self._record(ReorderRecord(self.number, tuple(int(u) for u in candidate.uids)))
        self.counts["birth"]["accepted"] += 1
        self.births += 1

    # ---------------------------------------------------------------- lap end
    def finish(self) -> None:
        if self.deferred:  # the one global step of a full first lap
            self._rescore(self.stats)
        else:  # the ELBO of the parameters the last batch's global step gave
            self._current_elbo()
        deleted = self._finish_delete()
        if len(self.plan.merge_pairs) and (not deleted or self._pair_terms_from_delete()):
            self._finish_merges()
        if self.cfg.moves and self.cfg.reorder:
            self._finish_reorder()
        if self.cfg.moves:
            self._finish_prune()

    def _finish_delete(self) -> bool:
        """Accept the group delete on the exact ELBO; the next group doubles after a success and
        halves after a failure, and only a single target's failure enters the history."""
        targets = self.plan.delete_targets
        if not targets or self.births:  # a birth accepted this lap goes first; the delete is planned again later
            return False
        self.delete_lap = self.number
        self.counts["delete"]["tried"] += len(targets)
        candidate = self.delete_total.without_merge_terms().clipped()
        if self._accept_if_better(candidate):
            carried = self.delete_carried
            self._record(DeleteRecord(self.number, tuple(targets), {b: c[0] for b, c in carried.items()},
                                      {b: c[1] for b, c in carried.items()}, held=True))
            self.counts["delete"]["accepted"] += len(targets)
            self.delete_group = 2 * len(targets)
            self.delete_wait = 1
            # created births' expansions predate the delete's transfer of mass: they restart (collected
            # items are only data and stay valid)
            self.active = [p for p in self.active if not p.created]
            return True
        self.delete_group = max(1, len(targets) // 2)
        if len(targets) == 1:  # a group's failure halves the group; a single target's doubles the wait
            self.delete_wait = min(2 * self.delete_wait, MAX_DELETE_WAIT)
            size = dict(zip(self.stats.uids.tolist(), self.stats.counts)).get(targets[0], 0.0)
            self.history.delete[targets[0]] = (self.number, float(size))
        return False

    def _pair_terms_from_delete(self) -> bool:
        """After an accepted delete the pairs' terms gathered during the lap are stale; take them
        from the delete's proposals if they carry them (topic models). False if they do not."""
        total = self.delete_total
        if not np.array_equal(total.merge_pairs, self.plan.merge_pairs):
            return False
        self.pair_entropy = total.merge_entropy
        self.pair_fields = dict(total.merge_fields)
        return True

    def _finish_merges(self) -> None:
        outcome = merge.try_merges(self.model, self.stats, self.params, self.terms, self.plan.merge_pairs,
                                   self.pair_entropy, self.pair_fields)
        self.counts["merge"]["tried"] += outcome.tried
        self.counts["merge"]["accepted"] += len(outcome.accepted)
        accepted = set(outcome.accepted)
        sizes = dict(zip(self.stats.uids.tolist(), self.stats.counts))
        for pair in self.plan.merge_pairs.tolist():
            if tuple(pair) not in accepted and pair[0] in sizes and pair[1] in sizes:
                self.history.merge[tuple(sorted(pair))] = (self.number, float(min(sizes[pair[0]], sizes[pair[1]])))
        for i, (kept, removed) in enumerate(outcome.accepted):
            self._record(MergeRecord(self.number, kept, removed, tuple(k for k, _ in outcome.accepted[:i])))
        if outcome.accepted:
            self._rescore(outcome.stats, outcome.params, outcome.terms)

    def _finish_reorder(self) -> None:
        order = self.stats.uids[np.argsort(-self.stats.counts, kind="stable")]
        if np.array_equal(order, self.stats.uids):
            return
        if self._accept_if_better(self.stats.reorder(order)):
            self._record(ReorderRecord(self.number, tuple(int(u) for u in order)))

    def _finish_prune(self) -> None:
        """Drop the empty components at the end of the order (deletes, which need a strict gain,
        leave them: removing nothing changes the ELBO by round-off only); K counts what is used."""
        used = np.flatnonzero(self.stats.counts >= EMPTY_MASS)
        keep = used[-1] + 1 if len(used) else 0  # everything after the last used component is empty
        if keep in (0, self.stats.n_components):
            return
        removed = tuple(int(u) for u in self.stats.uids[keep:])
        candidate = self.stats.select(self.stats.uids[:keep])
        params, terms = self.model.score(candidate, self.params)
        if total_elbo(terms) >= self.elbo - MONOTONE_TOLERANCE * abs(self.elbo):
            self._rescore(candidate, params, terms)
            self._record(PruneRecord(self.number, removed))

    def new_state(self) -> MemoState:
        # records every batch has already replayed are dropped (a delete's proposals are held until then)
        done = min(self.seen)
        seen = tuple(s - done for s in self.seen)
        quiet = not any(c["accepted"] for c in self.counts.values())
        return MemoState(self.params, self.stats, tuple(self.memo), seen, tuple(self.log[done:]), self.number,
                         self.next_uid, self.history, self.births, self.elbo, tuple(self.accepted), tuple(self.active),
                         self.delete_lap, self.quiet_laps + 1 if quiet else 0, tuple(self.warm), self.delete_group,
                         self.delete_wait, tuple(self.placed))
