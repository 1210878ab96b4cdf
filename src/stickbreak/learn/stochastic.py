"""Stochastic variational inference (Hoffman et al. 2013, Alg. 1; Hughes 2016, Alg. 3.2).

Each step draws a minibatch, runs the local step on it, scales its statistics by
``n_items / batch_size`` (as if the whole data looked like the minibatch), computes the global
step from them and moves the global parameters a fraction ``rho_t`` towards it in natural
coordinates. A lap is ``n_batches`` steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..core.protocols import Model, require, total_elbo
from ..core.suffstats import SuffStats
from ..data import batch_indices
from ..data.shards import ShardStore
from ..parallel import LocalExecutor, Request, summarize_batches
from .base import LapResult, SavesWithinLaps

SAMPLING = ("without_replacement", "with_replacement")


class InMemoryMinibatches:
    """Fresh random minibatches of an in-memory data set every lap.

    ``"without_replacement"``: the items are shuffled and cut into ``n_batches`` minibatches, so a
    lap visits every item once; ``"with_replacement"``: each minibatch draws ``n_items / n_batches``
    items uniformly at random.
    """

    def __init__(self, data, n_batches: int, sampling: str = "without_replacement"):
        if sampling not in SAMPLING:
            raise ValueError(f"sampling={sampling!r} is not valid; choose one of {list(SAMPLING)}")
        self.data = data
        self.n_batches = n_batches
        self.sampling = sampling
        self.n_items = data.n_items

    @property
    def n_features(self) -> int:
        return self.data.n_features

    def __len__(self) -> int:
        """Minibatches (steps) per lap."""
        return self.n_batches

    def lap_rows(self, rng: np.random.Generator):
        """The item indices of each minibatch of one lap (what :meth:`lap` subsets)."""
        if self.sampling == "without_replacement":
            yield from batch_indices(self.n_items, self.n_batches, int(rng.integers(2**31)))
        else:
            size = max(1, self.n_items // self.n_batches)
            for _ in range(self.n_batches):
                yield np.sort(rng.integers(0, self.n_items, size))

    def lap(self, rng: np.random.Generator):
        for index in self.lap_rows(rng):
            yield self.data.subset(index)

    def lap_requests(self, rng: np.random.Generator):
        """``(batches, request, n_items)`` per minibatch of one lap, for an executor: the items
        ``rows`` of the data seen as one batch (the same minibatches as :meth:`lap`)."""
        whole = (self.data,)
        for index in self.lap_rows(rng):
            yield whole, Request(0, np.asarray(index)), len(index)


class StoredMinibatches:
    """Minibatches that are the fixed batches of a (possibly on-disk) sequence, visited in random order."""

    def __init__(self, batches, sampling: str = "without_replacement"):
        if sampling not in SAMPLING:
            raise ValueError(f"sampling={sampling!r} is not valid; choose one of {list(SAMPLING)}")
        self.batches = batches
        self.sampling = sampling
        self.n_items = int(sum(b.n_items for b in batches))

    @property
    def n_features(self) -> int:
        if not len(self.batches):
            raise ValueError("cannot tell the vocabulary size of this minibatch source; start from parameters instead")
        return self.batches[0].n_features

    def __len__(self) -> int:
        """Minibatches (steps) per lap."""
        return len(self.batches)

    def lap(self, rng: np.random.Generator):
        n = len(self.batches)
        order = rng.permutation(n) if self.sampling == "without_replacement" else rng.integers(0, n, n)
        for b in order:
            yield self.batches[int(b)]

    def lap_requests(self, rng: np.random.Generator):
        """``(batches, request, n_items)`` per minibatch of one lap, for an executor (as :meth:`lap`)."""
        n = len(self.batches)
        order = rng.permutation(n) if self.sampling == "without_replacement" else rng.integers(0, n, n)
        sizes = self.batches.meta["sizes"] if isinstance(self.batches, ShardStore) else None
        for b in order:
            size = sizes[int(b)] if sizes is not None else self.batches[int(b)].n_items
            yield self.batches, Request(int(b)), int(size)


@dataclass(frozen=True, eq=False)
class StochasticState:
    params: Any
    stats: SuffStats | None  # amplified statistics of the lap's minibatches, averaged
    step: int = 0


@dataclass(frozen=True, eq=False)
class StochasticLapInProgress:
    """An SVI lap checkpointed after its first ``position`` steps: the generator's state at the
    lap's start (to draw the same minibatches again), the parameters, step count and the sum and
    number of the lap's amplified statistics so far."""

    lap_rng: Mapping[str, Any]
    position: int
    params: Any
    stats_sum: SuffStats | None
    count: int
    step: int


class StochasticVI(SavesWithinLaps):
    """SVI with a step-size ``schedule`` (``step -> rho``), e.g. :class:`~.schedules.RobbinsMonro`."""

    name = "stochastic"

    def __init__(self, schedule, rng: np.random.Generator):
        self.schedule = schedule
        self.rng = rng

    def start(self, model: Model, minibatches, params) -> StochasticState:
        require(model, Model, "stochastic VI")
        return StochasticState(params, None, 0)

    def step(self, model: Model, params, batch, n_items: int, step: int, estimate: bool = True):
        """One SVI step on ``batch``: returns ``(new_params, amplified_stats, elbo_estimate_terms)``;
        the estimate (unbiased for the ELBO at ``params``) is ``None`` unless ``estimate``."""
        stats = LocalExecutor().local_summaries(model, params, (batch,), [Request(0)])[0][0]
        return self._update(model, params, stats, n_items / model.n_items(batch), step, estimate)

    def _update(self, model: Model, params, stats, scale: float, step: int, estimate: bool):
        """The step from a minibatch's statistics: amplified by ``scale``, blended at ``rho_step``."""
        stats = stats.scaled(scale)
        terms = model.elbo_terms(params, stats) if estimate else None
        target = model.global_step(stats, params)
        return model.blend(params, target, self.schedule(step)), stats, terms

    def saved_state(self, state, batches, executor=None):
        """The state is whole on the driver: a checkpoint holds it as it is."""
        return state

    def lap(self, model: Model, minibatches, state, executor=None, within=None) -> LapResult:
        """``n_batches`` steps (or the rest of a :class:`StochasticLapInProgress`; ``within`` is
        offered the lap in progress after every step). The lap's ELBO is that of the final global
        parameters with the minibatches' local parameters: the mean amplified statistics are the
        whole-data statistics when a lap visits every item once in equal minibatches (an estimate
        otherwise), and the topic and mixture ELBOs are exact for any statistics. One evaluation
        per lap, not per step."""
        if isinstance(state, StochasticLapInProgress):  # the same minibatches, from the same draws
            self.rng.bit_generator.state = state.lap_rng
            lap_rng, position = state.lap_rng, state.position
            params, step, stats_sum, count = state.params, state.step, state.stats_sum, state.count
        else:
            lap_rng, position = self.rng.bit_generator.state, 0
            params, step, stats_sum, count = state.params, state.step, None, 0
        executor = executor or LocalExecutor()
        for i, (batches, request, size) in enumerate(minibatches.lap_requests(self.rng)):
            if i < position:  # done before the lap was checkpointed
                continue
            if within is not None and i > position and within.due():
                within.save(StochasticLapInProgress(lap_rng, i, params, stats_sum, count, step))
            step += 1
            fresh = executor.local_summaries(model, params, batches, [request])[0][0]
            params, stats, _ = self._update(model, params, fresh, minibatches.n_items / size, step, estimate=False)
            stats_sum = stats if stats_sum is None else stats_sum + stats
            count += 1
            if within is not None:
                within.visited(i + 1, len(minibatches))
        if stats_sum is None:
            raise ValueError("a stochastic lap needs at least one minibatch")
        mean_stats = stats_sum.scaled(1.0 / count)
        return LapResult(StochasticState(params, mean_stats, step), model.elbo_terms(params, mean_stats), exact=False)


def exact_elbo(model: Model, params, batches, executor=None) -> float:
    """The exact whole-data ELBO of ``params`` with optimal local parameters (one extra pass)."""

    return total_elbo(model.elbo_terms(params, summarize_batches(model, params, batches, executor)[0]))
