"""A fit command's ``--out`` directory: checked before the fit, replaced whole after it.

Before any work, ``--out`` is made and tried: it must be writable, as must its parent (the new
run is written beside it), hold nothing but an earlier run's files, and have room for the run.
After the fit the files are written into a sibling ``.NAME.partial`` directory which is then
swapped with ``--out`` in one step (Linux's ``renameat2(RENAME_EXCHANGE)``; elsewhere two renames,
undone at the next start if a kill falls between them), so a reader, or a run killed at any
moment, sees the previous complete run or the new complete run, never a mix. Ctrl-C is held back
while the files are written. A write that fails (a full disk) keeps the fitted model in the
temporary directory and says where.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

#: Room kept free beyond a run's estimated files (other programs need the disk too).
SPARE_BYTES = 50 * 2**20
RENAME_EXCHANGE = 2  # linux/fs.h
AT_FDCWD = -100
OLD_STAGING = ".partial"  # where runs before 0.x staged their files, inside --out


class OutputError(RuntimeError):
    """The run's files could not be written; the message says why and where the model was kept."""


def staging_of(out: Path) -> Path:
    return out.parent / f".{out.name}.partial"


def previous_of(out: Path) -> Path:
    return out.parent / f".{out.name}.previous"


def out_directory(value: str) -> Path:
    """``--out DIR``, made and tried when the command line is read, before any fitting: a path that
    cannot hold the run fails at once instead of after the fit."""
    path = Path(value)
    if not path.exists() and previous_of(path).is_dir():  # a swap cut between its two renames: undo it
        os.rename(previous_of(path), path)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r} is a file, not a directory; give --out a new or "
                                         "existing directory")
    try:
        check_writable(path, "--out", parent_too=True)
    except OSError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    foreign = sorted(set(os.listdir(path)) - set(_run_files(path)) - {OLD_STAGING})
    if foreign:
        raise argparse.ArgumentTypeError(f"{value!r} holds files that no stickbreak run wrote ({', '.join(foreign[:5])}"
                                         f"{', ...' if len(foreign) > 5 else ''}); a run replaces its --out directory "
                                         "whole, so give a new or empty directory, or one an earlier run wrote")
    return path


def check_writable(path: Path, option: str, parent_too: bool = False) -> None:
    """Make ``path`` and write a file in it (and in its parent), or raise an OSError naming ``option``."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        for where in (path, path.resolve().parent) if parent_too else (path,):
            tempfile.TemporaryFile(dir=where).close()
    except OSError as exc:
        raise OSError(f"cannot write in {exc.filename or path} ({exc.strerror}); give {option} a directory you can "
                      f"write to{', in a directory you can write to' if parent_too else ''}") from None


def output_bytes(n_items: int, per_item: int, model_floats: float) -> float:
    """About how many bytes a run writes: the model (and its report) and per-item CSV values."""
    return 16.0 * model_floats + 16.0 * n_items * per_item + 8 * 2**20


def _run_files(out: Path) -> list[str]:
    """The files an earlier run wrote in ``out``, as its ``run.json`` lists them."""
    try:
        files = json.loads((out / "run.json").read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [str(name) for name in files] if isinstance(files, list) else []


def check_room(path: Path | None, n_bytes: float, option: str) -> None:
    """Refuse a run whose files (about ``n_bytes``) do not fit on the disk of ``path`` (``--out`` or
    ``--checkpoint``, if given), before the fit."""
    if path is None:
        return
    free = shutil.disk_usage(path).free
    if n_bytes + SPARE_BYTES > free:
        raise OSError(f"{option} {path} has {free / 2**20:.0f} MiB free but the run needs about "
                      f"{(n_bytes + SPARE_BYTES) / 2**20:.0f} MiB there (its files and {SPARE_BYTES // 2**20} MiB "
                      f"spare); free some space or give {option} another disk")


@contextmanager
def staged_output(out: Path, est):
    """Write the run's files into a sibling directory (yielded), then swap it in for ``out``.
    Ctrl-C waits until the swap is done; if writing fails, ``est`` is saved where it can be found
    and the :class:`OutputError` says where."""
    staging = staging_of(out)
    shutil.rmtree(staging, ignore_errors=True)
    with _interrupts_held_back(out):
        try:
            staging.mkdir()
            yield staging
            _swap(staging, out)
        except OSError as exc:
            raise OutputError(f"could not write {out} ({exc}); {_keep(est)}") from exc
        finally:
            shutil.rmtree(staging, ignore_errors=True)  # the previous run, after the swap


def _swap(staging: Path, out: Path) -> None:
    """``staging`` becomes ``out`` and the previous ``out`` goes to ``staging``, in one step where
    the system can (renameat2 with RENAME_EXCHANGE), else in two renames."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        renameat2 = None
    if renameat2 is not None and renameat2(AT_FDCWD, os.fsencode(staging), AT_FDCWD, os.fsencode(out),
                                           RENAME_EXCHANGE) == 0:
        return
    previous = previous_of(out)
    shutil.rmtree(previous, ignore_errors=True)
    os.rename(out, previous)
    os.rename(staging, out)
    os.rename(previous, staging)


def _keep(est) -> str:
    """Save ``est`` in the temporary directory; what to tell the user."""
    try:
        kept = est.save(Path(tempfile.gettempdir()) / f"stickbreak-model-{os.getpid()}.npz")
    except OSError as exc:
        return f"the fitted model could not be kept either ({exc})"
    return f"the fitted model is kept in {kept} (stickbreak.load({str(kept)!r}))"


@contextmanager
def _interrupts_held_back(out: Path):
    """Ctrl-C while the run's files are written is acted on once they are (the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = []

    def note(signum, frame):
        pressed.append(signum)
        print(f"\nstickbreak: writing {out}; stopping once it is written", file=sys.stderr, flush=True)

    previous = signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt
