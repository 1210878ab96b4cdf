"""Dask (``distributed``) workers: a ``Client``, a scheduler address, or a ``LocalCluster`` started here.

Part ``w`` runs on the ``w``-th worker (by address) when it is up and anywhere else otherwise
(``allow_other_workers``): a worker that died is replaced by the scheduler, a task it held runs
again elsewhere, and a worker that lacks the part answers so and is sent it. Each worker gets one
task per call, with the model, the parameters and its parts. Needs the ``dask`` extra (``pip install
'stickbreak[dask]'``).
"""

from __future__ import annotations

from .sharded import WorkerLost
from .worker import Shipment, Wire, drop, run_parts


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError("Dask execution needs the distributed package: pip install 'stickbreak[dask]'") from None
    return distributed


class _Handle:
    def __init__(self, future, worker: int, wire: Wire):
        self.future, self.worker, self.wire = future, worker, wire

    def result(self) -> tuple[list, dict]:
        distributed = _distributed()
        try:
            return self.wire.unpacked(self.future.result())
        except distributed.KilledWorker as killed:  # the scheduler gave up on the task: the executor retries it
            raise WorkerLost(f"Dask worker {self.worker}: {killed}") from None


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
        self._addresses = self._worker_addresses()
        if not self._addresses:
            raise RuntimeError(f"the Dask scheduler {self.client.scheduler.address} has no workers; start some with "
                               f"`dask worker {self.client.scheduler.address}`")
        self.n_workers = len(self._addresses)

    def _worker_addresses(self) -> list[str]:
        return sorted(self.client.scheduler_info()["workers"])

    def submit(self, worker: int, shipment: Shipment) -> _Handle:
        self._addresses = self._worker_addresses() or self._addresses  # the workers up now (one may have died)
        address = self._addresses[worker % len(self._addresses)]
        future = self.client.submit(run_parts, self.wire.packed(shipment), workers=[address],
                                    allow_other_workers=True, pure=False)
        return _Handle(future, worker, self.wire)

    def bytes_moved(self) -> int:
        return self.wire.moved

    def drop(self, key: str) -> None:
        self.client.run(drop, key, on_error="ignore")

    def close(self) -> None:
        for thing in self._owned:
            thing.close()
        self._owned = []
