"""The direct-assignment collapsed Gibbs sampler of the HDP topic model (Teh et al. 2006, §5.3) as
a learner of the one driver: per lap one token sweep
(:func:`stickbreak.kernels.collapsed_hdp.sweep`), then the tables ``m_jk`` by Antoniak draws and
``beta ~ Dir(m_.1, .., m_.K, gamma)`` (Eqs. 36, 40). There is no truncation: the first sweep
assigns the tokens sequentially from no topics, and the arrays double whenever every slot is used.

With ``heldout`` (tokens of the training documents) each sweep is scored like the collapsed LDA
samplers (:class:`~stickbreak.learn.collapsed.HeldoutPredictive`): the predictive of the current
state including the new-topic mass, averaged over the sweeps after ``burn_in``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from ..core.suffstats import SuffStats
from ..kernels.collapsed_hdp import grow, predictive_probs, sweep, table_counts
from ..kernels.collapsed_lda import token_layout
from .base import LapResult
from .collapsed import CollapsedState, SweepLearner

#: Topic slots allocated at the start (the arrays double when all are in use).
INITIAL_SLOTS = 16


@dataclass(frozen=True)
class CollapsedHDP:
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


class DirectAssignmentGibbs(SweepLearner):
    """One sweep, the tables and ``beta`` per lap; ``heldout`` scored after every sweep."""

    def start(self, model: CollapsedHDP, data, params=None) -> CollapsedState:
        """No topics yet: every token unassigned (``z = -1``), ``beta_u = 1``."""
        X = data.counts
        self._check_heldout(X)
        self._corpus = (X.indptr.astype(np.int64), X.indices.astype(np.int64))
        _, self._token_start = token_layout(X.data.astype(np.float64), np.inf)
        z = np.full(int(self._token_start[-1]), -1, dtype=np.int64)
        K = INITIAL_SLOTS
        params = DirectAssignmentParams(z, np.zeros((model.n_words, K)), np.zeros((X.shape[0], K)), np.zeros(K),
                                        np.zeros(K), np.ones(1), np.zeros(K), model.topic_word_prior,
                                        float(model.doc_concentration), float(model.corpus_concentration))
        return CollapsedState(params, self._stats(params))

    def lap(self, model: CollapsedHDP, data, state: CollapsedState, executor=None) -> LapResult:
        p = state.params
        alpha, gamma, eta = p.alpha, p.gamma, model.topic_word_prior
        stopped = 0
        while stopped >= 0:  # resumes only after the arrays grow (a handful of times per fit)
            stopped = sweep(*self._corpus, self._token_start, p.z, p.Nwk, p.Njk, p.Nk, p.beta, p.rest, alpha, gamma,
                            eta, stopped, int(self.rng.integers(2**31)))
            if stopped >= 0:
                p.Nwk, p.Njk, p.Nk, p.beta = grow(p.Nwk, p.Njk, p.Nk, p.beta)
        self._resample_weights(p, alpha, gamma)
        if model.concentration_priors is not None:
            (a_alpha, b_alpha), (a_gamma, b_gamma) = model.concentration_priors
            tables = p.tables.sum()
            p.alpha = resample_doc_concentration(self.rng, alpha, tables, p.Njk.sum(axis=1), a_alpha, b_alpha)
            p.gamma = resample_dp_concentration(self.rng, gamma, int((p.Nk > 0).sum()), tables, a_gamma, b_gamma)
        state.sweeps += 1
        state.stats = self._stats(p)
        if self.heldout is not None:
            H = self.heldout
            probs = predictive_probs(H.indptr, H.indices, p.Nwk, p.Njk, p.Nk, p.beta, float(p.rest[0]), p.alpha, eta)
            state.heldout_per_word.append(H.score(probs, state.sweeps, True))
        return LapResult(state, model.log_joint(p), exact=False)

    def _resample_weights(self, p: DirectAssignmentParams, alpha: float, gamma: float) -> None:
        """Tables by Antoniak draws (Eq. 40), then ``beta ~ Dir(m_.k of the used topics, gamma)`` (Eq. 36)."""
        p.tables = table_counts(p.Njk, p.beta, alpha, int(self.rng.integers(2**31)))
        used = p.Nk > 0
        draw = self.rng.dirichlet(np.append(p.tables[used], gamma))
        p.beta[:] = 0.0
        p.beta[used] = draw[:-1]
        p.rest[0] = draw[-1]

    @staticmethod
    def _stats(p: DirectAssignmentParams) -> SuffStats:
        used = p.used
        return SuffStats(used, {"N": p.Nk[used].copy(), "tables": p.tables[used].copy()})


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
