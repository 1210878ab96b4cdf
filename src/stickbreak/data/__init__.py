"""Data containers, validation and batching."""

from .batching import batch_indices, concat_items
from .bow import BagOfWords
from .dense import DenseData
from .errors import DataError, DataTypeError
from .sequences import Sequences
from .shards import ShardStore

__all__ = ["BagOfWords", "DataError", "DataTypeError", "DenseData", "Sequences", "ShardStore", "batch_indices", "concat_items"]
