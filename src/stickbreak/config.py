"""Frozen, validated configuration for every component; estimators and the CLI map onto these.

Each dataclass validates itself on construction, so a bad option fails with a clear message
before any data is read or any work is done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from . import obs

WEIGHT_MODELS = ("dp", "finite")
ALGORITHMS = ("vb",)
INIT_METHODS = ("kmeans++", "random")


def check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name}={value!r} is not valid; choose one of {list(choices)}")


def check_int(name: str, value, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) and not (hasattr(value, "__index__")):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")


def check_positive(name: str, value, allow_zero: bool = False) -> None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {value!r}") from None
    ok = value >= 0 if allow_zero else value > 0
    if not ok or value != value or value == float("inf"):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'} and finite, got {value}")


@dataclass(frozen=True)
class MixtureConfig:
    """A mixture model: observation family, weight model, truncation and priors."""

    obs_model: str = "gauss"
    weights: str = "dp"
    n_components: int = 20
    concentration: float = 1.0
    obs_prior: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        family = obs.get(self.obs_model)
        check_choice("weights", self.weights, WEIGHT_MODELS)
        check_int("n_components", self.n_components, 1)
        check_positive("concentration", self.concentration)
        if not isinstance(self.obs_prior, Mapping):
            raise TypeError(f"obs_prior must be a dict of prior options, got {type(self.obs_prior).__name__}")
        obs.expfam.check_prior_options(family, self.obs_prior)


@dataclass(frozen=True)
class InitConfig:
    """How the first global parameters are chosen (Hughes 2016, §2.7 and Alg. 2.1-2.2)."""

    method: str = "kmeans++"
    n_kmeans_iters: int = 3

    def __post_init__(self):
        check_choice("init", self.method, INIT_METHODS)
        check_int("n_kmeans_iters", self.n_kmeans_iters, 0)


@dataclass(frozen=True)
class LearnConfig:
    """The training loop: algorithm, laps, convergence and batching."""

    algorithm: str = "vb"
    max_laps: int = 200
    min_laps: int = 2
    tol: float = 1e-6
    n_batches: int = 1
    n_jobs: int = 1

    def __post_init__(self):
        check_choice("algorithm", self.algorithm, ALGORITHMS)
        check_int("max_laps", self.max_laps, 1)
        check_int("min_laps", self.min_laps, 1)
        check_positive("tol", self.tol, allow_zero=True)
        check_int("n_batches", self.n_batches, 1)
        check_int("n_jobs", self.n_jobs, 1)
