"""Which components each move targets, and the record of failed attempts (Hughes 2016, §4.2.4, §4.3.4).

Rules: at most one kind of move per component per lap (a planned delete suspends births for that
lap; merges leave the delete's targets out; births get a shortlist of targets first, which merge
planning leaves out); a target that failed is retried only once it has changed (its size moved by
more than ``RETRY_CHANGE``) or ``RETRY_LAPS`` laps have passed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

RETRY_CHANGE = 0.1
RETRY_LAPS = 5


@dataclass
class MoveHistory:
    """Failed attempts: uid (or uid pair) -> (lap, size at the time)."""

    birth: dict = field(default_factory=dict)
    merge: dict = field(default_factory=dict)
    delete: dict = field(default_factory=dict)

    def copy(self) -> "MoveHistory":
        return MoveHistory(dict(self.birth), dict(self.merge), dict(self.delete))

    @staticmethod
    def _blocked(entry, size: float, lap: int) -> bool:
        if entry is None:
            return False
        failed_lap, failed_size = entry
        changed = abs(size - failed_size) > RETRY_CHANGE * max(failed_size, 1.0)
        return not changed and lap - failed_lap < RETRY_LAPS

    def birth_blocked(self, uid: int, size: float, lap: int) -> bool:
        return self._blocked(self.birth.get(uid), size, lap)

    def merge_blocked(self, pair, size: float, lap: int) -> bool:
        return self._blocked(self.merge.get(tuple(sorted(pair))), size, lap)

    def delete_blocked(self, uid: int, size: float, lap: int) -> bool:
        return self._blocked(self.delete.get(uid), size, lap)


@dataclass(frozen=True)
class LapPlan:
    merge_pairs: np.ndarray          # (M, 2) uids
    delete_targets: tuple            # uids deleted together (empty: no delete this lap)
    births: bool
    claimed: frozenset = frozenset()  # further components already claimed (targets of tracked births)

    @property
    def busy(self) -> set:
        """Components already claimed by a merge, a delete or a tracked birth."""
        return set(int(u) for u in self.merge_pairs.ravel()) | set(self.claimed) | set(self.delete_targets)


def replace_busy(plan: LapPlan, claimed) -> LapPlan:
    return LapPlan(plan.merge_pairs, plan.delete_targets, plan.births, frozenset(claimed))


def birth_shortlist(stats, history: MoveHistory, lap: int, config, exclude=()) -> frozenset:
    """Components kept free for births this lap (bnpy's birth shortlist): the largest ones that
    have not failed recently, up to ``birth_max_active``; merge planning leaves them out."""
    chosen = []
    for k in np.argsort(-stats.counts, kind="stable"):
        uid, size = int(stats.uids[k]), float(stats.counts[k])
        if size < 2 * config.birth_min_items or uid in exclude or history.birth_blocked(uid, size, lap):
            continue
        chosen.append(uid)
        if len(chosen) >= config.birth_max_active:
            break
    return frozenset(chosen)


def birth_targets(params, owned: np.ndarray, score, plan: LapPlan, history: MoveHistory,
                  lap: int, config, whole_counts) -> list[int]:
    """Components to split at this batch: enough owned items here (``owned``: per component, how
    many items hold more than ``birth_resp_threshold`` of it), not busy, never-failed first, then the
    lowest ``score`` (mixtures: the thesis's b-score, the average log-likelihood of a component's
    items; without one, the largest components first)."""
    score = -np.asarray(whole_counts, dtype=float) if score is None else score
    candidates = []
    for k, uid in enumerate(params.uids):
        uid = int(uid)
        if owned[k] < config.birth_min_items or uid in plan.busy:
            continue
        blocked = history.birth_blocked(uid, float(whole_counts[k]), lap)
        if blocked:
            continue
        candidates.append((uid in history.birth, score[k], uid))
    candidates.sort()
    return [uid for _, _, uid in candidates[: config.births_per_batch]]
