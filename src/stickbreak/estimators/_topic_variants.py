"""The HDP topic model's other variational families, as seen by the estimator shell.

* ``variational_family="two_level"``: the two-level stick-breaking family of Hoffman et al. (2013,
  §3.3, Fig. 9) (:class:`~stickbreak.models.topics.two_level.TwoLevelHDP`), a model with the four verbs,
  trained by the shared batch or stochastic VI;
* ``algorithm="truncation_free"``: truncation-free SVI (Wang & Blei 2012) on its own component
  store (:mod:`stickbreak.learn.truncation_free`); :class:`TruncationFreeTopics` is the fitted
  model's view that the estimator needs (topic weights, document proportions, save/load).

Paper presets (:data:`PRESETS`) give each paper's hyperparameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from .. import driver
from ..models.topics.model import TopicParams
from ..core.suffstats import SuffStats
from ..evaluate.topics import infer_doc_topics
from ..kernels.sampling import log_stick_weights
from ..config import check_int, check_positive
from ..models.topics.collapsed_lda import CollapsedLDA
from ..learn.collapsed import CollapsedSweeps
from ..models.topics.collapsed_hdp import CollapsedHDP
from ..learn.collapsed_hdp import DirectAssignmentGibbs
from ..learn.schedules import RobbinsMonro
from ..models.topics.two_level_svi import StochasticTwoLevelHDP
from ..models.topics.truncation_free import TruncationFreeHDP
from ..models.sampled import TruncationFreeParams
from ..learn.truncation_free import TruncationFreeSVI
from ..parallel import summarize_batches

#: Hoffman et al. (2013, §4, §6): tau = 1, kappa = 0.9, S = 500; LDA alpha = 1/K, eta = 0.01; HDP
#: K = 300, T = 20, omega = alpha = 1, eta = 0.01; the footnote-6 start. Wang & Blei (2012, §3): HDP
#: eta = 0.01, a = b = 1, no truncation (batch size is the user's choice; 100 here).
PRESETS = {
    ("LDA", "hoffman2013"): dict(algorithm="svi", topic_word_prior=0.01, learning_rate_delay=1.0,
                                 learning_rate_decay=0.9, batch_size=500, init="exponential"),
    ("HDPTopicModel", "hoffman2013"): dict(n_topics=300, variational_family="two_level", doc_truncation=20,
                                           concentration=1.0, doc_topic_prior=1.0, topic_word_prior=0.01,
                                           algorithm="svi", learning_rate_delay=1.0, learning_rate_decay=0.9,
                                           batch_size=500, init="exponential", n_restarts=0),
    ("HDPTopicModel", "wang_blei2012"): dict(algorithm="truncation_free", concentration=1.0, doc_topic_prior=1.0,
                                             topic_word_prior=0.01, batch_size=100, n_restarts=0),
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


def fit_truncation_free(est, plan, learn_cfg, rng, callbacks):
    """Run truncation-free SVI from no topics over ``plan.source``'s minibatches; returns ``(view, params,
    stats, result)`` with ``params`` in the estimator's form."""
    view = est._make_model(plan.n_features)
    sampler = view.sampler
    learner = TruncationFreeSVI(rng, n_items=est.total_docs, prune_every=est.prune_every)
    wrapped = [lambda record, params, cb=cb: cb(record, view.from_sampler(params)) for cb in callbacks]
    result = driver.fit(sampler, plan.source, None, learner, learn_cfg, callbacks=wrapped, verbose=est.verbose,
                        desc=type(est).__name__)
    return view, view.from_sampler(result.params), result.stats, result


def fit_two_level_svi(model, plan, learn_cfg, params, rng, callbacks, verbose: int, desc: str):
    """SVI for the two-level family (Hoffman et al. 2013, Fig. 9) on the lazy component store of
    :mod:`stickbreak.learn.truncation_free`: each step touches only its minibatch's word types (the
    dense ``K x V`` blend and ``E log beta`` of :class:`~stickbreak.learn.StochasticVI` cost more than
    the local step at S = 500). Same updates, same ``rho_t = (tau + t)^-kappa`` (no floor, no stick
    reordering). Returns a :class:`~stickbreak.driver.FitResult` whose params are ``TwoLevelParams``."""
    eta = np.unique(model.obs_prior["lam"])
    if len(eta) != 1:
        raise ValueError("two-level SVI needs a symmetric topic-word prior (one topic_word_prior for every word)")
    n_topics = params.n_components
    sampler = StochasticTwoLevelHDP(float(eta[0]), model.corpus_concentration, model.doc_concentration, n_topics,
                                    model.doc_truncation, model.max_iter, model.tol, model.n_chunks)
    start = TruncationFreeParams(params.uids, params.obs["lam"], np.append(params.weights["a"], 1.0),
                                 np.append(params.weights["b"], model.corpus_concentration), float(eta[0]))
    learner = TruncationFreeSVI(rng, prune_every=2**62, floor=False,
                                schedule=RobbinsMonro(learn_cfg.learning_rate_delay, learn_cfg.learning_rate_decay))

    def as_two_level(p):
        return model.make_params(p.uids, p.lam, {"a": p.u[:-1], "b": p.v[:-1]})

    wrapped = [lambda record, p, cb=cb: cb(record, as_two_level(p)) for cb in callbacks]
    result = driver.fit(sampler, plan.source, start, learner, learn_cfg, callbacks=wrapped, verbose=verbose, desc=desc)
    state = SimpleNamespace(params=as_two_level(result.params), stats=result.stats)
    return driver.FitResult(state, result.trace, result.stop_reason)


def fit_collapsed(est, data, model, learn_cfg, rng, heldout):
    """Collapsed inference for LDA (:mod:`stickbreak.learn.collapsed`), one sweep per lap; returns
    ``(params, stats, result, heldout_trace)`` with ``params`` the LDA form of the final counts
    (topics ``beta + N_wk``) and ``stats`` from one exact local step under them."""

    check_int("burn_in", est.burn_in, 0)
    check_positive("sample_threshold", est.sample_threshold, allow_zero=True)
    alpha = np.full(est.n_topics, float(model.weights_prior["alpha"]))
    collapsed = CollapsedLDA(alpha, float(est._topic_word_prior()), data.n_features, learn_cfg.algorithm,
                             float(est.sample_threshold))
    if heldout is not None:
        heldout = est._as_bow(heldout, empty="keep").counts  # documents without held-out tokens are fine
    learner = CollapsedSweeps(rng, heldout, est.burn_in)
    result = driver.fit(collapsed, data, None, learner, learn_cfg, callbacks=list(est.callbacks or ()),
                        verbose=est.verbose, desc=type(est).__name__)
    lam = np.maximum(result.params.counts[0].T, 0) + collapsed.beta
    params = model.initial_params(lam, data.n_items)
    stats = summarize_batches(model, params, [data])[0]
    return params, stats, result, result.state.heldout_per_word


def _gamma_priors(value) -> tuple:
    """``((shape, rate) of alpha, (shape, rate) of gamma)`` as floats, all positive, or a clear error."""
    try:
        priors = tuple((float(a), float(b)) for a, b in value)
        valid = len(priors) == 2 and min(min(pair) for pair in priors) > 0
    except (TypeError, ValueError):
        valid = False
    if not valid:
        raise ValueError("concentration_priors must be ((shape, rate) of alpha, (shape, rate) of gamma), all "
                         f"positive, e.g. ((1, 1), (1, 0.1)); got {value!r}")
    return priors


def fit_collapsed_hdp(est, data, view: TruncationFreeTopics, learn_cfg, rng, heldout):
    """The HDP's direct-assignment collapsed Gibbs sampler (:mod:`stickbreak.learn.collapsed_hdp`);
    returns ``(params, stats, result, heldout_trace)`` with ``params`` the used topics, largest first,
    as ``lam = eta + N_wk`` and sticks ``u_k = m_k``, ``v_k = gamma + sum_{l>k} m_l`` from the last
    table counts (the stick form of ``Dir(m, gamma)``, so ``E[pi_k]`` is the posterior mean of
    ``beta_k`` given the tables). With ``concentration_priors`` alpha and gamma are resampled every
    sweep; their last values are set as ``est.concentrations_``."""
    check_int("burn_in", est.burn_in, 0)
    priors = None if est.concentration_priors is None else _gamma_priors(est.concentration_priors)
    sampler = view.sampler
    model = CollapsedHDP(sampler.doc_concentration, sampler.corpus_concentration, sampler.topic_word_prior,
                         data.n_features, priors)
    if heldout is not None:
        heldout = est._as_bow(heldout, empty="keep").counts
    learner = DirectAssignmentGibbs(rng, heldout, est.burn_in)
    result = driver.fit(model, data, None, learner, learn_cfg, callbacks=list(est.callbacks or ()),
                        verbose=est.verbose, desc=type(est).__name__)
    p, used = result.params, result.params.used
    tables = p.tables[used]
    after = np.cumsum(tables[::-1])[::-1] - tables
    params = view.make_params(np.arange(len(used)), p.Nwk[:, used].T + model.topic_word_prior,
                              {"u": tables, "v": p.gamma + after})
    est.concentrations_ = {"doc_topic_prior": p.alpha, "concentration": p.gamma}
    stats = SuffStats(params.uids, {"N": p.Nk[used].copy(), "tables": tables.copy()})
    return params, stats, result, result.state.heldout_per_word
