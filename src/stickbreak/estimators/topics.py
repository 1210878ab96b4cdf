"""scikit-learn style topic models: :class:`LDA` and :class:`HDPTopicModel` (thin shells).

>>> from stickbreak import HDPTopicModel, datasets
>>> corpus = datasets.load("ap")
>>> model = HDPTopicModel(n_topics=50, random_state=0).fit(corpus.X, vocabulary=corpus.vocabulary)
>>> model.n_topics_, model.top_words(5)[0]
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager

import numba
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .. import driver, persist
from ..models import TOPIC_WEIGHT_MODELS
from ..models.topics.model import LocalOptions, TopicModel, TopicParams
from ..models.topics.two_level import TwoLevelHDP
from ..config import (ALGORITHM_ALIASES, COLLAPSED_ALGORITHMS, LearnConfig, MovesConfig, check_choice, check_int, check_positive, moves_config)
from ..core.protocols import total_elbo
from ..core.suffstats import SuffStats
from ..data import BagOfWords, ShardStore
from ..data.text_io import as_bag_of_words
from ..evaluate.topics import document_completion
from ..learn import StochasticVI, make_learner
from ..models.topics.init import initial_topics
from ..learn.schedules import RobbinsMonro
from ..obs import mult
from ..parallel import summarize_batches
from ._common import SavableMixin, as_generator, check_n_features, prepare_data
from ..models.topics.truncation_free import TruncationFreeHDP
from ._topic_variants import (PRESETS, TruncationFreeTopics, fit_collapsed, fit_collapsed_hdp, fit_truncation_free, fit_two_level_svi)

#: Default ``local_tol`` on ``max_k |Delta N_dk|`` (see ``_TopicEstimator._local_tol``).
BATCH_LOCAL_TOL, STOCHASTIC_LOCAL_TOL = 0.5, 0.05
#: Default ``local_tol`` of the two-level family, on the relative change of the document's ELBO: 1e-4
#: for batch VB (onlinehdp's value); 1e-3 for SVI steps, which scored better held out on 20newsgroups
#: (-8.596 vs -8.711 nats/word after one pass, K=150, T=15; 7.6 vs 19.5 CPU s,
#: benchmarks/svi_hdp_throughput.py) and the same on debian_descriptions (-7.737 vs -7.742, K=300,
#: T=20, 3 passes; 78 vs 120 CPU s, benchmarks/svi_hdp_vs_lda.py).
TWO_LEVEL_LOCAL_TOL, TWO_LEVEL_STOCHASTIC_LOCAL_TOL = 1e-4, 1e-3
VARIATIONAL_FAMILIES = ("direct", "two_level")


@contextmanager
def numba_threads(n_jobs: int):
    """Run numba's parallel kernels on ``n_jobs`` threads (-1: all cores) inside the block."""
    available = numba.config.NUMBA_NUM_THREADS
    wanted = available if n_jobs == -1 else max(1, min(int(n_jobs), available))
    old = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(old)


class _TopicEstimator(SavableMixin, TransformerMixin, BaseEstimator):
    """Shared shell of :class:`LDA` and :class:`HDPTopicModel`; subclasses set ``_weight_model``."""

    _weight_model = "lda"

    # ------------------------------------------------------------------ configuration
    def _learn_config(self, n_docs: int | None = None) -> LearnConfig:
        """The loop's settings; with ``batch_size`` the minibatches per lap are ``ceil(n_docs / batch_size)``."""
        n_batches = self.n_batches
        if getattr(self, "batch_size", None) is not None:
            check_int("batch_size", self.batch_size, 1)
            n_batches = max(1, -(-int(n_docs or 1) // int(self.batch_size)))
        return LearnConfig(algorithm=self.algorithm, max_laps=self.max_laps, min_laps=self.min_laps, tol=self.tol,
                           n_batches=n_batches, n_jobs=1, learning_rate_delay=self.learning_rate_delay,
                           learning_rate_decay=self.learning_rate_decay, sampling=self.sampling)

    @classmethod
    def paper_preset(cls, name: str, **overrides):
        """An estimator with a seed paper's settings: ``"hoffman2013"`` (SVI; LDA and the two-level HDP)
        or ``"wang_blei2012"`` (truncation-free SVI, HDP); ``overrides`` are constructor arguments."""
        presets = {key[1]: value for key, value in PRESETS.items() if key[0] == cls.__name__}
        if name not in presets:
            raise ValueError(f"{cls.__name__} has no preset {name!r}; choose one of {sorted(presets)}")
        settings = dict(presets[name])
        if cls.__name__ == "LDA":
            settings["doc_topic_prior"] = 1.0 / overrides.get("n_topics", cls().n_topics)
        return cls(**{**settings, **overrides})

    @property
    def _algorithm(self) -> str:
        return ALGORITHM_ALIASES.get(self.algorithm, self.algorithm)

    @property
    def _hdp_gibbs(self) -> bool:
        """The HDP's direct-assignment collapsed Gibbs sampler (stored like a truncation-free fit)."""
        return self._weight_model == "hdp" and self._algorithm == "gibbs"

    @property
    def _two_level(self) -> bool:
        family = getattr(self, "variational_family", "direct")
        check_choice("variational_family", family, VARIATIONAL_FAMILIES)
        return family == "two_level"

    #: Moves this estimator supports (Hughes 2016, §5.5); births for topics are not implemented.
    _move_kinds: tuple = ()
    #: This estimator's defaults for :class:`~stickbreak.config.MovesConfig` fields.
    _move_defaults: dict = {}

    def _moves_config(self) -> MovesConfig:
        return moves_config(getattr(self, "moves", None), getattr(self, "move_options", None), self._move_kinds,
                            type(self).__name__, self._move_defaults)

    def _local_tol(self, stochastic: bool) -> float:
        """``local_tol``, by default 0.5 for batch and memoized VI and 0.05 for stochastic steps: a
        minibatch is seen once per lap, and on Wikipedia LDA (K=20, 56 minibatches) 0.5 left one or
        three topics empty (-7.867 nats/word held out) where 0.05 kept all 20 (-7.856)."""
        if self.local_tol is not None:
            return self.local_tol
        if self._two_level:
            return TWO_LEVEL_STOCHASTIC_LOCAL_TOL if stochastic else TWO_LEVEL_LOCAL_TOL
        return STOCHASTIC_LOCAL_TOL if stochastic else BATCH_LOCAL_TOL

    def _make_model(self, n_words: int, obs_prior=None, stochastic: bool = False) -> TopicModel:
        check_int("n_topics", self.n_topics, 1)
        check_positive("topic_word_prior", self._topic_word_prior())
        if not (self.n_jobs == -1 or (isinstance(self.n_jobs, (int, np.integer)) and self.n_jobs >= 1)):
            raise ValueError(f"n_jobs must be a positive integer or -1, got {self.n_jobs!r}")
        check_int("local_max_iter", self.local_max_iter, 1)
        local_tol = self._local_tol(stochastic or self._algorithm == "stochastic")
        check_positive("local_tol", local_tol)
        check_int("n_restarts", self.n_restarts, 0)
        n_active = self._n_active()
        weights = TOPIC_WEIGHT_MODELS[self._weight_model]
        chunks = numba.config.NUMBA_NUM_THREADS if self.n_jobs == -1 else int(self.n_jobs)
        if obs_prior is None:
            obs_prior = {"lam": np.full(n_words, float(self._topic_word_prior()))}
        if self._algorithm == "truncation_free" or self._hdp_gibbs:
            check_int("n_sweeps", self.n_sweeps, 0)
            sampler = TruncationFreeHDP(self._topic_word_prior(), self.concentration, self.doc_topic_prior, self.n_sweeps)
            return TruncationFreeTopics(sampler, obs_prior)
        if self._two_level:
            check_int("doc_truncation", self.doc_truncation, 1)
            return TwoLevelHDP(obs_prior, self.concentration, self.doc_topic_prior, self.doc_truncation,
                               self.local_max_iter, float(local_tol), chunks)
        local = LocalOptions(self.local_max_iter, float(local_tol), self.n_restarts, self.local_start, chunks, n_active)
        return TopicModel(obs_prior, weights, self._weights_prior(), local)

    def _topic_word_prior(self) -> float:
        return self.topic_word_prior

    def _n_active(self) -> int | None:
        """``n_active`` validated: a positive integer for the variational direct-assignment step, or None."""
        n_active = getattr(self, "n_active", None)
        if n_active is None:
            return None
        if isinstance(n_active, bool) or not isinstance(n_active, (int, np.integer)) or n_active < 1:
            raise ValueError(f"n_active must be a positive integer (topics per word type) or None, got {n_active!r}")
        if self._algorithm not in ("vb", "stochastic", "memoized") or self._two_level:
            raise ValueError(f"n_active (L-sparse local steps) applies to algorithm 'vb', 'svi' or 'memoized' with "
                             f"the direct variational family, not {self.algorithm!r}; drop n_active or change algorithm")
        return int(n_active)

    def _initial_params(self, model, lam: np.ndarray, n_docs: int, rng: np.random.Generator):
        """The first global parameters around the initial topics ``lam`` (subclasses may draw more)."""
        return model.initial_params(lam, n_docs)

    def _as_bow(self, X, vocabulary=None, empty: str = "error") -> BagOfWords:
        if isinstance(X, ShardStore):  # validated when written
            return X
        return as_bag_of_words(X, vocabulary, empty=empty)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None, vocabulary=None, heldout=None):
        """Fit to a document-word count matrix (scipy sparse, dense, :class:`~stickbreak.data.BagOfWords`,
        a gensim-style corpus or a :class:`~stickbreak.data.ShardStore`); returns ``self``.

        ``vocabulary`` (a list of words, a fitted ``CountVectorizer`` or a gensim ``Dictionary``)
        names the columns for :meth:`top_words`; a BagOfWords may carry its own. ``heldout``
        (collapsed algorithms only): held-out token counts of the same documents, scored after every
        sweep into ``heldout_per_word_`` (Welling et al. 2008, §7, Eqs. 30-31).
        """
        data = self._as_bow(X, vocabulary)
        learn_cfg = self._learn_config(data.n_items)
        rng = as_generator(self.random_state)
        model = self._make_model(data.n_features)
        plan = prepare_data(data, mult, learn_cfg, rng)
        if learn_cfg.algorithm == "truncation_free":
            return self._fit_truncation_free(data, plan, learn_cfg, rng)
        if learn_cfg.algorithm in COLLAPSED_ALGORITHMS:
            return self._fit_collapsed(data, model, learn_cfg, rng, heldout)
        if heldout is not None:
            raise ValueError(f"heldout is scored during collapsed inference only; algorithm={self.algorithm!r} "
                             "fits without it (score held-out documents afterwards with score())")
        lam = initial_topics(plan.sample, model.obs_prior["lam"], self.n_topics, self.init, rng)
        params = self._initial_params(model, lam, plan.batches.n_items, rng)
        learner = make_learner(learn_cfg, self._moves_config(), rng)
        callbacks = list(self.callbacks or ())
        with numba_threads(self.n_jobs):
            if isinstance(model, TwoLevelHDP) and learn_cfg.algorithm == "stochastic":
                result = fit_two_level_svi(model, plan, learn_cfg, params, rng, callbacks, self.verbose,
                                           type(self).__name__)
            else:
                result = driver.fit(model, plan.source, params, learner, learn_cfg, callbacks=callbacks,
                                    verbose=self.verbose, desc=type(self).__name__)
            stats = result.stats
            if learn_cfg.algorithm == "stochastic":  # the trace holds estimates: finish with one exact pass
                stats = summarize_batches(model, result.params, plan.batches.data)[0]
        if result.stop_reason == "max_laps" and learn_cfg.algorithm != "stochastic" and learn_cfg.tol > 0:
            warnings.warn(f"{type(self).__name__} did not converge in {learn_cfg.max_laps} laps (relative ELBO "
                          f"change above tol={learn_cfg.tol}); raise max_laps or tol.", ConvergenceWarning, stacklevel=2)
        self.n_features_in_ = plan.n_features
        self.vocabulary_ = getattr(data, "vocabulary", None)
        self._set_fitted(model, result.params, stats, [r.as_dict() for r in result.trace], result.stop_reason)
        if learn_cfg.algorithm == "stochastic":
            self.lower_bound_ = total_elbo(model.elbo_terms(result.params, stats))
        return self

    def _fit_collapsed(self, data, model, learn_cfg, rng, heldout):
        if self._weight_model != "lda" and not self._hdp_gibbs:
            raise ValueError(f"algorithm={self.algorithm!r} is collapsed inference for LDA; for the HDP choose 'gibbs' "
                             "(direct-assignment collapsed Gibbs) or one of 'vb', 'svi', 'memoized', 'truncation_free'")
        if self._hdp_gibbs and self._two_level:
            raise ValueError("algorithm='gibbs' samples the HDP itself, not a variational family; use "
                             "variational_family='direct'")
        with numba_threads(self.n_jobs):
            fit = fit_collapsed_hdp if self._hdp_gibbs else fit_collapsed
            params, stats, result, heldout_trace = fit(self, data, model, learn_cfg, rng, heldout)
        self.n_features_in_ = data.n_features
        self.vocabulary_ = getattr(data, "vocabulary", None)
        self._set_fitted(model, params, stats, [r.as_dict() for r in result.trace], result.stop_reason)
        self.heldout_per_word_ = np.array(heldout_trace)
        return self

    def _fit_truncation_free(self, data, plan, learn_cfg, rng):
        if self._weight_model != "hdp" or self._two_level:
            raise ValueError("algorithm='truncation_free' is for HDPTopicModel with variational_family='direct' "
                             "(it keeps no truncation at all)")
        check_int("prune_every", self.prune_every, 1)
        with numba_threads(self.n_jobs):
            view, params, stats, result = fit_truncation_free(self, plan, learn_cfg, rng, self.callbacks or ())
        self.n_features_in_ = plan.n_features
        self.vocabulary_ = getattr(data, "vocabulary", None)
        self._set_fitted(view, params, stats, [r.as_dict() for r in result.trace], result.stop_reason)
        return self

    def partial_fit(self, X, y=None, vocabulary=None):
        """One stochastic step on the documents ``X`` (streaming; Hoffman et al. 2013, Alg. 2).

        The step size is ``(learning_rate_delay + t)^-learning_rate_decay`` at the t-th call; the
        batch's statistics are scaled to ``total_docs`` documents, or to the number seen so far
        when ``total_docs`` is None. The first call fixes the vocabulary size.
        """
        data = self._as_bow(X, vocabulary)
        if self._algorithm == "truncation_free":
            raise ValueError("partial_fit runs stochastic VI steps; for truncation-free SVI call fit (with total_docs "
                             "for a stream's assumed size)")
        if not hasattr(self, "params_"):
            learn_cfg = self._learn_config()
            rng = as_generator(self.random_state)
            self._stream = {"rng": rng, "step": 0, "seen": 0, "schedule": RobbinsMonro(
                learn_cfg.learning_rate_delay, learn_cfg.learning_rate_decay)}
            model = self._make_model(data.n_features, stochastic=True)
            lam = initial_topics(data, model.obs_prior["lam"], self.n_topics, self.init, rng)
            total = self.total_docs or data.n_items
            params = self._initial_params(model, lam, total, rng)
            self.n_features_in_, self.vocabulary_ = data.n_features, data.vocabulary
            self.trace_, self.model_, self.params_ = [], model, params
        check_n_features(self, data.n_features)
        stream = self._stream
        stream["step"] += 1
        stream["seen"] += data.n_items
        total = self.total_docs or stream["seen"]
        learner = StochasticVI(stream["schedule"], stream["rng"])
        with numba_threads(self.n_jobs):
            params, stats, estimate = learner.step(self.model_, self.params_, data, total, stream["step"])
        record = {"lap": stream["step"], "elbo": total_elbo(estimate), "terms": estimate, "exact": False}
        self._set_fitted(self.model_, params, stats, self.trace_ + [record], "partial_fit")
        return self

    def _set_fitted(self, model: TopicModel, params: TopicParams, stats: SuffStats, trace, stop_reason: str):
        self.model_, self.params_, self.stats_ = model, params, stats
        self.trace_, self.stop_reason_ = trace, stop_reason
        self.converged_ = stop_reason == "converged"
        self.n_iter_ = len(trace)
        self.lower_bound_ = trace[-1]["elbo"] if trace else float("nan")
        self.elbo_trace_ = np.array([r["elbo"] for r in trace])
        self.components_ = params.obs["lam"]
        self.topic_word_ = params.topic_word
        self.topic_sizes_ = stats.counts.copy()
        self.topic_weights_ = model.topic_weights(params)
        self.n_topics_ = int(np.sum(stats.counts >= driver.EFFECTIVE_COUNT))

    # ------------------------------------------------------------------ using the model
    def _validated(self, X) -> BagOfWords:
        check_is_fitted(self, "params_")
        data = self._as_bow(X, empty="keep")  # an empty document gets the prior's proportions
        check_n_features(self, data.n_features)
        return data

    def transform(self, X) -> np.ndarray:
        """Normalised document-topic proportions ``E[pi_d]`` over the K topics, shape (D, K)."""
        data = self._validated(X)
        with numba_threads(self.n_jobs):
            if isinstance(self.model_, TruncationFreeTopics):
                return self.model_.doc_topic(self.params_, data)
            if isinstance(self.model_, TwoLevelHDP):  # E theta_d = sum_i E sigma_i(pi_d) zeta_di (Hoffman et al. §4)
                theta = self.model_.expected_doc_topic(self.params_, data)
                return theta / np.maximum(theta.sum(axis=1, keepdims=True), 1e-300)
            local = self.model_.local_step(self.params_, data)
        theta = local.doc_topic + local.prior[None, :]
        return theta / theta.sum(axis=1, keepdims=True)

    def doc_topic_posterior(self, X) -> tuple[np.ndarray, np.ndarray]:
        """``(shape, rate)`` (D, K) of each document's topic weights fitted to ``X`` with the topics
        fixed, as independent Gammas whose normalisation gives the proportions: ``q(pi_d) = Dir(N_d +
        a)`` is ``shape = N_d + a``, ``rate = 1`` (the HDP's leftover mass ``a_>K`` is left out). The
        input of :func:`stickbreak.evaluate.model_completion` (Paisley et al. 2012, Eq. 40)."""
        data = self._validated(X)
        if isinstance(self.model_, (TruncationFreeTopics, TwoLevelHDP)):
            raise ValueError("doc_topic_posterior needs the direct-assignment family (variational_family='direct', "
                             "not truncation_free or gibbs): the other fits keep no Dirichlet posterior per document")
        with numba_threads(self.n_jobs):
            local = self.model_.local_step(self.params_, data)
        shape = local.doc_topic + local.prior[None, :]
        return shape, np.ones_like(shape)

    def score(self, X, y=None) -> float:
        """Held-out log-likelihood per word (nats) by document completion: each document's tokens
        are split at random in half (seed 0); the first half estimates its topic proportions, the
        second is scored (:func:`stickbreak.evaluate.document_completion`). Higher is better."""
        data = self._validated(X)
        return float(document_completion(self, data.counts, mode="tokens", seed=0).per_word)

    def perplexity(self, X) -> float:
        """``exp(-score(X))``: held-out perplexity per word."""
        return float(np.exp(-self.score(X)))

    def top_words(self, n: int = 10, min_size: float = driver.EFFECTIVE_COUNT) -> list[dict]:
        """The used topics, largest first: ``{"topic", "size" (tokens), "words": [(word, prob), ...]}``.

        Words are vocabulary strings when the vocabulary is known, else column indices.
        """
        check_is_fitted(self, "params_")
        vocab = self.vocabulary_
        out = []
        for k in np.argsort(-self.topic_sizes_, kind="stable"):
            if self.topic_sizes_[k] < min_size:
                continue
            ids = np.argsort(-self.topic_word_[k], kind="stable")[:n]
            words = [(vocab[i] if vocab is not None else int(i), float(self.topic_word_[k, i])) for i in ids]
            out.append({"topic": int(k), "size": float(self.topic_sizes_[k]), "words": words})
        return out

    # ------------------------------------------------------------------ persistence
    def save(self, path):
        """Save the fitted model to ``path`` (.npz with JSON metadata; no pickle). Returns the path."""
        check_is_fitted(self, "params_")
        params = self._saved_params()
        arrays = {
            **persist.prefixed("obs_prior.", self.model_.obs_prior),
            **persist.prefixed("obs.", self.params_.obs),
            **persist.prefixed("weights.", self.params_.weights),
            "uids": self.params_.uids,
            **self.stats_.to_arrays("stats."),
        }
        if self.vocabulary_ is not None:
            arrays["vocabulary"] = np.array(self.vocabulary_, dtype=str)
        extra = {"trace": self.trace_, "stop_reason": self.stop_reason_, "n_features_in": self.n_features_in_}
        return persist.save_model(path, type(self).__name__, params, arrays, extra)

    @classmethod
    def _from_saved(cls, meta, arrays):
        est = cls(**meta["params"])
        model = est._make_model(0, obs_prior=persist.nested_arrays(arrays, "obs_prior."))
        params = model.make_params(arrays["uids"], persist.nested_arrays(arrays, "obs.")["lam"],
                                   persist.nested_arrays(arrays, "weights."))
        extra = meta["extra"]
        est.n_features_in_ = int(extra["n_features_in"])
        est.vocabulary_ = tuple(arrays["vocabulary"].tolist()) if "vocabulary" in arrays else None
        est._set_fitted(model, params, SuffStats.from_arrays(arrays, "stats."), extra["trace"], extra["stop_reason"])
        return est

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.non_deterministic = False
        return tags


_COMMON_DOC = """
    algorithm : {"vb", "svi" (alias "stochastic"), "memoized", "truncation_free"}
        Full-batch coordinate ascent, stochastic VI (Hoffman et al. 2013), memoized VI (Hughes 2016,
        Alg. 5.5) or, for the HDP only, truncation-free SVI (Wang & Blei 2012: starts from no topics,
        creates them in a sampled, locally collapsed local step; ``n_topics`` is then unused).
    n_batches, batch_size : int
        Batches (memoized) or minibatches per lap (stochastic); ``batch_size`` (documents per
        minibatch, S) overrides ``n_batches`` with ``ceil(n_docs / batch_size)``.
    init : {"random", "documents", "exponential", "kmeans_l1"}
        Nearly uniform random topics (scikit-learn's start), topics from random documents, the SVI
        paper's ``eta + Exponential(100 D / (K V))`` (Hoffman et al. 2013, footnote 6), or the DILN
        paper's k-means with the L1 distance (Paisley et al. 2012, §5.2).
    max_laps, min_laps, tol
        Stop when the relative ELBO change falls below ``tol`` (after ``min_laps``) or after ``max_laps``.
    learning_rate_delay, learning_rate_decay, sampling
        Stochastic VI: step ``(delay + t)^-decay`` (tau, kappa), minibatch sampling.
    local_max_iter, local_tol, n_restarts, local_start
        The per-document fixed point: iterations cap, tolerance on ``max_k |Delta N_dk|`` (default
        0.5 for "vb" and "memoized", 0.05 for "stochastic" and ``partial_fit``), sparse
        restart proposals per document (Alg. 5.2) and where it starts (``"scratch"``, ``"warm"``
        or ``"best"``; see :class:`stickbreak.models.topics.model.LocalOptions`; warm and best make batch and
        memoized VI provably monotone).
    n_active : int, optional
        L-sparse local steps (Hughes 2016, Ch. 7): at most this many topics per word type of a
        document get a non-zero responsibility, which makes large ``n_topics`` affordable; the
        moves stay exact within that family. None (default) is dense.
    n_jobs : int
        Threads for the local step (-1: all cores).
    total_docs : int, optional
        ``partial_fit`` only: corpus size the streamed batches stand for.
    random_state, verbose, callbacks
        Seed; 1 shows a progress bar; ``callback(lap_record, params)`` after every lap (``params.topic_word``
        holds the current topics), returning True stops the fit.

    Attributes
    ----------
    topic_word_ : (n_topics, V) posterior-mean word probabilities of every topic.
    components_ : (n_topics, V) Dirichlet parameters ``lam`` (scikit-learn's name).
    topic_sizes_ : (n_topics,) expected training tokens per topic.
    n_topics_ : topics actually used (at least one expected token).
    topic_weights_ : corpus-level topic probabilities (HDP ``E[pi^G]``; LDA uniform).
    vocabulary_ : the words, when known.
    lower_bound_, elbo_trace_, trace_, n_iter_, converged_, stop_reason_ : as for :class:`DPMixture`.
"""


@persist.register
class LDA(_TopicEstimator):
    __doc__ = """Latent Dirichlet allocation by variational inference (Blei et al. 2003; Hoffman et al. 2013).

    Parameters
    ----------
    n_topics : int
    doc_topic_prior : float, optional
        Per-topic Dirichlet parameter alpha of the document proportions (default 1 / n_topics).
    topic_word_prior : float, optional
        Dirichlet pseudo-count of every word in every topic (default 1 / n_topics).
    algorithm : also "gibbs", "svb", "cvb", "cvb0", "hybrid_vb_gibbs", "hybrid_cvb_gibbs"
        Collapsed inference on unique (document, word) pairs (Welling, Teh & Kappen 2008), one sweep
        per lap (``max_laps`` sweeps, ``tol=0`` to run them all): collapsed Gibbs, standard VB per
        pair, collapsed VB (second order), CVB0, and the hybrids that sample the tokens of pairs with
        count ``<= sample_threshold`` (r, default 1) and treat the rest by SVB or CVB. ``fit(X,
        heldout=H)`` scores held-out tokens of the same documents after every sweep
        (``heldout_per_word_``; samplers average the predictive after ``burn_in`` sweeps, Eq. 31).
    """ + _COMMON_DOC

    _weight_model = "lda"

    def __init__(self, n_topics=10, *, doc_topic_prior=None, topic_word_prior=None, algorithm="vb", n_batches=1,
                 batch_size=None, init="random", max_laps=100, min_laps=2, tol=1e-4, learning_rate_delay=10.0,
                 learning_rate_decay=0.7, sampling="without_replacement", local_max_iter=100, local_tol=None,
                 n_restarts=0, local_start="scratch", n_active=None, n_jobs=1, total_docs=None, random_state=None,
                 verbose=0, callbacks=None, sample_threshold=1, burn_in=10):
        self.n_topics, self.doc_topic_prior, self.topic_word_prior = n_topics, doc_topic_prior, topic_word_prior
        self.sample_threshold, self.burn_in = sample_threshold, burn_in
        self.algorithm, self.n_batches, self.batch_size, self.init = algorithm, n_batches, batch_size, init
        self.max_laps, self.min_laps, self.tol = max_laps, min_laps, tol
        self.learning_rate_delay, self.learning_rate_decay, self.sampling = learning_rate_delay, learning_rate_decay, sampling
        self.local_max_iter, self.local_tol, self.n_restarts, self.local_start = local_max_iter, local_tol, n_restarts, local_start
        self.n_active = n_active
        self.n_jobs, self.total_docs, self.random_state, self.verbose, self.callbacks = n_jobs, total_docs, random_state, verbose, callbacks

    def _topic_word_prior(self) -> float:
        return 1.0 / self.n_topics if self.topic_word_prior is None else self.topic_word_prior

    def _weights_prior(self) -> dict:
        alpha = 1.0 / self.n_topics if self.doc_topic_prior is None else self.doc_topic_prior
        return TOPIC_WEIGHT_MODELS["lda"].default_prior(alpha)


@persist.register
class HDPTopicModel(_TopicEstimator):
    __doc__ = """The HDP topic model of Hughes (2016, Ch. 5): the number of topics is learned.

    Direct-assignment truncation on ``q(z)`` only, a full Beta posterior on every top-level stick
    with the surrogate bound (Eq. 5.18-5.29), the sticks' means optimised by L-BFGS.

    Parameters
    ----------
    n_topics : int
        Truncation level K: an upper bound; topics the data do not need stay (nearly) empty.
    concentration : float
        Top-level stick concentration gamma (``u_k ~ Beta(1, gamma)``); larger favours more topics.
    doc_topic_prior : float
        Document concentration alpha of ``pi_d ~ Dir(alpha pi^G)``.
    topic_word_prior : float
        Dirichlet pseudo-count of every word in every topic (thesis: 0.1).
    moves : sequence of {"birth", "merge", "delete"}, optional
        Memoized VI only: split topics into new ones (births, from the documents that use them),
        merge pairs of topics and delete small ones, each accepted only when the exact whole-data
        ELBO rises (Hughes 2016, §5.5.1-5.5.3), so K adapts to what the data need.
    move_options : dict, optional
        Fields of :class:`stickbreak.config.MovesConfig`, e.g. ``{"merge_max_pairs": 50}``.
    variational_family : {"direct", "two_level"}
        ``"direct"``: Hughes's direct assignment above. ``"two_level"``: the two-level stick-breaking
        family of Hoffman et al. (2013, §3.3; Wang et al. 2011) with ``doc_truncation`` atoms per
        document pointing to the ``n_topics`` corpus topics (``concentration`` = omega,
        ``doc_topic_prior`` = alpha); algorithms "vb" and "svi"; ``local_tol`` is then the relative
        change of the document's ELBO (default 1e-4 for "vb", 1e-3 for "svi").
    n_sweeps, prune_every : int
        Truncation-free SVI: Gibbs sweeps of the local sampler per minibatch, and documents between
        prunes of topics holding less than one word (Wang & Blei 2012: 20,000).
    algorithm="gibbs", burn_in : int
        The direct-assignment collapsed Gibbs sampler (Teh et al. 2006, §5.3): ``max_laps`` sweeps
        (``tol=0`` runs them all), each followed by table counts and ``beta ~ Dir(m, gamma)``; topics
        are created and removed freely from no topics at all (``n_topics`` is unused).
        ``fit(X, heldout=H)`` scores held-out tokens of the same documents after every sweep
        (``heldout_per_word_``, the predictive averaged over the sweeps after ``burn_in``).
    concentration_priors : ((shape, rate), (shape, rate)), optional
        ``algorithm="gibbs"``: Gamma priors on ``doc_topic_prior`` (alpha) and ``concentration``
        (gamma), which then start at the given values and are resampled after every sweep by
        auxiliary variables (Teh et al. 2006, App. A; Escobar & West 1995); Teh et al.'s choice is
        ``((1, 1), (1, 0.1))``. The last values are in ``concentrations_``; ``transform`` keeps the
        constructor's ``doc_topic_prior``.

    ``HDPTopicModel.paper_preset("hoffman2013")`` and ``paper_preset("wang_blei2012")`` give the
    papers' settings (``LDA.paper_preset("hoffman2013", n_topics=100)`` likewise).
    """ + _COMMON_DOC

    _weight_model = "hdp"

    def __init__(self, n_topics=100, *, concentration=10.0, doc_topic_prior=0.5, topic_word_prior=0.1,
                 algorithm="memoized", variational_family="direct", doc_truncation=20, n_batches=10, batch_size=None,
                 init="random", max_laps=100, min_laps=2, tol=1e-4, learning_rate_delay=10.0, learning_rate_decay=0.7,
                 sampling="without_replacement", local_max_iter=100, local_tol=None, n_restarts=5,
                 local_start="scratch", n_active=None, moves=None, move_options=None, n_sweeps=5, prune_every=20_000, n_jobs=1,
                 total_docs=None, random_state=None, verbose=0, callbacks=None, burn_in=10, concentration_priors=None):
        self.n_topics, self.concentration, self.burn_in = n_topics, concentration, burn_in
        self.concentration_priors = concentration_priors
        self.variational_family, self.doc_truncation, self.batch_size = variational_family, doc_truncation, batch_size
        self.n_sweeps, self.prune_every = n_sweeps, prune_every
        self.moves, self.move_options = moves, move_options
        self.doc_topic_prior, self.topic_word_prior = doc_topic_prior, topic_word_prior
        self.algorithm, self.n_batches, self.init = algorithm, n_batches, init
        self.max_laps, self.min_laps, self.tol = max_laps, min_laps, tol
        self.learning_rate_delay, self.learning_rate_decay, self.sampling = learning_rate_delay, learning_rate_decay, sampling
        self.local_max_iter, self.local_tol, self.n_restarts, self.local_start = local_max_iter, local_tol, n_restarts, local_start
        self.n_active = n_active
        self.n_jobs, self.total_docs, self.random_state, self.verbose, self.callbacks = n_jobs, total_docs, random_state, verbose, callbacks

    _move_kinds = ("birth", "merge", "delete")
    #: A run from K=100 holds dozens of near-empty topics; deleting them together (the group
    #: doubling while deletes succeed) clears them in a few laps instead of one per lap.
    _move_defaults = {"delete_max_targets": 64}

    def _weights_prior(self) -> dict:
        return TOPIC_WEIGHT_MODELS["hdp"].default_prior(self.doc_topic_prior, self.concentration)
