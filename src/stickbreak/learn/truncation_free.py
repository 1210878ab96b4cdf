"""Truncation-free stochastic variational inference (Wang & Blei, NIPS 2012) for the DP mixture of
multinomials (document clustering) and the HDP topic model.

The local step samples the minibatch's assignments from the locally collapsed ``q(z) ∝ E_q[p(x, z|beta)]``
(Eq. 6; kernels in :mod:`stickbreak.kernels.collapsed_local`), which may open new components; the
global step is the usual natural-gradient SVI step on the sampled statistics (Eq. 11, §2.3 with the
digest's corrected parentheses; S.2.1). Only the ``T`` instantiated components are stored: every
other component sits exactly at the prior (``lam = eta``, ``u = 1``, ``v = a``), and ``T`` starts at 0.

The learner (:class:`TruncationFreeSVI`) is written once against a few model hooks:
``sample_local(store, counts, rows, seed)`` (the kernel call), ``keep_mask(store)`` (the prune rule),
``summary(store)`` (a :class:`~stickbreak.core.suffstats.SuffStats` for the driver), ``topic_word_prior``
and ``stick_concentration``; parameters and empty stores come from the shared base class. TF-SVI optimises no bound, so a lap reports instead the
progressive-validation log-likelihood per document (``"progressive_loglik"``): each minibatch scored
under the parameters before it was used (see the models' ``sample_local``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import ClassVar, NamedTuple

import numpy as np

from ..core.suffstats import SuffStats
from ..data import BagOfWords
from ..kernels.collapsed_local import dp_minibatch_gibbs, hdp_minibatch_gibbs, stochastic_update
from ..kernels.collapsed_math import log_stick_weights
from .base import LapResult
from .stochastic import InMemoryMinibatches

#: Wang & Blei 2012, §3: prune every 20,000 processed documents.
PRUNE_EVERY = 20_000
#: Seeds for the samplers are drawn from the learner's generator this many at a time.
SEED_BLOCK = 1024


# ---------------------------------------------------------------------------------------------------- the global store
@dataclass(eq=False)
class ComponentStore:
    """The ``T`` instantiated components of ``q(theta, pi_bar) = prod_k Dir(lam_k) Beta(u_k, v_k)``.

    ``lam[k, w] = eta + scale * M_t[w, k]`` is stored lazily and word-major, with ``M_sum[k] =
    sum_w M_t[w, k]``, so that an SVI step touches only its minibatch's word types and shrinks every
    ``lam_k - eta`` by a scalar. Arrays have room for ``capacity >= T`` components; columns beyond ``T``
    are zero. Mutated in place by :class:`TruncationFreeSVI` (one copy per lap), never shared.
    """

    eta: float
    a: float
    M_t: np.ndarray  # (V, capacity)
    M_sum: np.ndarray  # (capacity,)
    u: np.ndarray  # (capacity,)
    v: np.ndarray  # (capacity,)
    uids: np.ndarray  # (capacity,) int64
    scale: float = 1.0
    n_components: int = 0
    next_uid: int = 0

    @classmethod
    def empty(cls, n_vocab: int, eta: float, a: float, capacity: int = 16) -> "ComponentStore":
        return cls(float(eta), float(a), np.zeros((n_vocab, capacity)), np.zeros(capacity), np.ones(capacity),
                   np.full(capacity, float(a)), np.zeros(capacity, dtype=np.int64))

    @classmethod
    def from_params(cls, params: "TruncationFreeParams", a: float) -> "ComponentStore":
        T, V = params.lam.shape
        store = cls.empty(V, params.topic_word_prior, a, max(16, T))
        store.M_t[:, :T] = (params.lam - params.topic_word_prior).T
        store.M_sum[:T] = store.M_t[:, :T].sum(axis=0)
        store.u[:T], store.v[:T], store.uids[:T] = params.u, params.v, params.uids
        store.n_components, store.next_uid = T, int(params.uids.max(initial=-1)) + 1
        return store

    def copy(self) -> "ComponentStore":
        return ComponentStore(self.eta, self.a, self.M_t.copy(), self.M_sum.copy(), self.u.copy(), self.v.copy(),
                              self.uids.copy(), self.scale, self.n_components, self.next_uid)

    @property
    def n_vocab(self) -> int:
        return self.M_t.shape[0]

    @property
    def capacity(self) -> int:
        return self.M_t.shape[1]

    def lam(self) -> np.ndarray:
        """The Dirichlet parameters ``(T, V)``, materialised."""
        return np.ascontiguousarray(self.eta + self.scale * self.M_t[:, :self.n_components].T)

    def word_mass(self) -> np.ndarray:
        """``sum_w (lam_kw - eta)`` per component: expected words, scaled to the corpus."""
        return self.scale * self.M_sum[:self.n_components]

    def ensure_capacity(self, n: int) -> None:
        if n <= self.capacity:
            return
        new = max(n, 2 * self.capacity)
        grow = new - self.capacity
        self.M_t = np.concatenate([self.M_t, np.zeros((self.n_vocab, grow))], axis=1)
        self.M_sum = np.concatenate([self.M_sum, np.zeros(grow)])
        self.u = np.concatenate([self.u, np.ones(grow)])
        self.v = np.concatenate([self.v, np.full(grow, self.a)])
        self.uids = np.concatenate([self.uids, np.zeros(grow, dtype=np.int64)])

    def update(self, sample: "LocalSample", rho: float, factor: float) -> None:
        """One natural-gradient step (:func:`~stickbreak.kernels.collapsed_local.stochastic_update`);
        components the sample opened get fresh uids."""
        n_new = sample.word_stats.shape[1]
        self.ensure_capacity(n_new)
        self.scale = stochastic_update(self.M_t, self.M_sum, self.scale, self.u, self.v, self.a, self.n_components,
                                       sample.word_ids, sample.word_stats, sample.item_stats, rho, factor)
        opened = n_new - self.n_components
        self.uids[self.n_components:n_new] = np.arange(self.next_uid, self.next_uid + opened)
        self.n_components, self.next_uid = n_new, self.next_uid + opened

    def keep(self, keep: np.ndarray) -> None:
        """Drop the components not in the boolean mask ``keep``, sort the rest by decreasing stick size
        ``u_k - 1`` (Kurihara et al. 2007, as in Wang & Blei 2012 §3) and recompute ``v`` from the invariant
        ``v_k = a + sum_{l>k} (u_l - 1)`` (digest §2, last paragraph; §4)."""
        T = self.n_components
        kept = np.flatnonzero(keep[:T])
        order = kept[np.argsort(-(self.u[kept] - 1.0), kind="stable")]
        n = len(order)
        self.M_t[:, :n] = self.M_t[:, order]
        self.M_t[:, n:T] = 0.0
        for name, fill in (("M_sum", 0.0), ("u", 1.0)):
            values = getattr(self, name)
            values[:n] = values[order]
            values[n:T] = fill
        self.uids[:n] = self.uids[order]
        self.n_components = n
        self.v[:T] = self.a
        self.v[:n] = self.a + stick_tail(self.u[:n] - 1.0)


def stick_tail(sizes: np.ndarray) -> np.ndarray:
    """``sum_{l>k} sizes_l`` for every k."""
    return np.concatenate([np.cumsum(sizes[::-1])[::-1][1:], [0.0]])


# ---------------------------------------------------------------------------------------------------- parameters
@dataclass(frozen=True, eq=False)
class TruncationFreeParams:
    """The instantiated part of ``q``: Dirichlet ``lam`` (T, V) and Beta sticks ``(u, v)``; every later
    component is at the prior (``topic_word_prior``, ``Beta(1, a)``)."""

    uids: np.ndarray
    lam: np.ndarray
    u: np.ndarray
    v: np.ndarray
    topic_word_prior: float

    @property
    def n_components(self) -> int:
        return len(self.uids)

    @property
    def topic_word(self) -> np.ndarray:
        """Posterior-mean word probabilities ``lam_k / sum_w lam_kw`` (T, V)."""
        return self.lam / self.lam.sum(axis=1, keepdims=True)

    @property
    def log_weights(self) -> np.ndarray:
        """``log E[pi_k] = log u_k/(u_k + v_k) + sum_{l<k} log v_l/(u_l + v_l)``, in log space (digest §5)."""
        return log_stick_weights(self.u, self.v)[0]

    @property
    def weights(self) -> np.ndarray:
        """``E[pi_k]`` (not renormalised: they sum to ``1 - tail_weight``)."""
        return np.exp(self.log_weights)

    @property
    def tail_weight(self) -> float:
        """``E`` of the stick left for the uninstantiated components, ``prod_k v_k / (u_k + v_k)``."""
        return float(np.exp(log_stick_weights(self.u, self.v)[1]))


class LocalSample(NamedTuple):
    """One sample of a minibatch's local variables, summarised over its word types ``word_ids``:
    ``word_stats`` (W_b, K) counts per component, ``item_stats`` (K,) the stick statistics (DP:
    documents; HDP: tables), ``loglik`` (D,) each document's plug-in log-likelihood before the step."""

    word_ids: np.ndarray
    word_stats: np.ndarray
    item_stats: np.ndarray
    loglik: np.ndarray


def _positive(**values) -> None:
    for label, value in values.items():
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{label} must be a positive number, got {value!r}")


def _check_sweeps(n_sweeps) -> None:
    if not isinstance(n_sweeps, (int, np.integer)) or n_sweeps < 0:
        raise ValueError(f"n_sweeps must be a non-negative integer, got {n_sweeps!r}")


class _TruncationFreeModel:
    """What both models share: parameters from the store; no bound, so no monotone ELBO."""

    monotone: ClassVar[bool] = False

    def make_params(self, store: ComponentStore) -> TruncationFreeParams:
        T = store.n_components
        return TruncationFreeParams(store.uids[:T].copy(), store.lam(), store.u[:T].copy(), store.v[:T].copy(),
                                    store.eta)

    def empty_store(self, n_vocab: int) -> ComponentStore:
        return ComponentStore.empty(n_vocab, self.topic_word_prior, self.stick_concentration)

    def n_items(self, batch) -> int:
        return batch.n_items


# ---------------------------------------------------------------------------------------------------- the two models
@dataclass(frozen=True)
class TruncationFreeDPMixture(_TruncationFreeModel):
    """DP mixture of multinomials: ``theta_k ~ Dir(topic_word_prior)``, sticks ``Beta(1, concentration)``,
    one component per document (Wang & Blei 2012, §2.3; paper's settings eta = 0.5, a = 1).
    ``n_sweeps`` Gibbs sweeps over the minibatch's labels follow the sequential initialisation (none
    with one document per minibatch: its conditional does not change)."""

    topic_word_prior: float = 0.5
    concentration: float = 1.0
    n_sweeps: int = 3

    def __post_init__(self):
        _positive(topic_word_prior=self.topic_word_prior, concentration=self.concentration)
        _check_sweeps(self.n_sweeps)

    @property
    def stick_concentration(self) -> float:
        return self.concentration

    def sample_local(self, store: ComponentStore, counts, rows: np.ndarray, seed: int) -> LocalSample:
        """Labels by :func:`~stickbreak.kernels.collapsed_local.dp_minibatch_gibbs`; ``loglik`` is the exact
        plug-in mixture likelihood ``log [sum_k E[pi_k] prod_w theta_kw^c_w + E[pi_rest] V^-|x|]``."""
        _, word_ids, word_stats, item_stats, loglik = dp_minibatch_gibbs(
            counts.indptr, counts.indices, counts.data, rows, store.M_t, store.M_sum, store.scale, store.eta,
            store.u, store.v, store.a, store.n_components, self.n_sweeps, seed)
        return LocalSample(word_ids, word_stats, item_stats, loglik)

    def keep_mask(self, store: ComponentStore) -> np.ndarray:
        """Keep components with at least one expected document, ``u_k - 1 >= 1`` (§3)."""
        return store.u[:store.n_components] - 1.0 >= 1.0

    def summary(self, store: ComponentStore) -> SuffStats:
        """``N`` = expected documents per component ``u_k - 1`` (corpus-scaled)."""
        return SuffStats(store.uids[:store.n_components], {"N": store.u[:store.n_components] - 1.0})

    def log_joint(self, params: TruncationFreeParams, batch) -> np.ndarray:
        """``log E[pi_k] + sum_w c_dw log theta_kw`` (D, T): the plug-in mixture (digest §5)."""
        return np.asarray(batch.counts @ np.log(params.topic_word).T) + params.log_weights

    def local_step(self, params: TruncationFreeParams, batch, warm=None, **_):
        """Plug-in responsibilities over the instantiated components (for label prediction)."""
        if params.n_components == 0:
            raise ValueError("these parameters have no components yet; fit on some documents first")
        joint = self.log_joint(params, batch)
        resp = np.exp(joint - joint.max(axis=1, keepdims=True))
        return SimpleNamespace(resp=resp / resp.sum(axis=1, keepdims=True))


@dataclass(frozen=True)
class TruncationFreeHDP(_TruncationFreeModel):
    """HDP topic model: topics ``Dir(topic_word_prior)``, corpus sticks ``Beta(1, corpus_concentration)``,
    documents ``Dir(doc_concentration pi)`` (Wang & Blei 2012, S.2; paper's settings eta = 0.01, a = b = 1).
    ``n_sweeps`` Gibbs sweeps (tables, sticks, tokens) follow the sequential initialisation."""

    topic_word_prior: float = 0.01
    corpus_concentration: float = 1.0
    doc_concentration: float = 1.0
    n_sweeps: int = 5

    def __post_init__(self):
        _positive(topic_word_prior=self.topic_word_prior, corpus_concentration=self.corpus_concentration,
                  doc_concentration=self.doc_concentration)
        _check_sweeps(self.n_sweeps)

    @property
    def stick_concentration(self) -> float:
        return self.corpus_concentration

    def sample_local(self, store: ComponentStore, counts, rows: np.ndarray, seed: int) -> LocalSample:
        """Tokens and tables by :func:`~stickbreak.kernels.collapsed_local.hdp_minibatch_gibbs`; ``loglik`` is the
        leave-one-out plug-in of :func:`~stickbreak.kernels.collapsed_local.hdp_plugin_token_loglik`:
        ``sum_n log sum_k theta_dk phi_k,x_n`` with ``theta_d`` from the sampled counts + ``b E[pi]``."""
        return LocalSample(*hdp_minibatch_gibbs(
            counts.indptr, counts.indices, counts.data, rows, store.M_t, store.M_sum, store.scale, store.eta,
            store.u, store.v, store.a, self.doc_concentration, store.n_components, self.n_sweeps, seed))

    def keep_mask(self, store: ComponentStore) -> np.ndarray:
        """Keep topics with at least one expected word, ``sum_w (lam_kw - eta) >= 1`` (§3; digest §4)."""
        return store.word_mass() >= 1.0

    def summary(self, store: ComponentStore) -> SuffStats:
        """``N`` = expected words per topic; ``tables`` = ``u_k - 1`` (both corpus-scaled)."""
        T = store.n_components
        return SuffStats(store.uids[:T], {"N": store.word_mass(), "tables": store.u[:T] - 1.0})


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

    def start(self, model, minibatches, params: TruncationFreeParams | None = None) -> TruncationFreeState:
        """From ``params`` if given, else from no components at all (T = 0)."""
        if params is None:
            store = model.empty_store(_vocabulary_size(minibatches))
        else:
            store = ComponentStore.from_params(params, model.stick_concentration)
        return TruncationFreeState(store, model.make_params(store), model.summary(store))

    def learning_rate(self, step: int, n_seen: int, batch_size: int, n: int) -> float:
        if self.schedule is None:
            return min(1.0, batch_size / min(n_seen, n))
        return min(1.0, max(float(self.schedule(step)), batch_size / n if self.floor else 0.0))

    def step(self, model, store: ComponentStore, counts, rows: np.ndarray, n: int, n_seen: int, step: int,
             seed: int) -> LocalSample:
        """One TF-SVI step on ``rows`` of ``counts`` (``n_seen`` includes them), in place on ``store``."""
        sample = model.sample_local(store, counts, rows, seed)
        rho = self.learning_rate(step, n_seen, len(rows), n)
        store.update(sample, rho, n / len(rows))
        return sample

    def lap(self, model, minibatches, state: TruncationFreeState, executor=None) -> LapResult:
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
        new = TruncationFreeState(store, model.make_params(store), model.summary(store), step, n_seen, since_prune)
        return LapResult(new, {"progressive_loglik": loglik / max(n_docs, 1)}, exact=False)


def _seeds(rng: np.random.Generator):
    while True:
        yield from rng.integers(0, 2**62, size=SEED_BLOCK).tolist()


def _vocabulary_size(minibatches) -> int:
    if hasattr(minibatches, "data"):
        return minibatches.data.n_features
    if hasattr(minibatches, "batches") and len(minibatches.batches):
        return minibatches.batches[0].n_features
    raise ValueError("cannot tell the vocabulary size of this minibatch source; start from parameters instead")


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
