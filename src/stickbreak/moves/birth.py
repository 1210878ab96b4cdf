"""The birth move (Hughes 2016, §4.2), tracked through a full cycle of batches as bnpy does.

A birth for a target component j starts at one batch: the batch's items with
``r_nj > resp_threshold`` are clustered by Bregman k-means++ and a few hard k-means steps into up to
``max_new`` groups, whose posteriors become the *newborn* components. Then, at this batch and at
every other batch as it is next visited, the target's mass is re-split over the newborns by the
restricted local step (Eq. 4.12-4.16):

    r'_{n,new_i} = r_nj p_ni,   p_n = softmax_i(E log p(x_n | new_i) + log pi_i),

whose statistics are the batch's *expansion* (Eq. 4.17-4.19); the newborns' posteriors are
re-estimated from all expansions so far. Once every batch has been expanded, the whole-data
candidate is the current statistics with j emptied and the summed expansions appended (Eq. 4.22);
it is accepted only if the exact ELBO rises. A single batch's items are usually too few to pay for
new components' prior cost: tracking over every batch gives the newborns whole-data mass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ..core.model import total_elbo
from ..core.suffstats import SuffStats
from ..learn.init import bregman_kmeans, kmeans_plus_plus
from ..obs import expfam


@dataclass(frozen=True, eq=False)
class TrackedBirth:
    """A birth proposal being carried through the batches."""

    target: int
    born: np.ndarray           # newborn uids
    centers: dict              # newborn posterior natural parameters (from all expansions so far)
    log_weights: np.ndarray    # log proportions of the target's mass over the newborns
    expansions: dict           # batch -> SuffStats of the newborns in that batch
    remaining: frozenset       # batches still to expand

    @property
    def complete(self) -> bool:
        return not self.remaining


def _posterior_of(model, batch, resp: np.ndarray):
    stats = {"N": resp.sum(axis=0), **model.obs.suff_stats(batch, resp, model.obs_prior)}
    return expfam.posterior(model.obs, model.obs_prior, stats)


def split_target(model, batch, owned: np.ndarray, centers, log_weights: np.ndarray) -> np.ndarray:
    """Restricted local step: each item's target mass ``owned`` spread over the newborns, (N, J)."""
    logits = model.obs.expected_loglik(centers, batch) + log_weights
    return owned[:, None] * np.exp(logits - logsumexp(logits, axis=1, keepdims=True))


def _column(params, uid: int) -> int:
    return int(np.flatnonzero(params.uids == uid)[0])


def start(model, b: int, batch, resp: np.ndarray, params, target: int, new_uids, n_batches: int, config, rng):
    """Create newborns for ``target`` from batch ``b``; ``None`` if too few items or no split."""
    owned = resp[:, _column(params, target)]
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
    log_weights = np.log(hard.sum(axis=0) / len(labels))
    for _ in range(max(1, config.birth_refine_steps) - 1):  # refine the newborns on this batch
        split = split_target(model, batch, owned, centers, log_weights)
        centers = _posterior_of(model, batch, split)
        log_weights = np.log(np.maximum(split.sum(axis=0), 1e-300) / max(owned.sum(), 1e-300))
    born = np.asarray(new_uids[:len(used)], dtype=np.int64)
    proposal = TrackedBirth(target, born, centers, log_weights, {}, frozenset(range(n_batches)))
    return extend(model, proposal, b, batch, resp, params)


def extend(model, proposal: TrackedBirth, b: int, batch, resp: np.ndarray, params) -> TrackedBirth:
    """Expand batch ``b`` (responsibilities ``resp`` under ``params``) and re-estimate the newborns."""
    owned = resp[:, _column(params, proposal.target)]
    split = split_target(model, batch, owned, proposal.centers, proposal.log_weights)
    expansions = dict(proposal.expansions)
    expansions[b] = model.summarize_resp(batch, split, proposal.born)
    total = sum(list(expansions.values())[1:], next(iter(expansions.values())))
    centers = expfam.posterior(model.obs, model.obs_prior, total.fields)
    mass = np.maximum(total.counts, 1e-300)
    return TrackedBirth(proposal.target, proposal.born, centers, np.log(mass / mass.sum()), expansions,
                        proposal.remaining - {b})


def candidate(stats: SuffStats, proposal: TrackedBirth) -> SuffStats:
    """Whole-data statistics with the birth applied: target emptied, newborns appended (Eq. 4.22)."""
    parts = list(proposal.expansions.values())
    return stats.zero_components([proposal.target]).append(sum(parts[1:], parts[0])).clipped()


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
