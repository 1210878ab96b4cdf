"""A mixture's global and local variational parameters (Hughes 2016, Ch. 3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ...obs.expfam import Natural


@dataclass(frozen=True, eq=False)
class MixtureParams:
    """Global variational parameters: ``q(phi_k)`` natural parameters and ``q(weights)``;
    ``log_normalizers``: each component's ``c(eta_hat_k)`` when :meth:`MixtureModel.score` computed
    them (a later score reuses those of unchanged components: a merge changes one)."""

    uids: np.ndarray
    obs: Natural
    weights: dict[str, np.ndarray]
    log_normalizers: np.ndarray | None = None

    @property
    def n_components(self) -> int:
        return len(self.uids)


@dataclass(frozen=True, eq=False)
class MixtureLocal:
    """Responsibilities (N, K) (an ndarray, or an L-sparse ``csr_matrix``), per-item log normaliser,
    per-component entropy and, when asked for, the expected log-likelihoods ``E log p(x_n | phi_k)`` (N, K)."""

    resp: np.ndarray | sp.csr_matrix
    log_norm: np.ndarray
    entropy: np.ndarray
    loglik: np.ndarray | None = None
