"""``HDPHMM(algorithm="gibbs")``: the fit plan of the weak-limit blocked Gibbs sampler (Fox et al.
2011, Alg. 3; :mod:`stickbreak.learn.blocked_gibbs`) with ``n_states`` as the weak limit L and the
estimator's concentrations as its prior.

The fitted estimator is the variational posterior of the last sample: ``q(z)`` certain of the
sampled states (the used ones, largest first), ``q(phi)`` and ``q(pi)`` their global step, and
``elbo_`` the exact ELBO of that ``q`` (so it compares with variational fits); ``trace_`` and
``elbo_trace_`` hold the log joint ``log p(x, z | beta)`` of every sweep. ``sampled_states_`` are
the last sample's states in the fitted states' positions: ``HDPHMM(init=est.sampled_states_,
n_states=est.n_states_)`` starts memoized VI (and its moves) from the sampler's output.
"""

from __future__ import annotations

import numpy as np

from ..models.hmm.model import HMMModel
from ..models.hmm.params import HMMParams
from ..models.hmm.sampler import ChainSample, WeakLimitHMM, labels_local
from ._fitting import FitPlan


def by_size(states: np.ndarray, n_states: int) -> np.ndarray:
    """``states`` renumbered ``0 .. K-1`` over the K states in use, the most frequent first."""
    counts = np.bincount(states, minlength=n_states)
    used = np.flatnonzero(counts)
    used = used[np.argsort(-counts[used], kind="stable")]
    position = np.full(n_states, -1, dtype=np.int64)
    position[used] = np.arange(len(used))
    return position[states]


def gibbs_plan(model: HMMModel, seqs, start: HMMParams, n_states: int) -> FitPlan:
    """Sample from ``start``'s emission posterior (one draw of each state's parameters) over ``seqs``;
    the fit is ``model``'s global step at the last sample's states (see the module's docstring)."""
    sampler = WeakLimitHMM.of(model.obs, model.obs_prior, model.transitions_prior, n_states)

    def stats_of(sample: ChainSample):
        states = by_size(sample.states, n_states)
        return model.summarize(seqs, labels_local(states, seqs.offsets, int(states.max()) + 1))

    def as_fitted(sample: ChainSample):
        return model, model.global_step(stats_of(sample))

    def attributes(result) -> dict:
        return {"sampled_states_": by_size(result.params.states, n_states),
                "log_evidence_": result.params.log_evidence}

    return FitPlan("blocked_gibbs", sampler, seqs, start.obs, as_fitted=as_fitted, stats_of=stats_of, rescore=True,
                   attributes=attributes)
