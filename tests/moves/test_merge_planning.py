"""Merge planning (:func:`stickbreak.moves.merge.plan_pairs`): pairs ranked by the model's screen,
a sign test only where the screen bounds the gain, failed pairs skipped before the budget."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stickbreak.core.suffstats import SuffStats
from stickbreak.moves.merge import plan_pairs


@dataclass
class Screened:
    """Just what planning reads: a score per pair and whether it bounds the gain."""

    scores: dict
    merge_scores_bound_gain: bool

    def merge_scores(self, params, stats, first, second):
        return np.array([self.scores.get((int(a), int(b)), -np.inf) for a, b in zip(first, second)])


STATS = SuffStats(np.array([10, 11, 12, 13]), {"N": np.array([5.0, 4.0, 3.0, 2.0])})
SCORES = {(0, 1): -3.0, (2, 3): -1.0, (0, 2): 2.0}


def test_a_bounding_screen_plans_only_positive_pairs_and_a_ranking_plans_the_best_whatever_their_sign():
    bound = plan_pairs(Screened(SCORES, True), None, STATS, max_pairs=10, per_component=5)
    assert bound.tolist() == [[10, 12]]
    ranked = plan_pairs(Screened(SCORES, False), None, STATS, max_pairs=10, per_component=5)
    assert ranked.tolist() == [[10, 12], [12, 13], [10, 11]]  # -inf pairs never
    assert plan_pairs(Screened(SCORES, False), None, STATS, max_pairs=2,
                      per_component=5).tolist() == [[10, 12], [12, 13]]


def test_skipped_pairs_leave_the_budget_to_the_next_ones():
    skip = {(10, 12)}
    planned = plan_pairs(Screened(SCORES, False), None, STATS, max_pairs=2, per_component=5, skip=lambda p: p in skip)
    assert planned.tolist() == [[12, 13], [10, 11]]
    assert plan_pairs(Screened(SCORES, False), None, STATS, max_pairs=5, per_component=1).tolist() == [[10, 12]]
