"""Local worker processes (the standard library only): one task queue and one answer queue each.

Workers are started with ``spawn`` (numba's threads and the driver's state are not forked) and each
runs its tasks in order. A worker found dead while the driver waits is started again, empty; the
tasks it had are answered with :class:`~.sharded.WorkerLost` and the executor retries them.
"""

from __future__ import annotations

import itertools
import multiprocessing
import pickle
import queue
import traceback
from dataclasses import dataclass, field

from .sharded import WorkerLost
from .worker import drop, run_parts

#: Seconds between checks that a worker is alive while its answer is awaited.
POLL_SECONDS = 0.2


class RemoteError(RuntimeError):
    """A task failed inside a worker process; the message holds the worker's traceback."""


def _serve(tasks, answers) -> None:
    """A worker's loop: run each task, answer ``(seq, ok, bytes)``; ``("drop", key)`` frees a
    placement, ``None`` ends it, and so does the driver's death (a killed driver leaves no workers)."""
    driver = multiprocessing.parent_process()
    while True:
        try:
            item = tasks.get(timeout=POLL_SECONDS * 5)
        except queue.Empty:
            if driver is not None and not driver.is_alive():
                return
            continue
        if item is None:
            return
        if item[0] == "drop":
            drop(item[1])
            continue
        seq, payload = item
        try:
            answers.put((seq, True, run_parts(payload)))
        except BaseException as error:  # the driver re-raises it; the worker goes on
            try:
                payload = pickle.dumps(error)
                pickle.loads(payload)
            except Exception:
                payload = pickle.dumps(RemoteError(traceback.format_exc()))
            answers.put((seq, False, payload))


@dataclass(eq=False)
class _Worker:
    process: multiprocessing.Process
    tasks: object
    answers: object
    generation: int
    done: dict = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class _Handle:
    backend: "ProcessBackend"
    worker: int
    generation: int
    seq: int

    def result(self) -> bytes:
        return self.backend.result(self)


class ProcessBackend:
    """``n_workers`` worker processes on this machine."""

    def __init__(self, n_workers: int):
        if n_workers < 1:
            raise ValueError(f"n_workers must be at least 1, got {n_workers}")
        self._context = multiprocessing.get_context("spawn")
        self._seq = itertools.count()
        self._generations = itertools.count()
        self.n_workers = int(n_workers)
        self.restarts = 0
        self._workers = [self._start() for _ in range(self.n_workers)]

    def _start(self) -> _Worker:
        tasks, answers = self._context.Queue(), self._context.Queue()
        process = self._context.Process(target=_serve, args=(tasks, answers), daemon=True, name="stickbreak-worker")
        process.start()
        return _Worker(process, tasks, answers, next(self._generations))

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests that kill one)."""
        return [w.process.pid for w in self._workers]

    def submit(self, worker: int, payload: bytes) -> _Handle:
        state = self._workers[worker]
        seq = next(self._seq)
        state.tasks.put((seq, payload))
        return _Handle(self, worker, state.generation, seq)

    def result(self, handle: _Handle) -> bytes:
        state = self._workers[handle.worker]
        while True:
            if state.generation != handle.generation:
                raise WorkerLost(f"worker {handle.worker} was restarted before answering")
            if handle.seq in state.done:
                ok, payload = state.done.pop(handle.seq)
                if ok:
                    return payload
                raise pickle.loads(payload)
            try:
                seq, ok, payload = state.answers.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if not state.process.is_alive():
                    self._restart(handle.worker)
                    raise WorkerLost(f"worker {handle.worker} (pid {state.process.pid}) died with exit code "
                                     f"{state.process.exitcode}") from None
                continue
            state.done[seq] = (ok, payload)

    def _restart(self, worker: int) -> None:
        old = self._workers[worker]
        for q in (old.tasks, old.answers):
            q.cancel_join_thread()
            q.close()
        self._workers[worker] = self._start()
        self.restarts += 1

    def drop(self, key: str) -> None:
        for state in self._workers:
            state.tasks.put(("drop", key))

    def close(self) -> None:
        for state in self._workers:
            if state.process.is_alive():
                state.tasks.put(None)
        for state in self._workers:
            state.process.join(timeout=5)
            if state.process.is_alive():
                state.process.kill()
                state.process.join()
            for q in (state.tasks, state.answers):
                q.cancel_join_thread()
                q.close()
        self._workers = []
