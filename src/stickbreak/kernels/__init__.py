"""Numba kernels: pure ``@njit(cache=True)`` functions of arrays.

Every kernel has a NumPy twin in :mod:`stickbreak.kernels._reference` with the same name and
signature; ``tests/test_kernels.py`` checks that they agree on ordinary and extreme inputs.
"""

from .counts import sparse_lgamma_ratio
from .resp import RESP_FLOOR, normalize_log_resp

__all__ = ["RESP_FLOOR", "normalize_log_resp", "sparse_lgamma_ratio"]
