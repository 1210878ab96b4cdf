"""Truncated stochastic mean-field baselines on the component store of truncation-free SVI.

Wang & Blei (2012, §3) compare truncation-free SVI with truncated stochastic mean-field at
truncation 300: the DP mixture of Blei & Jordan (2006) and the online HDP of Wang, Paisley & Blei
(2011; the two-level family of Hoffman et al. 2013, Fig. 9). Both have the same global update as
truncation-free SVI (``lam <- lam + rho (-lam + eta + (n/S) t)``; sticks ``u, v`` as ``a, b`` of
Hoffman et al. Fig. 9 lines 11-12), so they run on the same lazy
:class:`~stickbreak.models.sampled.ComponentStore` and learner, with a Robbins-Monro step
``(tau + t)^-kappa`` floored at ``S/n`` and a mean-field local step over the fixed ``K`` components
instead of the sampled, locally collapsed one. Sticks use the fixed-last-stick convention
(``q(v_K = 1) = 1``); the truncation never changes (``keep_mask`` keeps all), but the sticks are
reordered by size every ``prune_every`` documents as in truncation-free SVI.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.suffstats import SuffStats
from ..sampled import LocalSample, _positive
from ..sampled_truncated import _Truncated, _batch_words, expected_log_sticks_fixed_last
from ...kernels.topics.two_level import hdp_sticks_local_step


@dataclass(frozen=True)
class StochasticTwoLevelHDP(_Truncated):
    """The online HDP (Wang, Paisley & Blei 2011; Hoffman et al. 2013, Fig. 9) truncated at ``n_components``
    corpus topics and ``doc_truncation`` atoms per document, on the lazy store: the local step is the
    kernel of :mod:`stickbreak.kernels.topics.two_level` over the minibatch's own word types; the stick
    statistics are the pointer counts ``sum_d sum_i zeta_dik``; ``N`` per topic = expected words."""

    topic_word_prior: float = 0.01
    corpus_concentration: float = 1.0
    doc_concentration: float = 1.0
    n_components: int = 300
    doc_truncation: int = 20
    max_iter: int = 100
    tol: float = 1e-4
    n_chunks: int = 1

    def __post_init__(self):
        _positive(topic_word_prior=self.topic_word_prior, corpus_concentration=self.corpus_concentration,
                  doc_concentration=self.doc_concentration, n_components=self.n_components,
                  doc_truncation=self.doc_truncation)

    @property
    def stick_concentration(self) -> float:
        return self.corpus_concentration

    def sample_local(self, store, counts, rows, seed) -> LocalSample:
        """Expected statistics (``seed`` unused); ``loglik`` is the plug-in ``sum_w c_dw log sum_k E[theta_dk]
        E[beta_kw]`` of each document with ``E theta_d`` from its own local step (optimistic: not held out)."""

        word_ids, local, lam, total, log_beta = _batch_words(store, counts, rows)
        K = store.n_components
        theta = np.zeros((len(rows), K))
        word_topic, n_pointers, _, _, _ = hdp_sticks_local_step(
            local.indptr, local.indices, local.data, np.ascontiguousarray(log_beta),
            expected_log_sticks_fixed_last(store.u[:K], store.v[:K]), float(self.doc_concentration),
            int(self.doc_truncation), int(self.max_iter), float(self.tol), int(self.n_chunks), theta)
        beta = lam / total[None, :]
        doc_of = np.repeat(np.arange(len(rows)), np.diff(local.indptr))
        token_prob = np.einsum("nk,nk->n", theta[doc_of], beta[local.indices])
        loglik = np.bincount(doc_of, local.data * np.log(token_prob), minlength=len(rows))
        return LocalSample(word_ids, word_topic, n_pointers, loglik)

    def summary(self, store) -> SuffStats:
        return SuffStats(store.uids[:store.n_components], {"N": store.word_mass()})
