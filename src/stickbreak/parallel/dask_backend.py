"""Dask (``distributed``) workers: a ``Client``, a scheduler address, or a ``LocalCluster`` started here.

Part ``w`` runs on the ``w``-th worker (by address) when it is up and anywhere else otherwise
(``allow_other_workers``): a worker that died is replaced by the scheduler, a task it held runs
again elsewhere, and a worker that lacks the part answers so and is sent it. Each worker gets one
task per call, with the model, the parameters and its parts. A cluster that has lost every worker
(and whose scheduler starts none) is waited for up to :data:`WORKERLESS_SECONDS`, then the fit stops
with :class:`WorkersGone` instead of waiting for ever. Needs the ``dask`` extra (``pip install
'stickbreak[dask]'``).
"""

from __future__ import annotations

import time

from .sharded import WorkerLost
from .worker import Shipment, Wire, drop, run_parts

#: Seconds a call waits for a cluster with no workers to get one before the fit stops.
WORKERLESS_SECONDS = 30.0
#: Seconds between checks, while a call waits, that the cluster still has workers.
POLL_SECONDS = 1.0


class WorkersGone(RuntimeError):
    """The Dask cluster has had no workers for :data:`WORKERLESS_SECONDS`: the fit cannot go on."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError("Dask execution needs the distributed package: pip install 'stickbreak[dask]'") from None
    return distributed


class _Handle:
    def __init__(self, future, worker: int, backend: "DaskBackend"):
        self.future, self.worker, self.backend = future, worker, backend

    def result(self) -> tuple[list, dict]:
        """The answer, waiting while the cluster has workers (or gets one back within
        :data:`WORKERLESS_SECONDS`)."""
        distributed = _distributed()
        workerless_since = None
        while True:
            try:
                return self.backend.wire.unpacked(self.future.result(timeout=POLL_SECONDS))
            except TimeoutError:
                pass
            except distributed.KilledWorker as killed:  # the scheduler gave up on the task: the executor retries it
                raise WorkerLost(f"Dask worker {self.worker}: {killed}") from None
            if self.backend.worker_addresses():
                workerless_since = None
                continue
            workerless_since = workerless_since or time.monotonic()
            if time.monotonic() - workerless_since >= WORKERLESS_SECONDS:
                self.future.cancel()
                raise WorkersGone(self.backend.workerless_message())


class DaskBackend:
    """Dask workers from ``target``: a ``distributed.Client``, a scheduler address (``"tcp://host:8786"``),
    or None for a ``LocalCluster`` of ``n_workers`` single-threaded processes started (and closed) here."""

    in_process = False

    def __init__(self, target=None, n_workers: int = 2):
        distributed = _distributed()
        self.wire = Wire()
        self._owned = []
        if isinstance(target, distributed.Client):
            self.client = target
        elif isinstance(target, str):
            self.client = distributed.Client(target)
            self._owned = [self.client]
        elif target is None:
            try:
                cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                                   dashboard_address=None)
            except RuntimeError as error:  # most often: a script without a main guard, re-imported by each worker
                raise RuntimeError(
                    "executor='dask' could not start a LocalCluster. Its worker processes import your script again: "
                    "put the fit under `if __name__ == \"__main__\":`, or use executor='processes' (fresh "
                    f"interpreters that need no guard). Dask said: {error}") from error
            self.client = distributed.Client(cluster)
            self._owned = [self.client, cluster]
        else:
            raise TypeError(f"a Dask executor needs a distributed.Client, a scheduler address or None, "
                            f"got {type(target).__name__}")
        self._addresses = self.worker_addresses()
        if not self._addresses:
            raise RuntimeError(f"the Dask scheduler {self.client.scheduler.address} has no workers; start some with "
                               f"`dask worker {self.client.scheduler.address}`")
        self.n_workers = len(self._addresses)

    def worker_addresses(self) -> list[str]:
        """The addresses of the workers up now (none if the scheduler cannot be reached)."""
        try:
            return sorted(self.client.scheduler_info()["workers"])
        except (OSError, TimeoutError):  # the scheduler is gone too
            return []

    def workerless_message(self) -> str:
        address = self.client.scheduler.address
        return (f"the Dask cluster at {address} has had no workers for {WORKERLESS_SECONDS:.0f} s (every worker was "
                f"lost, and none was started again), so the fit stops here. Start workers (`dask worker {address}`) "
                "and fit again; a fit given checkpoint=DIR goes on from its last checkpoint with "
                "stickbreak.resume(DIR, X, executor=...)")

    def submit(self, worker: int, shipment: Shipment) -> _Handle:
        self._addresses = self.worker_addresses() or self._addresses  # the workers up now (one may have died)
        address = self._addresses[worker % len(self._addresses)]
        future = self.client.submit(run_parts, self.wire.packed(shipment), workers=[address],
                                    allow_other_workers=True, pure=False)
        return _Handle(future, worker, self)

    def bytes_moved(self) -> int:
        return self.wire.moved

    def drop(self, key: str) -> None:
        self.client.run(drop, key, on_error="ignore")

    def close(self) -> None:
        for thing in self._owned:
            thing.close()
        self._owned = []
