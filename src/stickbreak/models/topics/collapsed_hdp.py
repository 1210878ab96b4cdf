"""The HDP topic model of the direct-assignment collapsed Gibbs sampler (Teh et al. 2006, §5.3):
its hyperparameters, its log joint and its count-array state, and the auxiliary-variable
resampling of ``alpha`` and ``gamma`` (App. A; Escobar & West 1995), and the sampler's steps on
that state (:func:`start_params`, :func:`sweep_tokens`, :func:`resample_weights`), which the learner
:mod:`stickbreak.learn.collapsed_hdp` runs lap by lap and the variational HDP's ``init="gibbs"``
(:func:`stickbreak.models.topics.init.gibbs_topics`) runs as its start.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from ...core.protocols import HDPSweeps
from ...kernels.gibbs.buckets import bucket_sweep
from ...kernels.gibbs.hdp import grow, table_counts
from ...kernels.gibbs.lda import token_layout


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


@dataclass(frozen=True, eq=False)
class TokenCorpus:
    """A bag of words laid out token by token: ``indptr`` and ``indices`` of its CSR counts and
    where each (document, word) pair's tokens start (``token_start[-1]`` tokens in all)."""

    indptr: np.ndarray
    indices: np.ndarray
    token_start: np.ndarray

    @classmethod
    def of(cls, counts) -> "TokenCorpus":
        """The layout of a CSR matrix of whole-number counts."""
        _, token_start = token_layout(counts.data.astype(np.float64), np.inf)
        return cls(counts.indptr.astype(np.int64), counts.indices.astype(np.int64), token_start)

    @property
    def n_docs(self) -> int:
        return self.indptr.size - 1

    @property
    def n_tokens(self) -> int:
        return int(self.token_start[-1])


def start_params(corpus: TokenCorpus, n_words: int, n_topics: int, eta: float, alpha: float, gamma: float,
                 rng: np.random.Generator) -> DirectAssignmentParams:
    """The sampler's first state: ``n_topics`` documents drawn at random, each one topic holding all
    its tokens, and every other token unassigned (``z = -1``), so the first sweep is Teh et al.'s
    sequential initialisation around those seeds (``n_topics=0``: from no topics, ``beta_u = 1``).
    ``beta`` starts uniform over the seeds and ``beta_u``; the sweeps then create and empty topics
    as the data ask. (Tokens drawn uniformly among K topics instead leave K copies of the corpus's
    word frequencies, which 150 sweeps do not empty: 200 such topics stay 203-212 on two corpora.)"""
    slots = max(INITIAL_SLOTS, 2 * n_topics)
    Nwk, Njk, Nk = np.zeros((n_words, slots)), np.zeros((corpus.n_docs, slots)), np.zeros(slots)
    beta, rest = np.zeros(slots), np.ones(1)
    z = np.full(corpus.n_tokens, -1, dtype=np.int64)
    seeds = rng.choice(corpus.n_docs, size=min(n_topics, corpus.n_docs), replace=False)
    if len(seeds):
        topic_of_doc = np.full(corpus.n_docs, -1, dtype=np.int64)
        topic_of_doc[seeds] = np.arange(len(seeds))
        pair = np.repeat(np.arange(corpus.token_start.size - 1), np.diff(corpus.token_start))
        doc = np.repeat(np.arange(corpus.n_docs), np.diff(corpus.indptr))[pair]
        z = topic_of_doc[doc]
        seeded = z >= 0
        words, docs, topics = corpus.indices[pair][seeded], doc[seeded], z[seeded]
        Nwk[:] = np.bincount(words * slots + topics, minlength=n_words * slots).reshape(n_words, slots)
        Njk[:] = np.bincount(docs * slots + topics, minlength=corpus.n_docs * slots).reshape(corpus.n_docs, slots)
        Nk[:] = Nwk.sum(axis=0)
        used = Nk > 0
        beta[used] = rest[0] = 1.0 / (used.sum() + 1.0)
    return DirectAssignmentParams(z, Nwk, Njk, Nk, beta, rest, np.zeros(slots), eta, float(alpha), float(gamma))


def sweep_tokens(p: DirectAssignmentParams, corpus: TokenCorpus, rng: np.random.Generator) -> None:
    """One sweep over every token in place (Teh et al. 2006, Eq. 37, by SparseLDA's buckets:
    :func:`~stickbreak.kernels.gibbs.buckets.bucket_sweep`), the arrays doubled whenever every slot
    is in use (a handful of times per fit)."""
    stopped = 0
    while stopped >= 0:
        stopped = bucket_sweep(corpus.indptr, corpus.indices, corpus.token_start, p.z, p.Nwk, p.Njk, p.Nk, p.beta,
                               p.alpha, p.eta, p.rest, p.gamma, stopped, int(rng.integers(2**31)))
        if stopped >= 0:
            p.Nwk, p.Njk, p.Nk, p.beta = grow(p.Nwk, p.Njk, p.Nk, p.beta)


def resample_weights(p: DirectAssignmentParams, rng: np.random.Generator) -> None:
    """Tables by Antoniak draws (Eq. 40), then ``beta ~ Dir(m_.k of the used topics, gamma)`` (Eq. 36)."""
    p.tables = table_counts(p.Njk, p.beta, p.alpha, int(rng.integers(2**31)))
    used = p.Nk > 0
    draw = rng.dirichlet(np.append(p.tables[used], p.gamma))
    p.beta[:] = 0.0
    p.beta[used] = draw[:-1]
    p.rest[0] = draw[-1]
