"""The delete move (Hughes 2016, §4.3): a component's mass is absorbed by all the others.

Planned at the start of a lap for a group of targets ``T`` (one, in the thesis; the learner grows
the group while deletes succeed). At each batch the items are re-assigned over the remaining
components and the proposal refined (:func:`refined`): the remaining components are re-estimated
from the whole-data statistics with this batch's proposal swapped in, and the local parameters
recomputed (Eq. 4.25-4.27). The refinement is what lets a delete succeed where every merge fails
(Fig. 4.5): the absorbing components move to cover the target's items.

Each round's local steps run where the batch lives (:class:`DeleteRound`, a
:class:`~.part_work.LocalWork` follow-up of the batch's visit): the parts keep
what the proposal starts from and its warm starts between rounds
(:meth:`~stickbreak.core.protocols.Movable.delete_part`), only the remaining components'
parameters go out and each part's statistics come back, and the last round leaves each part's
share of the proposal where it lives (held, until the record replays it). The driver keeps the
proposals' sum, on which the delete is accepted at the lap's end (exact ELBO).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from ..core.suffstats import SuffStats
from .part_work import KEPT_LOST, Held

#: Where a part keeps its delete refinement between rounds (in the dict kept with its local parameters).
_KEPT = "delete"


@dataclass(eq=False)
class _PartRefinement:
    """What a part keeps between rounds: the model's :meth:`~stickbreak.core.protocols.Movable.delete_part`
    and the next round's number."""

    part: Any
    step: int = 0


@dataclass(frozen=True, eq=False)
class DeleteRound:
    """Round ``step`` of the refinement of the delete of ``targets`` planned in lap ``lap``, on the
    parameters ``current`` of the remaining components; the ``last`` one (with ``merge_pairs``'
    merged terms, for models that gather them) leaves the part's share of the proposal held where
    it lives. ``earlier``: the parameters of the rounds before, with which a part that lost its
    refinement (a replaced worker) rebuilds it; only the parts that need them are sent them
    (:meth:`travelling`)."""

    lap: int
    targets: tuple
    current: Any
    step: int
    last: bool
    merge_pairs: Any = None
    earlier: tuple = ()
    on_part_features: bool = False  # ``current`` and ``earlier`` are already cut to the part's features

    def on_features(self, model, features) -> "DeleteRound":
        return replace(self, current=model.params_on_features(self.current, features),
                       earlier=tuple(model.params_on_features(p, features) for p in self.earlier),
                       on_part_features=True)

    def travelling(self) -> "DeleteRound":
        return replace(self, earlier=())

    def on_part(self, model, params, batch, local, start: int, features=None, n_features: int = 0,
                kept: dict | None = None):
        """The part's statistics of this round (:class:`~.part_work.Held` in the last)."""
        refinement = kept.get(_KEPT)
        if refinement is None or refinement.step != self.step:  # lost with its worker: rebuilt, or asked for
            if len(self.earlier) != self.step:
                return KEPT_LOST
            refinement = _PartRefinement(model.delete_part(local, params, self.targets))
            for earlier in self.earlier:
                self._round(model, refinement, batch, earlier, features, n_features)
        stats, warm = self._round(model, refinement, batch, self.current, features, n_features)
        if not self.last:
            kept[_KEPT] = refinement
            return stats
        kept.pop(_KEPT, None)
        current = self.current
        return Held(stats, self.lap, (stats, None if warm is None else (np.asarray(current.uids), warm)))

    def _round(self, model, refinement: _PartRefinement, batch, current, features, n_features):
        if features is not None and not self.on_part_features:  # one of the parts its worker holds
            current = model.params_on_features(current, features, cut_derived=True)
        last = self.last and refinement.step == self.step
        answer = model.delete_round(refinement.part, batch, current, refinement.step, last, self.merge_pairs,
                                    features, n_features)
        refinement.step += 1
        return answer

    def joined(self, answers) -> SuffStats:
        """The batch's statistics of the round: the parts' added in part order."""
        return sum(answers[1:], answers[0])


def refined(model, run_round: Callable[[DeleteRound], SuffStats], lap: int, params, targets, whole: SuffStats,
            stats_b: SuffStats, refine_steps: int, merge_pairs=None) -> SuffStats:
    """Batch ``b``'s proposal for deleting ``targets`` (uids), refined ``refine_steps`` times
    against the rest of the data (Eq. 4.25-4.27): ``whole`` are the whole-data statistics and
    ``stats_b`` the batch's part of them; ``run_round`` runs a round where the batch lives (the
    batch's latest visit kept its local parameters there) and answers the batch's statistics."""
    current = model.delete_params(params, targets)
    rest = whole.without_merge_terms().select(current.uids) - stats_b.without_merge_terms().select(current.uids)
    rounds = max(1, refine_steps)
    earlier: tuple = ()
    for step in range(rounds):
        last = step == rounds - 1
        proposal = run_round(DeleteRound(lap, tuple(int(t) for t in np.atleast_1d(targets)), current, step, last,
                                         merge_pairs, earlier))
        if not last:
            earlier += (current,)
            current = model.global_step((rest + proposal).clipped(), current)
    return proposal


def proposal_here(model, params, batch, local, targets, whole: SuffStats, stats_b: SuffStats, refine_steps: int,
                  merge_pairs=None) -> tuple[SuffStats, Any]:
    """:func:`refined` run here, on a whole batch and its ``local`` parameters (serial use and
    tests): the proposal and the batch's next warm start (or None)."""
    kept: dict = {}
    held = []

    def run_round(work: DeleteRound) -> SuffStats:
        answer = work.on_part(model, params, batch, local, 0, kept=kept)
        if isinstance(answer, Held):
            held.append(answer.cache)
            return answer.answer
        return answer

    proposal = refined(model, run_round, 0, params, targets, whole, stats_b, refine_steps, merge_pairs)
    warm = held[0][1]
    return proposal, None if warm is None else warm[1]


def choose_targets(stats, history, lap: int, max_fraction: float, n_targets: int = 1, exclude=()) -> tuple:
    """Up to ``n_targets`` of the smallest components (empty ones first) that are not excluded and
    have not failed recently, together at most ``max_fraction`` of the data; one component at
    least (if any qualifies), and never all of them."""
    counts = stats.counts
    limit = max_fraction * counts.sum()
    chosen, mass = [], 0.0
    for k in np.argsort(counts, kind="stable"):
        uid = int(stats.uids[k])
        if uid in exclude or history.delete_blocked(uid, counts[k], lap):
            continue
        if mass + counts[k] > limit or len(chosen) >= min(n_targets, len(counts) - 1):
            break
        chosen.append(uid)
        mass += counts[k]
    return tuple(chosen)
