"""Numba kernels: pure ``@njit(cache=True)`` functions of arrays.

Kernels over many documents or sequences work on one contiguous chunk of them (``*_chunk``); their
Python entry (e.g. :func:`~stickbreak.kernels.topics.dense.topic_local_step`) allocates the
outputs and runs the chunks on threads (:mod:`~stickbreak.kernels.chunked`), since numba's
``prange`` costs seconds of compilation on first use.

Every kernel has a NumPy twin with the same name and signature beside it, in its family's
``_reference*.py`` (``mixture/_reference.py``, ``topics/_reference_dense.py``, ``_reference_counts.py``
...); the tests check that they agree on ordinary and extreme inputs. Each family's ``_examples.py``
lists the argument types the library calls its kernels with: ``python -m stickbreak.kernels.warm``
compiles them all into numba's cache ahead of use.
"""

from .counts import sparse_lgamma_ratio
from .gauss import blockwise_squared_norms, packed_outer_products
from .mixture.dense import RESP_FLOOR, column_entropy, normalize_log_resp, pair_merge_entropy
from .mixture.sparse import sparse_column_entropy, sparse_pair_merge_entropy, sparse_weighted_outer_sums, top_l_resp

__all__ = ["RESP_FLOOR", "blockwise_squared_norms", "column_entropy", "normalize_log_resp", "packed_outer_products",
           "pair_merge_entropy", "sparse_column_entropy",
           "sparse_lgamma_ratio", "sparse_pair_merge_entropy", "sparse_weighted_outer_sums", "top_l_resp"]
