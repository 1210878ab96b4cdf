"""The command line: ``stickbreak fit mixture|topics|hmm|admixture``, ``stickbreak eval``."""

from .main import main

__all__ = ["main"]
