"""The document side every model with per-group topic weights shares: LDA or HDP weights over
documents (or any groups of items), the per-document fixed point of Alg. 5.1 and the document
terms of the ELBO (Hughes 2016, Ch. 5; Eq. 5.47-5.48, signs as corrected in the digest §1.8).

A model built on :class:`DocumentWeights` says how its groups' items meet the topics, as rows of a
likelihood matrix (:meth:`DocumentWeights.solve_documents`): a word type of a bag of words is a
row of the vocabulary's ``E log phi`` (:class:`~stickbreak.models.topics.model.TopicModel`); a dense
item is a row of its own (:class:`~stickbreak.models.topics.admixture.Admixture`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

import numpy as np
from scipy.special import digamma, gammaln

from ...core.suffstats import SuffStats
from ...kernels.topics.dense import BEST, SCRATCH, WARM
from .options import LocalOptions

START_CODES = {"scratch": SCRATCH, "warm": WARM, "best": BEST}


@dataclass(frozen=True, eq=False)
class TopicLocal:
    """Per-document topic counts ``N_dk`` (D, K), the prior ``(a, a_>K)`` they were fitted
    under, the rows' topic counts (rows, K: a word type's or an item's), per-topic entropy,
    iterations and accepted restarts."""

    doc_topic: np.ndarray
    prior: np.ndarray
    prior_rest: float
    word_topic: np.ndarray
    entropy: np.ndarray
    n_iters: np.ndarray
    n_restarts: np.ndarray
    merge_pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))  # uids
    pair_entropy: np.ndarray = field(default_factory=lambda: np.zeros(0))
    doc_weight: np.ndarray | None = None  # (D, K) final weights p_dk, kept for births (see the kernel)


def columns_of(uids: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Uid pairs as column pairs of ``uids``."""
    position = {int(u): i for i, u in enumerate(uids)}
    try:
        return np.array([[position[int(a)], position[int(b)]] for a, b in pairs], dtype=np.int64).reshape(-1, 2)
    except KeyError as missing:
        raise ValueError(f"merge pair uid {missing} is not a topic of these parameters") from None


def _pair_terms(local: TopicLocal, theta: np.ndarray, total: np.ndarray, uids: np.ndarray) -> dict:
    """Merged entropy and document terms of each planned pair: ``theta'_a = theta_a + theta_b``
    per document, so ``P'_a = sum_d psi(theta'_da) - psi(theta_d.)`` and ``Q'_a`` likewise (Eq. 5.49)."""
    a, b = columns_of(uids, local.merge_pairs).T
    merged = theta[:, a] + theta[:, b]
    log_pi = digamma(merged) - digamma(total)[:, None]
    doc_gamma = gammaln(merged) - (local.prior[a] + local.prior[b])[None, :] * log_pi
    return {"merge_pairs": local.merge_pairs, "merge_entropy": local.pair_entropy,
            "merge_fields": {"log_pi": log_pi.sum(axis=0), "doc_gamma": doc_gamma.sum(axis=0)}}


def document_stats(local: TopicLocal, n_items: int, row_fields: dict, uids=None, merge_pairs=None,
                   scalars: dict | None = None) -> SuffStats:
    """A batch's statistics: the rows' own ``row_fields`` (word counts, or an observation family's
    statistics) and the document terms ``N_k``, ``P_k = sum_d E log pi_dk`` (``log_pi``),
    ``Q_k = sum_d [log Gamma(theta_dk) - a_k E log pi_dk]`` (``doc_gamma``) with the scalars
    ``P_>K``, ``Q_0 + Q_>K``; with ``merge_pairs`` (planned before the local step) also each
    pair's merged entropy, ``log_pi`` and ``doc_gamma`` (Hughes 2016, §5.5.1)."""
    n_topics = local.doc_topic.shape[1]
    uids = np.arange(n_topics) if uids is None else np.asarray(uids)
    theta = local.doc_topic + local.prior[None, :]
    total = theta.sum(axis=1) + local.prior_rest
    log_pi = digamma(theta) - digamma(total)[:, None]
    rest_terms = 0.0, 0.0
    if local.prior_rest > 0:
        log_rest = digamma(local.prior_rest) - digamma(total)
        rest_terms = float(log_rest.sum()), float(len(total) * gammaln(local.prior_rest) - local.prior_rest * log_rest.sum())
    merge_terms = {}
    if merge_pairs is not None and len(merge_pairs):
        if not np.array_equal(np.asarray(merge_pairs, dtype=np.int64), local.merge_pairs):
            raise ValueError("summarize's merge_pairs must be the ones the local step gathered entropies for")
        merge_terms = _pair_terms(local, theta, total, uids)
    fields = {"N": local.doc_topic.sum(axis=0), **row_fields, "log_pi": log_pi.sum(axis=0),
              "doc_gamma": (gammaln(theta) - local.prior[None, :] * log_pi).sum(axis=0)}
    return SuffStats(uids=uids, fields=fields, elbo_terms={"entropy": local.entropy},
                     scalars={"n_items": float(n_items), "log_pi_rest": rest_terms[0],
                              "doc_gamma_rest": rest_terms[1] - float(gammaln(total).sum()), **(scalars or {})},
                     **merge_terms)


class DocumentWeights:
    """The verbs' document side, for a frozen dataclass with ``weights`` (a module of
    :data:`~stickbreak.priors.TOPIC_WEIGHTS`), ``weights_prior`` and ``local`` (:class:`LocalOptions`)."""

    weights: ModuleType
    weights_prior: dict
    local: LocalOptions

    @property
    def monotone(self) -> bool:
        """Whether batch and memoized VI provably never lower the ELBO: only when each document
        starts from its previous counts (Hughes 2016, §5.4.3); from scratch they rarely do."""
        return self.local.start != "scratch"

    def warm_start(self, local: TopicLocal) -> np.ndarray | None:
        return None if self.local.start == "scratch" else local.doc_topic

    def solve_documents(self, params, indptr, indices, counts, exp_loglik, centered_loglik, warm=None,
                        merge_pairs=None, keep_loglik: bool = False) -> TopicLocal:
        """The fixed point of every document (:func:`~stickbreak.kernels.topics.dense.topic_local_step`)
        over the likelihood rows ``exp_loglik`` (R, K) its items ``indices`` point to, with weights
        ``counts``; ``warm`` (D, K) are starting counts, e.g. the previous lap's :meth:`warm_start`;
        ``merge_pairs`` (M, 2) uid pairs whose merged entropy to gather on the way; with
        ``keep_loglik`` the documents' final weights are kept (births rebuild responsibilities from them)."""
        prior, prior_rest = self.weights.pseudo_counts(self.weights_prior, params.weights)
        n_docs, n_topics = len(indptr) - 1, params.n_components
        opts = self.local
        use_warm = warm is not None and warm.shape == (n_docs, n_topics)
        doc_topic = np.array(warm, dtype=np.float64, order="C") if use_warm else np.zeros((n_docs, n_topics))
        start = START_CODES[opts.start] if use_warm else SCRATCH
        pairs = np.zeros((0, 2), dtype=np.int64) if merge_pairs is None else np.asarray(merge_pairs, dtype=np.int64)
        doc_weight = np.zeros((n_docs if keep_loglik else 0, n_topics))
        word_topic, entropy, pair_entropy, n_iters, n_restarts = opts.run(
            indptr, indices, counts, exp_loglik, centered_loglik, prior, float(prior_rest), doc_topic, start,
            opts.n_restarts, columns_of(params.uids, pairs), doc_weight)
        return TopicLocal(doc_topic, prior, float(prior_rest), word_topic, entropy, n_iters, n_restarts,
                          pairs, pair_entropy, doc_weight if keep_loglik else None)

    def weights_step(self, stats: SuffStats, previous=None) -> dict:
        """The topic weights' global step, started from ``previous``'s matched by uid."""
        start = None if previous is None else self.weights.align(previous.weights, previous.uids, stats.uids)
        return self.weights.global_step(self.weights_prior, stats, start)

    def allocation_terms(self, weights: dict, stats: SuffStats) -> dict[str, float]:
        """The ELBO terms other than the data term: O(K), they involve no item."""
        prior, prior_rest = self.weights.pseudo_counts(self.weights_prior, weights)
        doc = (float(np.sum(stats.fields["doc_gamma"])) + stats.scalars["doc_gamma_rest"]
               + float(prior @ stats.fields["log_pi"]) + prior_rest * stats.scalars["log_pi_rest"])
        return {"entropy": float(np.sum(stats.elbo_terms["entropy"])), "doc": doc,
                "top": self.weights.top_elbo(self.weights_prior, weights, stats.scalars["n_items"])}

    def topic_weights(self, params) -> np.ndarray:
        """The corpus-level topic probabilities (HDP: ``E pi^G``; LDA: uniform)."""
        return self.weights.expected_weights(self.weights_prior, params.weights)
