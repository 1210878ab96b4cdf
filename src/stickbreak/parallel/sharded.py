"""An executor whose batches live on worker processes, in parts, over a :class:`Backend`.

Every batch is split into ``n_workers`` contiguous parts; part ``w`` goes to worker ``w`` with the
first task that needs it (the part's items, or for a :class:`~stickbreak.data.shards.ShardStore`
only where the worker reads them) and stays there for the rest of the fit. A call sends each
worker one task, the model and global parameters with its parts' item rows and warm starts, and
gets each part's statistics back; a batch's statistics are its parts' added in part order and
its warm start their rows in order, so every executor computes the same fit up to round-off.

Memoized VI's batch caches stay on the workers too (:mod:`.caches`), written through to the
executor's ``spill`` directory after every visit.

Faults: a worker that died costs a retry of its task (the backend starts another); a worker
that lacks a part (restarted, or a Dask task moved elsewhere) is sent the part again and reads
its caches back from the spill directory. A task that
fails for its own reasons (bad data, a bug) raises its error on the driver at once.
"""

from __future__ import annotations

import pickle
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, Sequence

import numpy as np

from ..data.shards import ShardStore
from .caches import KEPT_LOST, MemoVisit, PartVisit, joined_caches, part_visit
from .executors import Request
from .parts import added as _added
from .parts import batch_size, filled_parts, joined, joined_rows, joined_visits, part_bounds, split
from .worker import MISSING, PartSource, PartTask, dumps

#: Attempts per part before a fit gives up on it.
MAX_ATTEMPTS = 4


class WorkerLost(RuntimeError):
    """The worker running a task died before answering (its tasks are retried)."""


class Backend(Protocol):
    """Runs :func:`stickbreak.parallel.worker.run_parts` on a worker and hands back its answer."""

    n_workers: int

    def submit(self, worker: int, payload: bytes) -> Any:
        """Queue a task on ``worker``; the returned handle's ``result()`` gives the answer bytes or
        raises :class:`WorkerLost` (the backend has replaced the worker, or will)."""

    def drop(self, key: str) -> None:
        """Free placement ``key`` on every worker."""

    def close(self) -> None:
        """Stop what this backend started."""


def _by_request(jobs: list, n_requests: int) -> list[list]:
    """Each request's answers, in part order."""
    answers: list[list] = [[] for _ in range(n_requests)]
    for job in jobs:
        answers[job.request].append(job.answer)
    return answers


@dataclass(eq=False)
class Placement:
    """The batches of one fit as placed on the workers: a key, each batch's size, what is placed."""

    batches: Sequence
    key: str = field(default_factory=lambda: uuid.uuid4().hex)
    placed: set = field(default_factory=set)  # (worker, batch)
    features: dict = field(default_factory=dict)  # (batch, part) -> the features the worker keeps it on

    def size(self, b: int) -> int:
        return batch_size(self.batches, b)

    def source(self, b: int, start: int, stop: int) -> PartSource:
        if isinstance(self.batches, ShardStore):
            return PartSource(directory=str(self.batches.directory), batch=b, start=start, stop=stop)
        return PartSource(data=self.batches[b].subset(np.arange(start, stop)))


@dataclass(eq=False)
class _Call:
    """One call's model, parameters and merge pairs, pickled once for the workers that get them
    whole, and for each worker that gets only its part's features."""

    model: Any
    params: Any
    merge_pairs: Any
    _whole: bytes | None = None

    def whole(self) -> bytes:
        if self._whole is None:
            self._whole = dumps((self.model, self.params, self.merge_pairs))
        return self._whole

    def sliced(self, features: np.ndarray) -> bytes:
        return dumps((self.model, self.model.params_on_features(self.params, features), self.merge_pairs))


@dataclass(eq=False)
class _Job:
    request: int
    worker: int
    task: PartTask
    answer: Any = None


class ShardedExecutor:
    """Batches split over the workers of ``backend`` (:mod:`.processes` or :mod:`.dask_backend`)."""

    def __init__(self, backend: Backend, spill: str | None = None):
        self.backend = backend
        self.n_workers = backend.n_workers
        self._placements: dict[int, Placement] = {}
        self._bytes = 0
        # where workers write memoized VI's caches through (:mod:`.caches`); one on this machine by default
        self._own_spill = spill is None
        self.spill = tempfile.mkdtemp(prefix="stickbreak-caches-") if spill is None else str(spill)

    def _placement(self, batches) -> Placement:
        placement = self._placements.get(id(batches))
        if placement is None or placement.batches is not batches:
            placement = self._placements[id(batches)] = Placement(batches)
        return placement

    def local_summaries(self, model, params, batches, requests: Sequence[Request], merge_pairs=None):
        return [joined(parts) for parts in _by_request(self._run(model, params, batches, requests, merge_pairs),
                                                       len(requests))]

    def total_summary(self, model, params, batches, requests: Sequence[Request]):
        jobs = self._run(model, params, batches, requests, None, total=True)
        totals = [job.answer for job in sorted(jobs, key=lambda job: job.worker) if job.answer[0] is not None]
        warm = tuple(joined_rows([p[1] for p in parts]) for parts in _by_request(jobs, len(requests)))
        return _added(totals), warm

    def memo_step(self, model, params, batches, visit: MemoVisit, merge_pairs, keep_loglik=False):
        jobs = self._memo_jobs(model, params, batches, visit, merge_pairs, keep_loglik)
        return joined_visits([job.answer for job in jobs], visit.work)

    def memo_work(self, model, params, batches, visit: MemoVisit, merge_pairs, keep_loglik=False):
        """Sent without the parameters (the parts kept those of their visit); a part whose worker
        lost them is asked again with them (:data:`~.caches.KEPT_LOST`)."""
        # what only running the visit again, or rebuilding what it kept, needs stays here
        light = replace(visit, records=(), install=None, work=visit.work.travelling())
        jobs = self._memo_jobs(model, None, batches, light, merge_pairs, keep_loglik, again=True)
        lost = {job.task.part for job in jobs if isinstance(job.answer, bytes) and job.answer == KEPT_LOST}
        if lost:
            again = self._memo_jobs(model, params, batches, visit, merge_pairs, keep_loglik, again=True, only=lost)
            answers = {job.task.part: job.answer for job in again}
            for job in jobs:
                job.answer = answers.get(job.task.part, job.answer)
        return visit.work.joined([job.answer for job in jobs])

    def _memo_jobs(self, model, params, batches, visit: MemoVisit, merge_pairs, keep_loglik, again=False,
                   only=None) -> list[_Job]:
        """The visit's part tasks (``only``: of these parts), run."""
        placement = self._placement(batches)
        jobs = [_Job(0, index, PartTask(placement.key, visit.batch, index, None, None, keep_loglik=keep_loglik,
                                        memo=replace(part_visit(visit, index, start, stop, self.spill), again=again)))
                for index, start, stop in filled_parts(placement.size(visit.batch), self.n_workers)
                if only is None or index in only]
        return self._run_jobs(model, params, placement, jobs, merge_pairs)

    def memo_caches(self, batches, which, held=None):
        placement = self._placement(batches)
        fetch = PartVisit((), True, None, False, spill=self.spill)
        jobs = [_Job(i, index, PartTask(placement.key, b, index, None, None, memo=fetch, fetch=True, held=held))
                for i, b in enumerate(which) for index, _, _ in filled_parts(placement.size(b), self.n_workers)]
        self._run_jobs(None, None, placement, jobs, None)
        return [joined_caches(parts) for parts in _by_request(jobs, len(which))]

    def _run(self, model, params, batches, requests, merge_pairs, total=False) -> list[_Job]:
        """The jobs (a part of a request each) with their answers (see :meth:`_run_jobs`)."""
        placement = self._placement(batches)
        jobs = [job for i, request in enumerate(requests) for job in self._jobs(placement, i, request)]
        return self._run_jobs(model, params, placement, jobs, merge_pairs, total)

    def _run_jobs(self, model, params, placement: Placement, jobs: list[_Job], merge_pairs, total=False) -> list[_Job]:
        """The jobs with their answers: one task per worker and call, with every part it holds;
        ``total``: each worker adds up its parts' statistics (the first of its answered parts
        carries the sum, the others None)."""
        call = _Call(model, params, merge_pairs)
        pending = jobs
        for attempt in range(1, MAX_ATTEMPTS + 1):
            by_worker: dict[int, list[_Job]] = {}
            for job in pending:
                by_worker.setdefault(job.worker, []).append(job)
            handles = {w: self._submit(placement, group, call, total) for w, group in by_worker.items()}
            pending, error = [], None
            for w, group in by_worker.items():
                try:
                    answers = self._answers(handles[w], placement)
                except WorkerLost as lost:  # the worker died: its store and every part on it are gone
                    answers, error = [MISSING] * len(group), lost
                for job, answer in zip(group, answers):
                    if isinstance(answer, bytes) and answer == MISSING:
                        pending.append(job)
                    else:
                        job.answer = answer
                if any(job.answer is None for job in group):
                    placement.placed = {p for p in placement.placed if p[0] != w}
            if not pending:
                break
            error = error or WorkerLost(f"worker {pending[0].worker} no longer holds its parts")
        else:
            job = pending[0]
            raise RuntimeError(f"part {job.task.part} of batch {job.task.batch} failed {MAX_ATTEMPTS} times; last: "
                               f"{error}. Check that the workers stay up (memory, time limits).") from error
        return jobs

    def _jobs(self, placement: Placement, index: int, request: Request) -> list[_Job]:
        return [_Job(index, part.index, PartTask(placement.key, request.batch, part.index, part.rows, part.warm))
                for part in split(placement.size(request.batch), self.n_workers, request.rows, request.warm)]

    def _submit(self, placement: Placement, group: list[_Job], call: _Call, total: bool):
        """One worker's task: the call's parameters and its parts (with their data if not placed yet).
        A worker given one part of a :class:`~stickbreak.core.protocols.FeatureSliced` model gets
        only that part's features of the parameters."""
        first = group[0]
        features = placement.features.get((first.task.batch, first.task.part))
        sliced = (len(group) == 1 and features is not None and (first.worker, first.task.batch) in placement.placed
                  and not first.task.fetch and call.params is not None)
        common = call.sliced(features) if sliced and features is not None else call.whole()
        parts = []
        for job in group:
            task = job.task
            if not task.fetch and (job.worker, task.batch) not in placement.placed:
                start, stop = part_bounds(placement.size(task.batch), self.n_workers)[task.part]
                task = replace(task, source=placement.source(task.batch, start, stop))
                placement.placed.add((job.worker, task.batch))
            if task.memo is not None and task.memo.work is not None and features is not None and len(group) == 1:
                task = replace(task, memo=replace(task.memo, work=task.memo.work.on_features(call.model, features)))
            parts.append(replace(task, sliced=sliced))
        payload = dumps((common, parts, total))  # a move record's zero statistics (other parts') take no room
        self._bytes += len(payload)
        return self.backend.submit(group[0].worker, payload)

    def _answers(self, handle, placement: Placement) -> list:
        answer = handle.result()
        self._bytes += len(answer)
        answers, features = pickle.loads(answer)
        placement.features.update({key: f for key, f in features.items() if f is not None})
        return answers

    def __deepcopy__(self, memo):  # sklearn's clone copies constructor parameters: share the workers instead
        return self

    def bytes_moved(self) -> int:
        return self._bytes

    def release(self) -> None:
        """Free the fit's parts and caches on the workers, and the spill files this executor owns
        (its directory is made again by the next fit's first visit)."""
        for placement in self._placements.values():
            self.backend.drop(placement.key)
        self._placements.clear()
        if self._own_spill:
            shutil.rmtree(self.spill, ignore_errors=True)

    def close(self) -> None:
        self.release()
        self.backend.close()
