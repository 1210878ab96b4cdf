"""Learning algorithms, written once against the four model verbs."""

from __future__ import annotations

from .registry import COLLAPSED_ALGORITHMS
from .batch import BatchVB
from .memoized import MemoizedVI
from .schedules import RobbinsMonro
from .stochastic import InMemoryMinibatches, StochasticVI, StoredMinibatches


def make_learner(learn_cfg, moves_cfg, rng):
    """The learner for ``learn_cfg.algorithm`` ("vb", "stochastic" or "memoized"; truncation-free SVI
    needs its own models and is built by the estimators, see :mod:`.truncation_free`)."""
    if moves_cfg.moves and learn_cfg.algorithm != "memoized":
        raise ValueError(
            f"moves {list(moves_cfg.moves)} need algorithm='memoized' (got {learn_cfg.algorithm!r}); "
            "they are accepted on the exact whole-data ELBO that only memoized VI keeps"
        )
    if learn_cfg.algorithm == "truncation_free":
        raise ValueError("algorithm='truncation_free' runs its own models: use HDPTopicModel or DPMixture(obs_model='mult')")
    if learn_cfg.algorithm in COLLAPSED_ALGORITHMS:
        raise ValueError(f"algorithm={learn_cfg.algorithm!r} is collapsed inference for LDA: use LDA(algorithm=...); "
                         "this model takes 'vb', 'svi' or 'memoized'")
    if learn_cfg.algorithm == "vb":
        return BatchVB()
    if learn_cfg.algorithm == "stochastic":
        return StochasticVI(RobbinsMonro(learn_cfg.learning_rate_delay, learn_cfg.learning_rate_decay), rng)
    return MemoizedVI(moves_cfg, rng)


__all__ = ["BatchVB", "InMemoryMinibatches", "MemoizedVI", "StochasticVI", "StoredMinibatches", "make_learner"]
