"""The command line: ``stickbreak fit mixture|topics|hmm``, ``stickbreak eval``."""

from .main import main

__all__ = ["main"]
