"""Step-size schedules for stochastic VI."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RobbinsMonro:
    """``rho_t = (t + delay)^(-decay)`` (Hoffman et al. 2013, Eq. 26; Hughes 2016, Alg. 3.2).

    ``decay`` (kappa) in (0.5, 1] and ``delay`` (tau) >= 0 satisfy the Robbins-Monro conditions
    ``sum rho = inf``, ``sum rho^2 < inf``; ``t`` counts steps from 1. ``floor`` bounds the step
    below (Wang & Blei 2012, §3, floor both methods at ``S / n``: minibatch size over corpus size).
    """

    delay: float = 10.0
    decay: float = 0.7
    floor: float = 0.0

    def __post_init__(self):
        if not 0.5 < self.decay <= 1.0:
            raise ValueError(f"learning_rate_decay (kappa) must be in (0.5, 1], got {self.decay}")
        if not self.delay >= 0:
            raise ValueError(f"learning_rate_delay (tau) must be >= 0, got {self.delay}")
        if not 0.0 <= self.floor <= 1.0:
            raise ValueError(f"the step-size floor must be in [0, 1], got {self.floor}")

    def __call__(self, step: int) -> float:
        return max(self.floor, min(1.0, (step + self.delay) ** (-self.decay)))


@dataclass(frozen=True)
class Constant:
    """A fixed step size ``rho`` in (0, 1] (no convergence guarantee unless ``rho = 1`` on all data)."""

    rho: float

    def __post_init__(self):
        if not 0.0 < self.rho <= 1.0:
            raise ValueError(f"a constant step size must be in (0, 1], got {self.rho}")

    def __call__(self, step: int) -> float:
        return self.rho


def as_schedule(schedule):
    """A schedule from a schedule object, a callable ``step -> rho`` or a constant number."""
    if isinstance(schedule, (int, float)):
        return Constant(float(schedule))
    if callable(schedule):
        return schedule
    raise TypeError(f"a step-size schedule must be callable or a number, got {type(schedule).__name__}")
