"""Helpers shared by the estimator shells."""

from __future__ import annotations

import numpy as np


def as_generator(random_state) -> np.random.Generator:
    """A numpy Generator from None, an int, a Generator or a legacy RandomState."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(random_state)
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {type(random_state).__name__}")


def check_n_features(estimator, n_features: int) -> None:
    if n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_features} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
