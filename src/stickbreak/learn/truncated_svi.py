"""Truncated stochastic mean-field baselines on the component store of truncation-free SVI.

Wang & Blei (2012, §3) compare truncation-free SVI with truncated stochastic mean-field at
truncation 300: the DP mixture of Blei & Jordan (2006) and the online HDP of Wang, Paisley & Blei
(2011; the two-level family of Hoffman et al. 2013, Fig. 9). Both have the same global update as
truncation-free SVI (``lam <- lam + rho (-lam + eta + (n/S) t)``; sticks ``u, v`` as ``a, b`` of
Hoffman et al. Fig. 9 lines 11-12), so they run on the same lazy
:class:`~stickbreak.learn.truncation_free.ComponentStore` and learner, with a Robbins-Monro step
``(tau + t)^-kappa`` floored at ``S/n`` and a mean-field local step over the fixed ``K`` components
instead of the sampled, locally collapsed one. Sticks use the fixed-last-stick convention
(``q(v_K = 1) = 1``); the truncation never changes (``keep_mask`` keeps all), but the sticks are
reordered by size every ``prune_every`` documents as in truncation-free SVI.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import digamma, logsumexp

from ..alloc.hdp_sticks import expected_log_sticks, expected_sticks
from ..core.suffstats import SuffStats
from ..kernels.collapsed_local import batch_vocabulary
from .init_topics import exponential_topics
from .truncation_free import LocalSample, TruncationFreeParams, _TruncationFreeModel, _positive


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


@dataclass(frozen=True)
class StochasticMeanFieldDP(_Truncated):
    """DP mixture of multinomials, truncated at ``n_components`` (Blei & Jordan 2006), stochastic mean-field:
    ``r_dk ∝ exp(E log pi_k + sum_w c_dw E log theta_kw)``; ``N`` per component = expected documents."""

    topic_word_prior: float = 0.5
    concentration: float = 1.0
    n_components: int = 300

    def __post_init__(self):
        _positive(topic_word_prior=self.topic_word_prior, concentration=self.concentration,
                  n_components=self.n_components)

    @property
    def stick_concentration(self) -> float:
        return self.concentration

    def sample_local(self, store, counts, rows, seed) -> LocalSample:
        """Expected statistics of the minibatch (no sampling; ``seed`` unused); ``loglik`` is the plug-in
        mixture likelihood of each document under the parameters before the step (as for TF-SVI)."""
        word_ids, local, lam, total, log_theta = _batch_words(store, counts, rows)
        K = store.n_components
        joint = np.asarray(local @ log_theta) + expected_log_sticks_fixed_last(store.u[:K], store.v[:K])[None, :]
        resp = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
        log_mean = np.log(lam) - np.log(total)[None, :]
        log_pi = np.log(sticks_fixed_last(store.u[:K], store.v[:K]))
        loglik = logsumexp(np.asarray(local @ log_mean) + log_pi[None, :], axis=1)
        return LocalSample(word_ids, np.asarray(local.T @ resp), resp.sum(axis=0), loglik)

    def summary(self, store) -> SuffStats:
        return SuffStats(store.uids[:store.n_components], {"N": store.u[:store.n_components] - 1.0})


@dataclass(frozen=True)
class StochasticTwoLevelHDP(_Truncated):
    """The online HDP (Wang, Paisley & Blei 2011; Hoffman et al. 2013, Fig. 9) truncated at ``n_components``
    corpus topics and ``doc_truncation`` atoms per document, on the lazy store: the local step is the
    kernel of :mod:`stickbreak.kernels.hdp_sticks` over the minibatch's own word types; the stick
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
        from ..kernels.hdp_sticks import hdp_sticks_local_step

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
