"""Executors behind one interface: the driver's threads, local processes, or Dask (:mod:`.executors`)."""

from .executors import Executor, summarize_batches
from .factory import EXECUTORS, check_executor, make_executor, open_executor, runs_here
from .jobs import LocalStep, PartContext, PartJob, Request
from .threads import LocalExecutor

__all__ = ["EXECUTORS", "Executor", "LocalExecutor", "LocalStep", "PartContext", "PartJob", "Request",
           "check_executor", "make_executor", "open_executor", "runs_here", "summarize_batches"]
