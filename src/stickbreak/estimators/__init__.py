"""scikit-learn compatible estimators."""

from .mixture import DPMixture, FiniteMixture

__all__ = ["DPMixture", "FiniteMixture"]
