"""The two-level stick-breaking HDP topic model (Hoffman et al. 2013, Sec. 3.3 and Fig. 9; Wang et al. 2011).

Corpus level: ``K`` topics ``q(beta_k) = Dir(lam_k)`` and sticks ``q(v_k) = Beta(a_k, b_k)``,
``sigma_k(V) = v_k prod_{l<k} (1 - v_l)``. Document level: ``T`` atoms, each pointing at a topic
with ``q(c_di) = Mult(zeta_di)``, sticks ``q(pi_di) = Beta(gamma1_di, gamma2_di)`` and token
assignments ``q(z_dn) = Mult(phi_dn)`` over the atoms.

**Truncation convention:** the last stick of each level is fixed at one, ``q(v_K = 1) = 1`` and
``q(pi_dT = 1) = 1`` (the reference code's choice, digest §3): there are ``K - 1`` free corpus
sticks and ``T - 1`` free document sticks, ``E log v_K = E log pi_dT = 0``, and the weights
``sigma(V)`` and ``sigma(pi_d)`` sum to one.

:class:`TwoLevelHDP` is one model for batch, memoized and stochastic VI. It implements
:class:`~stickbreak.core.protocols.Memoizable` (no moves) over additive statistics: ``N`` (tokens per topic),
``word_counts`` ``S_kv = sum_d sum_i zeta_dik sum_n phi_dni w_dnv``, ``n_pointers``
``P_k = sum_d sum_i zeta_dik`` and the scalars ``n_items`` and ``local_elbo`` (the purely local
terms). The ELBO (:meth:`TwoLevelHDP.elbo_terms`) is exact for any global parameters. It also
implements :class:`~stickbreak.core.protocols.Sampled`, so SVI runs on the lazy component store of
:mod:`stickbreak.learn.truncation_free`, touching only each minibatch's word types.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.special import digamma

from ...core.protocols import Memoizable, Sampled
from ...core.suffstats import SuffStats
from ...kernels.topics.two_level import START_BEST, START_UNIFORM, START_WORDS, hdp_sticks_local_step
from ...obs import expfam, mult
from ...obs.expfam import Natural
from ...priors import mixture_dp as dp_mixture
from ...priors.beta_sticks import expected_corpus_weights, expected_log_sticks
from ..sampled import ComponentStore, LocalSample, TruncationFreeParams
from ..sampled.base import batch_words, expected_log_sticks_fixed_last
from .model import TopicParams
from .init import exponential_topics


#: The kernel's codes of :attr:`TwoLevelHDP.start`.
START_CODES = {"uniform": START_UNIFORM, "words": START_WORDS, "best": START_BEST}


@dataclass(frozen=True, eq=False)
class TwoLevelParams(TopicParams):
    """Global parameters: ``obs = {"lam": (K, V)}`` Dirichlet topics and ``weights = {"a", "b"}``
    (K - 1,) corpus sticks. Shares ``expected_log_phi`` (``E log beta``), ``topic_word`` and
    ``n_components`` with the other topic models; derived expectations are cached on first use."""

    @cached_property
    def log_topic_norm(self) -> np.ndarray:
        """``psi(sum_v lam_kv)`` (K,)."""
        return digamma(self.obs["lam"].sum(axis=1))

    def expected_log_beta_rows(self, words: np.ndarray) -> np.ndarray:
        """``E log beta_kv = psi(lam_kv) - psi(sum_v lam_kv)`` for the words ``words`` only, stored
        (len(words), K) for the kernel's gather: a minibatch needs no digamma over the whole vocabulary."""
        if "expected_log_phi" in self.__dict__:
            return np.ascontiguousarray(self.expected_log_phi["lam"][:, words].T)
        rows = np.ascontiguousarray(self.obs["lam"][:, words].T)
        digamma(rows, out=rows)
        rows -= self.log_topic_norm[None, :]
        return rows

    @cached_property
    def expected_log_sticks(self) -> np.ndarray:
        """``E log sigma_k(V)`` (K,)."""
        return expected_log_sticks(self.weights["a"], self.weights["b"])


@dataclass(frozen=True, eq=False)
class TwoLevelLocal:
    """One batch's local step: topic-word statistics (K, V), pointers per topic (K,), tokens per
    topic (K,), each document's purely local ELBO terms (D,) and iterations (D,), and optionally
    the expected document-topic proportions (D, K)."""

    word_topic: np.ndarray
    n_pointers: np.ndarray
    n_tokens: np.ndarray
    local_elbo: np.ndarray
    n_iters: np.ndarray
    doc_topic: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class TwoLevelHDP(Memoizable, Sampled):
    """Two-level stick-breaking HDP: Dirichlet(``obs_prior["lam"]``) topics, corpus sticks
    ``Beta(1, corpus_concentration)`` (omega), document sticks ``Beta(1, doc_concentration)``
    (alpha), ``doc_truncation`` atoms per document (T). The local step runs at most ``max_iter``
    iterations, until the per-document ELBO changes by less than ``tol`` relatively, over
    ``n_chunks`` threads. Paper settings: omega = alpha = 1, T = 20, eta = 0.01 (K = 300).

    ``start`` (the document step's start, :mod:`~stickbreak.kernels.topics.two_level`): ``"uniform"``
    is Fig. 9 lines 5-6 (``phi = 1/T``: every atom starts on the same topic mix, and the step tends
    to stay there, most of a document on one topic: issue 24); ``"words"`` starts from the document's
    own words under ``E log beta`` with the stick terms ignored (as in the first iterations of Wang et
    al. 2011's reference code), each atom on one of the document's leading topics by a few EM steps;
    ``"best"`` runs both and keeps, per document, the one of higher ``L_d``. Every start is followed
    by the same exact coordinate ascent. "words" reaches a higher ``L_d`` on nearly every document
    (and "best" then rarely differs from it); whether the topics SVI learns from it predict held-out
    words better depends on the corpus (``benchmarks/results/svi_hdp_vs_lda_*.md``)."""

    obs_prior: Natural
    corpus_concentration: float = 1.0
    doc_concentration: float = 1.0
    doc_truncation: int = 20
    max_iter: int = 100
    tol: float = 1e-4
    n_chunks: int = 1
    start: str = "words"

    def __post_init__(self):
        if self.start not in START_CODES:
            raise ValueError(f"start={self.start!r} is not valid; choose one of {list(START_CODES)}")
        lam = np.asarray(self.obs_prior.get("lam", np.nan), dtype=float)
        if lam.ndim != 1 or not np.all(np.isfinite(lam) & (lam > 0)):
            raise ValueError("obs_prior must be {'lam': (V,) positive Dirichlet pseudo-counts}, e.g. np.full(V, 0.01)")
        for name in ("corpus_concentration", "doc_concentration"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number, got {value}")
        for name in ("doc_truncation", "max_iter", "n_chunks"):
            if int(getattr(self, name)) != getattr(self, name) or getattr(self, name) < 1:
                raise ValueError(f"{name} must be a positive integer, got {getattr(self, name)}")
        if not (np.isfinite(self.tol) and self.tol >= 0):
            raise ValueError(f"tol must be a non-negative number, got {self.tol}")

    @property
    def stick_prior(self) -> dict[str, float]:
        """The corpus sticks' ``Beta(1, omega)`` in :mod:`~stickbreak.priors.mixture_dp`'s terms."""
        return dp_mixture.default_prior(self.corpus_concentration)

    def n_items(self, batch) -> int:
        return batch.n_items

    @property
    def monotone(self) -> bool:
        """False: every local step starts afresh (:attr:`start`), so laps may lower the ELBO."""
        return False

    # ---------------------------------------------------------------- parameters
    def make_params(self, uids, lam: np.ndarray, weights: dict) -> TwoLevelParams:
        return TwoLevelParams(np.asarray(uids), {"lam": np.asarray(lam, dtype=float)},
                              {key: np.asarray(weights[key], dtype=float) for key in ("a", "b")})

    def initial_params(self, n_topics, n_docs: int, rng: np.random.Generator | None = None) -> TwoLevelParams:
        """Hoffman et al. (2013), footnote 6 with the digest's erratum: ``lam = eta + Exponential``
        of mean ``100 D / (K V)`` (as if each of ``D = n_docs`` documents of 100 words were spread at
        random), drawn with ``rng``; corpus sticks at their prior, ``a = 1``, ``b = omega``.
        ``n_topics`` may instead be a (K, V) ``lam`` already drawn (e.g. by
        :func:`~stickbreak.models.topics.init.initial_topics`, as for the other topic models)."""
        eta = self.obs_prior["lam"]
        if np.ndim(n_topics) == 2:
            lam = np.array(n_topics, dtype=float)
            if lam.shape[1] != len(eta) or not np.all(lam > 0):
                raise ValueError(f"initial topics must be positive with {len(eta)} columns, got shape {lam.shape}")
        else:
            if rng is None:
                raise ValueError("initial_params(n_topics, n_docs, rng) needs a numpy Generator to draw the topics")

            lam = exponential_topics(eta, int(n_topics), n_docs, rng)
        n_topics = lam.shape[0]
        weights = {"a": np.ones(n_topics - 1), "b": np.full(n_topics - 1, float(self.corpus_concentration))}
        return self.make_params(np.arange(n_topics), lam, weights)

    # ---------------------------------------------------------------- the four verbs
    def local_step(self, params: TwoLevelParams, batch, warm=None, doc_topic: bool = False, **_) -> TwoLevelLocal:
        """Fig. 9 lines 5-10 for every document (:func:`~stickbreak.kernels.topics.two_level.hdp_sticks_local_step`)
        from :attr:`start`; ``warm`` is ignored (a fresh start every time). With ``doc_topic``, also keep
        ``E theta_d`` (D, K)."""
        counts = batch.counts
        n_words = params.obs["lam"].shape[1]
        if counts.shape[1] != n_words:
            raise ValueError(f"the batch has {counts.shape[1]} words but the topics have {n_words}; "
                             "use the training vocabulary")
        words = np.unique(counts.indices)  # the kernel works on the batch's own vocabulary
        local_words = np.searchsorted(words, counts.indices).astype(counts.indices.dtype)
        theta = np.zeros((batch.n_items if doc_topic else 0, params.n_components))
        word_topic, n_pointers, n_tokens, elbo, n_iters = hdp_sticks_local_step(
            counts.indptr, local_words, counts.data, params.expected_log_beta_rows(words), params.expected_log_sticks,
            float(self.doc_concentration), int(self.doc_truncation), int(self.max_iter), float(self.tol),
            START_CODES[self.start], int(self.n_chunks), theta)
        full = np.zeros((params.n_components, n_words))
        full[:, words] = word_topic.T
        return TwoLevelLocal(full, n_pointers, n_tokens, elbo, n_iters, theta if doc_topic else None)

    def warm_start(self, local: TwoLevelLocal) -> None:
        return None

    def summarize(self, batch, local: TwoLevelLocal, uids=None, merge_pairs=None) -> SuffStats:
        """The additive statistics of the module docstring (moves are not supported: no merge pairs)."""
        if merge_pairs is not None and len(merge_pairs):
            raise ValueError("the two-level HDP has no merge moves; run memoized VI without moves")
        n_topics = len(local.n_tokens)
        return SuffStats(
            uids=np.arange(n_topics) if uids is None else np.asarray(uids),
            fields={"N": local.n_tokens, "word_counts": local.word_topic,
                    "n_pointers": local.n_pointers},
            scalars={"n_items": float(batch.n_items), "local_elbo": float(local.local_elbo.sum())},
        )

    def global_step(self, stats: SuffStats, previous: TwoLevelParams | None = None) -> TwoLevelParams:
        """Fig. 9 lines 11-12 (the caller scales minibatch statistics by ``D / S``):
        ``lam = eta + S``, ``a_k = 1 + P_k``, ``b_k = omega + sum_{l>k} P_l`` for ``k < K``."""
        lam = expfam.posterior(mult, self.obs_prior, stats.fields)["lam"]
        pointers = stats.fields["n_pointers"]
        sticks = dp_mixture.global_step(self.stick_prior, pointers)
        weights = {"a": sticks["eta1"][:-1], "b": sticks["eta0"][:-1]}
        return self.make_params(stats.uids, lam, weights)

    def blend(self, old: TwoLevelParams, target: TwoLevelParams, step: float) -> TwoLevelParams:
        """Natural-gradient step ``(1 - rho) old + rho target`` on ``lam``, ``a`` and ``b``
        (Hoffman et al. 2013, Eq. 25 and Fig. 9)."""
        return self.make_params(target.uids, expfam.blend(old.obs, target.obs, step)["lam"],
                                expfam.blend(old.weights, target.weights, step))

    def elbo_terms(self, params: TwoLevelParams, stats: SuffStats) -> dict[str, float]:
        """The exact ELBO of ``q`` for any global parameters (Hoffman et al. 2013, Sec. 3.3; digest §3):

        * ``data``: ``E log p(w|z, c, beta) + E log p(beta) - E log q(beta)`` = ``sum_kv S_kv E log
          beta_kv`` minus ``KL(q(beta_k) || Dir(eta))`` (:func:`~stickbreak.obs.expfam.elbo_data`;
          the multinomial coefficient is left out, as for the other topic models);
        * ``pointers``: ``E log p(c|V) = sum_k P_k E log sigma_k(V)``;
        * ``sticks``: ``E log p(V) - E log q(V)`` over the ``K - 1`` free ``Beta(1, omega)`` sticks;
        * ``local``: the documents' own terms ``sum_d [H(q(c_d)) + H(q(z_d)) + E log p(z_d|pi_d)
          + E log p(pi_d) - E log q(pi_d)]``, summed by the local step.
        """
        weights = {"eta1": params.weights["a"], "eta0": params.weights["b"]}
        return {
            "data": expfam.elbo_data(mult, self.obs_prior, params.obs, stats.fields, 0.0,
                                     expected=params.expected_log_phi),
            "pointers": float(stats.fields["n_pointers"] @ params.expected_log_sticks),
            "sticks": dp_mixture.elbo(self.stick_prior, weights, np.zeros(len(weights["eta1"]))),
            "local": float(stats.scalars["local_elbo"]),
        }

    def score(self, stats: SuffStats, previous: TwoLevelParams | None = None) -> tuple[TwoLevelParams, dict]:
        """The global step and the ELBO of its result (what memoized VI asks for)."""
        params = self.global_step(stats, previous)
        return params, self.elbo_terms(params, stats)

    # ---------------------------------------------------------------- stochastic VI on the lazy store (Sampled)
    # SVI (Hoffman et al. 2013, Fig. 9) runs on the component store of truncation-free SVI, so a
    # step touches only its minibatch's word types; same updates as global_step/blend above.
    @property
    def topic_word_prior(self) -> float:
        """The symmetric ``eta`` of ``obs_prior["lam"]`` (the lazy store keeps one for every word)."""
        eta = np.unique(self.obs_prior["lam"])
        if len(eta) != 1:
            raise ValueError("two-level SVI needs a symmetric topic-word prior (one topic_word_prior for every word)")
        return float(eta[0])

    @property
    def stick_concentration(self) -> float:
        return self.corpus_concentration

    def empty_store(self, n_vocab: int) -> ComponentStore:
        return ComponentStore.empty(n_vocab, self.topic_word_prior, self.stick_concentration)

    def store_params(self, params: TwoLevelParams) -> TruncationFreeParams:
        """``params`` on the store's terms: the last corpus stick appended as the fixed ``(1, omega)``."""
        return TruncationFreeParams(params.uids, params.obs["lam"], np.append(params.weights["a"], 1.0),
                                    np.append(params.weights["b"], self.corpus_concentration), self.topic_word_prior)

    def from_store_params(self, params: TruncationFreeParams) -> TwoLevelParams:
        return self.make_params(params.uids, params.lam, {"a": params.u[:-1], "b": params.v[:-1]})

    def params_from_store(self, store: ComponentStore) -> TruncationFreeParams:
        K = store.n_components
        return TruncationFreeParams(store.uids[:K].copy(), store.lam(), store.u[:K].copy(), store.v[:K].copy(),
                                    store.eta)

    def sample_local(self, store: ComponentStore, counts, rows: np.ndarray, seed: int) -> LocalSample:
        """The local step of the minibatch ``rows`` (its expectations: ``seed`` is unused); ``loglik``
        is each document's plug-in ``sum_w c_dw log sum_k E[theta_dk] E[beta_kw]`` with ``E theta_d``
        from its own local step (optimistic: not held out)."""
        word_ids, local, lam, total, log_beta = batch_words(store, counts, rows)
        K = store.n_components
        theta = np.zeros((len(rows), K))
        word_topic, n_pointers, _, _, _ = hdp_sticks_local_step(
            local.indptr, local.indices, local.data, np.ascontiguousarray(log_beta),
            expected_log_sticks_fixed_last(store.u[:K], store.v[:K]), float(self.doc_concentration),
            int(self.doc_truncation), int(self.max_iter), float(self.tol), START_CODES[self.start], int(self.n_chunks),
            theta)
        beta = lam / total[None, :]
        doc_of = np.repeat(np.arange(len(rows)), np.diff(local.indptr))
        token_prob = np.einsum("nk,nk->n", theta[doc_of], beta[local.indices])
        loglik = np.bincount(doc_of, local.data * np.log(token_prob), minlength=len(rows))
        return LocalSample(word_ids, word_topic, n_pointers, loglik)

    def keep_mask(self, store: ComponentStore) -> np.ndarray:
        """The truncation never changes: every topic is kept."""
        return np.ones(store.n_components, dtype=bool)

    def summary(self, store: ComponentStore) -> SuffStats:
        return SuffStats(store.uids[:store.n_components], {"N": store.word_mass()})

    # ---------------------------------------------------------------- reporting
    def topic_weights(self, params: TwoLevelParams) -> np.ndarray:
        """The corpus-level topic probabilities ``E sigma_k(V)`` (K,), summing to one."""
        return expected_corpus_weights(params.weights)

    def expected_doc_topic(self, params: TwoLevelParams, batch) -> np.ndarray:
        """``E theta_dk = sum_i E[sigma_i(pi_d)] zeta_dik`` (D, K) from a local step with the
        global parameters fixed (digest §4, "HDP proportions"), for held-out evaluation."""
        return self.local_step(params, batch, doc_topic=True).doc_topic
