"""The warm-up (``python -m stickbreak.kernels.warm``) knows every kernel: each public kernel is an
example of its package's ``_examples.py`` or called by one, and every example compiles."""

import numpy as np
import pytest
from numba import typeof

from stickbreak.kernels import warm


def test_every_public_kernel_has_an_example():
    assert warm.uncovered() == [], "add an example call to the kernel package's _examples.py"


def _check_library_type(kernel, value):
    if isinstance(value, np.ndarray):
        assert value.dtype in (np.float64, np.int64, np.int32, np.bool_), (kernel, value.dtype)
    elif isinstance(value, tuple):  # a namedtuple of arrays (the L-sparse step's prior selection)
        for item in value:
            _check_library_type(kernel, item)
    else:
        assert isinstance(value, (bool, int, float)), (kernel, type(value))


def test_examples_use_the_library_types():
    for kernel, arguments in warm.examples():
        for value in arguments:
            _check_library_type(kernel, value)


@pytest.mark.compile_heavy
def test_every_example_compiles():
    """Cache loads after ``make test``'s warm-up; a full compilation on a cold cache."""
    for kernel, arguments in warm.examples():
        signature = tuple(typeof(a) for a in arguments)
        kernel.compile(signature)
        assert signature in kernel.overloads
