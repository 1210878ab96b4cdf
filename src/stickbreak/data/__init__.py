"""Data containers, validation and batching."""

from .batching import batch_indices
from .bow import BagOfWords
from .dense import DenseData
from .errors import DataError, DataTypeError
from .sequences import Sequences

__all__ = ["BagOfWords", "DataError", "DataTypeError", "DenseData", "Sequences", "batch_indices"]
