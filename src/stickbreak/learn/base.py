"""What every learning algorithm hands back to the driver after a lap."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class ELBODecreaseWarning(RuntimeWarning):
    """The ELBO went down where the theory says it cannot: a bug or severe round-off."""


@dataclass(frozen=True, eq=False)
class LapResult:
    """The learner's new state and what the lap achieved.

    ``elbo_terms`` are exact whole-data ELBO terms when ``exact`` is true (batch VB; memoized VI
    after its first lap), otherwise an estimate (stochastic VI). ``moves`` counts proposals per
    kind, e.g. ``{"merge": {"tried": 4, "accepted": 1}}``.
    """

    state: Any
    elbo_terms: dict[str, float]
    exact: bool
    moves: dict[str, dict[str, int]] = field(default_factory=dict)
    settled: bool = True  # False while moves are still changing the model: no convergence yet


class Learner(Protocol):
    name: str

    def start(self, model, batches, params) -> Any:
        """Initial learner state from initial global parameters."""

    def lap(self, model, batches, state, executor) -> LapResult:
        """One pass over the data."""


class Resumable(Learner, Protocol):
    """A learner whose runs can be checkpointed (the registry's ``resumable``)."""

    def saved_state(self, state, batches, executor) -> Any:
        """``state`` complete for a checkpoint, with what lives outside the driver fetched (memoized
        VI's batch caches); a run continues from it exactly."""


class WithinLap(Protocol):
    """The driver within a lap, as a learner sees it: its progress, and its checkpoints within a long lap."""

    def visited(self, done: int, total: int) -> None:
        """``done`` of the lap's ``total`` batches (or steps) are complete (the progress bar moves)."""

    def due(self) -> bool:
        """Whether a checkpoint is due now (its interval has passed since the last one)."""

    def save(self, state) -> None:
        """Write ``state``, a lap in progress complete for a checkpoint."""


class SavesWithinLaps(Resumable, Protocol):
    """A learner that reports its batches and checkpoints within its laps: ``lap(..., within=)``
    calls ``within.visited`` after every batch and hands ``within.save`` a state of the lap in
    progress whenever ``within.due()``; ``lap`` given such a state finishes that lap, as if it had
    not stopped."""

    def lap(self, model, batches, state, executor=None, within: WithinLap | None = None) -> LapResult:
        """One pass over the data, or the rest of the pass ``state`` stopped in."""
