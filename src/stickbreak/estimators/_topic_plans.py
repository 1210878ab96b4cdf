"""How the topic estimators fit under each (algorithm, variational family): :data:`LDA_VARIANTS`
and :data:`HDP_VARIANTS` map the pair to a :class:`TopicVariant`, the model the estimator keeps
and the :class:`~._fitting.FitPlan` that trains it, so the estimators' ``fit`` has one path.

* ``"direct"``: the direct-assignment family (Hughes 2016) by batch, stochastic or memoized VI;
* ``"two_level"``: the two-level stick-breaking family of Hoffman et al. (2013, §3.3, Fig. 9),
  by batch VI, or by SVI on the lazy component store of :mod:`stickbreak.learn.truncation_free`;
* ``algorithm="truncation_free"``: truncation-free SVI (Wang & Blei 2012); :class:`TruncationFreeTopics`
  is the fitted model's view that the estimator needs (topic weights, document proportions, save/load);
* collapsed inference: LDA's samplers and collapsed VB (Welling et al. 2008), the HDP's
  direct-assignment Gibbs sampler (Teh et al. 2006, §5.3).

Paper presets (:data:`PRESETS`) give each paper's hyperparameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..config import COLLAPSED_ALGORITHMS
from ..core.suffstats import SuffStats
from ..evaluate.topics import infer_doc_topics
from ..kernels.sampling import log_stick_weights
from ..learn.schedules import RobbinsMonro
from ..priors import TOPIC_WEIGHTS
from ..models.sampled import TruncationFreeHDP, TruncationFreeParams
from ..models.topics.collapsed_hdp import CollapsedHDP
from ..models.topics.collapsed_lda import CollapsedLDA
from ..models.topics.model import LocalOptions, TopicModel, TopicParams
from ..models.topics.two_level import TwoLevelHDP
from ._fitting import FitPlan, variational_plan

#: Default ``local_tol`` on ``max_k |Delta N_dk|`` of the direct family: 0.5 for batch and memoized
#: VI, 0.05 for stochastic steps (a minibatch is seen once per lap: on Wikipedia LDA, K=20, 56
#: minibatches, 0.5 left one or three topics empty, -7.867 nats/word held out, where 0.05 kept all 20, -7.856).
BATCH_LOCAL_TOL, STOCHASTIC_LOCAL_TOL = 0.5, 0.05
#: Default ``local_tol`` of the two-level family, on the relative change of the document's ELBO: 1e-4
#: for batch VB (onlinehdp's value); 1e-3 for SVI steps, which scored better held out on 20newsgroups
#: (-8.596 vs -8.711 nats/word after one pass, K=150, T=15; 7.6 vs 19.5 CPU s,
#: benchmarks/svi_hdp_throughput.py) and the same on debian_descriptions (-7.737 vs -7.742, K=300,
#: T=20, 3 passes; 78 vs 120 CPU s, benchmarks/svi_hdp_vs_lda.py).
TWO_LEVEL_LOCAL_TOL, TWO_LEVEL_STOCHASTIC_LOCAL_TOL = 1e-4, 1e-3
VARIATIONAL_FAMILIES = ("direct", "two_level")
#: Two-level SVI never prunes (Hoffman et al. keep the truncation).
NEVER = 2**62

#: Hoffman et al. (2013, §4, §6): tau = 1, kappa = 0.9, S = 500; LDA alpha = 1/K, eta = 0.01; HDP
#: K = 300, T = 20, omega = alpha = 1, eta = 0.01; the footnote-6 start. Wang & Blei (2012, §3): HDP
#: eta = 0.01, a = b = 1, no truncation (batch size is the user's choice; 100 here).
_HOFFMAN_STEP = {"learning_rate_delay": 1.0, "learning_rate_decay": 0.9}
PRESETS = {
    ("LDA", "hoffman2013"): dict(algorithm="svi", topic_word_prior=0.01, batch_size=500, init="exponential",
                                 algorithm_options=_HOFFMAN_STEP),
    ("HDPTopicModel", "hoffman2013"): dict(n_topics=300, variational_family="two_level", concentration=1.0,
                                           doc_topic_prior=1.0, topic_word_prior=0.01, algorithm="svi",
                                           batch_size=500, init="exponential",
                                           algorithm_options={**_HOFFMAN_STEP, "doc_truncation": 20, "n_restarts": 0}),
    # the thesis's HDP (Hughes 2016, §5.6): the defaults chose alpha = 1, eta = 0.05 instead, which score
    # higher held out on AP (where they were chosen), wiki and 20newsgroups (benchmarks/results/defaults.md)
    ("HDPTopicModel", "hughes2016"): dict(concentration=10.0, doc_topic_prior=0.5, topic_word_prior=0.1,
                                          algorithm="memoized", algorithm_options={}),
    ("HDPTopicModel", "wang_blei2012"): dict(algorithm="truncation_free", concentration=1.0, doc_topic_prior=1.0,
                                             topic_word_prior=0.01, batch_size=100,
                                             algorithm_options={"n_restarts": 0}),
}


@dataclass(frozen=True)
class TruncationFreeTopics:
    """A truncation-free HDP fit as the estimator stores it: topics ``lam`` (T, V) and sticks ``u, v``
    in :class:`~stickbreak.models.topics.model.TopicParams` (``weights = {"u", "v"}``)."""

    sampler: TruncationFreeHDP
    obs_prior: dict

    def make_params(self, uids, lam, weights) -> TopicParams:
        return TopicParams(np.asarray(uids), {"lam": np.asarray(lam)}, {k: np.asarray(weights[k]) for k in ("u", "v")})

    def from_sampler(self, params: TruncationFreeParams) -> TopicParams:
        return self.make_params(params.uids, params.lam, {"u": params.u, "v": params.v})

    def topic_weights(self, params: TopicParams) -> np.ndarray:
        """``E[pi_k]`` of the instantiated topics (they sum to less than one: the rest is the tail's)."""
        return np.exp(log_stick_weights(params.weights["u"], params.weights["v"])[0])

    def doc_topic(self, params: TopicParams, data) -> np.ndarray:
        """Document proportions from the topics fixed and the document prior ``b E[pi]``."""
        prior = self.sampler.doc_concentration * self.topic_weights(params)
        return infer_doc_topics(params.topic_word, data.counts, prior=np.maximum(prior, 1e-300))


# ---------------------------------------------------------------------------------------------------- models
def _local_tol(options, stochastic: bool, defaults: tuple[float, float]) -> float:
    return float(options.local_tol if options.local_tol is not None else defaults[stochastic])


def accelerated(settings, stochastic: bool) -> bool:
    """Whether the document fixed point runs SQUAREM: ``local_accelerate`` if given, else LDA's
    batch and memoized steps (not the HDP's, not stochastic steps).

    Measured, SQUAREM (extrapolation floored at half the plain steps' counts) against the plain
    iteration: Wikipedia LDA K=20, 10 passes (``benchmarks/topics.py``): 6.7 M tokens per CPU-second
    against 4.9 M, -7.8421 held out against -7.8457. AP LDA to convergence
    (``benchmarks/squarem_ap.py``): K=20 ELBO 0.004 nats per token lower, held out -7.9774 against
    -7.9788; K=50 ELBO 0.025 higher, -7.9037 against -7.9299. The memoized HDP with moves on AP
    (``make run``) ends 0.022 nats per token lower in ELBO, -7.9138 held out against -7.8857, in the
    same time; Wikipedia SVI LDA scored -7.8636 against -7.8564 (with the unfloored step)."""
    if settings.options.local_accelerate is not None:
        return settings.options.local_accelerate
    return not stochastic and settings.weight_model == "lda"


def direct_model(settings, obs_prior, stochastic: bool) -> TopicModel:
    """The direct-assignment family (LDA, or the HDP with Hughes's surrogate bound)."""
    options = settings.options
    tol = _local_tol(options, stochastic, (BATCH_LOCAL_TOL, STOCHASTIC_LOCAL_TOL))
    local = LocalOptions(options.local_max_iter, tol,
                         options.n_restarts, options.local_start, settings.n_chunks, settings.n_active,
                         accelerate=accelerated(settings, stochastic))
    return TopicModel(obs_prior, TOPIC_WEIGHTS[settings.weight_model], settings.weights_prior, local)


def two_level_model(settings, obs_prior, stochastic: bool) -> TwoLevelHDP:
    """The HDP's two-level stick-breaking family with ``doc_truncation`` atoms per document."""
    options = settings.options
    tol = _local_tol(options, stochastic, (TWO_LEVEL_LOCAL_TOL, TWO_LEVEL_STOCHASTIC_LOCAL_TOL))
    return TwoLevelHDP(obs_prior, settings.concentration, settings.doc_topic_prior, options.doc_truncation,
                       options.local_max_iter, tol, settings.n_chunks)


def sampled_model(settings, obs_prior, stochastic: bool) -> TruncationFreeTopics:
    """The view of an HDP fit without truncation (truncation-free SVI, direct-assignment Gibbs)."""
    sampler = TruncationFreeHDP(settings.topic_word_prior, settings.concentration, settings.doc_topic_prior,
                                settings.options.n_sweeps)
    return TruncationFreeTopics(sampler, obs_prior)


# ---------------------------------------------------------------------------------------------------- fit plans
def variational(settings, model, data, layout, learn_cfg, rng, heldout) -> FitPlan:
    """The model itself by "vb", "stochastic" or "memoized", from ``init``'s topics."""
    moves = learn_cfg.algorithm == "memoized" and bool(settings.moves.moves)
    lam = settings.initial_topics(layout.sample, model, rng, moves)
    params = settings.initial_params(model, lam, layout.batches.n_items, rng)
    return variational_plan(learn_cfg.algorithm, model, layout.source, params, layout.batches.data)


def two_level_svi(settings, model: TwoLevelHDP, data, layout, learn_cfg, rng, heldout) -> FitPlan:
    """SVI for the two-level family (Hoffman et al. 2013, Fig. 9): the same model on the lazy component
    store of :mod:`stickbreak.learn.truncation_free` (its ``Sampled`` side): each step touches only
    its minibatch's word types (the dense ``K x V`` blend and ``E log beta`` of
    :class:`~stickbreak.learn.StochasticVI` cost more than the local step at S = 500). Same updates,
    same ``rho_t = (tau + t)^-kappa`` (no floor, no stick
    reordering); an exact pass over the corpus at the end."""
    _ = model.topic_word_prior  # an asymmetric prior is refused here, before any work
    params = variational(settings, model, data, layout, learn_cfg, rng, heldout).start
    schedule = RobbinsMonro(learn_cfg.learning_rate_delay, learn_cfg.learning_rate_decay)
    return FitPlan("truncation_free", model, layout.source, model.store_params(params),
                   dict(prune_every=NEVER, floor=False, schedule=schedule),
                   as_fitted=lambda p: (model, model.from_store_params(p)),
                   for_callbacks=model.from_store_params, final_pass=layout.batches.data, rescore=True)


def truncation_free(settings, view: TruncationFreeTopics, data, layout, learn_cfg, rng, heldout) -> FitPlan:
    """Truncation-free SVI from no topics over the minibatches."""
    options = settings.options
    return FitPlan("truncation_free", view.sampler, layout.source,
                   learner_options=dict(n_items=options.total_docs, prune_every=options.prune_every),
                   as_fitted=lambda p: (view, view.from_sampler(p)), for_callbacks=view.from_sampler)


def _heldout_attributes(result) -> dict:
    return {"heldout_per_word_": np.array(result.state.heldout_per_word)}


def collapsed_lda(settings, model: TopicModel, data, layout, learn_cfg, rng, heldout) -> FitPlan:
    """Collapsed inference for LDA (:mod:`stickbreak.learn.collapsed`), one sweep per lap; the fit
    is the LDA form of the final counts (topics ``beta + N_wk``), its statistics from one exact
    local step under them."""
    options = settings.options
    alpha = np.full(settings.start_topics, float(model.weights_prior["alpha"]))
    collapsed = CollapsedLDA(alpha, float(settings.topic_word_prior), data.n_features, learn_cfg.algorithm,
                             float(options.sample_threshold))

    def as_lda(p):
        return model, model.initial_params(np.maximum(p.counts[0].T, 0) + collapsed.beta, data.n_items)

    return FitPlan(learn_cfg.algorithm, collapsed, data, learner_options=dict(heldout=heldout, burn_in=options.burn_in),
                   as_fitted=as_lda, final_pass=[data], attributes=_heldout_attributes)


def hdp_gibbs(settings, view: TruncationFreeTopics, data, layout, learn_cfg, rng, heldout) -> FitPlan:
    """The HDP's direct-assignment collapsed Gibbs sampler (:mod:`stickbreak.learn.collapsed_hdp`).
    The fit keeps the used topics, largest first, as ``lam = eta + N_wk`` and sticks ``u_k = m_k``,
    ``v_k = gamma + sum_{l>k} m_l`` from the last table counts (the stick form of ``Dir(m, gamma)``,
    so ``E[pi_k]`` is the posterior mean of ``beta_k`` given the tables). With
    ``concentration_priors`` alpha and gamma are resampled every sweep; their last values are
    ``concentrations_``."""
    sampler, options = view.sampler, settings.options
    model = CollapsedHDP(sampler.doc_concentration, sampler.corpus_concentration, sampler.topic_word_prior,
                         data.n_features, options.concentration_priors)

    def used_tables(p):
        return p.used, p.tables[p.used]

    def as_topics(p):
        used, tables = used_tables(p)
        after = np.cumsum(tables[::-1])[::-1] - tables
        return view, view.make_params(np.arange(len(used)), p.Nwk[:, used].T + model.topic_word_prior,
                                      {"u": tables, "v": p.gamma + after})

    def stats_of(p):
        used, tables = used_tables(p)
        return SuffStats(np.arange(len(used)), {"N": p.Nk[used].copy(), "tables": tables.copy()})

    def attributes(result):
        p = result.params
        concentrations = {"doc_topic_prior": p.alpha, "concentration": p.gamma}
        return {**_heldout_attributes(result), "concentrations_": concentrations}

    return FitPlan("direct_assignment_gibbs", model, data,
                   learner_options=dict(heldout=heldout, burn_in=options.burn_in),
                   as_fitted=as_topics, stats_of=stats_of, attributes=attributes)


# ---------------------------------------------------------------------------------------------------- the tables
@dataclass(frozen=True)
class TopicVariant:
    """One way a topic estimator fits: ``model(settings, obs_prior, stochastic)`` is the model it
    keeps (and saves), ``plan(settings, model, data, layout, learn_cfg, rng, heldout)`` how it
    trains (``settings``: the estimator's :class:`~.topic_settings.TopicSettings`); ``sparse``:
    ``n_active`` (L-sparse local steps) applies; ``streams``: ``partial_fit`` can take stochastic
    steps on the model; ``resumable``: it can write checkpoints (``fit(checkpoint=...)``);
    ``shards``: it fits from a :class:`~stickbreak.data.ShardStore` (out of core);
    ``integer_counts``: it samples tokens, so the
    counts must be whole numbers (the variational fits take any non-negative weights, e.g. tf-idf)."""

    model: Callable
    plan: Callable
    sparse: bool = False
    streams: bool = False
    resumable: bool = False
    shards: bool = False
    integer_counts: bool = False


DIRECT = TopicVariant(direct_model, variational, sparse=True, streams=True, resumable=True, shards=True)
_VARIATIONAL = ("vb", "stochastic", "memoized")
LDA_VARIANTS = {**{(name, "direct"): DIRECT for name in _VARIATIONAL},
                **{(name, "direct"): TopicVariant(direct_model, collapsed_lda,
                                                  integer_counts=True) for name in COLLAPSED_ALGORITHMS}}
HDP_VARIANTS = {**{(name, "direct"): DIRECT for name in _VARIATIONAL},
                ("vb", "two_level"): TopicVariant(two_level_model, variational, streams=True),
                ("stochastic", "two_level"): TopicVariant(two_level_model, two_level_svi, streams=True),
                ("truncation_free", "direct"): TopicVariant(sampled_model, truncation_free, integer_counts=True),
                ("gibbs", "direct"): TopicVariant(sampled_model, hdp_gibbs, integer_counts=True)}
