"""Special functions for numba kernels (scipy's are not callable from nopython code)."""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, nogil=True)
def digamma(x: float) -> float:
    """``psi(x)`` for ``x > 0`` by upward recurrence to ``x >= 6`` and the asymptotic series
    (Abramowitz & Stegun 6.3.18); absolute error below 1e-13. ``-inf`` at ``x <= 0``."""
    if x <= 0.0:
        return -math.inf
    result = 0.0
    while x < 6.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))))
    return result + math.log(x) - 0.5 / x - series


@njit(cache=True, nogil=True)
def trigamma(x: float) -> float:
    """``psi'(x)`` for ``x > 0`` by upward recurrence to ``x >= 10`` and the asymptotic series
    (Abramowitz & Stegun 6.4.12); relative error below 1e-12. ``inf`` at ``x <= 0``."""
    if x <= 0.0:
        return math.inf
    result = 0.0
    while x < 10.0:
        result += 1.0 / (x * x)
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * (5.0 / 66)))))
    return result + 1.0 / x + 0.5 * f + series / x
