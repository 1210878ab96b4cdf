"""The HDP topic model for truncation-free SVI (Wang & Blei 2012, §2.3, S.2.2): each minibatch's
token assignments sampled from the locally collapsed ``q(z)`` with the document proportions
integrated out, opening new topics as it goes (kernels in :mod:`stickbreak.kernels.truncation_free`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.suffstats import SuffStats
from ...kernels.truncation_free.local import hdp_minibatch_gibbs
from .base import TruncationFreeModel, check_positive_settings, check_sweeps
from .store import ComponentStore, LocalSample


@dataclass(frozen=True)
class TruncationFreeHDP(TruncationFreeModel):
    """HDP topic model: topics ``Dir(topic_word_prior)``, corpus sticks ``Beta(1, corpus_concentration)``,
    documents ``Dir(doc_concentration pi)`` (Wang & Blei 2012, S.2; paper's settings eta = 0.01, a = b = 1).
    ``n_sweeps`` Gibbs sweeps (tables, sticks, tokens) follow the sequential initialisation."""

    topic_word_prior: float = 0.01
    corpus_concentration: float = 1.0
    doc_concentration: float = 1.0
    n_sweeps: int = 5

    def __post_init__(self):
        check_positive_settings(topic_word_prior=self.topic_word_prior, corpus_concentration=self.corpus_concentration,
                  doc_concentration=self.doc_concentration)
        check_sweeps(self.n_sweeps)

    @property
    def stick_concentration(self) -> float:
        return self.corpus_concentration

    def sample_local(self, store: ComponentStore, counts, rows: np.ndarray, seed: int) -> LocalSample:
        """Tokens and tables by :func:`~stickbreak.kernels.truncation_free.local.hdp_minibatch_gibbs`; ``loglik`` is the
        leave-one-out plug-in of :func:`~stickbreak.kernels.truncation_free.local.hdp_plugin_token_loglik`:
        ``sum_n log sum_k theta_dk phi_k,x_n`` with ``theta_d`` from the sampled counts + ``b E[pi]``."""
        return LocalSample(*hdp_minibatch_gibbs(
            counts.indptr, counts.indices, counts.data, rows, store.M_t, store.M_sum, store.scale, store.eta,
            store.u, store.v, store.a, self.doc_concentration, store.n_components, self.n_sweeps, seed))

    def keep_mask(self, store: ComponentStore) -> np.ndarray:
        """Keep topics with at least one expected word, ``sum_w (lam_kw - eta) >= 1`` (§3; digest §4)."""
        return store.word_mass() >= 1.0

    def summary(self, store: ComponentStore) -> SuffStats:
        """``N`` = expected words per topic; ``tables`` = ``u_k - 1`` (both corpus-scaled)."""
        T = store.n_components
        return SuffStats(store.uids[:T], {"N": store.word_mass(), "tables": store.u[:T] - 1.0})
