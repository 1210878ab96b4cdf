"""What runs on a placed part: a :class:`PartJob`, told where it runs by a :class:`PartContext`.

An executor knows nothing of what a job computes. It places each part of a batch on its worker
once, sends the jobs of a call to the workers that hold their parts, and hands back each part's
answer; what the answers mean, and how a batch's answer is joined from its parts', is the caller's.
The one job defined here is the local step and summary that every learner asks for
(:class:`LocalStep`); memoized VI's visits are jobs of :mod:`stickbreak.learn.memo_parts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

import numpy as np

from ..core.local_parts import local_summary


@dataclass(eq=False)
class PartContext:
    """Where a job runs: part ``index`` (items ``[start, stop)``) of batch ``batch`` of placement
    ``key``; ``state`` is a dict kept on this worker for the placement (every part it holds) until
    the placement is released; ``spill``: a directory every worker reaches, where a job may write
    state through so that a replaced worker reads it back (None: nowhere). The part's items are
    kept on ``features`` of ``n_features`` when not None (a
    :class:`~stickbreak.core.protocols.FeatureSliced` model on a worker process)."""

    key: str
    batch: int
    index: int
    start: int
    state: dict
    spill: str | None
    load: Callable[[], Any]
    features: np.ndarray | None = None
    n_features: int = 0

    @property
    def slot(self) -> tuple:
        """The part's key in ``state``: ``(placement key, batch, part index)``."""
        return (self.key, self.batch, self.index)

    def data(self):
        """The part's items (read now from a shard store when they are kept nowhere)."""
        return self.load()


class PartJob(Protocol):
    """Work on one part, run where the part lives; picklable, as it travels to worker processes."""

    #: Whether the job reads the part's items (a worker that lost the part is then sent it again).
    reads_data: bool

    def run(self, model, params, part: PartContext) -> Any:
        """The part's answer; ``params`` are on ``part.features`` when those are not None."""

    def on_features(self, model, features) -> "PartJob":
        """This job as a worker that keeps its part on ``features`` receives it (cut to them)."""


@dataclass(frozen=True, eq=False)
class Request:
    """The statistics of batch ``batch`` (or of its items ``rows``), its local step started from ``warm``."""

    batch: int
    rows: np.ndarray | None = None
    warm: Any = None


@dataclass(frozen=True, eq=False)
class LocalStep:
    """The local step and summary of a part's items ``rows`` (None: all) from ``warm``:
    ``(stats, warm start)`` (:func:`~stickbreak.core.local_parts.local_summary`)."""

    rows: np.ndarray | None
    warm: Any
    merge_pairs: Any = None
    reads_data = True

    def run(self, model, params, part: PartContext) -> tuple:
        batch = part.data() if self.rows is None else part.data().subset(self.rows)
        return local_summary(model, params, batch, self.warm, self.merge_pairs, features=part.features,
                             n_features=part.n_features)

    def on_features(self, model, features) -> "LocalStep":
        return self


def totalled(answers: list) -> list:
    """A worker's answers whose first entries are statistics (:class:`LocalStep`'s, a memoized
    visit's changes of statistics) with those added up (in order) in the first answered one and
    None in the others: one set of statistics per worker travels back."""
    kept = [i for i, a in enumerate(answers) if not isinstance(a, bytes)]
    if not kept:
        return answers
    stats = sum((answers[i][0] for i in kept[1:]), answers[kept[0]][0])
    return [a if isinstance(a, bytes) else ((stats if i == kept[0] else None),) + tuple(a[1:])
            for i, a in enumerate(answers)]
