"""Argument checks shared by configs, models and estimators: each raises a clear error naming the fix."""

from __future__ import annotations

import numpy as np


def check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name}={value!r} is not valid; choose one of {list(choices)}")


def check_int(name: str, value, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) and not (hasattr(value, "__index__")):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")


def check_positive(name: str, value, allow_zero: bool = False) -> None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {value!r}") from None
    ok = value >= 0 if allow_zero else value > 0
    if not ok or value != value or value == float("inf"):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'} and finite, got {value}")


def check_n_active(value) -> int | None:
    """``n_active`` (L-sparse responsibilities, Hughes 2016 Sec. 7.1) as an int >= 1, or None (dense)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(
            f"n_active must be a positive integer (at most this many clusters per item get non-zero "
            f"responsibility) or None for dense responsibilities; got {value!r}. Pass e.g. n_active=4, or None."
        )
    return int(value)
