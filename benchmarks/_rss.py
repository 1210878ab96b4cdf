"""Peak resident memory (RSS) of a benchmark row, in MiB.

A process's peak is a high-water mark, so a row's own peak needs a process of its own.
:func:`in_fresh_process` runs a top-level callable in a new process (multiprocessing "spawn": nothing of
the parent's heap is inherited) and returns its result dict with ``peak_rss_mib`` added, read in the
child once the call has returned (imports, data, fit and scoring together). The child inherits the
parent's environment (``OMP_NUM_THREADS``, ``NUMBA_NUM_THREADS``, ... set before the call hold there)
and imports the calling script again as ``__mp_main__``, so module-level settings run again, but
``threadpool_limits`` blocks of ``main`` do not: the callable sets its own. The script's entry point
must sit under ``if __name__ == "__main__"``; the callable and its arguments must pickle. For a pool
of such processes, submit :func:`measured` to :func:`fresh_pool`; a script already running each row in
a process of its own reads :func:`peak_rss_mib` there. Rows whose work runs in processes of their own
(worker processes, a peer's subprocess) wrap the callable in :func:`with_children`, which adds the
largest of those as ``peak_rss_children_mib``. :func:`rss_cell` is the markdown cell: "n/a" for a row
recorded before the column existed (for runs summarised in one row, their largest).

The peak is Linux's ``VmHWM`` (``/proc/self/status``), the high-water mark of the process's own address
space, not ``getrusage(RUSAGE_SELF).ru_maxrss``: on Linux a spawned (exec'd) process's ``ru_maxrss``
starts from its parent's peak at the spawn, so a row started by a parent that had held 800 MB would
report at least 800 MB. ``ru_maxrss`` is the fallback where ``/proc`` is missing.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import threading
from concurrent.futures import ProcessPoolExecutor

KEY = "peak_rss_mib"
CHILDREN_KEY = "peak_rss_children_mib"
POLL_SECONDS = 0.2  # how often :func:`with_children` reads its descendants' peaks


def _vm_hwm_kib(pid="self") -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            return next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), None)
    except (OSError, ValueError):
        return None


def peak_rss_mib() -> float:
    """This process's peak RSS so far, MiB."""
    kib = _vm_hwm_kib()
    return (kib if kib is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024  # KiB on Linux


def measured(fn, *args, **kwargs) -> dict:
    """``fn(*args, **kwargs)`` (a dict) with this process's peak RSS added."""
    return {**fn(*args, **kwargs), KEY: peak_rss_mib()}


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    ppid = int(stat.read().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(name))
    found, frontier = [], [root]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found += kids
        frontier += kids
    return found


def with_children(fn, *args, **kwargs) -> dict:
    """``fn(*args, **kwargs)`` (a dict) while a thread reads the peak RSS of this process's descendants every
    ``POLL_SECONDS``; their largest is added as ``peak_rss_children_mib`` (when there were any). A lower
    bound: growth in a descendant's last ``POLL_SECONDS`` can be missed."""
    peak, done = [0], threading.Event()

    def watch():
        while not done.wait(POLL_SECONDS):
            for pid in _descendants(os.getpid()):
                peak[0] = max(peak[0], _vm_hwm_kib(pid) or 0)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        out = dict(fn(*args, **kwargs))
    finally:
        done.set()
        watcher.join()
    if peak[0]:
        out[CHILDREN_KEY] = peak[0] / 1024
    return out


def fresh_pool(max_workers: int = 1, one_task_each: bool = True) -> ProcessPoolExecutor:
    """A pool of spawned processes, each running one task only (one row per process)."""
    return ProcessPoolExecutor(max_workers=max_workers, mp_context=multiprocessing.get_context("spawn"),
                               max_tasks_per_child=1 if one_task_each else None)


def in_fresh_process(fn, *args, **kwargs) -> dict:
    """Run the top-level callable ``fn(*args, **kwargs)`` (returning a dict) in a new spawned process;
    its result with ``peak_rss_mib`` added. Exceptions propagate."""
    with fresh_pool(one_task_each=False) as pool:  # one task: no replacement process started after it
        return pool.submit(measured, fn, *args, **kwargs).result()


def rss_cell(row, key: str = KEY) -> str:
    """Markdown cell of a row's peak RSS: ``row`` a dict holding ``key``, the number itself, or a list of
    dicts (runs summarised in one row, e.g. seeds: their largest); "n/a" where the value is absent."""
    if isinstance(row, (list, tuple)):
        values = [r.get(key) for r in row]
        row = None if not values or None in values else max(values)
    value = row.get(key) if isinstance(row, dict) else row
    return "n/a" if value is None else f"{value:.0f}"
