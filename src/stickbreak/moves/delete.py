"""The delete move (Hughes 2016, §4.3): a component's mass is absorbed by all the others.

Planned at the start of a lap for a group of targets ``T`` (one, in the thesis; the learner grows
the group while deletes succeed). At each batch the proposal re-assigns every item over the
remaining components, ``r'_n = softmax_{k not in T}(W_nk)`` (top-L with ``n_active``, Hughes 2016
Sec. 7.1, so the proposal lies in the family the local step optimises), and refines it: the remaining
components are re-estimated from the whole-data statistics with this batch's proposal swapped in,
and the responsibilities recomputed (Eq. 4.25-4.27). The refinement is what lets a delete succeed
where every merge fails (Fig. 4.5): the absorbing components move to cover the target's items.
At the lap's end the per-batch proposals are summed and the delete is accepted on the exact ELBO.
"""

from __future__ import annotations

import numpy as np

from ..models.mixture.model import MixtureParams
from ..obs import expfam


def without_component(params: MixtureParams, targets) -> MixtureParams:
    """The global parameters with the components ``targets`` (uids; and their sticks) removed."""
    keep = np.flatnonzero(~np.isin(params.uids, np.atleast_1d(targets)))
    weights = {k: v[keep] for k, v in params.weights.items()}
    return MixtureParams(params.uids[keep], expfam.select_components(params.obs, keep), weights)


def batch_proposal(model, batch, params: MixtureParams, targets, whole, stats_b, refine_steps: int):
    """Statistics of ``batch`` over the components other than ``targets``, after the restricted
    refinement; ``whole`` are the current whole-data statistics and ``stats_b`` this batch's part."""
    current = without_component(params, targets)
    others = current.uids
    rest = whole.select(others) - stats_b.without_merge_terms().select(others)
    proposal = None
    for step in range(max(1, refine_steps)):
        local = model.resp_from_log_weights(model.log_weights(current, batch))
        proposal = model.summarize(batch, local, others)
        if step < refine_steps - 1:
            current = model.global_step((rest + proposal).clipped())
    return proposal


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
