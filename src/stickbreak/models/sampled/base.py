"""What the :class:`~stickbreak.core.protocols.Sampled` models share: the base class on the
component store, their settings' checks and the stochastic steps' expectations of the sticks with
the last one fixed at 1, and a minibatch's own word types (the two-level HDP and the truncated
baseline of ``benchmarks/mean_field_dp.py``)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.special import digamma

from ...core.protocols import Sampled
from ...kernels.truncation_free.local import batch_vocabulary
from ...priors.beta_sticks import expected_log_sticks, expected_sticks
from .store import ComponentStore, TruncationFreeParams


def check_positive_settings(**values) -> None:
    """Every named value a positive finite number (a model's priors and sizes)."""
    for label, value in values.items():
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{label} must be a positive number, got {value!r}")


def check_sweeps(n_sweeps) -> None:
    if not isinstance(n_sweeps, (int, np.integer)) or n_sweeps < 0:
        raise ValueError(f"n_sweeps must be a non-negative integer, got {n_sweeps!r}")


class TruncationFreeModel(Sampled):
    """What the :class:`~stickbreak.core.protocols.Sampled` models share (truncation-free and truncated
    stochastic, on the store): parameters from the store; no bound, so no monotone ELBO."""

    monotone: ClassVar[bool] = False

    def params_from_store(self, store: ComponentStore) -> TruncationFreeParams:
        T = store.n_components
        return TruncationFreeParams(store.uids[:T].copy(), store.lam(), store.u[:T].copy(), store.v[:T].copy(),
                                    store.eta)

    def empty_store(self, n_vocab: int) -> ComponentStore:
        return ComponentStore.empty(n_vocab, self.topic_word_prior, self.stick_concentration)

    def n_items(self, batch) -> int:
        return batch.n_items


def expected_log_sticks_fixed_last(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``E log sigma_k`` of the store's ``K`` sticks, the last one fixed at 1 (its ``u, v`` unused)."""
    return expected_log_sticks(u[:-1], v[:-1])


def sticks_fixed_last(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``E sigma_k`` of the store's ``K`` sticks, the last one fixed at 1: they sum to one."""
    return expected_sticks(u[:-1], v[:-1])


def batch_words(store, counts, rows):
    """The minibatch as a CSR matrix over its own word types, their Dirichlet parameters ``lam``
    (W_b, K), each topic's total ``sum_w lam_kw`` (K,) and ``E log theta`` (W_b, K) of those words."""
    word_ids, doc_ptr, locs, cnts = batch_vocabulary(counts.indptr, counts.indices, counts.data, rows)
    local = sp.csr_matrix((cnts, locs, doc_ptr), shape=(len(rows), len(word_ids)))
    K = store.n_components
    lam = store.eta + store.scale * store.M_t[word_ids, :K]
    total = store.n_vocab * store.eta + store.scale * store.M_sum[:K]
    return word_ids, local, lam, total, digamma(lam) - digamma(total)[None, :]
