"""The delete move (Hughes 2016, §4.3): a component's mass is absorbed by all the others.

Planned at the start of a lap for one target ``t``. At each batch the proposal re-assigns every
item over the remaining components, ``r'_n = softmax_{k != t}(W_nk)``, and refines it: the remaining
components are re-estimated from the whole-data statistics with this batch's proposal swapped in,
and the responsibilities recomputed (Eq. 4.25-4.27). The refinement is what lets a delete succeed
where every merge fails (Fig. 4.5): the absorbing components move to cover the target's items.
At the lap's end the per-batch proposals are summed and the delete is accepted on the exact ELBO.
"""

from __future__ import annotations

import numpy as np

from ..alloc.mixture import MixtureLocal, MixtureParams
from ..kernels import RESP_FLOOR, normalize_log_resp
from ..obs import expfam


def without_component(params: MixtureParams, target: int) -> MixtureParams:
    """The global parameters with one component (and its stick) removed."""
    keep = np.flatnonzero(params.uids != target)
    weights = {k: v[keep] for k, v in params.weights.items()}
    return MixtureParams(params.uids[keep], expfam.select_components(params.obs, keep), weights)


def batch_proposal(model, batch, params: MixtureParams, target: int, whole, stats_b, refine_steps: int):
    """Statistics of ``batch`` over the components other than ``target``, after the restricted
    refinement; ``whole`` are the current whole-data statistics and ``stats_b`` this batch's part."""
    others = params.uids[params.uids != target]
    current = without_component(params, target)
    rest = whole.select(others) - stats_b.without_merge_terms().select(others)
    proposal = None
    for step in range(max(1, refine_steps)):
        logits = model.log_weights(current, batch)
        log_norm, entropy = normalize_log_resp(logits, RESP_FLOOR)
        proposal = model.summarize(batch, MixtureLocal(logits, log_norm, entropy), others)
        if step < refine_steps - 1:
            current = model.global_step((rest + proposal).clipped())
    return proposal


def choose_target(stats, history, lap: int, max_fraction: float, exclude=()):
    """The smallest component (empty ones first) not excluded, not too big, and not failed recently."""
    counts = stats.counts
    total = counts.sum()
    for k in np.argsort(counts):
        uid = int(stats.uids[k])
        if counts[k] > max_fraction * total or uid in exclude:
            continue
        if history.delete_blocked(uid, counts[k], lap):
            continue
        return uid
    return None
