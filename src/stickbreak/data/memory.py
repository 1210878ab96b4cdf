"""How much memory a piece of work needs, against what this process may still use: refuse before
allocating.

Three limits are honoured, the tightest wins: the machine's free memory (Linux's ``MemAvailable``),
the process's address-space limit (``ulimit -v``, RLIMIT_AS, less the address space already
mapped) and the memory limit of the process's control group (a container's ``--memory``, cgroup v2
``memory.max`` or v1 ``memory.limit_in_bytes``, less what the group already uses)."""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

from .errors import DataError

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")  # this process's groups, "id:controllers:path" per line
UNLIMITED_CGROUP = 2**60  # cgroup v1 writes "no limit" as a page-rounded 2^63 - 1


@dataclass(frozen=True)
class Headroom:
    """Bytes a new allocation may use, and the limit that sets it (for the message)."""

    n_bytes: int
    limit: str


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # cgroup v2 writes "max" for no limit


def _meminfo_available() -> Headroom | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return Headroom(int(line.split()[1]) * 1024, "this machine's available memory")
    except (OSError, ValueError, IndexError):
        pass
    try:
        return Headroom(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "this machine's memory")
    except (ValueError, OSError, AttributeError):
        return None


def _mapped_bytes() -> int:
    """The address space this process has mapped already (``VmSize``), 0 where unknown."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _address_space() -> Headroom | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    return Headroom(max(soft - _mapped_bytes(), 0), f"this process's address-space limit (ulimit -v: {gib(soft)})")


def _cgroup_dirs() -> list[tuple[Path, str, str]]:
    """(directory, limit file, usage file) of this process's memory control group, v2 and v1."""
    found: list[tuple[Path, str, str]] = []
    try:
        lines = PROC_CGROUP.read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        if controllers == "":
            found += [(CGROUP_ROOT / relative, "memory.max", "memory.current"),
                      (CGROUP_ROOT / "unified" / relative, "memory.max", "memory.current")]
        elif "memory" in controllers.split(","):
            found.append((CGROUP_ROOT / "memory" / relative, "memory.limit_in_bytes", "memory.usage_in_bytes"))
    return found


def _control_group() -> Headroom | None:
    """The tightest memory limit of this process's control group and its ancestors, less their use."""
    tightest = None
    for directory, limit_file, usage_file in _cgroup_dirs():
        for level in [directory, *directory.parents]:
            if not level.is_relative_to(CGROUP_ROOT):
                break
            limit = _read_int(level / limit_file)
            if limit is None or limit >= UNLIMITED_CGROUP:
                continue
            left = Headroom(max(limit - (_read_int(level / usage_file) or 0), 0),
                            f"this process's control group's memory limit ({gib(limit)})")
            if tightest is None or left.n_bytes < tightest.n_bytes:
                tightest = left
    return tightest


def headroom() -> Headroom | None:
    """The tightest of the machine's free memory, the address-space limit and the cgroup limit."""
    limits = [h for h in (_meminfo_available(), _address_space(), _control_group()) if h is not None]
    return min(limits, key=lambda h: h.n_bytes) if limits else None


def available_bytes() -> int | None:
    """Bytes a new allocation may use under every limit (:func:`headroom`), None where unknown."""
    room = headroom()
    return None if room is None else room.n_bytes


def gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.3g} GiB"


def check_memory(n_bytes: float, what: str, fix: str) -> None:
    """Raise :class:`DataError` when ``what`` needs more memory than this process may still use
    (:func:`headroom`); ``fix`` says what to change."""
    room = headroom()
    if room is not None and n_bytes > room.n_bytes:
        raise DataError(f"{what} needs about {gib(n_bytes)} of memory but only {gib(room.n_bytes)} is left under "
                        f"{room.limit}; {fix}")
