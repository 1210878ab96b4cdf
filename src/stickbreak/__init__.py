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

The public names below load on first use (PEP 562): ``import stickbreak`` itself is quick, and a
worker process, which imports only the models, kernels and executors it runs, never pays for
scikit-learn and matplotlib (about a second of every worker's start).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__

#: Each public name and the module that defines it ("" for a submodule of that name).
_PUBLIC = {
    "datasets": "", "export": "", "plot": "", "report": "",
    "BagOfWords": "data", "DataError": "data", "DenseData": "data", "Sequences": "data", "ShardStore": "data",
    "DILN": "estimators", "LDA": "estimators", "DPMixture": "estimators", "FiniteMixture": "estimators",
    "HDPTopicModel": "estimators", "HDPHMM": "estimators", "FiniteHMM": "estimators",
    "HDPAdmixture": "estimators", "ShortTextTopicModel": "estimators", "CheckpointDir": "estimators",
    "resume": "estimators",
    "CheckpointError": "persist", "load": "persist",
}

__all__ = ["DILN", "LDA", "BagOfWords", "DPMixture", "HDPTopicModel", "DataError", "DenseData", "FiniteMixture",
           "Sequences", "ShardStore", "datasets", "export", "load", "plot", "report", "HDPHMM", "FiniteHMM",
           "HDPAdmixture", "ShortTextTopicModel", "CheckpointDir", "resume", "CheckpointError", "__version__"]

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from . import datasets, export, plot, report
    from .data import BagOfWords, DataError, DenseData, Sequences, ShardStore
    from .estimators import DILN, LDA, DPMixture, FiniteMixture, HDPTopicModel
    from .estimators import HDPHMM, FiniteHMM, HDPAdmixture, ShortTextTopicModel, CheckpointDir, resume
    from .persist import CheckpointError, load


def __getattr__(name: str):
    """The public API, loaded on first use: every public module at once (loading a saved model
    needs the estimators registered), then kept in the package's namespace."""
    if name not in _PUBLIC:
        raise AttributeError(f"module 'stickbreak' has no attribute {name!r}")
    for public, where in _PUBLIC.items():
        module = importlib.import_module(f".{where or public}", __name__)
        globals()[public] = module if not where else getattr(module, public)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
