"""A topic estimator's settings as one checked, frozen value (:class:`TopicSettings`): built by the
estimator before any data are read, then read by the model and plan builders of
:mod:`._topic_plans` and by ``fit``, which never call back up to the estimator (issue 46;
``benchmarks/fit_call_paths.py`` counts such calls).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ..config import LearnConfig, MovesConfig, TopicOptions
from ..data import ShardStore
from ..models.topics.init import LEARNED_INIT_METHODS, GibbsStart, initial_topics, start_elbo, with_n_topics
from ..progress import phase
from ._common import check_fit_memory

#: The start of the HDP's inits that do not learn their own number of topics when ``n_topics=None``
#: (and the topics the memory check assumes for a learned start).
DEFAULT_START_TOPICS = 100


@dataclass(frozen=True, kw_only=True)
class TopicSettings:
    """What a topic fit reads of its estimator, checked: ``variant`` (how it fits, from
    :mod:`._topic_plans`), the validated ``options`` and ``moves``, the document-weight model and
    prior, the topic-word prior, the topics it starts from (``start_topics``; 0: a learned start from
    none) and how (``init``, ``gibbs``), the local step's ``n_active`` and ``n_chunks``, and the
    loop's laps and batches. ``concentration`` and ``doc_topic_prior`` are the HDP's values (the
    two-level and sampled families read them); DILN's are ``model_prior`` (its
    :class:`~stickbreak.models.diln.model.DILNPrior`), ``correlated`` and ``initial_beta``.
    ``minibatches``: whether ``fit``'s learner steps on minibatches (its model then has the
    stochastic local tolerance)."""

    owner: str
    variant: Any
    options: TopicOptions
    moves: MovesConfig
    weight_model: str
    weights_prior: dict
    topic_word_prior: float
    start_topics: int
    init: str
    gibbs: GibbsStart | None
    n_active: int | None
    n_chunks: int
    algorithm: str
    max_laps: int
    min_laps: int
    tol: float
    n_batches: int
    batch_size: int | None
    minibatches: bool
    verbose: int = 0
    concentration: float | None = None
    doc_topic_prior: float | None = None
    model_prior: Any = None
    correlated: bool = True
    initial_beta: float | None = None

    def learn_config(self, n_docs: int | None = None) -> LearnConfig:
        """The loop's settings; with ``batch_size`` the minibatches per lap are ``ceil(n_docs / batch_size)``."""
        n_batches = self.n_batches
        if self.batch_size is not None:
            n_batches = max(1, -(-int(n_docs or 1) // int(self.batch_size)))
        options = self.options
        return LearnConfig(algorithm=self.algorithm, max_laps=self.max_laps, min_laps=self.min_laps, tol=self.tol,
                           n_batches=n_batches, n_jobs=1, learning_rate_delay=options.learning_rate_delay,
                           learning_rate_decay=options.learning_rate_decay, sampling=options.sampling)

    def model(self, n_words: int = 0, obs_prior=None, stochastic: bool | None = None):
        """The model the estimator keeps (topic-word prior over ``n_words`` words unless ``obs_prior`` is
        given); ``stochastic`` (default: whether the learner steps on minibatches) selects the local
        step's tolerance."""
        if stochastic is None:
            stochastic = self.minibatches
        if obs_prior is None:
            obs_prior = {"lam": np.full(n_words, float(self.topic_word_prior))}
        return self.variant.model(self, obs_prior, stochastic)

    def check_memory(self, data, learn_cfg: LearnConfig) -> None:
        """K x V arrays: the topics, their expectations, the kernels' likelihood copies and statistics
        (and memoized VI's cached statistics per batch); K per document for the local steps; the
        token samplers' per-token assignments and word ids (a count of 1e10 is 1e10 tokens), and a
        learned start's sampler (:meth:`GibbsStart.memory_floats`)."""
        n_topics, n_words, n_docs = self.start_topics or DEFAULT_START_TOPICS, data.n_features, data.n_items
        caches = learn_cfg.n_batches if learn_cfg.algorithm == "memoized" else 0
        # the corpus's tokens (a shard store's are not read here: its sampler is capped by init_tokens)
        total = float("inf") if isinstance(data, ShardStore) else float(data.counts.sum())
        tokens = total if self.variant.integer_counts else 0.0  # (the samplers refuse shards before this)
        gibbs = self.gibbs if self.init in LEARNED_INIT_METHODS else None
        start = 0.0 if gibbs is None else gibbs.memory_floats(self.start_topics, n_docs, total)
        check_fit_memory(self.owner, n_topics * (n_words * (6 + caches) + 2 * n_docs) + 4 * tokens + start,
                         f"lower n_topics (now {n_topics}), the vocabulary (now {n_words} words)"
                         + (f" or n_batches (now {learn_cfg.n_batches})" if caches else "")
                         + (f"; the sampler holds every one of the {tokens:.3g} tokens" if tokens else "") + ".")

    def initial_topics(self, data, model, rng: np.random.Generator, moves: bool) -> np.ndarray:
        """The first topics ``lam`` by ``init``. A learned start keeps the number of topics it found
        where moves go on learning K (memoized VI with moves) or where ``n_topics`` is None; elsewhere
        ``n_topics`` is the truncation, so it keeps that many (:func:`with_n_topics`)."""
        prior_lam, gibbs = model.obs_prior["lam"], self.gibbs
        learned = self.init in LEARNED_INIT_METHODS and gibbs is not None  # (else initial_topics says why not)
        with phase(self.verbose, f"{self.owner}: learned start, the best chain of the HDP's collapsed Gibbs "
                                 f"sampler, {gibbs.n_sweeps} sweeps") if learned else nullcontext():
            lam = initial_topics(data, prior_lam, self.start_topics, self.init, rng, gibbs=gibbs,
                                 judge=partial(start_elbo, model))
        if learned and self.start_topics and not moves:
            lam = with_n_topics(lam, self.start_topics, prior_lam, rng)
        return lam

    def initial_params(self, model, lam: np.ndarray, n_docs: int, rng: np.random.Generator):
        """The first global parameters around the initial topics ``lam`` (DILN also draws its
        locations, from ``model_prior``'s initial ``beta``)."""
        if self.initial_beta is not None:
            return model.initial_params(lam, rng, self.initial_beta)
        return model.initial_params(lam, n_docs)
