"""Example calls of the DILN kernels (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import csr, f8
from .local import diln_local_step


def examples():
    return [
        (diln_local_step, (*csr(), f8(1, 1), f8(1, 1), f8(1), f8(1, 1), True, 0, f8(1, 1), f8(1, 1), f8(1), f8(1, 1),
                           1, 0.0, 0.0, 1, 1)),
    ]
