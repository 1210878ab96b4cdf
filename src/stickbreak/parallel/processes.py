"""Local worker processes (the standard library only), each started as ``python -m
stickbreak.parallel._serve`` and talking to the driver over two pipes.

A worker is a fresh interpreter: it never imports the user's script (``multiprocessing``'s spawn
would, so a script without an ``if __name__ == "__main__"`` guard would start workers without end),
shares no numba threads or locks with the driver, and ends when the driver's end of its pipes
closes or the driver dies. It runs its tasks in order; the sharded executor has at most one task in
flight per worker (it reads every answer of a call before the next), so neither side can block the
other on a full pipe. A worker found dead while the driver waits is started again, empty; its task
is answered with :class:`~.sharded.WorkerLost` and the executor retries it.
"""

from __future__ import annotations

import itertools
import os
import pickle
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

from .sharded import WorkerLost
from .worker import Shipment, Wire, drop, run_parts

#: Seconds between checks that a worker (or, in the worker, the driver) is alive.
POLL_SECONDS = 0.2
#: The sequence number of a message that frees a placement (its payload is the placement key).
DROP = 2**63 - 1
_SEQ_BYTES = 8


class RemoteError(RuntimeError):
    """A task failed inside a worker process; the message holds the worker's traceback."""


def _failure(error: BaseException) -> bytes:
    """The pickled error, or a :class:`RemoteError` with the traceback when it does not pickle."""
    try:
        payload = pickle.dumps(error)
        pickle.loads(payload)
        return payload
    except Exception:
        return pickle.dumps(RemoteError(traceback.format_exc()))


def serve(tasks: Connection, answers: Connection, driver_pid: int) -> None:
    """A worker's loop: each message is ``seq`` (8 bytes) and a task; the answer is ``seq``, a
    success flag (1 byte) and the answer's bytes. It ends when the driver closes the pipe or dies."""
    while True:
        if not tasks.poll(POLL_SECONDS * 5):
            if os.getppid() != driver_pid:  # the driver died: this worker is an orphan
                return
            continue
        try:
            message = tasks.recv_bytes()
        except EOFError:
            return
        seq, payload = int.from_bytes(message[:_SEQ_BYTES], "little"), message[_SEQ_BYTES:]
        if seq == DROP:
            drop(payload.decode())
            continue
        try:
            ok, answer = b"\x01", run_parts(payload)
        except BaseException as error:  # the driver re-raises it; the worker goes on
            ok, answer = b"\x00", _failure(error)
        answers.send_bytes(seq.to_bytes(_SEQ_BYTES, "little") + ok + answer)


@dataclass(eq=False)
class _Worker:
    process: subprocess.Popen
    tasks: Connection
    answers: Connection
    generation: int
    done: dict = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class _Handle:
    backend: "ProcessBackend"
    worker: int
    generation: int
    seq: int

    def result(self) -> tuple[list, dict]:
        return self.backend.wire.unpacked(self.backend.result(self))


class ProcessBackend:
    """``n_workers`` worker processes on this machine."""

    in_process = False

    def __init__(self, n_workers: int):
        if n_workers < 1:
            raise ValueError(f"n_workers must be at least 1, got {n_workers}")
        self._seq = itertools.count()
        self._generations = itertools.count()
        self.n_workers = int(n_workers)
        self.restarts = 0
        self.wire = Wire()
        self._workers = [self._start() for _ in range(self.n_workers)]

    def _start(self) -> _Worker:
        task_read, task_write = os.pipe()
        answer_read, answer_write = os.pipe()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [*sys.path]))}
        process = subprocess.Popen([sys.executable, "-m", "stickbreak.parallel._serve", str(task_read),
                                    str(answer_write), str(os.getpid())],
                                   pass_fds=(task_read, answer_write), stdin=subprocess.DEVNULL, env=env)
        os.close(task_read)
        os.close(answer_write)
        return _Worker(process, Connection(task_write, readable=False), Connection(answer_read, writable=False),
                       next(self._generations))

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests that kill one)."""
        return [w.process.pid for w in self._workers]

    def submit(self, worker: int, shipment: Shipment) -> _Handle:
        state = self._workers[worker]
        seq = next(self._seq)
        try:
            state.tasks.send_bytes(seq.to_bytes(_SEQ_BYTES, "little") + self.wire.packed(shipment))
        except OSError:  # the worker is gone; result() notices and restarts it
            pass
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
                ready = state.answers.poll(POLL_SECONDS)
                message = state.answers.recv_bytes() if ready else None
            except (EOFError, OSError):
                message = None
            if message is None:
                if state.process.poll() is not None:
                    code = state.process.returncode
                    self._restart(handle.worker)
                    raise WorkerLost(f"worker {handle.worker} (pid {state.process.pid}) died with exit code {code}")
                continue
            seq = int.from_bytes(message[:_SEQ_BYTES], "little")
            state.done[seq] = (message[_SEQ_BYTES] == 1, message[_SEQ_BYTES + 1:])

    def _restart(self, worker: int) -> None:
        old = self._workers[worker]
        for end in (old.tasks, old.answers):
            end.close()
        self._workers[worker] = self._start()
        self.restarts += 1

    def bytes_moved(self) -> int:
        return self.wire.moved

    def drop(self, key: str) -> None:
        for state in self._workers:
            try:
                state.tasks.send_bytes(DROP.to_bytes(_SEQ_BYTES, "little") + key.encode())
            except OSError:
                pass

    def close(self) -> None:
        for state in self._workers:
            state.tasks.close()  # the worker's next read ends its loop
        for state in self._workers:
            try:
                state.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                state.process.kill()
                state.process.wait()
            state.answers.close()
        self._workers = []
