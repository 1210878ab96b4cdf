"""Example calls of the HMM kernels (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import f8, i8
from .forward_backward import forward_backward, viterbi


def examples():
    return [
        (forward_backward, (f8(1), f8(1, 1), f8(1, 1), i8(2), i8(1, 2))),
        (viterbi, (f8(1), f8(1, 1), f8(1, 1), i8(2))),
    ]
