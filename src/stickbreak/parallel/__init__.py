"""Executors behind one interface: the driver's threads, local processes, or Dask (:mod:`.executors`)."""

from .executors import Executor, LocalExecutor, Request, local_summary, summarize_batches
from .factory import EXECUTORS, check_executor, make_executor, open_executor

__all__ = ["EXECUTORS", "Executor", "LocalExecutor", "Request", "check_executor", "local_summary", "make_executor",
           "open_executor", "summarize_batches"]
