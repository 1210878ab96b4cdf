"""scikit-learn compatible estimators."""

from ._checkpoint import CheckpointDir, resume
from .admixture import HDPAdmixture
from .diln import DILN
from .hmm import HDPHMM, FiniteHMM
from .mixture import DPMixture, FiniteMixture
from .short_text import ShortTextTopicModel
from .hdp import HDPTopicModel
from .lda import LDA

__all__ = ["DILN", "DPMixture", "FiniteMixture", "HDPTopicModel", "LDA", "ShortTextTopicModel"]
__all__ += ["HDPHMM", "FiniteHMM", "HDPAdmixture", "CheckpointDir", "resume"]
