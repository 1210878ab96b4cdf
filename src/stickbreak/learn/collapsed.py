"""Collapsed inference for LDA as a learner of the one driver: collapsed Gibbs, standard VB (per
pair), CVB, CVB0 and the hybrids SVB/CGS and CVB/CGS of Welling, Teh & Kappen (2008), one sweep per
lap: :func:`stickbreak.kernels.gibbs.lda.sweep`, or for collapsed Gibbs (every pair sampled)
SparseLDA's :func:`stickbreak.kernels.gibbs.buckets.bucket_sweep`, as fast or faster at every K
measured (wiki, tokens per CPU-s, mean of sweeps 2-20/30, dense vs sparse: K=5 28.9 M vs 30.3 M,
K=10 24.9 M vs 24.8 M, K=20 20.2 M vs 22.2 M, K=50 11.8 M vs 14.4 M, K=200 3.5 M vs 7.8 M).

The evaluation of the paper (§7) runs alongside when ``heldout`` is given: held-out tokens of the
*training* documents (a CSR matrix with the same rows), scored after every sweep by the predictive
of Eq. 30 (variational methods: the current expected counts) or Eq. 31 (any method that samples:
the probabilities averaged over the sweeps after ``burn_in``, the average taken inside the log).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.protocols import LDASweeps, require
from ..core.suffstats import SuffStats
from ..kernels.gibbs.lda import build_counts, predictive_probs, sweep, token_layout
from ..kernels.gibbs.buckets import NO_NEW_TOPICS, bucket_sweep
from .base import LapResult
from ..models.topics.collapsed_lda import CollapsedParams

#: Sweeps discarded before the predictive of sampled states is averaged (Welling et al. 2008, §7).
BURN_IN = 10


@dataclass(eq=False)
class CollapsedState:
    """A collapsed learner's state: its parameters (:class:`CollapsedParams` or the HDP's
    ``DirectAssignmentParams``), summary and held-out trace."""

    params: Any
    stats: SuffStats
    sweeps: int = 0
    heldout_per_word: list = field(default_factory=list)


class HeldoutPredictive:
    """Held-out tokens of the training documents (CSR, same rows), scored once per sweep: the
    predictive probabilities of the current state (Eq. 30), or for a sampler their average over the
    sweeps after ``burn_in``, taken inside the log (Eq. 31)."""

    def __init__(self, heldout, burn_in: int):
        H = sp.csr_matrix(heldout, dtype=np.float64)
        self.shape, self.burn_in = H.shape, int(burn_in)
        self.indptr, self.indices, self.counts = H.indptr.astype(np.int64), H.indices.astype(np.int64), H.data
        self._sum: np.ndarray | None = None
        self._n = 0

    def check_rows(self, shape) -> None:
        if self.shape != tuple(shape):
            raise ValueError(f"heldout has shape {self.shape}; it must have the training matrix's shape "
                             f"{tuple(shape)} (held-out tokens of the training documents)")

    def score(self, probs: np.ndarray, sweep: int, sampled: bool) -> float:
        """Mean log predictive per held-out token after sweep number ``sweep`` (1-based)."""
        if sampled and sweep > self.burn_in:
            total = probs if self._sum is None else self._sum + probs
            self._sum, self._n = total, self._n + 1
            probs = total / self._n
        return float(self.counts @ np.log(probs) / self.counts.sum())


class SweepLearner:
    """What the collapsed learners share: their generator and the optional held-out scorer."""

    name = "collapsed"

    def __init__(self, rng: np.random.Generator, heldout=None, burn_in: int = BURN_IN):
        self.rng = rng
        self.heldout = None if heldout is None else HeldoutPredictive(heldout, burn_in)

    def _check_heldout(self, X) -> None:
        if self.heldout is not None:
            self.heldout.check_rows(X.shape)


class CollapsedSweeps(SweepLearner):
    """One sweep per lap; ``heldout`` (CSR, rows = training documents) is scored after every sweep."""

    def start(self, model: LDASweeps, data, params=None) -> CollapsedState:
        """Topics drawn uniformly for sampled tokens and ``Q ~ Dirichlet(1)`` for variational pairs."""
        require(model, LDASweeps, "collapsed LDA sweeps")
        X = data.counts
        self._check_heldout(X)
        self._corpus = (X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64))
        sampled, token_start = token_layout(self._corpus[2], float(model.threshold))
        self._layout = (sampled, token_start)
        z = self.rng.integers(0, model.n_topics, int(token_start[-1])).astype(np.int64)
        n_q = 0 if sampled.all() else X.nnz  # Q rows of sampled pairs are never read
        Q = self.rng.dirichlet(np.ones(model.n_topics), n_q)
        counts = build_counts(*self._corpus, sampled, token_start, z, Q, model.n_words, model.vb_kind)
        params = CollapsedParams(z, Q, counts, model.beta)
        return CollapsedState(params, SuffStats(np.arange(model.n_topics), {"N": counts[2].copy()}))

    def lap(self, model: LDASweeps, data, state: CollapsedState, executor=None) -> LapResult:
        p = state.params
        seed = int(self.rng.integers(2**31))
        if self._layout[0].all():  # collapsed Gibbs: SparseLDA's buckets (kernels/gibbs/buckets.py)
            indptr, indices, _ = self._corpus
            Nwk, Njk, Nk = p.counts[:3]
            bucket_sweep(indptr, indices, self._layout[1], p.z, Nwk, Njk, Nk, model.alpha, 1.0, float(model.beta),
                         NO_NEW_TOPICS, 1.0, 0, seed)
        else:
            (indptr, indices, counts), (sampled, token_start) = self._corpus, self._layout
            Nwk, Njk, Nk, Vwk, Vjk, Vk = p.counts
            sweep(indptr, indices, counts, sampled, token_start, p.z, p.Q, Nwk, Njk, Nk, Vwk, Vjk, Vk, model.alpha,
                  float(model.beta), model.vb_kind, seed)
        state.sweeps += 1
        state.stats = SuffStats(np.arange(model.n_topics), {"N": p.counts[2].copy()})
        if self.heldout is not None:
            H = self.heldout
            Nwk, Njk, Nk = p.counts[:3]
            probs = predictive_probs(H.indptr, H.indices, Nwk, Njk, Nk, model.alpha, float(model.beta))
            state.heldout_per_word.append(H.score(probs, state.sweeps, model.samples))
        return LapResult(state, model.log_joint(*p.counts[:3]), exact=False)
