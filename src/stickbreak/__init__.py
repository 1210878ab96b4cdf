"""stickbreak: Bayesian nonparametric models fitted by variational inference.

Estimators follow scikit-learn conventions::

    from stickbreak import DPMixture, datasets
    X = datasets.load("digits").X
    model = DPMixture(n_components=40, random_state=0).fit(X)
    model.predict(X), model.score(X), model.save("digits_model.npz")

See ``stickbreak --help`` for the command line.
"""

__version__ = "0.1.0"

from . import datasets  # noqa: E402
from .data import BagOfWords, DataError, DenseData, Sequences, ShardStore  # noqa: E402
from .estimators import DILN, LDA, DPMixture, FiniteMixture, HDPTopicModel  # noqa: E402
from .estimators import HDPHMM, FiniteHMM  # noqa: E402
from .persist import load  # noqa: E402

__all__ = ["DILN", "LDA", "BagOfWords", "DPMixture", "HDPTopicModel", "DataError", "DenseData", "FiniteMixture", "Sequences", "ShardStore", "datasets", "load",
           "__version__"]
__all__ += ["HDPHMM", "FiniteHMM"]
