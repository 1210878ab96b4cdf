"""The learner registry: algorithm name -> (learner factory, the model protocol it requires).

:func:`stickbreak.learn.make_learner` and the estimators look algorithms up here, so every name,
alias and error message lives in one table, :data:`LEARNERS`.

Adding an algorithm
-------------------
1. Write its learner (``start(model, source, params)`` and ``lap(model, source, state)``, see
   :mod:`.base`) in a module of this package.
2. Add ONE entry to :data:`LEARNERS`: ``"name": LearnerSpec(factory, protocol, summary)``, where
   ``factory(learn_cfg, moves_cfg, rng, **options)`` builds the learner from the validated
   :class:`~stickbreak.config.LearnConfig` and :class:`~stickbreak.config.MovesConfig`, and
   ``protocol`` is the one of :mod:`stickbreak.core.protocols` its models must satisfy.
   ``minibatches=True`` if it draws fresh minibatches every lap; ``exact=True`` if its trace is
   the exact whole-data ELBO (the estimators then warn when it stops at ``max_laps``).
3. An estimator offers it by adding the name to its table of fit plans (``estimators/``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.protocols import ChainSweeps, Memoizable, Model, Movable, Sampled, Swept
from .batch import BatchVB
from .blocked_gibbs import BlockedGibbs
from .collapsed import BURN_IN, CollapsedSweeps
from .collapsed_hdp import DirectAssignmentGibbs
from .memoized import MemoizedVI
from .schedules import RobbinsMonro
from .stochastic import StochasticVI
from .truncation_free import PRUNE_EVERY, TruncationFreeSVI


@dataclass(frozen=True)
class LearnerSpec:
    """One registered algorithm: how to build its learner and what it needs from a model."""

    factory: Callable[..., Any]
    protocol: type
    summary: str
    minibatches: bool = False
    exact: bool = False
    #: The protocol when moves are on (memoized VI's birth, merge and delete call :class:`Movable`).
    moves_protocol: type | None = None
    #: False for learners an estimator reaches under another algorithm name (not offered to users).
    public: bool = True
    #: Its state can be checkpointed and resumed (``stickbreak.persist.codec`` stores every part of it).
    resumable: bool = False
    #: Why it runs only in the driver's process (None: its local steps run on any executor).
    sequential: str | None = None


def _batch(learn_cfg, moves_cfg, rng) -> BatchVB:
    return BatchVB()


def _stochastic(learn_cfg, moves_cfg, rng) -> StochasticVI:
    return StochasticVI(RobbinsMonro(learn_cfg.learning_rate_delay, learn_cfg.learning_rate_decay), rng)


def _memoized(learn_cfg, moves_cfg, rng) -> MemoizedVI:
    return MemoizedVI(moves_cfg, rng)


def _truncation_free(learn_cfg, moves_cfg, rng, n_items=None, prune_every=PRUNE_EVERY, schedule=None,
                     floor=True) -> TruncationFreeSVI:
    return TruncationFreeSVI(rng, n_items=n_items, prune_every=prune_every, schedule=schedule, floor=floor)


def _collapsed(learn_cfg, moves_cfg, rng, heldout=None, burn_in=BURN_IN) -> CollapsedSweeps:
    return CollapsedSweeps(rng, heldout, burn_in)


def _blocked_gibbs(learn_cfg, moves_cfg, rng) -> BlockedGibbs:
    return BlockedGibbs(rng)


def _direct_assignment_gibbs(learn_cfg, moves_cfg, rng, heldout=None, burn_in=BURN_IN) -> DirectAssignmentGibbs:
    return DirectAssignmentGibbs(rng, heldout, burn_in)


_COLLAPSED = "collapsed inference for LDA (Welling, Teh & Kappen 2008; use LDA(algorithm=...))"
_SWEEPS = ("each token's draw or update conditions on every other token's current state, so a sweep is "
           "sequential (its approximate distributed form, Newman et al. 2009, is not built)")
#: Collapsed inference for LDA (Welling, Teh & Kappen 2008): one sweep of the corpus per lap.
COLLAPSED_ALGORITHMS = ("gibbs", "svb", "cvb", "cvb0", "hybrid_vb_gibbs", "hybrid_cvb_gibbs")

LEARNERS: dict[str, LearnerSpec] = {
    "vb": LearnerSpec(_batch, Model, "full-batch coordinate ascent", exact=True, resumable=True),
    "stochastic": LearnerSpec(_stochastic, Model, "stochastic VI (Hoffman et al. 2013)", minibatches=True,
                              resumable=True),
    "memoized": LearnerSpec(_memoized, Memoizable, "memoized VI (Hughes 2016), the only one with moves", exact=True,
                            moves_protocol=Movable, resumable=True),
    "truncation_free": LearnerSpec(_truncation_free, Sampled,
                                   "truncation-free SVI (Wang & Blei 2012), implemented for HDPTopicModel with "
                                   "variational_family='direct' and DPMixture(obs_model='mult')", minibatches=True,
                                   sequential="each minibatch's sampled local step creates the components the next "
                                              "one conditions on (Wang & Blei 2012, Alg. 1)"),
    **{name: LearnerSpec(_collapsed, Swept, _COLLAPSED, sequential=_SWEEPS) for name in COLLAPSED_ALGORITHMS},
    "direct_assignment_gibbs": LearnerSpec(_direct_assignment_gibbs, Swept,
                                           "the HDP's direct-assignment collapsed Gibbs sampler (Teh et al. 2006, "
                                           "§5.3; HDPTopicModel(algorithm='gibbs'))", public=False, sequential=_SWEEPS),
    "blocked_gibbs": LearnerSpec(_blocked_gibbs, ChainSweeps,
                                 "the sticky HDP-HMM's weak-limit blocked Gibbs sampler (Fox et al. 2011, Alg. 3; "
                                 "HDPHMM(algorithm='gibbs'))", public=False,
                                 sequential="each sweep draws every state sequence given parameters drawn from the "
                                            "previous sweep's states"),
}
#: Other names accepted for an algorithm.
ALGORITHM_ALIASES = {"svi": "stochastic"}
#: The built-in names users choose from (the CLI's choices), aliases included; :func:`algorithm_names`
#: also has the algorithms registered since.
ALGORITHMS = ("vb", "stochastic", "svi", "memoized", "truncation_free") + COLLAPSED_ALGORITHMS
#: Algorithms that draw fresh minibatches every lap.
MINIBATCH_ALGORITHMS = tuple(name for name, spec in LEARNERS.items() if spec.minibatches)


def algorithm_names() -> tuple[str, ...]:
    """Every public algorithm name and alias, the registered ones included (what LearnConfig accepts)."""
    public = [name for name, spec in LEARNERS.items() if spec.public]
    return tuple(dict.fromkeys([n for n in ALGORITHMS if canonical(n) in public] + public))


def register(name: str, spec: LearnerSpec) -> LearnerSpec:
    """Add an algorithm under ``name`` (ARCHITECTURE.md, "How to add an algorithm")."""
    if name in LEARNERS or name in ALGORITHM_ALIASES:
        raise ValueError(f"an algorithm named {name!r} is already registered")
    if not (isinstance(spec.protocol, type) and spec.protocol.__module__ == Model.__module__):
        raise TypeError(f"the protocol of {name!r} must be one of stickbreak.core.protocols, got {spec.protocol!r}")
    LEARNERS[name] = spec
    return spec


def canonical(name: str) -> str:
    """The registered name of ``name`` (aliases resolved); unknown names are returned unchanged."""
    return ALGORITHM_ALIASES.get(name, name) if isinstance(name, str) else name


def learner_spec(name: str, choices=None, owner: str = "stickbreak") -> LearnerSpec:
    """The registry entry of ``name`` (or an alias). ``choices`` (default every public name) are
    what ``owner`` supports; an unknown or unsupported name is a ``ValueError`` listing them."""
    key = canonical(name)
    offered = [n for n in algorithm_names() if choices is None or canonical(n) in set(map(canonical, choices))]
    if key not in LEARNERS or (choices is not None and key not in set(map(canonical, choices))):
        why = f" ({LEARNERS[key].summary})" if key in LEARNERS else ""
        raise ValueError(f"{owner} does not support algorithm={name!r}{why}; choose one of {offered}")
    return LEARNERS[key]


def required_protocol(name: str, moves=()) -> type:
    """The protocol of :mod:`stickbreak.core.protocols` a model needs for algorithm ``name`` (with ``moves``)."""
    spec = learner_spec(name, choices=list(LEARNERS))
    return spec.moves_protocol if moves and spec.moves_protocol is not None else spec.protocol
