"""The weak-limit blocked Gibbs sampler of the sticky HDP-HMM (Fox, Sudderth, Jordan & Willsky 2011,
Alg. 3) as a learner of the one driver, one sweep per lap:

1. every sequence's states by forward filtering, backward sampling given ``pi`` and the drawn
   emissions (:func:`stickbreak.kernels.hmm.sampling.ffbs`);
2. the table counts ``m_jk`` and the sticky overrides ``w_j`` by Bernoulli draws, ``mbar_jk = m_jk``
   off the diagonal and ``m_jj - w_j`` on it (:func:`~stickbreak.kernels.hmm.sampling.sticky_table_counts`;
   the start row's tables, of concentration ``alpha_0 beta_k``, count too);
3. ``beta ~ Dir(gamma/L + mbar_.1, ..., gamma/L + mbar_.L)``;
4. ``pi_0 ~ Dir(alpha_0 beta + n_0)`` and ``pi_j ~ Dir(alpha beta + kappa e_j + n_j)``;
5. every state's emission parameters from their conjugate posterior given the states.

The concentrations stay fixed (the paper's step 6 resamples them). The trace's "ELBO" is the log
joint ``log p(x, z | beta)`` of the sweep's state with the emissions and ``pi`` integrated out
(:meth:`~stickbreak.models.hmm.sampler.WeakLimitHMM.log_joint`); it is not a bound.

The sampler starts from an emission posterior (the variational init's ``q(phi)``: one draw of each
state's parameters), ``beta`` from its prior and ``pi`` from theirs given ``beta``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.protocols import ChainSweeps, require
from ..core.suffstats import SuffStats
from ..kernels.hmm.sampling import ffbs, sticky_table_counts, transition_counts
from ..models.hmm.sampler import ChainSample, dirichlet_rows
from .base import LapResult


@dataclass(eq=False)
class ChainState:
    """The sampler's current sample and its state counts (what the driver reports)."""

    params: ChainSample
    stats: SuffStats
    sweeps: int = 0


def _counts(n_states: int, states: np.ndarray | None) -> SuffStats:
    counts = np.zeros(n_states) if states is None else np.bincount(states, minlength=n_states).astype(float)
    return SuffStats(np.arange(n_states), {"N": counts})


class BlockedGibbs:
    """One sweep of Fox et al. (2011), Alg. 3 per lap, over sequences (:class:`~stickbreak.data.Sequences`)."""

    name = "blocked_gibbs"

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def _transitions(self, model: ChainSweeps, beta, start_counts, trans_counts):
        start_prior, row_prior = model.row_concentrations(beta)
        return dirichlet_rows(self.rng, start_prior + start_counts), dirichlet_rows(self.rng, row_prior + trans_counts)

    def start(self, model: ChainSweeps, data, params) -> ChainState:
        """``params``: an emission posterior to draw the first emission parameters from."""
        require(model, ChainSweeps, "the blocked Gibbs sampler")
        L = model.n_states
        beta = dirichlet_rows(self.rng, np.full(L, model.concentration / L))
        start_probs, trans_probs = self._transitions(model, beta, np.zeros(L), np.zeros((L, L)))
        sample = ChainSample(np.zeros(data.n_frames, dtype=np.int64), beta, start_probs, trans_probs,
                             model.sample_emissions(params, self.rng))
        return ChainState(sample, _counts(L, None))

    def lap(self, model: ChainSweeps, data, state: ChainState, executor=None) -> LapResult:
        p, L = state.params, model.n_states
        offsets = np.asarray(data.offsets, dtype=np.int64)
        loglik = np.ascontiguousarray(model.emission_loglik(p.emissions, data))
        states = np.empty(len(loglik), dtype=np.int64)
        evidence = ffbs(p.start_probs, p.trans_probs, loglik, offsets, int(self.rng.integers(2**31)), states)
        start_counts, trans_counts = transition_counts(states, offsets, L)
        tables, overrides = sticky_table_counts(start_counts, trans_counts, p.beta, model.transition_concentration,
                                                model.stickiness, model.start_concentration,
                                                int(self.rng.integers(2**31)))
        beta = dirichlet_rows(self.rng, model.concentration / L + tables.sum(axis=0) - overrides)
        start_probs, trans_probs = self._transitions(model, beta, start_counts, trans_counts)
        posterior = model.emission_posterior(data, states)
        emissions = model.sample_emissions(posterior, self.rng)
        state = ChainState(ChainSample(states, beta, start_probs, trans_probs, emissions, float(evidence.sum())),
                           _counts(L, states), state.sweeps + 1)
        return LapResult(state, model.log_joint(data, posterior, start_counts, trans_counts, beta), exact=False)
