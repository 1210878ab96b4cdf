"""Full-dataset variational Bayes (Hughes 2016, Alg. 3.1): one local step over all batches, one global step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.protocols import Model, require
from ..core.suffstats import SuffStats
from ..parallel import summarize_batches
from .base import LapResult


@dataclass(frozen=True, eq=False)
class BatchState:
    params: Any
    stats: SuffStats | None = None
    warm: tuple | None = None  # per batch: the model's warm start for the next lap (topic counts), or None


class BatchVB:
    """Coordinate ascent on the whole data; the ELBO never decreases from lap to lap."""

    name = "vb"

    def start(self, model: Model, batches, params) -> BatchState:
        require(model, Model, "batch VB")
        return BatchState(params)

    def saved_state(self, state, batches, executor=None):
        """The state is whole on the driver: a checkpoint holds it as it is."""
        return state

    def lap(self, model: Model, batches, state: BatchState, executor=None) -> LapResult:
        stats, warm = summarize_batches(model, state.params, batches, executor, state.warm)
        params = model.global_step(stats, state.params)
        return LapResult(BatchState(params, stats, warm), model.elbo_terms(params, stats), exact=True)
