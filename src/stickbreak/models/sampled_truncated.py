"""What the truncated stochastic mean-field baselines of Wang & Blei (2012, §3) share on the lazy
component store: the fixed-last-stick expectations, a minibatch's own word types, all-kept
components and the Hoffman et al. (2013, footnote 6) start.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import digamma

from ..priors.beta_sticks import expected_log_sticks, expected_sticks
from ..kernels.truncation_free.local import batch_vocabulary
from .topics.init import exponential_topics
from .sampled import TruncationFreeParams, _TruncationFreeModel


def expected_log_sticks_fixed_last(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``E log sigma_k`` of the store's ``K`` sticks, the last one fixed at 1 (its ``u, v`` unused)."""
    return expected_log_sticks(u[:-1], v[:-1])


def sticks_fixed_last(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``E sigma_k`` of the store's ``K`` sticks, the last one fixed at 1: they sum to one."""
    return expected_sticks(u[:-1], v[:-1])


def _batch_words(store, counts, rows):
    """The minibatch as a CSR matrix over its own word types, their Dirichlet parameters ``lam``
    (W_b, K), each topic's total ``sum_w lam_kw`` (K,) and ``E log theta`` (W_b, K) of those words."""
    word_ids, doc_ptr, locs, cnts = batch_vocabulary(counts.indptr, counts.indices, counts.data, rows)
    local = sp.csr_matrix((cnts, locs, doc_ptr), shape=(len(rows), len(word_ids)))
    K = store.n_components
    lam = store.eta + store.scale * store.M_t[word_ids, :K]
    total = store.n_vocab * store.eta + store.scale * store.M_sum[:K]
    return word_ids, local, lam, total, digamma(lam) - digamma(total)[None, :]


@dataclass(frozen=True)
class _Truncated(_TruncationFreeModel):
    def initial_params(self, n_vocab: int, n_docs: int, rng: np.random.Generator) -> TruncationFreeParams:
        """``K`` topics drawn as in Hoffman et al. (2013, footnote 6, the number being the mean):
        ``lam = eta + Exponential(100 D / (K V))``; sticks at the prior ``Beta(1, a)``."""
        K = self.n_components
        lam = exponential_topics(np.full(n_vocab, self.topic_word_prior), K, n_docs, rng)
        return TruncationFreeParams(np.arange(K), lam, np.ones(K), np.full(K, self.stick_concentration),
                                    self.topic_word_prior)

    def keep_mask(self, store) -> np.ndarray:
        return np.ones(store.n_components, dtype=bool)
