"""The HDP topic model of the direct-assignment collapsed Gibbs sampler (Teh et al. 2006, §5.3):
its hyperparameters, its log joint and its count-array state, and the auxiliary-variable
resampling of ``alpha`` and ``gamma`` (App. A; Escobar & West 1995). The sampler is
:mod:`stickbreak.learn.collapsed_hdp`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from ...core.protocols import HDPSweeps


#: Topic slots allocated at the start (the arrays double when all are in use).
INITIAL_SLOTS = 16


@dataclass(frozen=True)
class CollapsedHDP(HDPSweeps):
    """The HDP topic model with topics and document proportions integrated out: documents
    ``Dir(alpha beta)`` over topics, corpus weights ``beta ~ GEM(gamma)``, topics ``Dir(eta)`` over
    ``n_words`` words (Teh et al. 2006, §6)."""

    doc_concentration: float  # alpha (the starting value when resampled)
    corpus_concentration: float  # gamma
    topic_word_prior: float  # eta
    n_words: int
    concentration_priors: tuple | None = None  # ((a_alpha, b_alpha), (a_gamma, b_gamma)): Gamma(shape, rate)
    monotone = False  # a sampler's log joint goes up and down
    samples = True

    def log_joint(self, params: "DirectAssignmentParams") -> dict[str, float]:
        """``log p(x | z)`` and ``log p(z | beta)`` at the state (Teh et al. 2006, Eq. 37's two
        factors, every topic and document integrated out)."""
        used = params.used
        Nwk, Njk, Nk, beta = params.Nwk[:, used], params.Njk[:, used], params.Nk[used], params.beta[used]
        W, eta, alpha = self.n_words, self.topic_word_prior, params.alpha
        words = (len(Nk) * gammaln(W * eta) - gammaln(Nk + W * eta).sum()
                 + (gammaln(Nwk + eta) - gammaln(eta)).sum())
        prior = alpha * beta
        docs = (Njk.shape[0] * gammaln(alpha) - gammaln(Njk.sum(axis=1) + alpha).sum()
                + (gammaln(Njk + prior) - gammaln(prior)).sum())
        return {"log_p_words": float(words), "log_p_topics": float(docs)}


@dataclass(eq=False)
class DirectAssignmentParams:
    """Token topics ``z``, counts over the slots, weights ``beta`` (zero on free slots), ``rest`` =
    ``beta_u`` and the last table totals ``m_.k``."""

    z: np.ndarray
    Nwk: np.ndarray
    Njk: np.ndarray
    Nk: np.ndarray
    beta: np.ndarray
    rest: np.ndarray  # one element
    tables: np.ndarray
    eta: float
    alpha: float  # the current concentrations (resampled when the model has priors on them)
    gamma: float

    @property
    def used(self) -> np.ndarray:
        """Indices of the slots holding a topic, largest topic first."""
        used = np.flatnonzero(self.Nk > 0)
        return used[np.argsort(-self.Nk[used], kind="stable")]

    @property
    def topic_word(self) -> np.ndarray:
        """``E[phi_k] = (N_wk + eta) / (N_k + W eta)`` of the used topics, (K, W)."""
        lam = self.Nwk[:, self.used].T + self.eta
        return lam / lam.sum(axis=1, keepdims=True)


def resample_doc_concentration(rng, alpha: float, n_tables: float, doc_lengths: np.ndarray, shape: float,
                               rate: float) -> float:
    """One auxiliary-variable update of the document concentration under a ``Gamma(shape, rate)``
    prior given ``n_tables`` tables over documents of ``doc_lengths`` tokens (Teh et al. 2006, App. A):
    ``w_j ~ Beta(alpha + 1, n_j)``, ``s_j ~ Bernoulli(n_j / (n_j + alpha))``, then
    ``alpha ~ Gamma(shape + m - sum s, rate - sum log w)``."""
    n = doc_lengths[doc_lengths > 0]
    w = rng.beta(alpha + 1.0, n)
    s = rng.random(n.size) * (n + alpha) < n
    return float(rng.gamma(shape + n_tables - s.sum(), 1.0 / (rate - np.log(w).sum())))


def resample_dp_concentration(rng, gamma: float, n_topics: int, n_tables: float, shape: float, rate: float) -> float:
    """One update of a DP concentration with ``n_topics`` clusters among ``n_tables`` draws under a
    ``Gamma(shape, rate)`` prior (Escobar & West 1995, §6): ``x ~ Beta(gamma + 1, m)``, then a
    two-component Gamma mixture with odds ``(shape + K - 1) / (m (rate - log x))``."""
    x = rng.beta(gamma + 1.0, n_tables)
    odds = (shape + n_topics - 1.0) / (n_tables * (rate - np.log(x)))
    extra = 1.0 if rng.random() * (1.0 + odds) < odds else 0.0
    return float(rng.gamma(shape + n_topics - 1.0 + extra, 1.0 / (rate - np.log(x))))
