"""Allocation models: how items are assigned to components."""

from __future__ import annotations

from .. import obs
from ..core.validate import check_n_active
from ..priors import MIXTURE_WEIGHTS
from .hmm.model import HMMModel
from .hmm.params import HMMLocal, HMMParams
from .mixture.model import MixtureLocal, MixtureModel, MixtureParams
from .topics.model import LocalOptions, TopicLocal, TopicModel, TopicParams



def make_mixture_model(config, data=None, obs_prior=None) -> MixtureModel:
    """A :class:`MixtureModel` from a :class:`~stickbreak.config.MixtureConfig`.

    The observation prior comes from ``obs_prior`` (natural parameters, e.g. read from a saved
    model) or else is built from ``data`` and ``config.obs_prior`` options.
    """
    family = obs.get(config.obs_model)
    if obs_prior is None:
        obs_prior = family.default_prior(data, **dict(config.obs_prior))
    weights = MIXTURE_WEIGHTS[config.weights]
    return MixtureModel(family, obs_prior, weights,
                        weights.default_prior(config.concentration, learn=config.learn_concentration),
                        n_active=check_n_active(config.n_active))


__all__ = ["HMMLocal", "HMMModel", "HMMParams", "LocalOptions", "MixtureLocal", "MixtureModel", "MixtureParams",
           "TopicLocal", "TopicModel",
           "TopicParams", "make_mixture_model"]
