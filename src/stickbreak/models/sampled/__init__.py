"""The models of truncation-free SVI (Wang & Blei 2012) on the lazy component store: the DP mixture
of multinomials (:class:`TruncationFreeDPMixture`) and the HDP topic model
(:class:`TruncationFreeHDP`), the store and parameters they share; the learner is
:mod:`stickbreak.learn.truncation_free`, and the models declare
:class:`~stickbreak.core.protocols.Sampled`."""

from .base import TruncationFreeModel
from .dp_mixture import TruncationFreeDPMixture
from .hdp import TruncationFreeHDP
from .store import ComponentStore, LocalSample, TruncationFreeParams, stick_tail

__all__ = ["ComponentStore", "LocalSample", "TruncationFreeDPMixture", "TruncationFreeHDP", "TruncationFreeModel",
           "TruncationFreeParams", "stick_tail"]
