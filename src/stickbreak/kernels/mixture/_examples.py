"""Example calls of the mixture kernels (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import f8, i8
from .dense import column_entropy, normalize_log_resp, pair_merge_entropy
from .sparse import sparse_column_entropy, sparse_pair_merge_entropy, sparse_weighted_outer_sums, top_l_resp


def examples():
    return [
        (normalize_log_resp, (f8(1, 1), 0.0)),
        (column_entropy, (f8(1, 1), 0.0)),
        (pair_merge_entropy, (f8(1, 1), i8(1), i8(1), 0.0)),
        (top_l_resp, (f8(1, 1), 1, 0.0)),
        (sparse_column_entropy, (f8(1, 1), i8(1, 1), 1, 0.0)),
        (sparse_pair_merge_entropy, (f8(1, 1), i8(1, 1), 1, i8(1), i8(1), 0.0)),
        (sparse_weighted_outer_sums, (f8(1, 1), f8(1, 1), i8(1, 1), 1)),
    ]
