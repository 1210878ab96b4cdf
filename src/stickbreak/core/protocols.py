"""The model contract (DESIGN.md, "The one idea"; ARCHITECTURE.md).

A model is an allocation model times an observation model. Learners and moves never look inside
it: they call the verbs below over additive :class:`~stickbreak.core.suffstats.SuffStats`, and
they state which protocol they need. A model says which protocols it satisfies by inheriting
from them (nominal, declared), and the contract test (``tests/contract``) checks every model
against every protocol it claims.

* :class:`Model`: the verbs every variational model has (batch VB, stochastic and memoized VI).
* :class:`Movable` and its parts: what birth, merge and delete moves call (Hughes 2016, Ch. 4).
* :class:`Sampled`: truncation-free SVI's sampled local steps on a component store (Wang & Blei 2012).
* :class:`Swept`: collapsed methods' count sweeps (Welling, Teh & Kappen 2008; Teh et al. 2006).
"""

from __future__ import annotations

from typing import Any, Protocol

from .suffstats import SuffStats


def total_elbo(terms: dict[str, float]) -> float:
    """The ELBO from its named terms."""
    return float(sum(terms.values()))


class Model(Protocol):
    """The four verbs (plus their helpers) that batch VB, stochastic VI and memoized VI use."""

    #: True when the exact ELBO never decreases under batch or memoized VI (the driver warns otherwise).
    monotone: bool

    def n_items(self, batch: Any) -> int:
        """How many items the batch holds (documents, points, sequences)."""

    def local_step(self, params: Any, batch: Any, warm: Any = None, **options: Any) -> Any:
        """Local parameters of one batch given the global parameters (responsibilities,
        document-topic counts, HMM marginals), started from ``warm`` when the model uses it."""

    def warm_start(self, local: Any) -> Any:
        """What the next local step of the same batch may start from; ``None`` if nothing."""

    def summarize(self, batch: Any, local: Any, uids: Any = None, merge_pairs: Any = None) -> SuffStats:
        """Additive sufficient statistics of one batch (with the planned merge pairs' terms)."""

    def global_step(self, stats: SuffStats, previous: Any = None) -> Any:
        """New global parameters from whole-data statistics (the conjugate update)."""

    def blend(self, old: Any, target: Any, step: float) -> Any:
        """Global parameters moved a fraction ``step`` from ``old`` towards ``target`` (natural coordinates)."""

    def elbo_terms(self, params: Any, stats: SuffStats) -> dict[str, float]:
        """The exact ELBO of ``q`` as named terms that sum to it."""

    def score(self, stats: SuffStats, previous: Any = None) -> tuple[Any, dict[str, float]]:
        """``(global_step(stats, previous), elbo_terms(...))``: what a move is accepted on."""


class Movable(Model, Protocol):
    """What the moves of memoized VI call (refined by the capability protocols of this module)."""


class Sampled(Protocol):
    """A model for truncation-free SVI: sampled local steps on a lazily grown component store."""


class Swept(Protocol):
    """A collapsed model: count arrays swept by Gibbs or collapsed variational updates."""
