"""Data containers, validation and batching."""

from .batching import batch_indices, concat_items
from .bow import BagOfWords
from .dense import DenseData
from .errors import DataError, DataTypeError
from .lagged import LaggedData
from .sequences import Sequences
from .sequence_io import SequenceFile, read_sequences
from .shards import ShardStore
from .documents import as_bag_of_words, drop_empty_documents, iter_bag_of_words, to_gensim_corpus
from .text_io import (corpus_format, read_corpus, read_ldac, read_matrix_market, read_npz, read_uci, write_ldac,
                      write_matrix_market, write_npz, write_uci)

__all__ = ["BagOfWords", "DataError", "DataTypeError", "DenseData", "LaggedData", "Sequences", "ShardStore",
           "batch_indices", "concat_items",
           "as_bag_of_words", "corpus_format", "drop_empty_documents", "iter_bag_of_words", "read_corpus", "read_ldac",
           "read_matrix_market", "read_npz", "read_uci", "to_gensim_corpus", "write_ldac", "write_matrix_market",
           "write_npz", "write_uci", "SequenceFile", "read_sequences"]
