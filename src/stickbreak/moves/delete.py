"""The delete move (Hughes 2016, §4.3): a component's mass is absorbed by all the others.

Planned at the start of a lap for a group of targets ``T`` (one, in the thesis; the learner grows
the group while deletes succeed). At each batch the model's
:meth:`~stickbreak.core.protocols.Movable.delete_proposal` re-assigns the batch's items over the
remaining components and refines the proposal: the remaining components are re-estimated from the
whole-data statistics with this batch's proposal swapped in, and the local parameters recomputed
(Eq. 4.25-4.27; mixtures: :func:`stickbreak.models.mixture.moves.batch_proposal`). Its local steps
go through the executor, where the batch lives, and of the batch's local parameters only what the
proposal starts from travels (:class:`DeleteStart`). The refinement is
what lets a delete succeed where every merge fails (Fig. 4.5): the absorbing components move to
cover the target's items. At the lap's end the per-batch proposals are summed and the delete is
accepted on the exact ELBO.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..parallel.parts import joined_rows


@dataclass(frozen=True)
class DeleteStart:
    """The work, at a delete's visit where the batch lives, that sends the driver only
    :meth:`~stickbreak.core.protocols.Movable.delete_start` of the local parameters (a
    :class:`~stickbreak.parallel.caches.LocalWork`)."""

    def on_part(self, model, params, batch, local, start: int, features=None, n_features: int = 0):
        return model.delete_start(local)

    def joined(self, answers: Sequence):
        return joined_rows(answers)

    def on_features(self, model, features) -> "DeleteStart":
        return self


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
