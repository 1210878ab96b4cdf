"""stickbreak: Bayesian nonparametric models fitted by variational inference.

Estimators follow scikit-learn conventions::

    from stickbreak import DPMixture, datasets
    X = datasets.load("digits").X
    model = DPMixture(n_components=40, random_state=0).fit(X)
    model.predict(X), model.score(X), model.save("digits_model.npz")
    DPMixture(random_state=0).fit(X, checkpoint="run/"); stickbreak.resume("run/", X)  # after a crash
    model.report("digits.html", X, image_shape=(8, 8))   # figures in one self-contained HTML file

``stickbreak.plot`` draws the figures one by one; ``stickbreak.export`` hands topics to pyLDAvis and gensim.

See ``stickbreak --help`` for the command line.
"""

from ._version import __version__
from . import datasets, export, plot, report
from .data import BagOfWords, DataError, DenseData, Sequences, ShardStore
from .estimators import DILN, LDA, DPMixture, FiniteMixture, HDPTopicModel
from .estimators import HDPHMM, FiniteHMM, HDPAdmixture, CheckpointDir, resume
from .persist import CheckpointError
from .persist import load

__all__ = ["DILN", "LDA", "BagOfWords", "DPMixture", "HDPTopicModel", "DataError", "DenseData", "FiniteMixture",
           "Sequences", "ShardStore", "datasets", "export", "load", "plot", "report",
           "__version__"]
__all__ += ["HDPHMM", "FiniteHMM", "HDPAdmixture", "CheckpointDir", "resume", "CheckpointError"]
