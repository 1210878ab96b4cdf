"""Executors behind one interface: the driver's threads, local processes, or Dask (:mod:`.executors`)."""

from .caches import MemoVisit
from .executors import Executor, LocalExecutor, Request, local_summary, summarize_batches
from .factory import EXECUTORS, check_executor, make_executor, open_executor, runs_here

__all__ = ["EXECUTORS", "Executor", "LocalExecutor", "MemoVisit", "Request", "check_executor", "local_summary",
           "make_executor", "open_executor", "runs_here", "summarize_batches"]
