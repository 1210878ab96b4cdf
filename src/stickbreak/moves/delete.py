"""The delete move (Hughes 2016, §4.3): a component's mass is absorbed by all the others.

Planned at the start of a lap for a group of targets ``T`` (one, in the thesis; the learner grows
the group while deletes succeed). At each batch the model's
:meth:`~stickbreak.core.protocols.Movable.delete_proposal` re-assigns the batch's items over the
remaining components and refines the proposal: the remaining components are re-estimated from the
whole-data statistics with this batch's proposal swapped in, and the local parameters recomputed
(Eq. 4.25-4.27; mixtures: :func:`stickbreak.models.mixture.moves.batch_proposal`). The refinement is
what lets a delete succeed where every merge fails (Fig. 4.5): the absorbing components move to
cover the target's items. At the lap's end the per-batch proposals are summed and the delete is
accepted on the exact ELBO.
"""

from __future__ import annotations

import numpy as np

from ..parallel import Request


def refined_proposal(model, executor, batches, b: int, params, targets, whole, stats_b, refine_steps: int,
                     merge_pairs=None):
    """Batch ``b``'s delete proposal for a :class:`~stickbreak.core.protocols.RefinedDeletes` model,
    its local steps run by ``executor`` where the batch lives: ``max(1, refine_steps)`` local steps
    under the parameters without ``targets``, each but the last followed by a global step on the
    whole-data statistics with this batch's proposal swapped in (Eq. 4.25-4.27). The same sums as
    the model's serial :meth:`~stickbreak.core.protocols.Movable.delete_proposal`; no warm start."""
    current = model.without_components(params, targets)
    rest = whole.select(current.uids) - stats_b.without_merge_terms().select(current.uids)
    request = [Request(b)]
    for _ in range(max(1, refine_steps) - 1):
        proposal = executor.local_summaries(model, current, batches, request)[0][0]
        current = model.global_step((rest + proposal).clipped(), current)
    pairs = merge_pairs if model.delete_merge_terms else None
    return executor.local_summaries(model, current, batches, request, merge_pairs=pairs)[0][0], None



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
