"""The weights' ELBO change of merging mixture components, by refitting the weights for each pair:
the reference for every weight model, and what the models without a closed form use."""

from __future__ import annotations

import numpy as np


def refitted_gains(global_step, elbo, prior, counts: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``L_weights(merged counts) - L_weights(counts)`` for merging component ``second[m]`` into
    ``first[m]`` (``first < second``), the weights refitted by ``global_step`` and scored by
    ``elbo`` (a weight model's own): one refit per pair."""
    base = elbo(prior, global_step(prior, counts), counts)
    gains = np.empty(len(first))
    for m, (a, b) in enumerate(zip(first, second)):  # pairs, not items: at most the planned merge pairs
        merged = counts.copy()
        merged[a] += merged[b]
        merged = np.delete(merged, b)
        gains[m] = elbo(prior, global_step(prior, merged), merged) - base
    return gains
