"""Example calls of the top-level kernel modules (:mod:`stickbreak.kernels.warm`)."""

from ._example_args import csr, f8, i8
from .counts import lgamma_gain, merged_dirichlet_normalizers, sparse_lgamma_ratio
from .gauss import blockwise_squared_norms, packed_outer_products
from .sampling import antoniak_draws, dm_log_evidence, log_stick_weights
from .sticks import minimize_sticks, negative_objective


def examples():
    return [
        (sparse_lgamma_ratio, (*csr(), f8(1, 1))),
        (lgamma_gain, (f8(1, 1), f8(1), f8(1))),
        (merged_dirichlet_normalizers, (f8(1, 1), f8(1), i8(1), i8(1), f8(1), 0, 1)),
        (blockwise_squared_norms, (f8(1, 1), f8(1, 1), f8(1, 1), 0)),
        (packed_outer_products, (f8(1, 1), f8(1, 1))),
        (log_stick_weights, (f8(1), f8(1))),
        (antoniak_draws, (1, 1.0, 1, 0)),
        (dm_log_evidence, (f8(1), 0.0, f8(1))),
        (dm_log_evidence, (f8(2, 2)[0, :], 0.0, f8(1))),  # a row view, as the twin test passes
        (negative_objective, (f8(1), 1.0, f8(1), f8(1), f8(1), f8(1), 1.0, 1.0, 1.0, f8(1))),
        (minimize_sticks, (f8(1), 1.0, f8(1), f8(1), f8(1), f8(1), 1.0, 1.0, 1.0, 1.0, 1.0, 1)),
    ]
