"""The component store and parameters shared by the models of truncation-free SVI (Wang & Blei 2012)
and the truncated stochastic baseline of ``benchmarks/mean_field_dp.py``: only the ``T``
instantiated components are stored, every other one sits at the prior. The learner is
:mod:`stickbreak.learn.truncation_free`; the models declare
:class:`~stickbreak.core.protocols.Sampled`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...kernels.truncation_free.local import stochastic_update
from ...kernels.sampling import log_stick_weights


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
        """One natural-gradient step (:func:`~stickbreak.kernels.truncation_free.local.stochastic_update`);
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
