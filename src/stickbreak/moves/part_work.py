"""Work a move does on a batch's local parameters where the batch's parts live (Hughes 2016, §8.1).

Memoized VI's visit of a batch runs on each part, where the part lives, the local step and then a
move's :class:`LocalWork` on the local parameters it gave, right after the local step or in a
follow-up, so that the local parameters never travel: a birth's per-batch pieces
(:mod:`.birth_work`), a delete's refinement (:mod:`.delete`). A work's answer may leave a proposal
where the part lives (:class:`Held`), and a follow-up sent without the parameters is answered
:data:`KEPT_LOST` by a part that lost what the visit kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence

#: A follow-up's answer (sent without the call's parameters) for a part whose kept local parameters
#: are gone: the driver asks again with the parameters, and the visit is run again.
KEPT_LOST = b"stickbreak-kept-local-lost"


class LocalWork(Protocol):
    """Work a memoized visit does on each part's local parameters where the part lives."""

    def on_part(self, model, params, batch, local, start: int, features=None, n_features: int = 0,
                kept: dict | None = None) -> Any:
        """The part's answer: ``batch`` holds the batch's items from ``start`` on, ``params`` and
        ``local`` are those of its local step (on ``features`` of ``n_features``, if not None);
        ``kept``: a dict kept with the local parameters, for what later follow-ups build on.
        An answer :class:`Held` leaves a proposal where the part lives."""

    def joined(self, answers: Sequence) -> Any:
        """The batch's answer from its parts' (in part order)."""

    def on_features(self, model, features) -> "LocalWork":
        """This work as a part kept on ``features`` receives it (a
        :class:`~stickbreak.core.protocols.FeatureSliced` model's: what it sends cut to them)."""

    def travelling(self) -> "LocalWork":
        """What a follow-up sends first; the work itself goes only to parts that lost what the
        visit kept (:data:`KEPT_LOST`), with what they need to rebuild it."""


@dataclass(frozen=True, eq=False)
class Held:
    """A part's answer that also leaves ``cache`` (``(stats, (uids, warm) or None)``, the part's
    share of a per-batch proposal) where the part lives, under ``lap``."""

    answer: Any
    lap: int
    cache: Any
