"""Truncation-free stochastic variational inference (Wang & Blei, NIPS 2012) for the DP mixture of
multinomials (document clustering) and the HDP topic model.

The local step samples the minibatch's assignments from the locally collapsed ``q(z) ∝ E_q[p(x, z|beta)]``
(Eq. 6; kernels in :mod:`stickbreak.kernels.truncation_free.local`), which may open new components; the
global step is the usual natural-gradient SVI step on the sampled statistics (Eq. 11, §2.3 with the
digest's corrected parentheses; S.2.1). Only the ``T`` instantiated components are stored: every
other component sits exactly at the prior (``lam = eta``, ``u = 1``, ``v = a``), and ``T`` starts at 0.

The learner (:class:`TruncationFreeSVI`) is written once against the
:class:`~stickbreak.core.protocols.Sampled` protocol: ``sample_local(store, counts, rows, seed)`` (the
kernel call), ``keep_mask(store)`` (the prune rule), ``summary(store)`` (a
:class:`~stickbreak.core.suffstats.SuffStats` for the driver), ``params_from_store``, ``empty_store`` and
``stick_concentration``. TF-SVI optimises no bound, so a lap reports instead the
progressive-validation log-likelihood per document (``"progressive_loglik"``): each minibatch scored
under the parameters before it was used (see the models' ``sample_local``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.protocols import Sampled, require
from ..core.suffstats import SuffStats
from ..data import BagOfWords
from .base import LapResult
from .stochastic import InMemoryMinibatches
from ..models.sampled import ComponentStore, LocalSample, TruncationFreeParams

#: Wang & Blei 2012, §3: prune every 20,000 processed documents.
PRUNE_EVERY = 20_000
#: Seeds for the samplers are drawn from the learner's generator this many at a time.
SEED_BLOCK = 1024


# ---------------------------------------------------------------------------------------------------- the learner
@dataclass(frozen=True, eq=False)
class TruncationFreeState:
    store: ComponentStore
    params: TruncationFreeParams
    stats: SuffStats
    step: int = 0
    n_seen: int = 0  # documents processed
    since_prune: int = 0  # documents processed since the last prune


class TruncationFreeSVI:
    """Truncation-free SVI (Wang & Blei 2012, Alg. 2 with §2.3 and S.2; digest §4).

    ``n_items`` is the corpus size ``n`` that scales the statistics (default: the minibatch source's;
    for a stream, the assumed size). The step size is ``rho_t = S / min(n_t, n)`` (``n_t`` documents
    seen so far, the first minibatch gets 1), which makes ``lam_t = eta + (n / n_t) sum of the
    statistics seen`` while ``n_t <= n`` (digest §4); with a ``schedule`` (e.g.
    :class:`~.schedules.RobbinsMonro`, the truncated baseline's) it is ``max(schedule(t), S / n)``.
    Every ``prune_every`` documents, small components are pruned (the model's ``keep_mask``) and the
    sticks are reordered by size. ``floor=False`` drops the ``S / n`` floor of a ``schedule`` (plain SVI,
    Hoffman et al. 2013).
    """

    name = "truncation_free"

    def __init__(self, rng: np.random.Generator, n_items: int | None = None, prune_every: int = PRUNE_EVERY,
                 schedule=None, floor: bool = True):
        if n_items is not None and not (isinstance(n_items, (int, np.integer)) and n_items > 0):
            raise ValueError(f"n_items (the corpus size) must be a positive integer, got {n_items!r}")
        if not (isinstance(prune_every, (int, np.integer)) and prune_every > 0):
            raise ValueError(f"prune_every must be a positive number of documents, got {prune_every!r}")
        self.rng = rng
        self.n_items = n_items
        self.prune_every = int(prune_every)
        self.schedule = schedule
        self.floor = floor

    def start(self, model: Sampled, minibatches, params: TruncationFreeParams | None = None) -> TruncationFreeState:
        """From ``params`` if given, else from no components at all (T = 0) over the minibatch
        source's ``n_features`` words."""
        require(model, Sampled, "truncation-free SVI")
        if params is None:
            store = model.empty_store(minibatches.n_features)
        else:
            store = ComponentStore.from_params(params, model.stick_concentration)
        return TruncationFreeState(store, model.params_from_store(store), model.summary(store))

    def learning_rate(self, step: int, n_seen: int, batch_size: int, n: int) -> float:
        if self.schedule is None:
            return min(1.0, batch_size / min(n_seen, n))
        return min(1.0, max(float(self.schedule(step)), batch_size / n if self.floor else 0.0))

    def step(self, model: Sampled, store: ComponentStore, counts, rows: np.ndarray, n: int, n_seen: int, step: int,
             seed: int) -> LocalSample:
        """One TF-SVI step on ``rows`` of ``counts`` (``n_seen`` includes them), in place on ``store``."""
        sample = model.sample_local(store, counts, rows, seed)
        rho = self.learning_rate(step, n_seen, len(rows), n)
        store.update(sample, rho, n / len(rows))
        return sample

    def lap(self, model: Sampled, minibatches, state: TruncationFreeState, executor=None) -> LapResult:
        """One pass of minibatches; the lap's only "ELBO term" is the progressive-validation log-likelihood
        per document (each minibatch scored before its update; see the models' ``sample_local``).
        ``executor`` is unused: every step needs the previous one's parameters."""
        store = state.store.copy()
        n = self.n_items or minibatches.n_items
        step, n_seen, since_prune = state.step, state.n_seen, state.since_prune
        loglik, n_docs = 0.0, 0
        seeds = _seeds(self.rng)
        for counts, rows in minibatch_rows(minibatches, self.rng):
            if counts.shape[1] != store.n_vocab:
                raise ValueError(f"a minibatch has {counts.shape[1]} words in its vocabulary but the model has "
                                 f"{store.n_vocab}; every minibatch must use the same vocabulary")
            step, n_seen, since_prune = step + 1, n_seen + len(rows), since_prune + len(rows)
            sample = self.step(model, store, counts, rows, n, n_seen, step, next(seeds))
            loglik += float(sample.loglik.sum())
            n_docs += len(rows)
            if since_prune >= self.prune_every:
                store.keep(model.keep_mask(store))
                since_prune = 0
        new = TruncationFreeState(store, model.params_from_store(store), model.summary(store), step, n_seen,
                                  since_prune)
        return LapResult(new, {"progressive_loglik": loglik / max(n_docs, 1)}, exact=False)


def _seeds(rng: np.random.Generator):
    while True:
        yield from rng.integers(0, 2**62, size=SEED_BLOCK).tolist()


def minibatch_rows(minibatches, rng: np.random.Generator):
    """``(csr_counts, rows)`` for each minibatch of ``minibatches.lap(rng)``, in the same order.

    For an in-memory bag of words the rows index the full matrix, drawn by
    :meth:`InMemoryMinibatches.lap_rows`, without copying each minibatch out (with one document per
    minibatch a CSR row slice costs more than the local step itself).
    """
    if type(minibatches) is InMemoryMinibatches and isinstance(minibatches.data, BagOfWords):
        counts = minibatches.data.counts
        for index in minibatches.lap_rows(rng):
            yield counts, index
        return
    for batch in minibatches.lap(rng):
        yield batch.counts, np.arange(batch.n_items)
