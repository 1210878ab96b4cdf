"""The four verbs every learning algorithm uses to talk to a model (DESIGN.md, "The one idea").

A model is an allocation model times an observation model. Algorithms never look inside it: they
call ``local_step``, ``summarize``, ``global_step`` and ``elbo_terms`` over additive
:class:`~stickbreak.core.suffstats.SuffStats`.
"""

from __future__ import annotations

from typing import Any, Protocol

from .suffstats import SuffStats


class Model(Protocol):
    def local_step(self, params: Any, batch: Any, warm: Any = None) -> Any:
        """Local parameters (responsibilities, ...) of one batch given the global parameters,
        started from ``warm`` (what :meth:`warm_start` returned last time) when the model uses it."""

    def warm_start(self, local: Any) -> Any:
        """What the next local step of the same batch may start from (topic models: the
        document-topic counts, which makes the local step monotone); ``None`` if nothing."""

    def summarize(self, batch: Any, local: Any) -> SuffStats:
        """Additive sufficient statistics of one batch."""

    def global_step(self, stats: SuffStats, previous: Any = None) -> Any:
        """New global parameters from whole-data statistics (the conjugate update); ``previous``
        parameters start any numerical optimisation (the HDP's top-level sticks)."""

    def blend(self, old: Any, target: Any, step: float) -> Any:
        """Global parameters moved a fraction ``step`` from ``old`` towards ``target`` (natural coordinates)."""

    def elbo_terms(self, params: Any, stats: SuffStats) -> dict[str, float]:
        """The exact ELBO of ``q`` (local part summarised in ``stats``), as named terms that sum to it."""

    def n_items(self, batch: Any) -> int:
        """How many items the batch holds (documents, points, sequences)."""


def total_elbo(terms: dict[str, float]) -> float:
    return float(sum(terms.values()))
