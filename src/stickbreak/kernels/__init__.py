"""Numba kernels: pure ``@njit(cache=True)`` functions of arrays.

Every kernel has a NumPy twin in :mod:`stickbreak.kernels._reference` with the same name and
signature; ``tests/test_kernels.py`` checks that they agree on ordinary and extreme inputs.
"""

from .counts import sparse_lgamma_ratio
from .gauss import blockwise_squared_norms
from .mixture.dense import RESP_FLOOR, column_entropy, normalize_log_resp, pair_merge_entropy
from .mixture.sparse import sparse_column_entropy, sparse_pair_merge_entropy, sparse_weighted_outer_sums, top_l_resp

__all__ = ["RESP_FLOOR", "blockwise_squared_norms", "column_entropy", "normalize_log_resp", "pair_merge_entropy", "sparse_column_entropy",
           "sparse_lgamma_ratio", "sparse_pair_merge_entropy", "sparse_weighted_outer_sums", "top_l_resp"]
