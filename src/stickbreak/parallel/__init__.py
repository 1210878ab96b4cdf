"""Executors that map the local step over batches and sum the statistics."""

from .executors import SerialExecutor, ThreadExecutor, make_executor, summarize_batches

__all__ = ["SerialExecutor", "ThreadExecutor", "make_executor", "summarize_batches"]
