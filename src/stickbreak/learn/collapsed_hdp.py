"""The direct-assignment collapsed Gibbs sampler of the HDP topic model (Teh et al. 2006, §5.3) as
a learner of the one driver: per lap one token sweep
(:func:`stickbreak.kernels.gibbs.hdp.sweep`), then the tables ``m_jk`` by Antoniak draws and
``beta ~ Dir(m_.1, .., m_.K, gamma)`` (Eqs. 36, 40). There is no truncation: the first sweep
assigns the tokens sequentially from no topics, and the arrays double whenever every slot is used.

With ``heldout`` (tokens of the training documents) each sweep is scored like the collapsed LDA
samplers (:class:`~stickbreak.learn.collapsed.HeldoutPredictive`): the predictive of the current
state including the new-topic mass, averaged over the sweeps after ``burn_in``.
"""

from __future__ import annotations


import numpy as np

from ..core.protocols import HDPSweeps, require
from ..core.suffstats import SuffStats
from ..kernels.gibbs.hdp import grow, predictive_probs, sweep, table_counts
from ..kernels.gibbs.lda import token_layout
from .base import LapResult
from .collapsed import CollapsedState, SweepLearner
from ..models.topics.collapsed_hdp import DirectAssignmentParams, INITIAL_SLOTS, resample_doc_concentration, resample_dp_concentration


class DirectAssignmentGibbs(SweepLearner):
    """One sweep, the tables and ``beta`` per lap; ``heldout`` scored after every sweep."""

    def start(self, model: HDPSweeps, data, params=None) -> CollapsedState:
        """No topics yet: every token unassigned (``z = -1``), ``beta_u = 1``."""
        require(model, HDPSweeps, "the direct-assignment HDP sampler")
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

    def lap(self, model: HDPSweeps, data, state: CollapsedState, executor=None) -> LapResult:
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
