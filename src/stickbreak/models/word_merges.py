"""The data part of merge scores over word counts (a topic model's topics, a mixture's clusters of
documents), screened: ``Delta L_data`` (:func:`stickbreak.obs.expfam.data_gain`) costs O(V) per pair,
O(K^2 V) for all pairs, so it is computed only for the pairs that join a component to one of its
``MERGE_SCREEN_NEIGHBOURS`` nearest by the cosine of their word counts (O(K^2) after one K x V
product); the others score -inf and are never planned. Scores only rank the pairs: a merge is
accepted on the exact ELBO (Hughes 2016, §4.1)."""

from __future__ import annotations

import numpy as np

from ..core.suffstats import SuffStats
from ..obs import mult
from ..obs.expfam import Natural, data_gain

#: Merge screening: each component's nearest components (cosine of word counts) whose data gain is computed.
MERGE_SCREEN_NEIGHBOURS = 10


def screened_data_gain(obs_prior: Natural, post: Natural, stats: SuffStats, first: np.ndarray,
                       second: np.ndarray) -> np.ndarray:
    """``Delta L_data`` of merging ``second[m]`` into ``first[m]`` for the near pairs, -inf for the others."""
    scores = np.full(len(first), -np.inf)
    counts = stats.fields["word_counts"]
    near = near_pairs(counts, first, second, MERGE_SCREEN_NEIGHBOURS)
    if near.any():
        scores[near] = data_gain(mult, obs_prior, post, stats, first[near], second[near],
                                 lambda a, b: mult.merged_log_normalizers(obs_prior, counts, a, b))
    return scores


def near_pairs(word_counts: np.ndarray, first: np.ndarray, second: np.ndarray, neighbours: int) -> np.ndarray:
    """Which pairs ``(first[m], second[m])`` join a component to one of its ``neighbours`` most
    similar components (cosine of the rows of ``word_counts``), as a boolean mask."""
    n_topics = word_counts.shape[0]
    if n_topics - 1 <= neighbours:
        return np.ones(len(first), dtype=bool)
    rows = np.asarray(word_counts, dtype=float)
    unit = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-300)
    similarity = unit @ unit.T
    np.fill_diagonal(similarity, -np.inf)
    nearest = np.argpartition(-similarity, neighbours, axis=1)[:, :neighbours]
    close = np.zeros((n_topics, n_topics), dtype=bool)
    close[np.repeat(np.arange(n_topics), neighbours), nearest.ravel()] = True
    close |= close.T
    return close[first, second]
