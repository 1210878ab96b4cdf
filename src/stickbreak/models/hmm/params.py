"""The HDP-HMM's global and local parameters (Hughes 2016, Ch. 6), shared by the model and its birth move."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...obs.expfam import Natural

#: theta <-> rho alternations of the HDP global step when the states changed (a move's candidate).
ROUNDS_AFTER_CHANGE = 3


@dataclass(frozen=True, eq=False)
class HMMParams:
    """Global variational parameters: ``q(phi_k)`` natural parameters and ``q(transitions)``."""

    uids: np.ndarray
    obs: Natural
    trans: dict[str, np.ndarray]

    @property
    def n_components(self) -> int:
        return len(self.uids)


@dataclass(frozen=True, eq=False)
class HMMLocal:
    """Marginals ``r_tk`` (T, K), start and transition counts, the entropy table (K+1, K), the log
    normaliser per sequence, each planned merge pair's entropy change and (when asked for) the
    expected log-likelihoods (T, K)."""

    resp: np.ndarray
    start: np.ndarray
    trans: np.ndarray
    entropy_table: np.ndarray
    log_norm: np.ndarray
    pair_gain: np.ndarray
    loglik: np.ndarray | None = None

    @property
    def state_entropy(self) -> np.ndarray:
        """``H_k = sum_l H_kl + H_0k``: the entropy table's row of state k plus its start entry."""
        return self.entropy_table[1:].sum(axis=1) + self.entropy_table[0]
