"""Example calls of the DILN kernels (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import csr, f8, i8
from .local import diln_chunk


def examples():
    return [
        (diln_chunk, (*csr(), f8(1, 1), f8(1, 1), f8(1), f8(1, 1), True, 0, f8(1, 1), f8(1, 1), f8(1), f8(1, 1),
                      f8(1, 1), 1, 0.0, 0.0, 1, 0, 1, f8(1, 1), f8(1), f8(1), i8(1))),
    ]
