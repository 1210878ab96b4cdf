"""The driver's own process as the workers: a pool of threads (numba kernels and BLAS release the GIL).

Each batch is placed as worker processes would hold it, split into one part per thread or kept
whole on one thread when the fit's calls spread over batches, so threads and processes do the same
sums (a single thread runs every batch whole). Parts of in-memory batches are kept as they are (a
whole batch is not copied); a shard store's are read at each task (its batches stay on disk).
Nothing is pickled and no worker is lost.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from .sharded import ShardedExecutor
from .worker import PartStore, Shipment


class ThreadBackend:
    """``n_threads`` threads of the driver's process, over one store of parts."""

    in_process = True

    def __init__(self, n_threads: int = 1):
        self.n_workers = int(n_threads)
        self.store = PartStore(keeps_shards=False, slices_features=False)
        self._pool = (ThreadPoolExecutor(max_workers=self.n_workers, thread_name_prefix="stickbreak")
                      if self.n_workers > 1 else None)

    def submit(self, worker: int, shipment: Shipment) -> Future:
        if self._pool is not None:
            return self._pool.submit(shipment.run_here, self.store)
        done: Future = Future()
        try:
            done.set_result(shipment.run_here(self.store))
        except BaseException as error:
            done.set_exception(error)
        return done

    def bytes_moved(self) -> int:
        return 0

    def drop(self, key: str) -> None:
        self.store.drop(key)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)


class LocalExecutor(ShardedExecutor):
    """The driver's process on ``n_threads`` threads (:class:`ThreadBackend`); memoized VI's laps
    go batch by batch unless ``synchronous_laps``."""

    def __init__(self, n_threads: int = 1, synchronous_laps: bool = False):
        super().__init__(ThreadBackend(n_threads), synchronous_laps=synchronous_laps)
