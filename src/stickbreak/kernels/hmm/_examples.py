"""Example calls of the HMM kernels (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import f8, i8
from .forward_backward import fb_chunk, viterbi_chunk
from .sampling import ffbs, sticky_table_counts, transition_counts


def examples():
    return [
        (fb_chunk, (f8(1), f8(1, 1), f8(1, 1), i8(2), 0, 1, i8(1, 2), f8(1, 1), f8(1), f8(1), f8(1, 1), f8(1, 1),
                    f8(1), f8(1))),
        (viterbi_chunk, (f8(1), f8(1, 1), f8(1, 1), i8(2), 0, 1, i8(1))),
        (ffbs, (f8(1), f8(1, 1), f8(1, 1), i8(2), 0, i8(1))),
        (transition_counts, (i8(1), i8(2), 1)),
        (sticky_table_counts, (f8(1), f8(1, 1), f8(1), 0.0, 0.0, 0.0, 0)),
    ]
