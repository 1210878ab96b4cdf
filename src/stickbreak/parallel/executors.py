"""Serial and thread executors (the kernels release the GIL, so threads use several cores).

An executor only needs ``map(fn, items) -> list``; :func:`summarize_batches` is the one place that
maps ``summarize(local_step(.))`` over batches and sums the additive statistics.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Sequence



class SerialExecutor:
    def map(self, fn: Callable, items: Iterable) -> list:
        return [fn(item) for item in items]

    def close(self) -> None:
        pass


class ThreadExecutor:
    """A pool of ``n_workers`` threads."""

    def __init__(self, n_workers: int):
        self.n_workers = n_workers
        self._pool = ThreadPoolExecutor(max_workers=n_workers, thread_name_prefix="stickbreak")

    def map(self, fn: Callable, items: Iterable) -> list:
        return list(self._pool.map(fn, items))

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def make_executor(n_jobs: int):
    return SerialExecutor() if n_jobs == 1 else ThreadExecutor(n_jobs)


def summarize_batches(model, params, batches: Sequence, executor=None, warm=None):
    """Whole-data statistics ``sum_b summarize(b, local_step(params, b))`` and each batch's warm
    start for the next lap (``model.warm_start``; ``None`` for models that need none).

    ``warm`` holds the previous lap's warm starts, one per batch, or is ``None``.
    """
    executor = executor or SerialExecutor()
    warm = warm if warm is not None else (None,) * len(batches)

    def one(pair):
        batch, start = pair
        local = model.local_step(params, batch, warm=start)
        return model.summarize(batch, local, params.uids), model.warm_start(local)

    parts = executor.map(one, list(zip(batches, warm)))
    stats = sum((p[0] for p in parts[1:]), parts[0][0])
    return stats, tuple(p[1] for p in parts)


def map_batches(fn: Callable, batches: Sequence, executor=None) -> list:
    return (executor or SerialExecutor()).map(fn, batches)
