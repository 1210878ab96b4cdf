"""The one training loop: laps, convergence, callbacks, progress bar, timing and interruption.

Every algorithm is a learner (:mod:`stickbreak.learn.base`) with ``start`` and ``lap``; the
driver records a :class:`LapRecord` per lap, checks convergence on the relative change of the
exact ELBO, guards monotonicity where the theory promises it, and keeps the last complete lap if
the run is interrupted (Ctrl-C). A run can write its state after every lap (``on_lap``, e.g. a
checkpoint) and continue from such a state (``resume``).
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field
from time import perf_counter
from typing import Any, Callable, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from .config import LearnConfig
from .core.protocols import Fittable, declares, total_elbo
from .core.sparse_resp import row_argmax
from .data import batch_indices
from .learn.base import ELBODecreaseWarning, SavesWithinLaps
from .progress import FitProgress

#: A component counts as effective (``K_eff``) when it explains at least this many items (Hughes 2016, §3.6).
EFFECTIVE_COUNT = 1.0


@dataclass(frozen=True)
class LapRecord:
    """What happened in one lap (one pass over the data)."""

    lap: int
    elbo: float
    terms: dict[str, float]
    n_components: int
    n_effective: int
    seconds: float  # since the fit started (a resumed fit counts the time before the stop), at the end of this lap
    exact: bool = True
    moves: dict[str, dict[str, int]] = field(default_factory=dict)
    bytes_moved: int = 0  # to and from worker processes in this lap (0 in the driver's own process)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __getitem__(self, field_name: str):
        """``record["elbo"]`` reads as ``record.elbo``: a callback's record and an entry of an
        estimator's ``trace_`` (its :meth:`as_dict`) are read the same way."""
        return vars(self)[field_name]


@dataclass(frozen=True, eq=False)
class FitResult:
    state: Any
    trace: tuple[LapRecord, ...]
    stop_reason: str  # "converged", "max_laps", "callback" or "interrupted"

    @property
    def params(self):
        return self.state.params

    @property
    def stats(self):
        return self.state.stats

    @property
    def converged(self) -> bool:
        return self.stop_reason == "converged"

    @property
    def interrupted(self) -> bool:
        return self.stop_reason == "interrupted"

    @property
    def elbo(self) -> float:
        return self.trace[-1].elbo

    @property
    def n_laps(self) -> int:
        return len(self.trace)


@dataclass(frozen=True, eq=False)
class Resumed:
    """Where a run continues: the learner's state and the trace after the last completed lap;
    ``stop_reason`` is set if that lap ended the run (nothing is left to do); ``seconds``: how long
    the run had fitted when the state was saved (within a lap: more than its trace's last lap)."""

    state: Any
    trace: tuple[LapRecord, ...]
    stop_reason: str | None = None
    seconds: float | None = None


@dataclass(frozen=True, eq=False)
class Batches:
    """A fixed partition of the data: item indices per batch and the batches themselves."""

    index: list
    data: list

    @property
    def n_items(self) -> int:
        return int(sum(len(i) for i in self.index))


def split_batches(data, n_batches: int, seed: int) -> Batches:
    """``data`` split into ``n_batches`` random, disjoint batches (deterministic for a seed)."""
    index = batch_indices(data.n_items, min(n_batches, data.n_items), seed)
    return Batches(index, [data.subset(idx) for idx in index])


def predict_labels(model, params, batches: Batches) -> np.ndarray:
    """The most probable component of every item, in the original item order."""
    labels = np.empty(batches.n_items, dtype=np.int64)
    with threadpool_limits(limits=1, user_api="blas"):
        for idx, batch in zip(batches.index, batches.data):
            labels[idx] = row_argmax(model.local_step(params, batch).resp)
    return labels


def _relative_change(trace: Sequence[LapRecord]) -> float:
    if len(trace) < 2 or not (trace[-1].exact and trace[-2].exact):
        return np.inf
    new, old = trace[-1].elbo, trace[-2].elbo
    return abs(new - old) / max(abs(new), 1e-300)


def _warn_if_decreased(trace: Sequence[LapRecord]) -> None:
    """Exact lap-end ELBOs (batch VB, memoized VI with or without moves) never decrease."""
    if len(trace) < 2 or not (trace[-1].exact and trace[-2].exact):
        return
    new, old = trace[-1].elbo, trace[-2].elbo
    if new < old - 1e-9 * max(abs(old), 1.0):
        warnings.warn(
            f"ELBO decreased from {old:.10g} to {new:.10g} at lap {trace[-1].lap}; it should be monotone",
            ELBODecreaseWarning,
            stacklevel=3,
        )


def fit(model: Fittable, batches: Sequence, params, learner, config: LearnConfig, callbacks: Sequence[Callable] = (),
        verbose: int = 0, executor=None, desc: str = "fit", resume: Resumed | None = None,
        on_lap: Callable | None = None, every: float | None = None) -> FitResult:
    """Run laps until the relative ELBO change is below ``config.tol`` or ``config.max_laps`` is reached.

    ``model`` is whatever ``learner`` needs (a :mod:`~stickbreak.core.protocols` protocol it checks
    at its start); the driver itself only reads ``model.monotone``, whether to warn on an ELBO
    decrease. ``callbacks`` are called as ``callback(record, params)`` after every lap; one that
    returns ``True`` stops the run. A ``KeyboardInterrupt`` ends the run after the last complete
    lap. ``on_lap(state, trace, stop_reason, seconds)`` is called after every lap, before the
    callbacks, with the learner's :meth:`~stickbreak.learn.base.Resumable.saved_state`,
    ``stop_reason`` None unless the run ends there by convergence or ``max_laps``, and the seconds
    fitted so far; ``resume`` continues a run from the lap after its trace (or from the lap in
    progress its state holds). ``every``: seconds between calls of ``on_lap`` within a lap too, with
    a lap in progress and the completed laps' trace, for learners that declare
    :class:`~stickbreak.learn.base.SavesWithinLaps` (memoized VI).

    BLAS runs single-threaded meanwhile: the matrices are small and threaded BLAS is 1-3x slower
    on them; parallelism comes from the executor mapping batches over workers instead.
    """
    with threadpool_limits(limits=1, user_api="blas"):
        return _fit(model, batches, params, learner, config, callbacks, verbose, executor, desc, resume, on_lap, every)


class _Within:
    """What a learner sees of the driver within a lap (:class:`~stickbreak.learn.base.WithinLap`):
    the progress after each batch, and checkpoints due ``every`` seconds after the last one
    (never without ``write``)."""

    def __init__(self, progress: FitProgress, every: float | None = None, write: Callable | None = None):
        self.progress, self.write, self.last = progress, write, perf_counter()
        self.every = float("inf") if every is None or write is None else float(every)

    def visited(self, done: int, total: int) -> None:
        self.progress.visited(done, total)

    def due(self) -> bool:
        return perf_counter() - self.last >= self.every

    def save(self, state) -> None:
        assert self.write is not None  # (only a checkpointed run saves)
        self.write(state)
        self.last = perf_counter()


def _fit(model, batches, params, learner, config, callbacks, verbose, executor, desc, resume, on_lap,
         every=None) -> FitResult:
    if resume is None:
        resume = Resumed(learner.start(model, batches, params), ())
    elif resume.stop_reason is not None and not (resume.stop_reason == "max_laps"
                                                 and len(resume.trace) < config.max_laps):
        return FitResult(resume.state, resume.trace, resume.stop_reason)  # nothing left to do (or a longer run asked)
    state, trace = resume.state, list(resume.trace)
    stop_reason = "max_laps"
    # the time fitted before: up to the saved lap in progress if the run was saved within one
    start = perf_counter() - (resume.seconds if resume.seconds is not None else trace[-1].seconds if trace else 0.0)
    moved = executor.bytes_moved() if executor is not None else 0
    reports_batches = declares(learner, SavesWithinLaps)  # the others' laps are one step each, for the bar
    progress = FitProgress(desc, config.max_laps, len(batches) if reports_batches else 1, len(trace), verbose)
    within = None
    if reports_batches:
        within = _Within(progress, every, None if on_lap is None else
                         lambda lap_state: on_lap(lap_state, tuple(trace), None, perf_counter() - start))
    try:
        with progress.watching():
            for lap in range(len(trace) + 1, config.max_laps + 1):
                result = (learner.lap(model, batches, state, executor, within) if within is not None
                          else learner.lap(model, batches, state, executor))
                state = result.state
                counts = state.stats.counts
                total = executor.bytes_moved() if executor is not None else 0
                lap_bytes, moved = total - moved, total
                record = LapRecord(lap, total_elbo(result.elbo_terms), result.elbo_terms, len(counts),
                                   int(np.sum(counts >= EFFECTIVE_COUNT)), perf_counter() - start,
                                   result.exact, result.moves, lap_bytes)
                trace.append(record)
                if model.monotone:
                    _warn_if_decreased(trace)
                progress.lap_done(record)
                converged = lap >= config.min_laps and result.settled and _relative_change(trace) <= config.tol
                if on_lap is not None:
                    on_lap(learner.saved_state(state, batches, executor), trace,
                           "converged" if converged else "max_laps" if lap == config.max_laps else None,
                           record.seconds)
                    if within is not None:
                        within.last = perf_counter()
                stop_requested = [bool(cb(record, state.params)) for cb in callbacks]
                if converged:
                    stop_reason = "converged"
                    break
                if any(stop_requested):
                    stop_reason = "callback"
                    break
    except KeyboardInterrupt:
        if not trace:
            raise
        stop_reason = "interrupted"
        warnings.warn(f"interrupted: keeping the model as of lap {trace[-1].lap}", RuntimeWarning, stacklevel=2)
    finally:
        progress.close()
    return FitResult(state, tuple(trace), stop_reason)
