"""scikit-learn compatible estimators."""

from .mixture import DPMixture, FiniteMixture
from .topics import LDA, HDPTopicModel

__all__ = ["DPMixture", "FiniteMixture", "HDPTopicModel", "LDA"]
