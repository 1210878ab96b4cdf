"""Topic models: multinomial topics times LDA or HDP document weights (Hughes 2016, Ch. 5; Ch. 7 §7.3).

:class:`TopicModel` implements :class:`~stickbreak.core.protocols.TrackedBirths` (the verbs and
every move hook) for bag-of-words batches. Its statistics per topic are the token count ``N_k``, the
word counts ``S_kv``, the entropy ``H_k`` and, for the document terms, ``P_k = sum_d E log pi_dk``
(``log_pi``) and ``Q_k = sum_d [log Gamma(theta_dk) - a_k E log pi_dk]`` (``doc_gamma``), plus the
scalars ``P_>K`` and ``Q_0 + Q_>K`` (Eq. 5.47-5.48, signs corrected as in the digest §1.8). With
them the whole-data ELBO is exact after any global step:

    L = L_data(S) + sum_k H_k + [Q_0 + sum_k Q_k + Q_>K + sum_k a_k P_k + a_>K P_>K] + L_top

where ``a`` are the document prior pseudo-counts of the current global parameters (LDA: alpha;
HDP: ``alpha pi^G(rho)``) and ``L_top`` is the LDA normaliser or the HDP surrogate (Eq. 5.25).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property
from types import ModuleType, SimpleNamespace
from typing import ClassVar

import numpy as np

from ...core.protocols import MergesByRows, TrackedBirths
from ...core.suffstats import SuffStats
from ...data import BagOfWords
from ...kernels.topics.dense import dense_token_share
from ...kernels.topics.sparse import sparse_token_share
from ...obs import expfam, mult
from ...obs.expfam import Natural
from ...priors import TOPIC_WEIGHTS
from ..word_merges import screened_data_gain
from .documents import DocumentWeights, TopicLocal, birth_expansion, document_stats
from .merge_terms import merged_terms
from .on_words import OnWords
from .options import LocalOptions

@dataclass(frozen=True, eq=False)
class TopicParams:
    """Global parameters: Dirichlet ``lam`` (K, V) per topic and the document-weight parameters.

    The derived ``E log phi`` and word likelihoods are computed on first use and cached (an SVI
    step's target parameters are blended, never used for a local step, so never pay for them).
    """

    uids: np.ndarray
    obs: Natural
    weights: dict
    #: Per topic, ``sum_v lam_kv`` over the whole vocabulary when ``lam`` holds only some words'
    #: columns (a worker's, :meth:`TopicModel.params_on_features`); None: ``lam`` is whole.
    row_sums: np.ndarray | None = None
    #: ``(centered_loglik, exp_loglik)`` cut from the whole parameters' when ``lam`` holds only some
    #: words' columns and a worker cuts the same parameters for many parts
    #: (:meth:`TopicModel.params_on_features` with ``cut_derived``); None: computed from ``lam``.
    word_likelihoods: tuple | None = None

    def __getstate__(self) -> dict:
        """Pickled (for worker processes, :mod:`stickbreak.parallel`) without the derived caches: each
        is as large as ``lam`` and the receiver recomputes what it uses."""
        return {f.name: None if f.name == "word_likelihoods" else getattr(self, f.name) for f in fields(self)}

    @cached_property
    def lam_totals(self) -> np.ndarray:
        """Each topic's ``sum_v lam_kv`` over the whole vocabulary (K,)."""
        return self.obs["lam"].sum(axis=1) if self.row_sums is None else self.row_sums

    @cached_property
    def expected_log_phi(self) -> Natural:
        """``{"lam": E log phi_kv}`` (K, V)."""
        return mult.expected_t(self.obs, self.lam_totals)

    @cached_property
    def centered_loglik(self) -> np.ndarray:
        """``E log phi_kv - max_j E log phi_jv``, stored (V, K) for the kernels."""
        if self.word_likelihoods is not None:
            return self.word_likelihoods[0]
        log_phi = self.expected_log_phi["lam"].T
        return np.ascontiguousarray(log_phi - log_phi.max(axis=1, keepdims=True))

    @cached_property
    def exp_loglik(self) -> np.ndarray:
        """``exp`` of :attr:`centered_loglik`: the word likelihoods of the local step (V, K)."""
        if self.word_likelihoods is not None:
            return self.word_likelihoods[1]
        return np.exp(self.centered_loglik)

    @property
    def n_components(self) -> int:
        return len(self.uids)

    @property
    def topic_word(self) -> np.ndarray:
        """Posterior-mean topic-word probabilities (K, V)."""
        return mult.summary(self.obs)["word_probs"]


@dataclass(frozen=True, eq=False)
class TopicModel(DocumentWeights, TrackedBirths, MergesByRows, OnWords):
    """Multinomial topics with a Dirichlet(``topic_word_prior``) prior times ``weights``
    (:mod:`~stickbreak.priors.topic_lda` or :mod:`~stickbreak.priors.topic_hdp`); every move, births
    tracked batch by batch (Hughes 2016, §5.5)."""

    obs_prior: Natural
    weights: ModuleType
    weights_prior: dict
    local: LocalOptions = LocalOptions()
    merge_row_fields: ClassVar[tuple[str, ...]] = ("word_counts",)

    def n_items(self, batch) -> int:
        return batch.n_items

    def __reduce__(self):
        return (_rebuild, (self.obs_prior, self.weights.name, self.weights_prior, self.local))

    # ---------------------------------------------------------------- parameters
    def make_params(self, uids, lam: np.ndarray, weights: dict) -> TopicParams:
        return TopicParams(np.asarray(uids), {"lam": lam}, weights)

    def initial_params(self, lam: np.ndarray, n_docs: int) -> TopicParams:
        weights = self.weights.initial(self.weights_prior, lam.shape[0], n_docs)
        return self.make_params(np.arange(lam.shape[0]), lam, weights)

    # ---------------------------------------------------------------- the four verbs
    def local_step(self, params: TopicParams, batch, warm: np.ndarray | None = None, merge_pairs=None,
                   keep_loglik: bool = False, **_) -> TopicLocal:
        """The fixed point of every document over its word types (:meth:`DocumentWeights.solve_documents`)."""
        counts = batch.counts
        return self.solve_documents(params, counts.indptr, counts.indices, counts.data, params.exp_loglik,
                                    params.centered_loglik, warm, merge_pairs, keep_loglik)

    def summarize(self, batch, local: TopicLocal, uids=None, merge_pairs=None) -> SuffStats:
        """The statistics of the module docstring (:func:`~stickbreak.models.topics.documents.document_stats`)."""
        return document_stats(local, batch.n_items, {"word_counts": np.ascontiguousarray(local.word_topic.T)}, uids,
                              merge_pairs)

    def global_step(self, stats: SuffStats, previous: TopicParams | None = None) -> TopicParams:
        """Closed-form topics; the weights' own step, started from ``previous`` matched by uid."""
        lam = expfam.posterior(mult, self.obs_prior, stats.fields)["lam"]
        return self.make_params(stats.uids, lam, self.weights_step(stats, previous))

    def blend(self, old: TopicParams, target: TopicParams, step: float) -> TopicParams:
        """Natural-gradient step on ``lam`` (Hoffman et al. 2013, Eq. 25) and the weights' own blend."""
        lam = (1.0 - step) * old.obs["lam"] + step * target.obs["lam"]
        return self.make_params(target.uids, lam, self.weights.blend(old.weights, target.weights, step))

    def elbo_terms(self, params: TopicParams, stats: SuffStats) -> dict[str, float]:
        data = expfam.elbo_data(mult, self.obs_prior, params.obs, stats.fields, 0.0, expected=params.expected_log_phi)
        return {"data": data, **self.allocation_terms(params.weights, stats)}

    def merge_terms(self, stats: SuffStats, candidate: SuffStats, params: TopicParams, terms: dict, kept: int,
                    removed: int) -> dict[str, float]:
        """:meth:`elbo_terms` of ``score(candidate, params)`` in O(V + K), not O(K V): the data term
        is a sum over topics, so only the two topics' rows change in it (Hughes 2016, §5.5.1)."""
        return merged_terms(self, stats, candidate, params, terms, kept, removed)

    def score(self, stats: SuffStats, previous: TopicParams | None = None) -> tuple[TopicParams, dict[str, float]]:
        params = self.global_step(stats, previous)
        return params, self.elbo_terms(params, stats)

    # ---------------------------------------------------------------- moves (Hughes 2016, §5.5)
    def merge_scores(self, params: TopicParams, stats: SuffStats, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Screening score of merging topic ``second[m]`` into ``first[m]`` (indices): the exact
        ``Delta L_data`` for each topic's nearest topics (:mod:`stickbreak.models.word_merges`), -inf
        for the others. The document terms change too but are only known once the lap has gathered
        each pair's merged ``P`` and ``Q``; acceptance is on the exact ELBO."""
        return screened_data_gain(self.obs_prior, params.obs, stats, first, second)

    def kept_topics(self, params: TopicParams, keep: np.ndarray) -> np.ndarray:
        """``lam`` of the topics at columns ``keep`` (a delete's parameters)."""
        return params.obs["lam"][keep]

    # ---------------------------------------------------------------- births (Hughes 2016, §5.5.3)
    @property
    def birth_item_model(self):
        """Newborn topics are clustered from documents' target parts as multinomial items."""
        return SimpleNamespace(obs=mult, obs_prior=self.obs_prior)

    def birth_ownership(self, local: TopicLocal) -> np.ndarray:
        """Each document's share of each topic, ``N_dk / N_d`` (D, K)."""
        return local.doc_topic / np.maximum(local.doc_topic.sum(axis=1, keepdims=True), 1e-300)

    def birth_scores(self, local: TopicLocal) -> None:
        """None: births target the largest topics first."""
        return None

    def _target_share(self, batch, local: TopicLocal, params: TopicParams, column: int, rows: np.ndarray):
        """Documents ``rows`` and each of their tokens' responsibility for topic ``column``,
        rebuilt exactly from the local step's final weights (``r_uk = E_vk p_dk / s_u``)."""
        if local.doc_weight is None:
            raise ValueError("a birth needs the local step's document weights: call local_step(keep_loglik=True)")
        sub = batch.subset(rows)
        c = sub.counts
        weight = np.ascontiguousarray(local.doc_weight[rows])
        if self.local.sparse_for(params.n_components):  # the same top-L selection as the local step's last
            return sub, sparse_token_share(c.indptr, c.indices, params.exp_loglik, params.centered_loglik, weight,
                                           column, int(self.local.n_active))
        return sub, dense_token_share(c.indptr, c.indices, np.ascontiguousarray(params.exp_loglik), weight, column)

    def birth_row_items(self, batch) -> np.ndarray:
        return np.arange(batch.n_items)

    def birth_pool_items(self, batch, local: TopicLocal, params: TopicParams, column: int, members) -> BagOfWords:
        """The target's part of each member document: word counts weighted by the target's share."""
        sub, share = self._target_share(batch, local, params, column, np.asarray(members))
        part = sub.counts.copy()
        part.data = part.data * share
        return BagOfWords(part, sub.vocabulary)

    def birth_expansion(self, batch, local: TopicLocal, params: TopicParams, column: int, centers,
                        log_weights: np.ndarray, uids) -> SuffStats:
        """This batch's statistics over [target, newborns] (:func:`~.documents.birth_expansion`): the
        re-split rows are the word types of the target's documents, each token weighted by its exact
        responsibility for the target; the newborns' likelihoods are over the part's words."""
        def restricted(rows):
            sub, share = self._target_share(batch, local, params, column, rows)
            c = sub.counts
            log_phi = mult.expected_t(centers, centers.get("row_sums"))["lam"].T  # on a part's words: row_sums
            centered = np.ascontiguousarray(log_phi - log_phi.max(axis=1, keepdims=True))
            return c.indptr, c.indices, c.data * share, np.exp(centered), centered, np.arange(batch.n_features)

        def row_fields(word_topic):
            return {"word_counts": np.ascontiguousarray(word_topic.T)}

        return birth_expansion(self, local, column, log_weights, uids, batch.n_features, restricted, row_fields,
                               params.n_components)


def _rebuild(obs_prior, weights_name, weights_prior, local) -> TopicModel:
    return TopicModel(obs_prior, TOPIC_WEIGHTS[weights_name], weights_prior, local)

