"""Birth proposals for HMM states (Hughes 2016, §4.2 with the chain statistics of §6.5).

The generic birth (:mod:`stickbreak.moves.birth`) pools the frames a target state owns and clusters
them into newborn emission posteriors; this part is shared. What differs is the expansion: a
mixture's statistics split item by item, but a chain's transition counts and entropy couple
neighbouring frames, so a state cannot be split frame by frame. The HMM proposal is made whole
instead:

1. *Expanded parameters.* The target is replaced, at its place in the order, by the newborns (and
   itself, if it keeps a share). Every transition into the target is split over them by their
   shares ``w``; each of them inherits the target's transitions out, split the same way. With
   ``E`` the (K, K') matrix that maps each old state to itself and the target to ``w``, the
   counts become ``M0 E`` and ``E^T M E``, and the top-level weight ``beta_t`` becomes
   ``beta_t w``; a global step on these gives the expanded transition posterior.
2. *Refinement.* ``refine_steps - 1`` sweeps of forward-backward over every batch, each followed
   by a global step, then a last sweep that also gathers the planned merge pairs' entropies.

Each batch's statistics of that last sweep are the exact statistics of a valid ``q(z)`` over the
expanded states, so their sum is a whole-data candidate; the learner accepts it only if the exact
ELBO rises, and replays it on each batch's cache (:class:`~stickbreak.moves.records.BirthRecord`
with ``full_width``).
"""

from __future__ import annotations

import numpy as np

from ...obs import expfam
from ...priors import top_sticks as sticks
from .params import ROUNDS_AFTER_CHANGE, HMMParams


def split_matrix(n_states: int, column: int, shares: np.ndarray) -> np.ndarray:
    """``E`` (K, K - 1 + len(shares)): old states map to themselves, the state at ``column`` to
    ``shares``, which take its place in the order."""
    group = len(shares)
    E = np.zeros((n_states, n_states - 1 + group))
    before = np.arange(column)
    after = np.arange(column + 1, n_states)
    E[before, before] = 1.0
    E[after, after - 1 + group] = 1.0
    E[column, column:column + group] = shares
    return E


def expanded_params(model, params, whole, target: int, centers, log_weights: np.ndarray, born: np.ndarray):
    """The global parameters with state ``target`` (uid) split into ``born`` (step 1 above).

    ``centers``: emission posteriors of [target, newborns...]; ``log_weights``: their log shares
    (``-inf`` for the target when it gives up all its mass, which then leaves the state set).
    """
    column = int(np.flatnonzero(params.uids == target)[0])
    shares = np.exp(log_weights)
    kept = np.flatnonzero(shares > 0)
    shares = shares[kept] / shares[kept].sum()
    group_uids = np.concatenate([[target], born]).astype(np.int64)[kept]
    uids = np.concatenate([params.uids[:column], group_uids, params.uids[column + 1:]])
    E = split_matrix(params.n_components, column, shares)
    others = np.delete(np.arange(params.n_components), column)
    obs = expfam.concat_components(expfam.select_components(params.obs, others[:column]),
                                   expfam.concat_components(expfam.select_components(centers, kept),
                                                            expfam.select_components(params.obs, others[column:])))
    start = whole.fields["start"] @ E
    trans = E.T @ whole.fields["trans"] @ E
    previous = None
    if "rho" in params.trans:
        beta, _ = sticks.stick_weights(params.trans["rho"])
        previous = {**params.trans, "rho": sticks.rho_from_weights(beta @ E)}
    post = model.transitions.global_step(model.transitions_prior, start, trans, previous, rounds=ROUNDS_AFTER_CHANGE)
    return HMMParams(uids, obs, post)


def proposal(model, sweep, params, whole, target: int, centers, log_weights, born, refine_steps: int,
             merge_pairs=None) -> list:
    """Each batch's statistics over the expanded states (steps 1-2 above), in batch order; each
    sweep's local steps through ``sweep`` (see :meth:`~stickbreak.core.protocols.WholeDataBirths.birth_proposal`)."""
    expanded = expanded_params(model, params, whole, target, centers, log_weights, born)
    for _ in range(max(1, refine_steps) - 1):
        stats = sum(sweep(model, expanded))
        expanded = model.global_step(stats.clipped(), expanded)
    return sweep(model, expanded, merge_pairs)
