"""Pure prior math shared by the models: weights of mixtures, of topic models and HMM transitions.

Each module is a set of functions over plain arrays (no model classes); the registries below name
them for configurations and saved models.
"""

from __future__ import annotations

from types import ModuleType

from . import (
    mixture_dp,
    mixture_finite,
    topic_hdp,
    topic_lda,
    transition_finite,
    transition_hdp,
)

#: mixture weights: name -> prior module (DP stick-breaking or finite symmetric Dirichlet)
MIXTURE_WEIGHTS: dict[str, ModuleType] = {"dp": mixture_dp, "finite": mixture_finite}
#: document-topic weights of topic models
TOPIC_WEIGHTS: dict[str, ModuleType] = {"lda": topic_lda, "hdp": topic_hdp}
#: HMM transitions
TRANSITIONS: dict[str, ModuleType] = {"finite": transition_finite, "hdp": transition_hdp}

__all__ = ["MIXTURE_WEIGHTS", "TOPIC_WEIGHTS", "TRANSITIONS"]
