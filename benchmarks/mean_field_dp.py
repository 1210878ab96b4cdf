"""The truncated stochastic mean-field DP mixture of multinomials (Blei & Jordan 2006), the
baseline of Wang & Blei (2012, §3) in ``svi_truncation_free.py``: a mean-field local step over the
fixed ``K`` clusters on the lazy component store of truncation-free SVI (the library's learner runs
it: :class:`stickbreak.learn.truncation_free.TruncationFreeSVI`). A baseline, not a library model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from stickbreak.core.suffstats import SuffStats
from stickbreak.models.sampled import LocalSample, TruncationFreeModel, TruncationFreeParams
from stickbreak.models.sampled.base import (batch_words, check_positive_settings, expected_log_sticks_fixed_last,
                                            sticks_fixed_last)
from stickbreak.models.topics.init import exponential_topics


@dataclass(frozen=True)
class Truncated(TruncationFreeModel):
    """A truncated stochastic model on the store: all ``n_components`` kept, started as Hoffman et al.
    (2013, footnote 6)."""

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
class StochasticMeanFieldDP(Truncated):
    """DP mixture of multinomials, truncated at ``n_components`` (Blei & Jordan 2006), stochastic mean-field:
    ``r_dk ∝ exp(E log pi_k + sum_w c_dw E log theta_kw)``; ``N`` per component = expected documents."""

    topic_word_prior: float = 0.5
    concentration: float = 1.0
    n_components: int = 300

    def __post_init__(self):
        check_positive_settings(topic_word_prior=self.topic_word_prior, concentration=self.concentration,
                  n_components=self.n_components)

    @property
    def stick_concentration(self) -> float:
        return self.concentration

    def sample_local(self, store, counts, rows, seed) -> LocalSample:
        """Expected statistics of the minibatch (no sampling; ``seed`` unused); ``loglik`` is the plug-in
        mixture likelihood of each document under the parameters before the step (as for TF-SVI)."""
        word_ids, local, lam, total, log_theta = batch_words(store, counts, rows)
        K = store.n_components
        joint = np.asarray(local @ log_theta) + expected_log_sticks_fixed_last(store.u[:K], store.v[:K])[None, :]
        resp = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
        log_mean = np.log(lam) - np.log(total)[None, :]
        log_pi = np.log(sticks_fixed_last(store.u[:K], store.v[:K]))
        loglik = logsumexp(np.asarray(local @ log_mean) + log_pi[None, :], axis=1)
        return LocalSample(word_ids, np.asarray(local.T @ resp), resp.sum(axis=0), loglik)

    def summary(self, store) -> SuffStats:
        return SuffStats(store.uids[:store.n_components], {"N": store.u[:store.n_components] - 1.0})
