"""Frozen, validated configuration for every component; estimators and the CLI map onto these.

Each dataclass validates itself on construction, so a bad option fails with a clear message
before any data is read or any work is done.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from difflib import get_close_matches
from typing import Any, Mapping

from . import obs
from .core.validate import check_choice, check_int, check_n_active, check_positive  # noqa: F401 (re-exported)
from .learn.registry import (ALGORITHM_ALIASES, ALGORITHMS, COLLAPSED_ALGORITHMS,  # noqa: F401 (re-exported)
                             MINIBATCH_ALGORITHMS, algorithm_names)
from .learn.schedules import RobbinsMonro
from .learn.streaming import WINDOW_ITEMS
from .priors import MIXTURE_WEIGHTS
from .models.topics.init import GIBBS_INIT_SWEEPS, GIBBS_INIT_TOKENS

INIT_METHODS = ("kmeans++", "random", "gibbs")
MOVE_KINDS = ("birth", "merge", "delete")
SAMPLING = ("without_replacement", "with_replacement")
LOCAL_STARTS = ("scratch", "warm", "best")


@dataclass(frozen=True)
class MixtureConfig:
    """A mixture model: observation family, weight model, truncation and priors; ``n_active`` (None
    or L >= 1) keeps at most L non-zero responsibilities per item (Hughes 2016, Sec. 7.1);
    ``learn_concentration``: the weights' concentration by empirical Bayes, ``concentration`` its start."""

    obs_model: str = "gauss"
    weights: str = "dp"
    n_components: int = 20
    concentration: float = 1.0
    obs_prior: Mapping[str, Any] = field(default_factory=dict)
    n_active: int | None = None
    learn_concentration: bool = False

    def __post_init__(self):
        object.__setattr__(self, "n_active", check_n_active(self.n_active))
        family = obs.get(self.obs_model)
        check_choice("weights", self.weights, sorted(MIXTURE_WEIGHTS))
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
    each rejected one, up to ``delete_max_targets``; a delete lap comes at most every
    ``delete_every`` laps (0: every other lap with births on, every lap without). ``reorder`` sorts
    components by size at each lap's end when that raises the ELBO (bnpy's shuffle).
    ``stream_window``: ``partial_fit`` refits this many of the most recent items with each chunk, so
    that its births are judged on more than one chunk (:func:`stickbreak.learn.streaming.fit_with_window`;
    0: each chunk alone).
    """

    moves: tuple[str, ...] = ()
    birth_start_lap: int = 1
    birth_max_new: int = 4
    birth_min_items: int = 10
    birth_max_items: int = 1500
    birth_resp_threshold: float = 0.1
    birth_kmeans_iters: int = 3
    birth_refine_steps: int = 3
    birth_passes: int = 1
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
    delete_max_targets: int = 8
    delete_every: int = 0
    reorder: bool = True
    stream_window: int = WINDOW_ITEMS

    def __post_init__(self):
        moves = tuple(self.moves or ())
        object.__setattr__(self, "moves", moves)
        for move in moves:
            check_choice("move", move, MOVE_KINDS)
        for name in ("birth_start_lap", "merge_start_lap", "delete_start_lap", "birth_kmeans_iters", "delete_every",
                     "stream_window"):
            check_int(name, getattr(self, name), 0)
        for name in ("birth_max_new", "birth_min_items", "birth_max_items", "birth_refine_steps", "birth_passes",
                     "births_per_batch", "birth_max_active",
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
        check_choice("algorithm", self.algorithm, algorithm_names())
        object.__setattr__(self, "algorithm", ALGORITHM_ALIASES.get(self.algorithm, self.algorithm))
        check_choice("sampling", self.sampling, SAMPLING)
        check_int("max_laps", self.max_laps, 1)
        check_int("min_laps", self.min_laps, 1)
        check_positive("tol", self.tol, allow_zero=True)
        check_int("n_batches", self.n_batches, 1)
        if self.n_jobs != -1:  # -1: every core, as in scikit-learn and the other estimators
            check_int("n_jobs", self.n_jobs, 1)
        RobbinsMonro(self.learning_rate_delay, self.learning_rate_decay)  # validates kappa and tau


def moves_config(moves, move_options, allowed=MOVE_KINDS, owner: str = "this model", defaults=None,
                 algorithm: str | None = None, default_moves=()) -> MovesConfig:
    """A :class:`MovesConfig` from an estimator's ``moves`` and ``move_options`` (over the
    estimator's own ``defaults``), with clear errors. ``moves=None`` means the estimator's
    ``default_moves`` under memoized VI (``algorithm``) and none under any other algorithm."""
    if moves is None:
        named = algorithm or ""
        moves = default_moves if ALGORITHM_ALIASES.get(named, named) == "memoized" else ()
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


# ---------------------------------------------------------------------------------------------------- algorithm options
# Each estimator's ``algorithm_options`` mapping becomes one of the frozen dataclasses below: the
# knobs that only some algorithms read, named after what reads them, validated before any work.

def _check_optional_int(name: str, value, minimum: int) -> None:
    if value is not None:
        check_int(name, value, minimum)


@dataclass(frozen=True)
class StepSizeOptions:
    """Stochastic VI's step ``(learning_rate_delay + t)^-learning_rate_decay`` (tau, kappa; Hoffman
    et al. 2013); read by algorithm "stochastic" (alias "svi") and ``partial_fit``."""

    learning_rate_delay: float = 10.0
    learning_rate_decay: float = 0.7

    def __post_init__(self):
        RobbinsMonro(self.learning_rate_delay, self.learning_rate_decay)  # validates kappa and tau


@dataclass(frozen=True)
class HMMOptions(StepSizeOptions):
    """``algorithm_options`` of :class:`~stickbreak.HDPHMM` and :class:`~stickbreak.FiniteHMM`."""


@dataclass(frozen=True)
class MixtureOptions(StepSizeOptions):
    """``algorithm_options`` of the mixtures: the step size and ``sampling``, how the minibatches of
    "stochastic" and "truncation_free" are drawn each lap."""

    sampling: str = "without_replacement"

    def __post_init__(self):
        super().__post_init__()
        check_choice("sampling", self.sampling, SAMPLING)


@dataclass(frozen=True)
class DocumentOptions(MixtureOptions):
    """What every topic model's local step reads (algorithms "vb", "stochastic", "memoized"): at
    most ``local_max_iter`` iterations per document, tolerance ``local_tol`` (None: the estimator's
    default for the algorithm), where each document starts (``local_start``) and whether the fixed
    point is accelerated by SQUAREM (``local_accelerate``; None: the estimator's default);
    ``total_docs`` is the corpus size a stream stands for (``partial_fit``, "truncation_free")."""

    local_max_iter: int = 100
    local_tol: float | None = None
    local_start: str = "scratch"
    total_docs: int | None = None
    local_accelerate: bool | None = None

    def __post_init__(self):
        super().__post_init__()
        check_int("local_max_iter", self.local_max_iter, 1)
        if self.local_tol is not None:
            check_positive("local_tol", self.local_tol)
        check_choice("local_start", self.local_start, LOCAL_STARTS)
        if self.local_accelerate is not None and not isinstance(self.local_accelerate, bool):
            raise ValueError(f"local_accelerate must be True, False or None, got {self.local_accelerate!r}")
        _check_optional_int("total_docs", self.total_docs, 1)


@dataclass(frozen=True)
class TopicOptions(DocumentOptions):
    """``algorithm_options`` of :class:`~stickbreak.LDA` and :class:`~stickbreak.HDPTopicModel`.

    ``n_restarts``: sparse restart proposals per document (variational local step, Hughes 2016
    Alg. 5.2). ``burn_in``: sweeps before the held-out predictive is averaged (collapsed
    samplers). ``sample_threshold``: LDA hybrids sample the pairs with at most this count.
    ``doc_truncation``: atoms per document of the HDP's two-level family. ``n_sweeps``,
    ``prune_every``: the HDP's truncation-free SVI (local Gibbs sweeps per minibatch, documents
    between prunes). ``concentration_priors``: the HDP Gibbs sampler's Gamma priors on
    (alpha, gamma), ``((shape, rate), (shape, rate))``, resampled every sweep. ``init_sweeps``,
    ``init_tokens``: the HDP's learned start (``init="gibbs"``), its sampler's sweeps and the most
    tokens it samples (:func:`stickbreak.models.topics.init.gibbs_topics`).
    """

    n_restarts: int = 0
    burn_in: int = 10
    sample_threshold: float = 1
    doc_truncation: int = 20
    n_sweeps: int = 5
    prune_every: int = 20_000
    concentration_priors: Any = None
    init_sweeps: int = GIBBS_INIT_SWEEPS
    init_tokens: int = GIBBS_INIT_TOKENS

    def __post_init__(self):
        super().__post_init__()
        for name, minimum in (("n_restarts", 0), ("burn_in", 0), ("doc_truncation", 1), ("n_sweeps", 0),
                              ("prune_every", 1), ("init_sweeps", 1), ("init_tokens", 1)):
            check_int(name, getattr(self, name), minimum)
        check_positive("sample_threshold", self.sample_threshold, allow_zero=True)
        if self.concentration_priors is not None:
            object.__setattr__(self, "concentration_priors", gamma_priors(self.concentration_priors))


@dataclass(frozen=True)
class DILNOptions(DocumentOptions):
    """``algorithm_options`` of :class:`~stickbreak.DILN`: the paper's step size (zeta = 25, kappa =
    0.75), ``newton_steps``, Newton steps on each document's location per local iteration, and
    ``concentration_update``: "joint" (``V`` and ``beta`` maximised together with every document's
    ``q(Z)``, ours), "paper" (``q(Z)`` held fixed, Eqs. 26 and 29, under which ``beta`` stays near
    ``initial_beta``) or "auto": joint under stochastic VI, paper under batch VI (the better held-out
    score of each in ``benchmarks/results/diln_beta_20newsgroups.md`` and ``diln_stochastic_20newsgroups.md``)."""

    learning_rate_delay: float = 25.0
    learning_rate_decay: float = 0.75
    newton_steps: int = 1
    concentration_update: str = "auto"

    def __post_init__(self):
        super().__post_init__()
        check_int("newton_steps", self.newton_steps, 1)
        check_choice("concentration_update", self.concentration_update, ("auto", "joint", "paper"))


def gamma_priors(value) -> tuple:
    """``((shape, rate) of alpha, (shape, rate) of gamma)`` as floats, all positive, or a clear error."""
    try:
        priors = tuple((float(a), float(b)) for a, b in value)
        valid = len(priors) == 2 and min(min(pair) for pair in priors) > 0
    except (TypeError, ValueError):
        valid = False
    if not valid:
        raise ValueError("concentration_priors must be ((shape, rate) of alpha, (shape, rate) of gamma), all "
                         f"positive, e.g. ((1, 1), (1, 0.1)); got {value!r}")
    return priors


def option_names(options_cls) -> tuple[str, ...]:
    """The keys an ``algorithm_options`` mapping may hold for ``options_cls``."""
    return tuple(f.name for f in fields(options_cls))


def algorithm_options(options_cls, options, owner: str, allowed=None, defaults=None):
    """``options_cls`` from an estimator's ``algorithm_options`` mapping over its ``defaults``;
    ``allowed`` (default every field) are the keys ``owner`` reads. Unknown keys (with the closest
    valid names), a value that is not a mapping and bad values raise errors naming the problem and the fix."""
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(f"{owner}: algorithm_options must be a dict of option names to values, e.g. "
                        f"{{'learning_rate_decay': 0.9}}; got {type(options).__name__} {options!r}")
    allowed = option_names(options_cls) if allowed is None else tuple(allowed)
    unknown = sorted(set(options or {}) - set(allowed))
    if unknown:
        close = sorted({m for name in unknown for m in get_close_matches(str(name), allowed, n=2)})
        hint = f" (did you mean {close}?)" if close else ""
        raise ValueError(f"{owner} has no algorithm option(s) {unknown}{hint}; valid options are {sorted(allowed)}; "
                         f"the other settings are constructor arguments, e.g. {owner}(max_laps=...)")
    try:
        return options_cls(**{**(defaults or {}), **dict(options or {})})
    except (TypeError, ValueError) as error:
        raise type(error)(f"{owner} algorithm_options: {error}") from None
