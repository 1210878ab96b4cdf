"""The birth move (Hughes 2016, §4.2): split a component's items in one batch into fresh components.

At a batch, for a target component j:

1. take the batch's items with ``r_nj > resp_threshold`` and cluster them by Bregman k-means++ and
   a few hard k-means steps into up to ``max_new`` groups;
2. restricted local step (Eq. 4.12-4.16): every item's mass on j is re-split over the new components,
   ``r'_{n,new_i} = r_nj p_ni`` with ``p_n = softmax_i(E log p(x_n | new_i) + log pi_i)``, refined a few
   times with the new components' posteriors re-estimated from this batch;
3. the batch's statistics become: j emptied, new components appended (Eq. 4.17-4.19).

The caller swaps these into the whole-data statistics (Eq. 4.22), cleans the proposal up by merging
newborn components while that raises the exact ELBO (as bnpy does), and accepts on the exact ELBO;
other batches hold zero mass on the new components until they are next visited (Eq. 4.21).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ..core.model import total_elbo
from ..core.suffstats import SuffStats
from ..kernels import RESP_FLOOR, pair_merge_entropy
from ..learn.init import bregman_kmeans, kmeans_plus_plus
from ..obs import expfam
from .merge import pair_scores


@dataclass(frozen=True, eq=False)
class BirthProposal:
    """The batch's proposed statistics, and the split responsibilities of the newborn components."""

    batch_stats: SuffStats
    split: np.ndarray       # (n_items, n_new): each item's target mass over the newborns
    born: np.ndarray        # uids of the newborns, in split's column order


def _posterior_of(model, batch, resp: np.ndarray):
    stats = {"N": resp.sum(axis=0), **model.obs.suff_stats(batch, resp, model.obs_prior)}
    return expfam.posterior(model.obs, model.obs_prior, stats)


def propose(model, batch, resp: np.ndarray, params, target: int, new_uids, stats_b, config, rng):
    """Proposed statistics of ``batch`` with component ``target`` (a uid) split into new components.

    ``resp`` are the batch's responsibilities under ``params`` and ``stats_b`` their statistics.
    Returns ``None`` when the target has too few items here or they do not split into two groups.
    """
    column = int(np.flatnonzero(params.uids == target)[0])
    owned = resp[:, column]
    members = np.flatnonzero(owned > config.birth_resp_threshold)
    n_new = int(min(config.birth_max_new, len(members) // config.birth_min_items, len(new_uids)))
    if n_new < 2:
        return None
    if len(members) > config.birth_max_items:
        members = np.sort(rng.choice(members, config.birth_max_items, replace=False))
    subset = batch.subset(members)
    labels = bregman_kmeans(model, subset, kmeans_plus_plus(model, subset, n_new, rng), config.birth_kmeans_iters)
    used = np.unique(labels)
    if len(used) < 2:
        return None
    hard = (labels[:, None] == used[None, :]).astype(float)
    centers = _posterior_of(model, subset, hard)
    log_pi = np.log(hard.sum(axis=0) / len(labels))
    for _ in range(max(1, config.birth_refine_steps)):  # every item's target mass is re-split, however small
        logits = model.obs.expected_loglik(centers, batch) + log_pi
        split = owned[:, None] * np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
        centers = _posterior_of(model, batch, split)
        log_pi = np.log(np.maximum(split.sum(axis=0), 1e-300) / max(owned.sum(), 1e-300))
    born = np.asarray(new_uids[:len(used)], dtype=np.int64)
    newborn_stats = model.summarize_resp(batch, split, born)
    return BirthProposal(stats_b.zero_components([target]).append(newborn_stats), split, born)


def _merge_newborns(stats: SuffStats, proposal: BirthProposal, i: int, j: int, entropy: float):
    """Merge newborn columns i and j in both the candidate statistics and the proposal."""
    keep, drop = int(proposal.born[i]), int(proposal.born[j])
    pair = np.array([[keep, drop]])
    merged = stats.with_merge_terms(pair, [entropy]).merge(keep, drop).with_merge_terms(
        stats.merge_pairs, stats.merge_entropy)
    batch_stats = proposal.batch_stats
    batch_merged = batch_stats.with_merge_terms(pair, [entropy]).merge(keep, drop).with_merge_terms(
        batch_stats.merge_pairs, batch_stats.merge_entropy)
    split = proposal.split.copy()
    split[:, i] += split[:, j]
    split = np.delete(split, j, axis=1)
    return merged, BirthProposal(batch_merged, split, np.delete(proposal.born, j))


def clean_up(model, candidate: SuffStats, proposal: BirthProposal):
    """Greedily merge pairs of newborns while the exact whole-data ELBO of ``candidate`` rises.

    Each pair's gain is the exact merge gap: data and weight terms from the statistics
    (:func:`~stickbreak.moves.merge.pair_scores`) plus the entropy change from the split
    responsibilities. Returns the cleaned ``(candidate, proposal)``.
    """
    while len(proposal.born) > 1:
        params, _ = model.score(candidate)
        index = {int(u): k for k, u in enumerate(candidate.uids)}
        cols_a, cols_b = np.triu_indices(len(proposal.born), k=1)
        first = np.array([index[int(proposal.born[a])] for a in cols_a])
        second = np.array([index[int(proposal.born[b])] for b in cols_b])
        split = np.ascontiguousarray(proposal.split)
        merged_h = pair_merge_entropy(split, cols_a.astype(np.int64), cols_b.astype(np.int64), RESP_FLOOR)
        own_h = candidate.elbo_terms["entropy"]
        gains = pair_scores(model, params, candidate, first, second) + merged_h - own_h[first] - own_h[second]
        best = int(np.argmax(gains))
        if gains[best] <= 0:
            break
        candidate, proposal = _merge_newborns(candidate, proposal, int(cols_a[best]), int(cols_b[best]),
                                              float(merged_h[best]))
    return candidate, proposal


def best_order(model, candidate: SuffStats):
    """The candidate as it is, or sorted largest first, whichever has the higher exact ELBO
    (the order of stick-breaking weights is part of ``q``). Returns ``(stats, params, terms, reordered)``."""
    params, terms = model.score(candidate)
    order = candidate.uids[np.argsort(-candidate.counts, kind="stable")]
    if np.array_equal(order, candidate.uids):
        return candidate, params, terms, False
    sorted_stats = candidate.reorder(order)
    sorted_params, sorted_terms = model.score(sorted_stats)
    if total_elbo(sorted_terms) > total_elbo(terms):
        return sorted_stats, sorted_params, sorted_terms, True
    return candidate, params, terms, False
