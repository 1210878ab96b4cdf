"""The four verbs every learning algorithm uses to talk to a model (DESIGN.md, "The one idea").

A model is an allocation model times an observation model. Algorithms never look inside it: they
call ``local_step``, ``summarize``, ``global_step`` and ``elbo_terms`` over additive
:class:`~stickbreak.core.suffstats.SuffStats`.
"""

from __future__ import annotations

from typing import Any, Protocol

from .suffstats import SuffStats


class Model(Protocol):
    def local_step(self, params: Any, batch: Any) -> Any:
        """Local parameters (responsibilities, ...) of one batch given the global parameters."""

    def summarize(self, batch: Any, local: Any) -> SuffStats:
        """Additive sufficient statistics of one batch."""

    def global_step(self, stats: SuffStats) -> Any:
        """New global parameters from whole-data statistics (the conjugate update)."""

    def blend(self, old: Any, target: Any, step: float) -> Any:
        """Global parameters moved a fraction ``step`` from ``old`` towards ``target`` (natural coordinates)."""

    def elbo_terms(self, params: Any, stats: SuffStats) -> dict[str, float]:
        """The exact ELBO of ``q`` (local part summarised in ``stats``), as named terms that sum to it."""

    def n_items(self, batch: Any) -> int:
        """How many items the batch holds (documents, points, sequences)."""


def total_elbo(terms: dict[str, float]) -> float:
    return float(sum(terms.values()))
