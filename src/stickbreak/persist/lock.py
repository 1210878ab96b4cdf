"""An exclusive lock on a checkpoint directory: one fit writes there at a time.

``DIR/.lock`` is created and locked with ``flock`` (released by the kernel if the process dies,
so a killed run never leaves the directory locked), and holds who took it (process id, host,
start time, command line) for the message a second run gets. The file is removed on release; a
run that locked a file another run removed in the meantime sees a different inode at the path
and tries again, so two runs can never both hold it. Where ``fcntl`` is missing (Windows) the
directory is not locked.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

from .codec import CheckpointError

try:
    import fcntl
except ImportError:  # (Windows: no flock; the directory is not locked)
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".lock"


class DirectoryLock:
    """Held from :meth:`acquire` to :meth:`release`; a second holder gets a :class:`CheckpointError`."""

    def __init__(self, directory):
        self.path = Path(directory) / LOCK_NAME
        self._file = None

    def acquire(self) -> DirectoryLock:
        if fcntl is None:
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            handle = open(self.path, "a+")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(handle)
                handle.close()
                raise CheckpointError(f"{self.path.parent} is in use by another run ({_describe(holder)}); wait for "
                                      "it to end, or stop it and continue it with stickbreak.resume / `stickbreak "
                                      "resume DIR`, or give this run another directory") from None
            if _same_file(handle, self.path):
                break
            handle.close()  # the holder before us removed the file we locked: lock the new one
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time(),
                                 "argv": sys.argv}))
        handle.flush()
        self._file = handle
        return self

    def release(self) -> None:
        if self._file is None:
            return
        self.path.unlink(missing_ok=True)
        self._file.close()  # (closing the descriptor releases the flock)
        self._file = None

    def __enter__(self) -> DirectoryLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _holder(handle, wait: float = 1.0) -> str:
    """What the holder wrote in the lock file; a run that has just taken it gets ``wait`` seconds to write."""
    deadline = time.monotonic() + wait
    while True:
        handle.seek(0)
        text = handle.read()
        if text or time.monotonic() > deadline:
            return text
        time.sleep(0.05)


def _same_file(handle, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
    except FileNotFoundError:
        return False


def _describe(holder: str) -> str:
    """``process 1234 on host x, started 2026-11-30 07:31:02: stickbreak fit ...`` from the lock's JSON."""
    try:
        info = json.loads(holder)
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(info["started"])))
        command = " ".join(str(a) for a in info.get("argv", []))[:200]
        return f"process {int(info['pid'])} on host {info['host']}, started {started}: {command}"
    except (ValueError, KeyError, TypeError):
        return "a process that has not yet said which"
