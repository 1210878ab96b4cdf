"""The executor an estimator's ``executor`` and ``n_jobs`` settings name (checked before any work)."""

from __future__ import annotations

import os
from contextlib import contextmanager

from .dask_backend import DaskBackend
from .executors import Executor
from .processes import ProcessBackend
from .sharded import ShardedExecutor
from .threads import LocalExecutor

#: The names ``executor`` accepts; a ``distributed.Client`` or a scheduler address also work.
EXECUTORS = ("threads", "processes", "dask")
#: Executors opened by :func:`make_executor`: an estimator given one uses it and leaves it open.
OPENED = (LocalExecutor, ShardedExecutor)
#: How a scheduler address starts.
ADDRESS_SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")


def _is_client(value) -> bool:
    try:
        from distributed import Client
    except ImportError:
        return False
    return isinstance(value, Client)


def check_executor(executor) -> None:
    """A clear error for an ``executor`` setting that names nothing usable."""
    if isinstance(executor, OPENED) or _is_client(executor):
        return
    if executor is None or (isinstance(executor, str) and executor in EXECUTORS):
        return
    if isinstance(executor, str) and executor.startswith(ADDRESS_SCHEMES):
        return
    raise ValueError(f"executor={executor!r} is not valid; choose one of {list(EXECUTORS)}, a Dask scheduler address "
                     f"such as 'tcp://10.0.0.5:8786', a distributed.Client, or an executor from make_executor")


def runs_here(executor) -> bool:
    """Whether ``executor`` runs the local steps in the driver's own process."""
    return executor is None or (isinstance(executor, str) and executor == "threads") or isinstance(executor,
                                                                                                  LocalExecutor)


def worker_count(n_jobs: int) -> int:
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


def make_executor(executor=None, n_jobs: int = 1, kernel_threads: bool = False,
                  synchronous_laps: bool | None = None) -> Executor:
    """``None``/``"threads"``: the driver's process, ``n_jobs`` threads over batches (one thread when
    the model's kernels thread themselves, ``kernel_threads``); ``"processes"``: ``n_jobs`` local worker
    processes; ``"dask"``: a ``LocalCluster`` of ``n_jobs`` workers; a ``distributed.Client`` or a
    scheduler address: that cluster's workers (``n_jobs`` is then unused). ``synchronous_laps``:
    memoized VI's schedule (:attr:`~.executors.Executor.synchronous_laps`; None: synchronous on
    processes and Dask, batch by batch on threads). Close it when done."""
    check_executor(executor)
    if isinstance(executor, OPENED):
        return executor
    workers = worker_count(n_jobs)
    if executor in (None, "threads"):
        return LocalExecutor(1 if kernel_threads else workers, synchronous_laps=bool(synchronous_laps))
    if executor == "processes":
        if os.name != "posix":
            raise ValueError("executor='processes' passes pipes to its workers, which needs a POSIX system (Linux, "
                             "macOS); use executor='dask' here")
        return ShardedExecutor(ProcessBackend(workers), synchronous_laps=synchronous_laps)
    return ShardedExecutor(DaskBackend(None if executor == "dask" else executor, workers),
                           synchronous_laps=synchronous_laps)


@contextmanager
def open_executor(executor=None, n_jobs: int = 1, kernel_threads: bool = False):
    """:func:`make_executor` for the duration of a block (its workers stopped, its parts freed, after);
    an executor opened before is used as it is and left open."""
    if isinstance(executor, OPENED):
        try:
            yield executor
        finally:
            executor.release()
        return
    opened = make_executor(executor, n_jobs, kernel_threads)
    try:
        yield opened
    finally:
        opened.close()
