"""The executor: batches placed on the workers of a :class:`Backend`, in parts, and jobs run where they live.

Every batch is split into ``n_workers`` contiguous parts (:mod:`.parts`), part ``w`` on worker ``w``;
or, when a fit's first call visits at least as many batches as there are workers (a synchronous
memoized lap, a batch VB pass: calls that spread over batches), each batch is one part, batch ``b``
on worker ``b mod n_workers`` (:attr:`ShardedExecutor.whole_batches` can force either). A part goes
to its worker with the first task that needs it (the part's items, or for a
:class:`~stickbreak.data.shards.ShardStore` only where the worker reads them) and stays there for
the rest of the fit. A call (:meth:`ShardedExecutor.on_parts`) sends each worker one shipment, the
model and parameters with a job for each of its parts (:mod:`.jobs`), and gets each part's answer
back. The local step and summary every learner asks for is such a job; a batch's statistics are
its parts' added in part order and its warm start their rows in order, so every executor with the
same number of workers and placement computes the same fit, and differs from another only by
round-off.

Three backends: the driver's threads (:mod:`.threads`), local processes (:mod:`.processes`), Dask
(:mod:`.dask_backend`). Faults: a worker that died costs a retry of its task (the backend starts
another); a worker that lacks a part (restarted, or a Dask task moved elsewhere) is sent the part
again. A task that fails for its own reasons (bad data, a bug) raises its error on the driver at once.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from ..data.shards import ShardStore
from .jobs import LocalStep, Request, totalled
from .parts import added, batch_size, joined, joined_rows, part_bounds, split
from .worker import MISSING, Call, PartSource, PartTask, Shipment

#: Attempts per part before a fit gives up on it.
MAX_ATTEMPTS = 4
#: What a caller asks of one batch: its index and, for each part ``(index, start, stop)``, the job
#: to run there (None: nothing on that part).
Ask = tuple[int, Callable[[int, int, int], Any]]


class WorkerLost(RuntimeError):
    """The worker running a task died before answering (its tasks are retried)."""


class Backend(Protocol):
    """Runs shipments (:class:`~.worker.Shipment`) on its workers."""

    n_workers: int
    #: The workers are threads of the driver's process: nothing is pickled, no worker is lost.
    in_process: bool

    def submit(self, worker: int, shipment: Shipment) -> Any:
        """Queue a shipment on ``worker``; the returned handle's ``result()`` gives its
        ``(answers, placed features)`` or raises :class:`WorkerLost` (the backend has replaced the
        worker, or will)."""

    def bytes_moved(self) -> int:
        """Bytes sent to and received from the workers so far."""

    def drop(self, key: str) -> None:
        """Free placement ``key`` on every worker."""

    def close(self) -> None:
        """Stop what this backend started."""


@dataclass(eq=False)
class Placement:
    """The batches of one fit as placed on the workers: a key, what is placed where, and the
    features each part is kept on (a :class:`~stickbreak.core.protocols.FeatureSliced` model's)."""

    batches: Sequence
    in_process: bool
    whole: bool = False  # each batch one part, on worker ``b mod n_workers``
    key: str = field(default_factory=lambda: uuid.uuid4().hex)
    placed: set = field(default_factory=set)  # (worker, batch)
    features: dict = field(default_factory=dict)  # (batch, part) -> the features the worker keeps it on

    def size(self, b: int) -> int:
        return batch_size(self.batches, b)

    def source(self, b: int, start: int, stop: int) -> PartSource:
        if isinstance(self.batches, ShardStore):
            if self.in_process:
                return PartSource(shards=self.batches, batch=b, start=start, stop=stop)
            return PartSource(directory=str(self.batches.directory), batch=b, start=start, stop=stop)
        batch = self.batches[b]
        return PartSource(data=batch if (start, stop) == (0, batch.n_items) else batch.subset(np.arange(start, stop)))

    def keeps(self, b: int) -> bool:
        """Whether a part of batch ``b`` stays where it was sent (threads read a shard at each task)."""
        return not (self.in_process and isinstance(self.batches, ShardStore))


@dataclass(eq=False)
class _Job:
    ask: int
    worker: int
    task: PartTask
    answer: Any = None


class ShardedExecutor:
    """Batches split over the workers of ``backend``; ``spill``: the directory jobs write their
    state through to (default: one made here for backends whose workers can be lost, none for
    threads); ``synchronous_laps``: memoized VI's laps visit every batch in one call (default: for
    backends whose workers are other processes, :attr:`~.executors.Executor.synchronous_laps`);
    ``whole_batches``: keep each batch whole on one worker (given at least as many batches as
    workers), or split every batch over the workers; None (default): whole when a fit's first
    call visits at least as many batches as workers (its calls spread over batches), split when it
    visits fewer (a fit that goes batch by batch: each step spread over the workers)."""

    def __init__(self, backend: Backend, spill: str | None = None, synchronous_laps: bool | None = None,
                 whole_batches: bool | None = None):
        self.backend = backend
        self.n_workers = backend.n_workers
        self.synchronous_laps = not backend.in_process if synchronous_laps is None else bool(synchronous_laps)
        self.whole_batches = None if whole_batches is None else bool(whole_batches)
        self._placements: dict[int, Placement] = {}
        owns = spill is None and not backend.in_process
        self._own_spill = tempfile.mkdtemp(prefix="stickbreak-caches-") if owns else None
        self.spill = self._own_spill or spill

    def _placement(self, batches, visited: int = 1) -> Placement:
        """The fit's placement, made by its first call, which visits ``visited`` batches."""
        placement = self._placements.get(id(batches))
        if placement is None or placement.batches is not batches:
            spread = visited >= self.n_workers if self.whole_batches is None else self.whole_batches
            whole = spread and len(batches) >= self.n_workers
            placement = self._placements[id(batches)] = Placement(batches, self.backend.in_process, whole)
        return placement

    def parts(self, batches, b: int) -> list[tuple[int, int]]:
        """Batch ``b``'s parts' item ranges ``[start, stop)``, by part index (some may be empty)."""
        placement = self._placement(batches)
        return part_bounds(placement.size(b), self._n_parts(placement))

    def _n_parts(self, placement: Placement) -> int:
        return 1 if placement.whole else self.n_workers

    def _worker(self, placement: Placement, b: int, index: int) -> int:
        """The worker that holds part ``index`` of batch ``b``."""
        return b % self.n_workers if placement.whole else index

    def on_parts(self, model, params, batches, asks: Sequence[Ask], reduce: Callable | None = None) -> list[dict]:
        """Each ask's answers ``{part index: answer}`` in part order: the jobs it names run, with
        ``model`` and ``params``, where the parts of its batch live; ``reduce`` (picklable) is
        applied by each worker to its answers (in ask order) before they travel back."""
        placement = self._placement(batches, len({b for b, _ in asks}))
        jobs = []
        for i, (b, job_for) in enumerate(asks):
            for index, (start, stop) in enumerate(self.parts(batches, b)):
                job = job_for(index, start, stop) if stop > start else None
                if job is not None:
                    jobs.append(_Job(i, self._worker(placement, b, index),
                                     PartTask(placement.key, b, index, start, job, spill=self.spill)))
        self._run(Call(model, params), placement, jobs, reduce)
        answers: list[dict] = [{} for _ in asks]
        for job in jobs:
            answers[job.ask][job.task.part] = job.answer
        return answers

    def local_summaries(self, model, params, batches, requests: Sequence[Request], merge_pairs=None) -> list[tuple]:
        """For each request, ``(model.summarize(batch, local, params.uids), model.warm_start(local))``
        with ``local = model.local_step(params, batch, warm=request.warm)`` (with ``merge_pairs``:
        memoized VI's merged terms of the pairs too)."""
        answers = self.on_parts(model, params, batches, self._local_steps(batches, requests, merge_pairs))
        return [joined(list(parts.values())) for parts in answers]

    def total_summary(self, model, params, batches, requests: Sequence[Request]) -> tuple[Any, tuple]:
        """The requests' statistics added up, and each request's warm start: each worker adds up
        its own parts' first, so only the round-off differs from the serial sum."""
        answers = self.on_parts(model, params, batches, self._local_steps(batches, requests), reduce=totalled)
        placement = self._placement(batches)
        by_worker = sorted(((self._worker(placement, request.batch, index), a) for request, parts in
                            zip(requests, answers) for index, a in parts.items()), key=lambda wa: wa[0])
        totals = [a for _, a in by_worker if a[0] is not None]
        return added(totals), tuple(joined_rows([a[1] for a in parts.values()]) for parts in answers)

    def _local_steps(self, batches, requests: Sequence[Request], merge_pairs=None) -> list[Ask]:
        placement = self._placement(batches, len({request.batch for request in requests}))

        def ask(request: Request) -> Ask:
            parts = {p.index: p for p in split(placement.size(request.batch), self._n_parts(placement),
                                               request.rows, request.warm)}
            return request.batch, lambda index, start, stop: (
                LocalStep(parts[index].rows, parts[index].warm, merge_pairs) if index in parts else None)

        return [ask(request) for request in requests]

    def _run(self, call: Call, placement: Placement, jobs: list[_Job], reduce) -> None:
        """Set each job's answer: one shipment per worker and attempt, with every part it holds."""
        pending, error = jobs, None
        for _ in range(MAX_ATTEMPTS):
            by_worker: dict[int, list[_Job]] = {}
            for job in pending:
                by_worker.setdefault(job.worker, []).append(job)
            handles = {w: self._submit(placement, group, call, reduce) for w, group in by_worker.items()}
            pending = []
            for w, group in by_worker.items():
                try:
                    answers, features = handles[w].result()
                    placement.features.update({key: f for key, f in features.items() if f is not None})
                except WorkerLost as lost:  # the worker died: its store and every part on it are gone
                    answers, error = [MISSING] * len(group), lost
                for job, answer in zip(group, answers):
                    job.answer = answer
                missing = [job for job in group if isinstance(job.answer, bytes) and job.answer == MISSING]
                if missing:
                    pending.extend(missing)
                    placement.placed = {p for p in placement.placed if p[0] != w}
            if not pending:
                return
            error = error or WorkerLost(f"worker {pending[0].worker} no longer holds its parts")
        job = pending[0]
        raise RuntimeError(f"part {job.task.part} of batch {job.task.batch} failed {MAX_ATTEMPTS} times; last: "
                           f"{error}. Check that the workers stay up (memory, time limits).") from error

    def _submit(self, placement: Placement, group: list[_Job], call: Call, reduce):
        """One worker's shipment: the call's parameters and its parts' jobs (with the parts' data
        if not placed yet). A worker given one part of a
        :class:`~stickbreak.core.protocols.FeatureSliced` model gets only that part's features of
        the parameters, and the job cut to them."""
        first = group[0]
        features = placement.features.get((first.task.batch, first.task.part))
        sliced = (len(group) == 1 and features is not None and (first.worker, first.task.batch) in placement.placed
                  and call.params is not None)
        tasks = []
        for job in group:
            task = job.task
            if task.job.reads_data and (job.worker, task.batch) not in placement.placed:
                start, stop = part_bounds(placement.size(task.batch), self._n_parts(placement))[task.part]
                task = replace(task, source=placement.source(task.batch, start, stop))
                if placement.keeps(task.batch):
                    placement.placed.add((job.worker, task.batch))
            if features is not None and len(group) == 1:
                task = replace(task, job=task.job.on_features(call.model, features))
            tasks.append(replace(task, sliced=sliced))
        return self.backend.submit(first.worker, Shipment(call, tasks, reduce, features if sliced else None))

    def __deepcopy__(self, memo):  # sklearn's clone copies constructor parameters: share the workers instead
        return self

    def bytes_moved(self) -> int:
        """Bytes sent to and received from workers so far (0 for the driver's threads)."""
        return self.backend.bytes_moved()

    def release(self) -> None:
        """Free the fit's parts and their jobs' state on the workers, and the spill files this
        executor owns (its directory is made again by the next fit's first visit)."""
        for placement in self._placements.values():
            self.backend.drop(placement.key)
        self._placements.clear()
        if self._own_spill is not None:
            shutil.rmtree(self._own_spill, ignore_errors=True)

    def close(self) -> None:
        """Stop the workers this executor started and free what it placed on the others."""
        self.release()
        self.backend.close()
