"""The HDP topic model's other variational families, as seen by the estimator shell.

* ``variational_family="two_level"``: the two-level stick-breaking family of Hoffman et al. (2013,
  §3.3, Fig. 9) (:class:`~stickbreak.alloc.hdp_sticks.TwoLevelHDP`), a model with the four verbs,
  trained by the shared batch or stochastic VI;
* ``algorithm="truncation_free"``: truncation-free SVI (Wang & Blei 2012) on its own component
  store (:mod:`stickbreak.learn.truncation_free`); :class:`TruncationFreeTopics` is the fitted
  model's view that the estimator needs (topic weights, document proportions, save/load).

Paper presets (:data:`PRESETS`) give each paper's hyperparameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import driver
from ..alloc import TopicParams
from ..evaluate.topics import infer_doc_topics
from ..kernels.collapsed_local import log_stick_weights
from ..learn.truncation_free import TruncationFreeParams, TruncationFreeSVI

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
    in :class:`~stickbreak.alloc.TopicParams` (``weights = {"u", "v"}``)."""

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
