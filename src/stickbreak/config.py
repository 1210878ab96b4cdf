"""Frozen, validated configuration for every component; estimators and the CLI map onto these.

Each dataclass validates itself on construction, so a bad option fails with a clear message
before any data is read or any work is done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from . import obs
from .core.validate import check_choice, check_int, check_n_active, check_positive  # noqa: F401 (re-exported)
from .learn.registry import (ALGORITHM_ALIASES, ALGORITHMS, COLLAPSED_ALGORITHMS,  # noqa: F401 (re-exported)
                             MINIBATCH_ALGORITHMS)
from .learn.schedules import RobbinsMonro

WEIGHT_MODELS = ("dp", "finite")
INIT_METHODS = ("kmeans++", "random")
MOVE_KINDS = ("birth", "merge", "delete")
SAMPLING = ("without_replacement", "with_replacement")


@dataclass(frozen=True)
class MixtureConfig:
    """A mixture model: observation family, weight model, truncation and priors; ``n_active`` (None
    or L >= 1) keeps at most L non-zero responsibilities per item (Hughes 2016, Sec. 7.1)."""

    obs_model: str = "gauss"
    weights: str = "dp"
    n_components: int = 20
    concentration: float = 1.0
    obs_prior: Mapping[str, Any] = field(default_factory=dict)
    n_active: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "n_active", check_n_active(self.n_active))
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
class MovesConfig:
    """Birth, merge and delete moves of memoized VI; defaults follow bnpy where it has one.

    ``moves`` names the moves to run. Births split a component's items in one batch into up to
    ``birth_max_new`` components (bnpy ``b_Kfresh``); ``max_components`` caps K (bnpy ``Kmax``).
    Merges try up to ``merge_max_pairs`` pairs a lap, each component in at most
    ``merge_pairs_per_component``. Deletes absorb the smallest components, together at most
    ``delete_max_fraction`` of the data, into all others, refining ``delete_refine_steps`` times per
    batch; one component at first, the group doubling after each accepted delete and halving after
    each rejected one, up to ``delete_max_targets``. ``reorder`` sorts
    components by size at each lap's end when that raises the ELBO (bnpy's shuffle).
    """

    moves: tuple[str, ...] = ()
    birth_start_lap: int = 1
    birth_max_new: int = 4
    birth_min_items: int = 10
    birth_max_items: int = 1500
    birth_resp_threshold: float = 0.1
    birth_kmeans_iters: int = 3
    birth_refine_steps: int = 3
    births_per_batch: int = 1
    birth_max_active: int = 8
    birth_keep_target: bool = False
    max_components: int = 200
    merge_start_lap: int = 2
    merge_max_pairs: int = 500
    merge_pairs_per_component: int = 5
    delete_start_lap: int = 2
    delete_refine_steps: int = 5
    delete_max_fraction: float = 0.5
    delete_max_targets: int = 1
    reorder: bool = True

    def __post_init__(self):
        moves = tuple(self.moves or ())
        object.__setattr__(self, "moves", moves)
        for move in moves:
            check_choice("move", move, MOVE_KINDS)
        for name in ("birth_start_lap", "merge_start_lap", "delete_start_lap", "birth_kmeans_iters"):
            check_int(name, getattr(self, name), 0)
        for name in ("birth_max_new", "birth_min_items", "birth_max_items", "birth_refine_steps", "births_per_batch", "birth_max_active",
                     "max_components", "merge_max_pairs", "merge_pairs_per_component", "delete_refine_steps",
                     "delete_max_targets"):
            check_int(name, getattr(self, name), 1)
        if self.birth_max_new < 2:
            raise ValueError("birth_max_new must be >= 2: a birth splits a component in at least two")
        for name in ("birth_resp_threshold", "delete_max_fraction"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"{name} must be in (0, 1], got {value}")

    def enabled(self, kind: str) -> bool:
        return kind in self.moves


@dataclass(frozen=True)
class LearnConfig:
    """The training loop: algorithm, laps, convergence, batching and the stochastic step size."""

    algorithm: str = "vb"
    max_laps: int = 200
    min_laps: int = 2
    tol: float = 1e-6
    n_batches: int = 1
    n_jobs: int = 1
    learning_rate_delay: float = 10.0
    learning_rate_decay: float = 0.7
    sampling: str = "without_replacement"

    def __post_init__(self):
        check_choice("algorithm", self.algorithm, ALGORITHMS)
        object.__setattr__(self, "algorithm", ALGORITHM_ALIASES.get(self.algorithm, self.algorithm))
        check_choice("sampling", self.sampling, SAMPLING)
        check_int("max_laps", self.max_laps, 1)
        check_int("min_laps", self.min_laps, 1)
        check_positive("tol", self.tol, allow_zero=True)
        check_int("n_batches", self.n_batches, 1)
        check_int("n_jobs", self.n_jobs, 1)
        RobbinsMonro(self.learning_rate_delay, self.learning_rate_decay)  # validates kappa and tau


def moves_config(moves, move_options, allowed=MOVE_KINDS, owner: str = "this model", defaults=None) -> MovesConfig:
    """A :class:`MovesConfig` from an estimator's ``moves`` and ``move_options`` (over the
    estimator's own ``defaults``), with clear errors."""
    options = dict(move_options or {})
    valid = set(MovesConfig.__dataclass_fields__) - {"moves"}
    unknown = sorted(set(options) - valid)
    if unknown or "moves" in options:
        raise ValueError(f"unknown move option(s) {unknown or ['moves']}; valid options are {sorted(valid)}")
    moves = tuple([moves] if isinstance(moves, str) else (moves or ()))
    unsupported = [m for m in moves if m in MOVE_KINDS and m not in allowed]
    if unsupported:
        raise ValueError(f"{owner} does not support the move(s) {unsupported}; choose from {list(allowed)}")
    return MovesConfig(moves=moves, **{**(defaults or {}), **options})
