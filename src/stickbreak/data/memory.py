"""How much memory a piece of work needs, against what the machine has: refuse before allocating."""

from __future__ import annotations

import os

from .errors import DataError


def available_bytes() -> int | None:
    """Memory a new allocation can use: Linux's ``MemAvailable``, else the physical memory, else None."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.3g} GiB"


def check_memory(n_bytes: float, what: str, fix: str) -> None:
    """Raise :class:`DataError` when ``what`` needs more than the available memory (``fix``: what to change)."""
    available = available_bytes()
    if available is not None and n_bytes > available:
        raise DataError(f"{what} needs about {gib(n_bytes)} of memory but this machine has {gib(available)} "
                        f"available; {fix}")
