"""Learning algorithms, written once against the four model verbs; :mod:`.registry` names them."""

from __future__ import annotations

from .registry import ALGORITHM_ALIASES, COLLAPSED_ALGORITHMS, LEARNERS, learner_spec, required_protocol
from .batch import BatchVB
from .memoized import MemoizedVI
from .stochastic import InMemoryMinibatches, StochasticVI, StoredMinibatches


def check_moves(algorithm: str, moves) -> None:
    """Moves need memoized VI: they are accepted on the exact whole-data ELBO only it keeps."""
    if moves and learner_spec(algorithm, choices=list(LEARNERS)).moves_protocol is None:
        raise ValueError(f"moves {list(moves)} need algorithm='memoized' (got {algorithm!r}); "
                         "they are accepted on the exact whole-data ELBO that only memoized VI keeps")


def make_learner(learn_cfg, moves_cfg, rng, learner: str | None = None, **options):
    """The learner registered as ``learner`` (default ``learn_cfg.algorithm``), built from the
    configs, the generator ``rng`` and the learner's own ``options`` (e.g. ``burn_in`` of the
    collapsed samplers)."""
    name = learner or learn_cfg.algorithm
    check_moves(name, moves_cfg.moves)
    return learner_spec(name, choices=list(LEARNERS)).factory(learn_cfg, moves_cfg, rng, **options)


__all__ = ["ALGORITHM_ALIASES", "BatchVB", "COLLAPSED_ALGORITHMS", "InMemoryMinibatches", "LEARNERS", "MemoizedVI",
           "StochasticVI", "StoredMinibatches", "check_moves", "learner_spec", "make_learner", "required_protocol"]
