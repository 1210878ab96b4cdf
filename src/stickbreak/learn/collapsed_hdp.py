"""The direct-assignment collapsed Gibbs sampler of the HDP topic model (Teh et al. 2006, §5.3) as
a learner of the one driver: per lap one token sweep
(:func:`stickbreak.kernels.gibbs.buckets.bucket_sweep`), then the tables ``m_jk`` by Antoniak draws and
``beta ~ Dir(m_.1, .., m_.K, gamma)`` (Eqs. 36, 40). There is no truncation: the first sweep
assigns the tokens sequentially from no topics, and the arrays double whenever every slot is used.

With ``heldout`` (tokens of the training documents) each sweep is scored like the collapsed LDA
samplers (:class:`~stickbreak.learn.collapsed.HeldoutPredictive`): the predictive of the current
state including the new-topic mass, averaged over the sweeps after ``burn_in``.
"""

from __future__ import annotations

from ..core.protocols import HDPSweeps, require
from ..core.suffstats import SuffStats
from ..kernels.gibbs.hdp import predictive_probs
from .base import LapResult
from .collapsed import CollapsedState, SweepLearner
from ..models.topics.collapsed_hdp import (DirectAssignmentParams, TokenCorpus, resample_doc_concentration,
                                           resample_dp_concentration, resample_weights, start_params, sweep_tokens)


class DirectAssignmentGibbs(SweepLearner):
    """One sweep, the tables and ``beta`` per lap; ``heldout`` scored after every sweep."""

    def start(self, model: HDPSweeps, data, params=None) -> CollapsedState:
        """No topics yet: every token unassigned (``z = -1``, ``beta_u = 1``)."""
        require(model, HDPSweeps, "the direct-assignment HDP sampler")
        X = data.counts
        self._check_heldout(X)
        self._corpus = TokenCorpus.of(X)
        params = start_params(self._corpus, model.n_words, 0, model.topic_word_prior, model.doc_concentration,
                              model.corpus_concentration, self.rng)
        return CollapsedState(params, self._stats(params))

    def lap(self, model: HDPSweeps, data, state: CollapsedState, executor=None) -> LapResult:
        p = state.params
        sweep_tokens(p, self._corpus, self.rng)
        resample_weights(p, self.rng)
        if model.concentration_priors is not None:
            (a_alpha, b_alpha), (a_gamma, b_gamma) = model.concentration_priors
            tables = p.tables.sum()
            p.alpha = resample_doc_concentration(self.rng, p.alpha, tables, p.Njk.sum(axis=1), a_alpha, b_alpha)
            p.gamma = resample_dp_concentration(self.rng, p.gamma, int((p.Nk > 0).sum()), tables, a_gamma, b_gamma)
        state.sweeps += 1
        state.stats = self._stats(p)
        if self.heldout is not None:
            H = self.heldout
            probs = predictive_probs(H.indptr, H.indices, p.Nwk, p.Njk, p.Nk, p.beta, float(p.rest[0]), p.alpha,
                                     model.topic_word_prior)
            state.heldout_per_word.append(H.score(probs, state.sweeps, True))
        return LapResult(state, model.log_joint(p), exact=False)

    @staticmethod
    def _stats(p: DirectAssignmentParams) -> SuffStats:
        used = p.used
        return SuffStats(used, {"N": p.Nk[used].copy(), "tables": p.tables[used].copy()})
