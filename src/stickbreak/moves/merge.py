"""The merge move (Hughes 2016, §4.1): two components become one; accepted on the exact ELBO.

Planning happens at the start of a lap from the whole-data statistics alone: for mixtures each
pair's m-score ``Delta L_data + Delta L_weights`` is an *upper bound* on the true gain (merging can
only lower the entropy term; the thesis's "lower bound" is a typo, §10), so pairs with a negative
score are never worth trying; where a model's score only ranks pairs (topic models:
``merge_scores_bound_gain``), the best-ranked are tried whatever their sign. During the lap every
batch gathers the merged entropy of the planned pairs. At the lap's end pairs are tried greedily,
best score first, each accepted only if the exact whole-data ELBO rises; a pair that shares a
component with an accepted one is skipped (its cached entropy is stale).

Each model screens pairs with its own score (:meth:`~stickbreak.core.protocols.Movable.merge_scores`):
for mixtures the m-score above (:func:`stickbreak.models.mixture.moves.pair_scores`); for hidden Markov
models the merged chain's entropy can exceed the original's, so there the score is a screen, not
a bound; acceptance stays exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.protocols import MergesByRows, Movable, declares, total_elbo
from ..core.suffstats import SuffStats


@dataclass(frozen=True)
class MergeOutcome:
    stats: SuffStats
    params: object
    terms: dict
    elbo: float
    accepted: tuple[tuple[int, int], ...]  # (kept, removed) uid pairs
    tried: int


def plan_pairs(model: Movable, params, stats, max_pairs: int, per_component: int, exclude=(),
               skip=None) -> np.ndarray:
    """Up to ``max_pairs`` uid pairs, best m-score first, each component in at most
    ``per_component`` of them; components in ``exclude`` and pairs for which ``skip(pair)`` holds (failed
    recently) are left out before the budget is counted. Pairs scoring ``-inf`` are never planned,
    nor, when the model's scores bound the gain (``merge_scores_bound_gain``), those scoring <= 0.
    Shape (M, 2)."""
    uids = stats.uids
    allowed = np.flatnonzero(~np.isin(uids, list(exclude)))
    if len(allowed) < 2:
        return np.zeros((0, 2), dtype=np.int64)
    first, second = np.triu_indices(len(allowed), k=1)
    first, second = allowed[first], allowed[second]
    scores = model.merge_scores(params, stats, first, second)
    floor = 0.0 if model.merge_scores_bound_gain else -np.inf
    chosen, uses = [], {}
    for m in np.argsort(-scores, kind="stable"):
        if not scores[m] > floor or len(chosen) >= max_pairs:
            break
        a, b = int(first[m]), int(second[m])
        if uses.get(a, 0) >= per_component or uses.get(b, 0) >= per_component:
            continue
        pair = (int(uids[a]), int(uids[b]))
        if skip is not None and skip(pair):
            continue
        uses[a] = uses.get(a, 0) + 1
        uses[b] = uses.get(b, 0) + 1
        chosen.append(pair)
    return np.array(chosen, dtype=np.int64).reshape(-1, 2)


def try_merges(model: Movable, stats, params, terms: dict, pairs: np.ndarray, pair_entropy: np.ndarray,
               pair_fields=None) -> MergeOutcome:
    """Greedy exact acceptance of the planned pairs (in plan order) with their gathered entropies
    (and merged values of non-additive fields)."""
    stats = stats.with_merge_terms(pairs, pair_entropy, pair_fields)
    elbo = total_elbo(terms)
    touched: set[int] = set()
    accepted = []
    tried = 0
    for kept, removed in pairs:
        kept, removed = int(kept), int(removed)
        if kept in touched or removed in touched:
            continue
        tried += 1
        bound_against = [k for k, _ in accepted]
        if declares(model, MergesByRows):  # judged from the two rows; the full step only once accepted
            narrow = stats.without_fields(model.merge_row_fields).merge(kept, removed, bound_against=bound_against)
            if not total_elbo(model.merge_terms(stats, narrow, params, terms, kept, removed)) > elbo:
                continue
        candidate = stats.merge(kept, removed, bound_against=bound_against)
        cand_params, cand_terms = model.score(candidate, params)
        cand_elbo = total_elbo(cand_terms)
        if cand_elbo > elbo:
            stats, params, terms, elbo = candidate, cand_params, cand_terms, cand_elbo
            touched.update((kept, removed))
            accepted.append((kept, removed))
    return MergeOutcome(stats.without_merge_terms(), params, terms, elbo, tuple(accepted), tried)
