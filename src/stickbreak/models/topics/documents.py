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
from .delete import DeletePart, delete_part, delete_round
from .options import LocalOptions

START_CODES = {"scratch": SCRATCH, "warm": WARM, "best": BEST}
#: A birth re-splits the target's tokens in documents holding at least this many of them; elsewhere
#: the target keeps its tokens.
BIRTH_MIN_COUNT = 0.5
#: Share of the target's document prior mass ``alpha pi^G_t`` the target keeps in a birth (the
#: thesis's example keeps 10 %: 0.2 -> 0.02 + 0.09 + 0.09); the newborns share the rest.
BIRTH_KEEP = 0.1
#: Smallest share of the target's prior mass a newborn gets.
MIN_BIRTH_SHARE = 1e-6


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
        rest_terms = (float(log_rest.sum()),
                      float(len(total) * gammaln(local.prior_rest) - local.prior_rest * log_rest.sum()))
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
    """The verbs' document side and the delete hooks, for a frozen dataclass with ``weights`` (a
    module of :data:`~stickbreak.priors.TOPIC_WEIGHTS`), ``weights_prior``, ``local``
    (:class:`LocalOptions`), ``make_params(uids, topics, weights)`` and ``kept_topics(params, columns)``."""

    weights: ModuleType
    weights_prior: dict
    local: LocalOptions

    #: A topic model's screen is the data gain alone: the document terms of a merge (known only once a
    #: lap has gathered them) favour fewer topics, so merges that raise the ELBO mostly lower the
    #: data term (we8there, 102 topics from init="gibbs": 39 of 5,151 pairs raise the exact ELBO,
    #: none has a positive data gain). The best-ranked pairs are tried whatever their sign.
    merge_scores_bound_gain = False

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

    # ---------------------------------------------------------------- deletes (Hughes 2016, §5.5.2)
    def without_topic(self, params, targets):
        """The parameters with topics ``targets`` (uids) removed; their stick mass goes to the rest
        (the model's ``kept_topics(params, columns)`` gives the remaining topics' parameters)."""
        keep = np.flatnonzero(~np.isin(params.uids, np.atleast_1d(targets)))
        others = params.uids[keep]
        return self.make_params(others, self.kept_topics(params, keep),
                                self.weights.align(params.weights, params.uids, others))

    def delete_params(self, params, targets):
        return self.without_topic(params, targets)

    def delete_part(self, local: TopicLocal, params, targets) -> DeletePart:
        return delete_part(local, params, targets)

    def delete_round(self, part: DeletePart, batch, current, step: int, last: bool, merge_pairs=None, features=None,
                     n_features: int = 0):
        return delete_round(self, part, batch, current, step, last, merge_pairs, features, n_features)

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


def birth_expansion(model, local: TopicLocal, column: int, log_weights: np.ndarray, uids, n_rows: int, restricted,
                    row_fields, n_topics: int) -> SuffStats:
    """A batch's statistics over [target, newborns] after the restricted local step (Hughes 2016, §5.5.3).

    The target's document prior mass ``a_t`` is split as ``a' = a_t (BIRTH_KEEP e_0 + (1 -
    BIRTH_KEEP) w)`` with ``w`` the proposal's weights (``log_weights``). In documents holding at
    least ``BIRTH_MIN_COUNT`` of the target's mass, its rows (word types or items), each weighted by
    its exact responsibility for the target, are re-assigned over [target, newborns] by the fixed
    point of Alg. 5.1 under ``a'``; elsewhere the target keeps them. Every other topic's counts,
    the documents' totals and so ``P``, ``Q`` of the others are unchanged, so the expansion replaces
    only these rows. Entropy: the target's old entropy plus the restricted step's (their sum over
    the rows is exact, the shares of a row summing to its target responsibility). Every pair of
    [target, newborns] carries its merged entropy and document terms (as a lap's planned merges do,
    Eq. 5.49), so that what the split left nearly empty (a newborn, or the target's remnant), which
    costs each document that still uses it ``log a_k`` (a third topic in a document that had one),
    is merged away exactly before the proposal is judged (:func:`stickbreak.moves.birth.cleaned`).

    ``restricted(docs)`` gives the restricted step's ``(indptr, indices, weights, exp_loglik,
    centered_loglik, row_ids)`` for documents ``docs``: its likelihood rows are the model's rows
    ``row_ids`` (of ``n_rows``); ``row_fields(resp)`` the model's own statistics of the rows'
    responsibilities (n_rows, 1 + newborns).
    """
    weights = np.exp(log_weights - np.max(log_weights))
    shares = (1.0 - BIRTH_KEEP) * weights / weights.sum()
    shares[0] += BIRTH_KEEP
    if np.any(shares[1:] < MIN_BIRTH_SHARE):  # a newborn with no prior mass and (hard split) no tokens: log 0
        newborn = np.maximum(shares[1:], MIN_BIRTH_SHARE)
        shares[1:] = newborn * (1.0 - shares[0]) / newborn.sum()
    prior_new = local.prior[column] * shares
    n_docs, n_new = local.doc_topic.shape[0], len(shares)
    counts_new = np.zeros((n_docs, n_new))
    counts_new[:, 0] = local.doc_topic[:, column]
    resp = np.zeros((n_rows, n_new))
    resp[:, 0] = local.word_topic[:, column]
    entropy = np.zeros(n_new)
    entropy[0] = local.entropy[column]
    pairs = np.column_stack(np.triu_indices(n_new, k=1)).astype(np.int64)  # every pair of [target, newborns]
    pair_entropy = np.zeros(len(pairs))
    docs = np.flatnonzero(local.doc_topic[:, column] >= BIRTH_MIN_COUNT)
    if len(docs):
        indptr, indices, weighted, exp_loglik, centered, row_ids = restricted(docs)
        split = np.zeros((len(docs), n_new))
        # under the L-sparse family each token's target share goes to one of [target, newborns],
        # so it keeps at most L topics and the proposal stays in the family
        sub_rows, sub_entropy, pair_entropy, *_ = model.local.run(
            indptr, indices, weighted, exp_loglik, centered, prior_new, 0.0, split, SCRATCH, 0, pairs,
            np.zeros((0, n_new)), n_active=1 if model.local.sparse_for(n_topics) else None)
        counts_new[docs] = split
        resp[:, 0] -= np.bincount(row_ids[indices], weights=weighted, minlength=n_rows)
        resp[row_ids] += sub_rows
        entropy += sub_entropy
    theta = counts_new + prior_new[None, :]
    total = local.doc_topic.sum(axis=1) + local.prior.sum() + local.prior_rest
    log_pi = digamma(theta) - digamma(total)[:, None]
    a, b = pairs.T
    pair_entropy = pair_entropy + np.where(a == 0, local.entropy[column], 0.0)  # the target's own part, as above
    merged = theta[:, a] + theta[:, b]
    merged_log_pi = digamma(merged) - digamma(total)[:, None]
    uids = np.asarray(uids)
    return SuffStats(
        uids=uids,
        fields={"N": counts_new.sum(axis=0), **row_fields(np.maximum(resp, 0.0)),
                "log_pi": log_pi.sum(axis=0), "doc_gamma": (gammaln(theta) - prior_new[None, :] * log_pi).sum(axis=0)},
        elbo_terms={"entropy": entropy},
        scalars={"n_items": float(n_docs), "log_pi_rest": 0.0, "doc_gamma_rest": 0.0},
        merge_pairs=np.column_stack([uids[a], uids[b]]).astype(np.int64), merge_entropy=np.asarray(pair_entropy),
        merge_fields={"log_pi": merged_log_pi.sum(axis=0),
                      "doc_gamma": (gammaln(merged)
                                    - (prior_new[a] + prior_new[b])[None, :] * merged_log_pi).sum(axis=0)},
    )
