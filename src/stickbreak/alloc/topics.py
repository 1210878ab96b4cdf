"""Topic models: multinomial topics times LDA or HDP document weights (Hughes 2016, Ch. 5; Ch. 7 §7.3).

:class:`TopicModel` implements the four verbs of :mod:`stickbreak.core.model` for bag-of-words
batches. Its statistics per topic are the token count ``N_k``, the word counts ``S_kv``, the
entropy ``H_k`` and, for the document terms, ``P_k = sum_d E log pi_dk`` (``log_pi``) and
``Q_k = sum_d [log Gamma(theta_dk) - a_k E log pi_dk]`` (``doc_gamma``), plus the scalars
``P_>K`` and ``Q_0 + Q_>K`` (Eq. 5.47-5.48, signs corrected as in the digest §1.8). With them the
whole-data ELBO is exact after any global step:

    L = L_data(S) + sum_k H_k + [Q_0 + sum_k Q_k + Q_>K + sum_k a_k P_k + a_>K P_>K] + L_top

where ``a`` are the document prior pseudo-counts of the current global parameters (LDA: alpha;
HDP: ``alpha pi^G(rho)``) and ``L_top`` is the LDA normaliser or the HDP surrogate (Eq. 5.25).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np
from scipy.special import digamma, gammaln

from ..core.suffstats import SuffStats
from ..kernels.topics import BEST, SCRATCH, WARM, topic_local_step
from ..obs import expfam, mult
from ..obs.expfam import Natural


START_CODES = {"scratch": SCRATCH, "warm": WARM, "best": BEST}


@dataclass(frozen=True)
class LocalOptions:
    """The per-document fixed point (Alg. 5.1-5.2).

    At most ``max_iter`` iterations; stop when ``max_k |Delta N_dk| < tol``. The thesis uses 100
    and 0.05; 0.5 ran 2.5x faster on Wikipedia LDA (K=20, 10 laps) and scored as well held out
    (-7.843 vs -7.848 nats/word). ``n_restarts`` sparse restart proposals per document (bnpy's
    default for the HDP is 5). ``start``: ``"scratch"`` from the likelihood and prior weights,
    ``"warm"`` from the previous lap's counts (bnpy ``initDocTopicCountLP='memo'``), or ``"best"``
    of both by the document's ELBO. Warm and best never lower the ELBO, so batch and memoized VI
    are then provably monotone; but warm alone stays near its first-lap assignments (Wikipedia:
    0.08 nats/word worse held out) and best costs 1.5x scratch, so scratch, bnpy's default, is ours.
    ``n_chunks`` splits the documents over parallel threads.
    """

    max_iter: int = 100
    tol: float = 0.5
    n_restarts: int = 0
    start: str = "scratch"
    n_chunks: int = 1

    def __post_init__(self):
        if self.start not in START_CODES:
            raise ValueError(f"start={self.start!r} is not valid; choose one of {list(START_CODES)}")


@dataclass(frozen=True, eq=False)
class TopicParams:
    """Global parameters: Dirichlet ``lam`` (K, V) per topic, the document-weight parameters, and
    the derived word likelihoods ``exp(E log phi_kv - max_j E log phi_jv)`` stored (V, K)."""

    uids: np.ndarray
    obs: Natural
    weights: dict
    exp_loglik: np.ndarray
    centered_loglik: np.ndarray

    @property
    def n_components(self) -> int:
        return len(self.uids)

    @property
    def topic_word(self) -> np.ndarray:
        """Posterior-mean topic-word probabilities (K, V)."""
        return mult.summary(self.obs)["word_probs"]


@dataclass(frozen=True, eq=False)
class TopicLocal:
    """Per-document topic counts ``N_dk`` (D, K), the prior ``(a, a_>K)`` they were fitted
    under, topic-word counts (V, K), per-topic entropy, iterations and accepted restarts."""

    doc_topic: np.ndarray
    prior: np.ndarray
    prior_rest: float
    word_topic: np.ndarray
    entropy: np.ndarray
    n_iters: np.ndarray
    n_restarts: np.ndarray


def _word_likelihoods(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    log_phi = mult.expected_t({"lam": lam})["lam"].T
    centered = np.ascontiguousarray(log_phi - log_phi.max(axis=1, keepdims=True))
    return np.exp(centered), centered


@dataclass(frozen=True, eq=False)
class TopicModel:
    """Multinomial topics with a Dirichlet(``topic_word_prior``) prior times ``weights``
    (:mod:`~stickbreak.alloc.lda` or :mod:`~stickbreak.alloc.hdp_topics`)."""

    obs_prior: Natural
    weights: ModuleType
    weights_prior: dict
    local: LocalOptions = LocalOptions()

    def n_items(self, batch) -> int:
        return batch.n_items

    @property
    def monotone(self) -> bool:
        """Whether batch and memoized VI provably never lower the ELBO: only when each document
        starts from its previous counts (Hughes 2016, §5.4.3); from scratch they rarely do."""
        return self.local.start != "scratch"

    def __reduce__(self):
        return (_rebuild, (self.obs_prior, self.weights.name, self.weights_prior, self.local))

    # ---------------------------------------------------------------- parameters
    def make_params(self, uids, lam: np.ndarray, weights: dict) -> TopicParams:
        exp_loglik, centered = _word_likelihoods(lam)
        return TopicParams(np.asarray(uids), {"lam": lam}, weights, exp_loglik, centered)

    def initial_params(self, lam: np.ndarray, n_docs: int) -> TopicParams:
        weights = self.weights.initial(self.weights_prior, lam.shape[0], n_docs)
        return self.make_params(np.arange(lam.shape[0]), lam, weights)

    # ---------------------------------------------------------------- the four verbs
    def local_step(self, params: TopicParams, batch, warm: np.ndarray | None = None, **_) -> TopicLocal:
        """The fixed point of every document (:func:`~stickbreak.kernels.topics.topic_local_step`);
        ``warm`` (D, K) are starting counts, e.g. the previous lap's :meth:`warm_start`."""
        prior, prior_rest = self.weights.pseudo_counts(self.weights_prior, params.weights)
        counts = batch.counts
        opts = self.local
        use_warm = warm is not None and warm.shape == (batch.n_items, params.n_components)
        doc_topic = np.array(warm, dtype=np.float64) if use_warm else np.zeros((batch.n_items, params.n_components))
        start = START_CODES[opts.start] if use_warm else SCRATCH
        word_topic, entropy, n_iters, n_restarts = topic_local_step(
            counts.indptr, counts.indices, counts.data, params.exp_loglik, params.centered_loglik, prior,
            float(prior_rest), doc_topic, start, opts.max_iter, opts.tol, opts.n_restarts, opts.n_chunks)
        return TopicLocal(doc_topic, prior, float(prior_rest), word_topic, entropy, n_iters, n_restarts)

    def warm_start(self, local: TopicLocal) -> np.ndarray | None:
        return None if self.local.start == "scratch" else local.doc_topic

    def summarize(self, batch, local: TopicLocal, uids=None, merge_pairs=None) -> SuffStats:
        if merge_pairs is not None and len(merge_pairs):
            raise NotImplementedError("merge moves are not implemented for topic models yet")
        n_topics = local.doc_topic.shape[1]
        theta = local.doc_topic + local.prior[None, :]
        total = theta.sum(axis=1) + local.prior_rest
        log_pi = digamma(theta) - digamma(total)[:, None]
        rest_terms = 0.0, 0.0
        if local.prior_rest > 0:
            log_rest = digamma(local.prior_rest) - digamma(total)
            rest_terms = float(log_rest.sum()), float(len(total) * gammaln(local.prior_rest) - local.prior_rest * log_rest.sum())
        fields = {
            "N": local.doc_topic.sum(axis=0),
            "word_counts": np.ascontiguousarray(local.word_topic.T),
            "log_pi": log_pi.sum(axis=0),
            "doc_gamma": (gammaln(theta) - local.prior[None, :] * log_pi).sum(axis=0),
        }
        return SuffStats(
            uids=np.arange(n_topics) if uids is None else np.asarray(uids),
            fields=fields,
            elbo_terms={"entropy": local.entropy},
            scalars={
                "n_items": float(batch.n_items),
                "log_pi_rest": rest_terms[0],
                "doc_gamma_rest": rest_terms[1] - float(gammaln(total).sum()),
            },
        )

    def global_step(self, stats: SuffStats, previous: TopicParams | None = None) -> TopicParams:
        lam = expfam.posterior(mult, self.obs_prior, stats.fields)["lam"]
        weights = self.weights.global_step(self.weights_prior, stats, None if previous is None else previous.weights)
        return self.make_params(stats.uids, lam, weights)

    def blend(self, old: TopicParams, target: TopicParams, step: float) -> TopicParams:
        """Natural-gradient step on ``lam`` (Hoffman et al. 2013, Eq. 25) and the weights' own blend."""
        lam = (1.0 - step) * old.obs["lam"] + step * target.obs["lam"]
        return self.make_params(target.uids, lam, self.weights.blend(old.weights, target.weights, step))

    def elbo_terms(self, params: TopicParams, stats: SuffStats) -> dict[str, float]:
        prior, prior_rest = self.weights.pseudo_counts(self.weights_prior, params.weights)
        n_docs = stats.scalars["n_items"]
        doc = (float(np.sum(stats.fields["doc_gamma"])) + stats.scalars["doc_gamma_rest"]
               + float(prior @ stats.fields["log_pi"]) + prior_rest * stats.scalars["log_pi_rest"])
        return {
            "data": expfam.elbo_data(mult, self.obs_prior, params.obs, stats.fields, 0.0),
            "entropy": float(np.sum(stats.elbo_terms["entropy"])),
            "doc": doc,
            "top": self.weights.top_elbo(self.weights_prior, params.weights, n_docs),
        }

    def score(self, stats: SuffStats, previous: TopicParams | None = None) -> tuple[TopicParams, dict[str, float]]:
        params = self.global_step(stats, previous)
        return params, self.elbo_terms(params, stats)

    # ---------------------------------------------------------------- reporting
    def topic_weights(self, params: TopicParams) -> np.ndarray:
        """The corpus-level topic probabilities (HDP: ``E pi^G``; LDA: uniform)."""
        return self.weights.expected_weights(self.weights_prior, params.weights)


def _rebuild(obs_prior, weights_name, weights_prior, local) -> TopicModel:
    from . import TOPIC_WEIGHT_MODELS

    return TopicModel(obs_prior, TOPIC_WEIGHT_MODELS[weights_name], weights_prior, local)
