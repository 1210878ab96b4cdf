"""The birth move (Hughes 2016, §4.2), built from items pooled over batches and tracked through a
full cycle of batches before the exact test (as bnpy does).

A birth for a target component j goes through two phases.

Each phase's per-batch piece runs where the batch lives, on the local parameters of its visit: the
proposal :func:`ask` s the batch and :func:`advance` s on the answer (:mod:`.birth_work`; only the
pooled items and the expansion travel, never the local parameters).

*Collecting.* At each visited batch, the items with ``r_nj > resp_threshold`` are copied into a pool
(a uniform sample of them when there is less room left) until it holds ``birth_max_items`` items or
every batch has been seen once. Newborns made from one
small batch have prior-dominated posteriors that never win items back from the target's bulk, so
they are made from the pool: Bregman k-means++ and a few hard k-means steps split it into up to
``max_new`` groups (for whole word counts, refined by collapsed Gibbs sweeps of the DP mixture of
multinomials), refined by soft EM on the pool.

*Tracking.* Then, at every batch as it is next visited, the target's mass is re-split by the
restricted local step (Eq. 4.12-4.16):

    r'_{n,c} = r_nj p_nc,   p_n = softmax_c(E log p(x_n | c) + log pi_c),   c in {j, new_1, ...},

whose statistics are the batch's *expansion* (Eq. 4.17-4.19); with L-sparse responsibilities
(``n_active``, Hughes 2016 Sec. 7.1) ``p_n`` is the top-m softmax, m = ``model.split_slots`` (one:
the item's share goes to its best of [target, newborns]), so every item keeps at most L non-zeros,
even under overlapping births, and the proposal stays in the family the local step optimises; the
posteriors are re-estimated from all expansions so far. By default j gives up all its mass (Eq.
4.11, ``log pi_j = -inf``); with ``birth_keep_target`` it competes for its items too. Once every
batch has been expanded, the whole-data candidate is the current statistics with j's row replaced by
its kept part and the newborns appended (Eq. 4.22), accepted only if the exact ELBO rises.

Everything model-specific is a hook of :class:`~stickbreak.core.protocols.Movable`:
``birth_ownership(local)`` (each item's share of each component), ``birth_pool_items`` (the data
pooled for clustering: a mixture's points, a topic model's documents' target parts, an HMM's frames),
``birth_item_model`` (what the pool is clustered with). How a created proposal is expanded is a
declared capability. A :class:`~stickbreak.core.protocols.TrackedBirths` model (mixtures, topic
models) gives each batch's statistics over [target, newborns] (``birth_expansion``). A
:class:`~stickbreak.core.protocols.WholeDataBirths` model (HMMs: transition counts couple
neighbouring frames) has ``birth_proposal`` instead: once the newborns are created, the learner
expands every batch at once (``expand_all`` of :func:`advance`; each sweep of local steps runs
where the batches live) into *full-width* statistics over all components, whose sum is the candidate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.special import logsumexp

from ..core.protocols import MergesByRows, Movable, declares, total_elbo
from ..core.suffstats import SuffStats
from ..data import concat_items
from ..models.mixture.init import split_labels
from ..obs import expfam
from .birth_work import Collect, Expand, on_local


@dataclass(frozen=True, eq=False)
class TrackedBirth:
    """A birth proposal: collecting items (``centers is None``), then tracked through the batches."""

    target: int
    new_uids: tuple            # uids reserved for newborns
    n_batches: int
    pool: tuple = ()           # collected items (data subsets), while collecting
    pool_size: int = 0
    collected_from: frozenset = frozenset()
    born: np.ndarray | None = None   # newborn uids, once created
    centers: dict | None = None      # posteriors of [target, newborns...]
    log_weights: np.ndarray | None = None
    expansions: dict | None = None   # batch -> SuffStats over [target, newborns...]
    remaining: frozenset = frozenset()
    full_width: bool = False         # expansions over all components (not just [target, newborns])
    passes_left: int = 0             # further tracking passes over every batch once this one completes

    @property
    def created(self) -> bool:
        return self.centers is not None

    @property
    def complete(self) -> bool:
        return self.created and not self.remaining

    @property
    def uids(self) -> np.ndarray:
        return np.concatenate([[self.target], self.born]).astype(np.int64)


def _posterior_of(model, batch, resp: np.ndarray):
    stats = {"N": resp.sum(axis=0), **model.obs.suff_stats(batch, resp, model.obs_prior)}
    return expfam.posterior(model.obs, model.obs_prior, stats)


def _log_proportions(mass: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(mass / max(float(mass.sum()), 1e-300))


def _column(params, uid: int) -> int:
    return int(np.flatnonzero(params.uids == uid)[0])


def ask(proposal: TrackedBirth, params, config, rng):
    """What the proposal asks of the batch it visits, where the batch lives (:mod:`.birth_work`):
    while collecting, up to the rest of its pool's room of the target's items; once created, the
    batch's expansion."""
    column = _column(params, proposal.target)
    if not proposal.created:
        return Collect(column, config.birth_max_items - proposal.pool_size, config.birth_resp_threshold,
                       int(rng.integers(2 ** 62)))
    return Expand(column, proposal.centers, proposal.log_weights, proposal.uids)


def advance(model: Movable, proposal: TrackedBirth, b: int, answer, params, config, rng, expand_all=None):
    """The proposal after batch ``b`` answered its :func:`ask` (a :class:`~.birth_work.Pooled`
    pool, or an expansion): ``(proposal or None, again)``; ``None`` if no split was found, ``again``
    if it was just created and now asks for batch ``b``'s expansion. ``expand_all`` (a callable,
    for :class:`~stickbreak.core.protocols.WholeDataBirths` models): a created proposal is handed to
    it, which expands every batch and returns it complete.

    When the target gives up all its mass its log-weight is -inf, so its column of the split is
    exactly zero, its posterior the prior and its weight stays zero.
    """
    if not proposal.created:
        pool = proposal.pool + ((answer.items,) if answer.size else ())
        proposal = replace(proposal, pool=pool, pool_size=proposal.pool_size + answer.size,
                           collected_from=proposal.collected_from | {b})
        full_cycle = len(proposal.collected_from) >= proposal.n_batches
        if proposal.pool_size < config.birth_max_items and not full_cycle:
            return proposal, False
        proposal = _create(model, proposal, params, config, rng)
        if proposal is None:
            return None, False
        if expand_all is not None:
            return expand_all(proposal), False
        return proposal, True
    expansions = dict(proposal.expansions)
    expansions[b] = answer
    total = sum(list(expansions.values())[1:], next(iter(expansions.values())))
    if not np.any(total.counts[1:] > 0):  # the newborns have won nothing: no split to track
        return None, False
    item_model = model.birth_item_model
    centers = expfam.posterior(item_model.obs, item_model.obs_prior, total.fields)
    remaining, passes_left = proposal.remaining - {b}, proposal.passes_left
    if not remaining and passes_left > 0:  # another pass: every batch re-expanded under the refined newborns
        remaining, passes_left = frozenset(range(proposal.n_batches)), passes_left - 1
    return replace(proposal, centers=centers, log_weights=_log_proportions(total.counts),
                   expansions=expansions, remaining=remaining, passes_left=passes_left), False


def start(model: Movable, b: int, batch, local, params, target: int, new_uids, n_batches: int, config, rng,
          expand_all=None):
    """A new proposal for ``target`` that starts collecting at batch ``b`` (see :func:`extend`)."""
    proposal = TrackedBirth(target, tuple(int(u) for u in new_uids), n_batches)
    return extend(model, proposal, b, batch, local, params, config, rng, expand_all)


def extend(model: Movable, proposal: TrackedBirth, b: int, batch, local, params, config, rng, expand_all=None):
    """Batch ``b``'s visit of the proposal (local parameters ``local`` under ``params``), answered
    here: collect items or create the newborns, then expand the batch. ``None`` if no split was
    found. (Memoized VI asks where the batch lives instead, :mod:`.birth_work`.)"""
    again = True
    while proposal is not None and again:
        answer = on_local(model, params, batch, local, ask(proposal, params, config, rng))
        proposal, again = advance(model, proposal, b, answer, params, config, rng, expand_all)
    return proposal


def _create(model: Movable, proposal: TrackedBirth, params, config, rng) -> TrackedBirth | None:
    """Newborns from the pooled items: a hard split (k-means++ and hard k-means; for word counts then
    collapsed Gibbs sweeps, :func:`~stickbreak.models.mixture.init.split_labels`), then soft EM on the pool."""
    n_new = int(min(config.birth_max_new, proposal.pool_size // config.birth_min_items, len(proposal.new_uids)))
    if n_new < 2:
        return None
    pool = concat_items(list(proposal.pool))
    model = model.birth_item_model
    labels = split_labels(model, pool, n_new, rng, config.birth_kmeans_iters)
    used = np.unique(labels)
    if len(used) < 2:
        return None
    split = (labels[:, None] == used[None, :]).astype(float)
    for _ in range(config.birth_refine_steps):
        centers = _posterior_of(model, pool, split)
        logits = model.obs.expected_loglik(centers, pool) + _log_proportions(split.sum(axis=0))
        split = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    alive = split.sum(axis=0) > 1e-8  # a group the soft refinement emptied is dropped
    if alive.sum() < 2:
        return None
    split = split[:, alive]
    newborns = _posterior_of(model, pool, split)
    centers = expfam.concat_components(expfam.select_components(params.obs, [_column(params, proposal.target)]),
                                       newborns)
    log_weights = np.concatenate([[-np.log(split.shape[1] + 1.0) if config.birth_keep_target else -np.inf],
                                  _log_proportions(split.sum(axis=0))])
    born = np.asarray(proposal.new_uids[:split.shape[1]], dtype=np.int64)
    return replace(proposal, pool=(), born=born, centers=centers, log_weights=log_weights, expansions={},
                   remaining=frozenset(range(proposal.n_batches)), passes_left=config.birth_passes - 1)


def candidate(stats: SuffStats, proposal: TrackedBirth) -> SuffStats:
    """Whole-data statistics with the birth applied: the target's row replaced by its kept part, the
    newborns appended (Eq. 4.22); for full-width expansions, simply their sum."""
    parts = list(proposal.expansions.values())
    total = sum(parts[1:], parts[0])
    if proposal.full_width:
        return total.without_merge_terms().clipped()
    return stats.with_components(total).clipped()


def cleaned(model: Movable, stats: SuffStats, proposal: TrackedBirth) -> TrackedBirth:
    """The complete proposal after greedy exact merges among its newborns (bnpy's birth cleanup).

    A split into ``J`` newborns pays the prior cost of every one of them, so a target that holds
    two groups but not four fails as a four-way split. Each pair whose merged entropy the
    expansions carry (mixtures gather them for every pair of newborns, topic models for every pair
    of [target, newborns]) is tried: the merge that raises the candidate's exact ELBO most is
    applied to every batch's expansion, and the search repeats over the remaining pairs until no
    merge helps. Each batch's expansion stays the statistics of a valid split of that batch's target
    mass, so the result is judged exactly like any proposal. A :class:`MergesByRows` model scores
    each pair from its two rows (one full scoring per round, not one per pair).
    """
    if proposal.full_width or len(proposal.born) < 2 or not len(next(iter(proposal.expansions.values())).merge_pairs):
        return proposal
    by_rows = declares(model, MergesByRows)
    while len(proposal.born) >= 2:
        parts = list(proposal.expansions.values())
        total = sum(parts[1:], parts[0])
        whole = stats.with_components(total).clipped()  # candidate(stats, proposal)
        params, terms = model.score(whole)
        best, chosen = total_elbo(terms), None
        for kept, removed in total.merge_pairs.tolist():  # tried on the sum; applied to every batch once chosen
            if by_rows:
                narrow = model.merge_row_fields
                merged_whole = stats.without_fields(narrow).with_components(
                    total.without_fields(narrow).merge(kept, removed)).clipped()
                merged_terms = model.merge_terms(whole, merged_whole, params, terms, kept, removed)
            else:
                merged_terms = model.score(stats.with_components(total.merge(kept, removed)).clipped())[1]
            if total_elbo(merged_terms) > best:  # NaN never
                best, chosen = total_elbo(merged_terms), (kept, removed)
        if chosen is None:
            break
        kept, removed = chosen
        proposal = replace(proposal, born=proposal.born[proposal.born != removed],
                           expansions={b: e.merge(kept, removed) for b, e in proposal.expansions.items()})
    return proposal


def best_order(model: Movable, candidate: SuffStats):
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
