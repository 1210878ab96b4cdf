"""Example calls of the held-out evaluation kernels (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import csr64, f8, i8
from .completion_mc import log_gamma_draws, loglik_given_draws, sampled_chunk
from .hdp_importance import importance_chunk, importance_log_weights
from .windows import window_occurrences


def examples():
    return [
        (sampled_chunk, (*csr64(), f8(1, 1), f8(1, 1), f8(1, 1), i8(1), 0, 1, f8(1))),
        (loglik_given_draws, (*csr64(), f8(1, 1), f8(1, 1))),
        (log_gamma_draws, (f8(1), f8(1), 0, 1)),
        (importance_chunk, (*csr64(), f8(1, 1), f8(1), 1, 1, i8(1), 0, 1, f8(1))),
        (importance_log_weights, (i8(1), f8(1), f8(1, 1), f8(1), f8(1), f8(1, 1))),
        (window_occurrences, (i8(1), i8(2), 1, 1, i8(1), i8(1, 1))),
    ]
