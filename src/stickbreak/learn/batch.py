"""Full-dataset variational Bayes (Hughes 2016, Alg. 3.1): one local step over all batches, one global step."""

from __future__ import annotations

from ..parallel import summarize_batches


def lap(model, batches, params, executor=None):
    """One coordinate-ascent sweep. Returns ``(new_params, stats)``; the ELBO of ``(stats, new_params)``
    is exact and never decreases from lap to lap."""
    stats = summarize_batches(model, params, batches, executor)
    return model.global_step(stats), stats
