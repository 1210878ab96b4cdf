"""Allocation models: how items are assigned to components."""

from __future__ import annotations

from types import ModuleType

from .. import obs
from . import dp_mixture, finite_hmm, finite_mixture, hdp_hmm, hdp_topics, lda
from .hmm import HMMLocal, HMMModel, HMMParams
from .mixture import MixtureLocal, MixtureModel, MixtureParams
from .topics import LocalOptions, TopicLocal, TopicModel, TopicParams

WEIGHT_MODELS: dict[str, ModuleType] = {"dp": dp_mixture, "finite": finite_mixture}
TOPIC_WEIGHT_MODELS: dict[str, ModuleType] = {"lda": lda, "hdp": hdp_topics}
TRANSITION_MODELS: dict[str, ModuleType] = {"finite": finite_hmm, "hdp": hdp_hmm}


def make_mixture_model(config, data=None, obs_prior=None) -> MixtureModel:
    """A :class:`MixtureModel` from a :class:`~stickbreak.config.MixtureConfig`.

    The observation prior comes from ``obs_prior`` (natural parameters, e.g. read from a saved
    model) or else is built from ``data`` and ``config.obs_prior`` options.
    """
    family = obs.get(config.obs_model)
    if obs_prior is None:
        obs_prior = family.default_prior(data, **dict(config.obs_prior))
    weights = WEIGHT_MODELS[config.weights]
    return MixtureModel(family, obs_prior, weights, weights.default_prior(config.concentration),
                        n_active=getattr(config, "n_active", None))


__all__ = ["HMMLocal", "HMMModel", "HMMParams", "TRANSITION_MODELS", "LocalOptions", "MixtureLocal", "MixtureModel", "MixtureParams", "TOPIC_WEIGHT_MODELS", "TopicLocal", "TopicModel",
           "TopicParams", "WEIGHT_MODELS", "make_mixture_model"]
