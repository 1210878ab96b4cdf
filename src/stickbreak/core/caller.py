"""Warnings that point at the user's line, however deep inside the package they are raised."""

from __future__ import annotations

import sys
from types import FrameType


def stacklevel_outside(prefix: str = "stickbreak.") -> int:
    """The ``stacklevel`` that makes a warning raised by the caller of this function point at the
    first frame outside the modules named ``prefix...`` (the user's code), whatever the depth."""
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith(prefix):
        frame, level = frame.f_back, level + 1
    return level
