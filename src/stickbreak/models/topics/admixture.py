"""Admixtures of any observation family: LDA or HDP topic weights per group, each item of a group
drawn from one topic of a conjugate family (Hughes 2016, Ch. 5: the image-patch experiments, 8x8
patches grouped by image with zero-mean Gaussian topics; Teh et al. 2006 §5 in general).

The document side is the topic model's (:mod:`.documents`): the same fixed point (Alg. 5.1-5.2), the
same document terms and top-level weights. Only the rows differ: each item is a row of its own,
``E[n, k] = exp(E log p(x_n | phi_k) - max_j E log p(x_n | phi_j))``, with weight 1, so the kernel's
row counts are the items' responsibilities and the family's statistics come from them as in a
mixture. The ELBO is the topic model's with the family's data term (Eq. 2.95):

    L = L_data(S) + sum_k H_k + [document terms] + L_top.

Groups are :class:`~stickbreak.data.Sequences` (items ``X``, group ``offsets``); their order inside a
group does not matter. Every family but the multinomial (whose items are word counts: use
:class:`~stickbreak.models.topics.model.TopicModel`) and the autoregressive Gaussian (its items
need a predecessor).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType, SimpleNamespace

import numpy as np
from scipy.special import logsumexp

from ... import obs
from ...core.protocols import TrackedBirths
from ...core.suffstats import SuffStats
from ...data import Sequences
from ...obs import expfam
from ...obs.expfam import Natural, ObsFamily, data_gain
from ...priors import TOPIC_WEIGHTS
from ..mixture.params import MixtureParams
from .documents import DocumentWeights, TopicLocal, birth_expansion, document_stats
from .options import LocalOptions

#: Families whose items are not single rows of ``X`` (their own models cover them).
UNSUPPORTED = {"mult": "its items are word counts: use HDPTopicModel / LDA",
               "ar_gauss": "its items need a predecessor, which exchangeable items of a group do not have"}


@dataclass(frozen=True, eq=False)
class Admixture(DocumentWeights, TrackedBirths):
    """Topics of observation family ``obs`` (prior ``obs_prior``) times per-group ``weights``
    (:mod:`~stickbreak.priors.topic_lda` or :mod:`~stickbreak.priors.topic_hdp`); every move, births
    tracked batch by batch (Hughes 2016, §5.5), as for the topic model."""

    obs: ObsFamily
    obs_prior: Natural
    weights: ModuleType
    weights_prior: dict
    local: LocalOptions = LocalOptions()

    def __post_init__(self):
        if self.obs.name in UNSUPPORTED:
            raise ValueError(f"an admixture of {self.obs.name!r} topics is not supported: {UNSUPPORTED[self.obs.name]}")
        if self.local.n_active is not None:
            raise ValueError("an admixture's local step is dense: pass n_active=None")

    def __reduce__(self):
        return (_rebuild, (self.obs.name, self.obs_prior, self.weights.name, self.weights_prior, self.local))

    def n_items(self, batch: Sequences) -> int:
        return batch.n_items

    def make_params(self, uids, obs_natural: Natural, weights: dict) -> MixtureParams:
        return MixtureParams(np.asarray(uids), obs_natural, weights)

    def initial_params(self, obs_natural: Natural, n_groups: int) -> MixtureParams:
        """Parameters with topics ``obs_natural`` and the weights' initial state for ``n_groups`` groups."""
        n_topics = len(next(iter(obs_natural.values())))
        return self.make_params(np.arange(n_topics), obs_natural,
                                self.weights.initial(self.weights_prior, n_topics, n_groups))

    # ---------------------------------------------------------------- the four verbs
    def item_rows(self, params: MixtureParams, batch: Sequences) -> tuple[np.ndarray, np.ndarray]:
        """``(exp(centered), centered)`` of the items' expected log-likelihoods, each row minus its
        maximum (N, K): the kernel's likelihood rows."""
        return _rows(self.obs.expected_loglik(params.obs, self.obs.frames_of(batch)))

    def local_step(self, params: MixtureParams, batch: Sequences, warm: np.ndarray | None = None, merge_pairs=None,
                   keep_loglik: bool = False, **_) -> TopicLocal:
        """The fixed point of every group over its items (:meth:`DocumentWeights.solve_documents`):
        ``word_topic`` (N, K) holds the items' responsibilities."""
        exp_loglik, centered = self.item_rows(params, batch)
        n = batch.n_frames
        return self.solve_documents(params, _index(batch.offsets), np.arange(n, dtype=np.int32), np.ones(n),
                                    exp_loglik, centered, warm, merge_pairs, keep_loglik)

    def summarize(self, batch: Sequences, local: TopicLocal, uids=None, merge_pairs=None) -> SuffStats:
        """The family's statistics of the items' responsibilities and the document terms."""
        items = self.obs.frames_of(batch)
        family = self.obs.suff_stats(items, local.word_topic, self.obs_prior)
        return document_stats(local, batch.n_items, family, uids, merge_pairs,
                              scalars={"log_base": self.obs.log_base(items)})

    def global_step(self, stats: SuffStats, previous: MixtureParams | None = None) -> MixtureParams:
        """The family's conjugate posterior; the weights' own step, started from ``previous``."""
        return self.make_params(stats.uids, expfam.posterior(self.obs, self.obs_prior, stats.fields),
                                self.weights_step(stats, previous))

    def blend(self, old: MixtureParams, target: MixtureParams, step: float) -> MixtureParams:
        """Natural-gradient step on the topics (Hoffman et al. 2013, Eq. 25) and the weights' own blend."""
        topics = dict(old.obs)
        topics.update(expfam.blend({k: old.obs[k] for k in self.obs.natural_keys}, target.obs, step))
        return self.make_params(target.uids, topics, self.weights.blend(old.weights, target.weights, step))

    def elbo_terms(self, params: MixtureParams, stats: SuffStats) -> dict[str, float]:
        data = expfam.elbo_data(self.obs, self.obs_prior, params.obs, stats.fields, stats.scalars["log_base"])
        return {"data": data, **self.allocation_terms(params.weights, stats)}

    def score(self, stats: SuffStats, previous: MixtureParams | None = None) -> tuple[MixtureParams, dict[str, float]]:
        params = self.global_step(stats, previous)
        return params, self.elbo_terms(params, stats)

    # ---------------------------------------------------------------- moves (Hughes 2016, §5.5)
    def merge_scores(self, params: MixtureParams, stats: SuffStats, first: np.ndarray,
                     second: np.ndarray) -> np.ndarray:
        """Screening score of merging topic ``second[m]`` into ``first[m]``: the exact ``Delta L_data``
        (the document terms change too, known once the lap has gathered each pair's merged terms;
        acceptance is on the exact ELBO)."""
        return data_gain(self.obs, self.obs_prior, params.obs, stats, first, second)

    def kept_topics(self, params: MixtureParams, keep: np.ndarray) -> Natural:
        """The natural parameters of the topics at columns ``keep`` (a delete's parameters)."""
        return expfam.select_components(params.obs, keep)

    @property
    def birth_item_model(self):
        """Newborn topics are clustered from the target's items with the topics' own family."""
        return SimpleNamespace(obs=self.obs, obs_prior=self.obs_prior)

    def birth_ownership(self, local: TopicLocal) -> np.ndarray:
        """Each item's responsibilities (N, K)."""
        return local.word_topic

    def birth_scores(self, local: TopicLocal) -> None:
        """None: births target the largest topics first."""
        return None

    def birth_row_items(self, batch: Sequences) -> np.ndarray:
        """The group of every item."""
        return np.repeat(np.arange(batch.n_items), batch.lengths)

    def birth_pool_items(self, batch: Sequences, local: TopicLocal, params: MixtureParams, column: int, members):
        """The items themselves."""
        return self.obs.frames_of(batch).subset(np.asarray(members))

    def birth_expansion(self, batch: Sequences, local: TopicLocal, params: MixtureParams, column: int, centers,
                        log_weights: np.ndarray, uids) -> SuffStats:
        """This batch's statistics over [target, newborns] (:func:`~.documents.birth_expansion`): the
        re-split rows are the items of the target's groups, each weighted by its responsibility for
        the target, scored under ``centers`` ([target, newborns] of the family)."""
        def restricted(groups):
            items = np.flatnonzero(np.repeat(np.isin(np.arange(batch.n_items), groups), batch.lengths))
            indptr = np.concatenate([[0], np.cumsum(batch.lengths[groups])])
            exp_loglik, centered = _rows(self.obs.expected_loglik(centers, self.obs.frames_of(batch).subset(items)))
            return (_index(indptr), np.arange(len(items), dtype=np.int32), local.word_topic[items, column], exp_loglik,
                    centered, items)

        def row_fields(resp):
            return self.obs.suff_stats(self.obs.frames_of(batch), resp, self.obs_prior)

        return birth_expansion(self, local, column, log_weights, uids, batch.n_frames, restricted, row_fields,
                               params.n_components)

    # ---------------------------------------------------------------- prediction
    def log_predictive(self, params: MixtureParams, batch: Sequences, doc_topic: np.ndarray) -> np.ndarray:
        """``log p(x_n | data)`` of each item under its group's expected topic weights (N,):
        ``E[pi_dk] = theta_dk / sum_j theta_dj`` with ``theta_d = N_d + a`` (``doc_topic`` (D, K)
        from a local step on the group's other items), mixing the topics' posterior predictives;
        the mass beyond the truncation, ``a_>K``, goes to a fresh topic at its prior."""
        prior, prior_rest = self.weights.pseudo_counts(self.weights_prior, params.weights)
        theta = doc_topic + prior[None, :]
        total = theta.sum(axis=1) + prior_rest
        group = np.repeat(np.arange(batch.n_items), batch.lengths)
        items = self.obs.frames_of(batch)
        per_topic = self.obs.log_predictive(params.obs, items) + np.log(theta / total[:, None])[group]
        if prior_rest > 0:
            fresh = self.obs.log_predictive(expfam.stack_prior(self.obs_prior), items)[:, 0]
            per_topic = np.column_stack([per_topic, fresh + np.log(prior_rest / total)[group]])
        return logsumexp(per_topic, axis=1)


def _rows(loglik: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(exp(centered), centered)`` with ``centered`` each row of ``loglik`` minus its maximum."""
    centered = np.ascontiguousarray(loglik - loglik.max(axis=1, keepdims=True))
    return np.exp(centered), centered


def _index(offsets: np.ndarray) -> np.ndarray:
    """Group offsets in the CSR index type the topic kernels compile for (int32 when they fit)."""
    return offsets.astype(np.int32) if offsets[-1] < np.iinfo(np.int32).max else offsets


def _rebuild(obs_name, obs_prior, weights_name, weights_prior, local) -> Admixture:
    return Admixture(obs.get(obs_name), obs_prior, TOPIC_WEIGHTS[weights_name], weights_prior, local)
