"""scikit-learn style topic models: :class:`LDA` and :class:`HDPTopicModel` (thin shells).

>>> from stickbreak import HDPTopicModel, datasets
>>> corpus = datasets.load("ap")
>>> model = HDPTopicModel(n_topics=50, random_state=0).fit(corpus.X)  # memoized VI with moves
>>> n_used, largest = model.n_topics_, model.top_words(5)[0]
"""

from __future__ import annotations

from contextlib import nullcontext
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .. import driver, persist
from ..priors import TOPIC_WEIGHTS
from ..models.topics.model import TopicModel, TopicParams
from ..models.topics.two_level import TwoLevelHDP
from ..config import LearnConfig, MovesConfig, TopicOptions, check_choice, check_int, check_positive, moves_config
from ..core.protocols import total_elbo
from ..core.suffstats import SuffStats
from ..data import BagOfWords, DataError, ShardStore
from ..data.bow import is_integral
from ..data.documents import as_bag_of_words
from ..evaluate.topics import document_completion
from ..parallel import open_executor
from ..progress import phase
from ..learn import check_moves, learner_spec, make_learner
from ..learn.registry import LEARNERS, canonical
from ..models.topics.init import LEARNED_INIT_METHODS, GibbsStart, initial_topics, start_elbo, with_n_topics
from ..obs import mult
from ._checkpoint import open_checkpoint
from ._common import (ReportMixin, SavableMixin, as_generator, check_executor_for, check_feature_names,
                      check_fit_memory, check_n_features, check_n_jobs, chunks_for, documented, numba_threads,
                      prepare_data)
from ._fitting import lookup_plan, run_plan
from ._options import AlgorithmOptionsMixin, legacy_warning
from ._topic_docs import (DOC_TOPIC_POSTERIOR, FIT, HDP_DOC, LDA_DOC, PAPER_PRESET, PARTIAL_FIT, PERPLEXITY, SCORE,
                          TOP_WORDS, TRANSFORM)
from ._topic_saving import TopicSaving
from ._topic_plans import (DIRECT, HDP_VARIANTS, LDA_VARIANTS, PRESETS, VARIATIONAL_FAMILIES, TopicVariant,
                           TruncationFreeTopics)


#: The start of the HDP's inits that do not learn their own number of topics when ``n_topics=None``
#: (and the topics the memory check assumes for a learned start).
DEFAULT_START_TOPICS = 100

#: The HDP's concentrations ``learn_concentration`` may set by empirical Bayes.
LEARNABLE = ("doc_topic_prior", "concentration")


class _TopicEstimator(AlgorithmOptionsMixin, TopicSaving, SavableMixin, ReportMixin, ClassNamePrefixFeaturesOutMixin,
                      TransformerMixin, BaseEstimator):
    """Shared shell of :class:`LDA`, :class:`HDPTopicModel` and DILN: ``_variants`` maps
    (algorithm, variational family) to how the estimator fits (:mod:`._topic_plans`)."""

    report_kind = "topics"

    _weight_model = "lda"
    _variants: dict = LDA_VARIANTS
    _options_class = TopicOptions

    # ------------------------------------------------------------------ configuration
    def _learn_config(self, n_docs: int | None = None, options=None) -> LearnConfig:
        """The loop's settings; with ``batch_size`` the minibatches per lap are ``ceil(n_docs / batch_size)``."""
        options = options or self._options()
        n_batches = self.n_batches
        if self.batch_size is not None:
            check_int("batch_size", self.batch_size, 1)
            n_batches = max(1, -(-int(n_docs or 1) // int(self.batch_size)))
        return LearnConfig(algorithm=self.algorithm, max_laps=self.max_laps, min_laps=self.min_laps, tol=self.tol,
                           n_batches=n_batches, n_jobs=1, learning_rate_delay=options.learning_rate_delay,
                           learning_rate_decay=options.learning_rate_decay, sampling=options.sampling)

    @classmethod
    @documented(PAPER_PRESET)
    def paper_preset(cls, name: str, **overrides):
        presets = {key[1]: value for key, value in PRESETS.items() if key[0] == cls.__name__}
        if not presets:
            raise ValueError(f"{cls.__name__} has no paper presets; pass the settings to its constructor "
                             "(its docstring cites the paper's)")
        if name not in presets:
            raise ValueError(f"{cls.__name__} has no preset {name!r}; choose one of {sorted(presets)}")
        settings = dict(presets[name])
        if cls.__name__ == "LDA":
            settings["doc_topic_prior"] = 1.0 / overrides.get("n_topics", cls().n_topics)
        options = {**settings.pop("algorithm_options"), **(overrides.pop("algorithm_options", None) or {})}
        legacy = {k: overrides.pop(k) for k in list(overrides) if k in cls._legacy_names()}
        if legacy:  # the old spelling of an option overrides the preset's too
            legacy_warning(f"{cls.__name__}.paper_preset", legacy)
        return cls(**{**settings, **overrides}, algorithm_options={**options, **legacy})

    @property
    def _algorithm(self) -> str:
        return canonical(self.algorithm)

    @property
    def _family(self) -> str:
        return "direct"

    def _variant(self) -> TopicVariant:
        """How this estimator fits under its algorithm and family (a clear error if it cannot)."""
        check_choice("variational_family", self._family, VARIATIONAL_FAMILIES)
        families = {family for _, family in self._variants}

        def describe(key):
            return f"algorithm={key[0]!r}" + (f" with variational_family={key[1]!r}" if len(families) > 1 else "")

        return lookup_plan(self._variants, (self._algorithm, self._family), type(self).__name__, describe)

    #: Moves this estimator supports (Hughes 2016, §5.5).
    _move_kinds: tuple = ()
    #: This estimator's defaults for :class:`~stickbreak.config.MovesConfig` fields.
    _move_defaults: dict = {}
    #: What ``moves=None`` runs under memoized VI.
    _default_moves: tuple = ()

    def _moves_config(self) -> MovesConfig:
        return moves_config(getattr(self, "moves", None), getattr(self, "move_options", None), self._move_kinds,
                            type(self).__name__, self._move_defaults, algorithm=self._algorithm,
                            default_moves=self._default_moves)

    def _check_settings(self) -> None:
        """The settings every variant reads, checked before any work."""
        self._start_topics()
        check_positive("topic_word_prior", self._topic_word_prior())
        check_n_jobs(self.n_jobs)
        check_executor_for(self.algorithm, self.executor)

    def _n_chunks(self) -> int:
        return chunks_for(self.n_jobs)

    def _check_memory(self, data, learn_cfg: LearnConfig) -> None:
        """K x V arrays: the topics, their expectations, the kernels' likelihood copies and statistics
        (and memoized VI's cached statistics per batch); K per document for the local steps; the
        token samplers' per-token assignments and word ids (a count of 1e10 is 1e10 tokens), and a
        learned start's sampler (:meth:`GibbsStart.memory_floats`)."""
        n_topics, n_words, n_docs = self._start_topics() or DEFAULT_START_TOPICS, data.n_features, data.n_items
        caches = learn_cfg.n_batches if self._algorithm == "memoized" else 0
        tokens = float(data.counts.sum()) if self._variant().integer_counts else 0.0
        gibbs = self._gibbs_start() if self.init in LEARNED_INIT_METHODS else None
        sampled = float("inf") if isinstance(data, ShardStore) else data.counts.sum()  # (shards: not counted here)
        start = 0.0 if gibbs is None else gibbs.memory_floats(self._start_topics(), n_docs, sampled)
        check_fit_memory(type(self).__name__, n_topics * (n_words * (6 + caches) + 2 * n_docs) + 4 * tokens + start,
                         f"lower n_topics (now {n_topics}), the vocabulary (now {n_words} words)"
                         + (f" or n_batches (now {learn_cfg.n_batches})" if caches else "")
                         + (f"; the sampler holds every one of the {tokens:.3g} tokens" if tokens else "") + ".")

    def _fits_minibatches(self) -> bool:
        """Whether ``fit``'s learner steps on minibatches (its model then has the stochastic local tolerance)."""
        return learner_spec(self._algorithm, list(LEARNERS)).minibatches

    def _make_model(self, n_words: int = 0, obs_prior=None, stochastic: bool | None = None):
        """The model this estimator keeps for its algorithm and family (topic-word prior over
        ``n_words`` words unless ``obs_prior`` is given); ``stochastic`` (default: the learner's
        kind) selects the local step's tolerance for steps on minibatches."""
        variant, options = self._variant(), self._options()
        self._check_settings()
        n_active = self._n_active()
        if n_active is not None and not variant.sparse:
            raise ValueError(f"n_active (L-sparse local steps) applies to algorithm 'vb', 'svi' or 'memoized' with "
                             f"the direct variational family, not {self.algorithm!r}; drop n_active or change algorithm")
        if stochastic is None:
            stochastic = self._fits_minibatches()
        if obs_prior is None:
            obs_prior = {"lam": np.full(n_words, float(self._topic_word_prior()))}
        return variant.model(self, obs_prior, options, stochastic)

    def _topic_word_prior(self) -> float:
        return self.topic_word_prior

    def _n_active(self) -> int | None:
        """``n_active`` validated: a positive integer for the variational direct-assignment step, or None."""
        n_active = getattr(self, "n_active", None)
        if n_active is None:
            return None
        if isinstance(n_active, bool) or not isinstance(n_active, (int, np.integer)) or n_active < 1:
            raise ValueError(f"n_active must be a positive integer (topics per word type) or None, got {n_active!r}")
        return int(n_active)

    def _check_weights_options(self) -> None:
        """Checks of the document-weight settings before any work (the HDP's learned concentrations)."""

    def _start_topics(self) -> int:
        """The number of topics the fit starts from (0: a learned start, from none), checked."""
        check_int("n_topics", self.n_topics, 1)
        return int(self.n_topics)

    def _initial_topics(self, data, model, rng: np.random.Generator, moves: bool) -> np.ndarray:
        """The first topics ``lam`` by ``init``. A learned start keeps the number of topics it found
        where moves go on learning K (memoized VI with moves) or where ``n_topics`` is None; elsewhere
        ``n_topics`` is the truncation, so it keeps that many (:func:`with_n_topics`)."""
        prior_lam, gibbs = model.obs_prior["lam"], self._gibbs_start()
        learned = self.init in LEARNED_INIT_METHODS and gibbs is not None  # (else initial_topics says why not)
        with phase(self.verbose, f"{type(self).__name__}: learned start, the best chain of the HDP's collapsed Gibbs "
                                 f"sampler, {gibbs.n_sweeps} sweeps") if learned else nullcontext():
            lam = initial_topics(data, prior_lam, self._start_topics(), self.init, rng, gibbs=gibbs,
                                 judge=partial(start_elbo, model))
        if learned and self._start_topics() and not moves:
            lam = with_n_topics(lam, self._start_topics(), prior_lam, rng)
        return lam

    def _gibbs_start(self) -> GibbsStart | None:
        """The sampler a learned start (``init="gibbs"``) runs; None: this estimator has no such start."""
        return None

    def _initial_params(self, model, lam: np.ndarray, n_docs: int, rng: np.random.Generator):
        """The first global parameters around the initial topics ``lam`` (subclasses may draw more)."""
        return model.initial_params(lam, n_docs)

    def _as_bow(self, X, vocabulary=None, empty: str = "keep", integer: bool = False, tokens_over=None) -> BagOfWords:
        """``X`` as counts; token lists are counted over ``tokens_over`` (a fitted model's vocabulary)."""
        if isinstance(X, ShardStore):  # validated when written, and on every read
            return X
        return as_bag_of_words(X, vocabulary, empty=empty, integer=integer, tokens_over=tokens_over)

    # ------------------------------------------------------------------ fitting
    @documented(FIT)
    def fit(self, X, y=None, vocabulary=None, heldout=None, *, empty="keep", checkpoint=None):
        variant = self._variant()
        check_feature_names(self, X, reset=True)
        if vocabulary is None and "feature_names_in_" in vars(self):  # a DataFrame's columns name the words
            vocabulary = list(self.feature_names_in_)
        data = self._as_bow(X, vocabulary, empty=empty, integer=variant.integer_counts)
        if isinstance(data, ShardStore) and not variant.shards:
            raise DataError(f"algorithm={self.algorithm!r} (variational_family={self._family!r}) keeps the whole "
                            "corpus in memory and does not read shards; fit it on the documents themselves "
                            "(e.g. concat_items(list(store))) or use algorithm 'vb', 'stochastic' or 'memoized'.")
        self._check_weights_options()
        options = self._options()
        learn_cfg = self._learn_config(data.n_items, options)
        self._check_memory(data, learn_cfg)
        moves_cfg = self._moves_config()
        check_moves(learn_cfg.algorithm, moves_cfg.moves)
        rng = as_generator(self.random_state)
        session = open_checkpoint(self, checkpoint, rng, variant.resumable, data)
        model = self._make_model(data.n_features)
        layout = prepare_data(data, mult, learn_cfg, rng)
        heldout_counts = None if heldout is None else self._as_bow(heldout, integer=True).counts
        plan = variant.plan(self, model, data, layout, learn_cfg, options, rng, heldout_counts)
        if heldout is not None and "heldout" not in plan.learner_options:
            raise ValueError(f"heldout is scored during collapsed inference only; algorithm={self.algorithm!r} "
                             "fits without it (score held-out documents afterwards with score())")
        with numba_threads(self.n_jobs), open_executor(self.executor, self.n_jobs, kernel_threads=True) as executor:
            fitted = run_plan(plan, learn_cfg, moves_cfg, rng, owner=type(self).__name__, callbacks=self.callbacks,
                              verbose=self.verbose, executor=executor, checkpoint=session)
        self.n_features_in_ = data.n_features
        self.vocabulary_ = data.vocabulary
        self._set_fitted(fitted.model, fitted.params, fitted.stats, fitted.trace, fitted.result.stop_reason,
                         fitted.lower_bound)
        for name, value in fitted.attributes.items():
            setattr(self, name, value)
        vars(self).pop("_stream", None)
        if variant.streams:  # partial_fit goes on from here, as the step after this fit's last
            self._stream = self._new_stream(len(fitted.trace) * learn_cfg.n_batches, data.n_items, rng,
                                            self._fits_minibatches())
        return self

    @documented(PARTIAL_FIT)
    def partial_fit(self, X, y=None, vocabulary=None):
        check_feature_names(self, X, reset="params_" not in vars(self))
        data = self._as_bow(X, vocabulary)
        if not self._variant().streams:
            raise ValueError(f"partial_fit runs stochastic VI steps, which algorithm={self.algorithm!r} does not take; "
                             "call fit (truncation_free: with algorithm_options={'total_docs': ...} for a stream's "
                             "assumed size)")
        options = self._options()
        rng = as_generator(self.random_state)
        if "_stream" not in vars(self):  # the first call (fit leaves the stream at its last step and documents)
            self._stream = self._new_stream(0, 0, rng, stochastic_model=True)
        if not hasattr(self, "params_"):
            model = self._make_model(data.n_features, stochastic=True)
            lam = self._initial_topics(data, model, rng, moves=False)
            params = self._initial_params(model, lam, options.total_docs or data.n_items, rng)
            self.n_features_in_, self.vocabulary_ = data.n_features, data.vocabulary
            self.trace_, self.model_, self.params_ = [], model, params
        check_n_features(self, data.n_features)
        stream = self._stream
        stream["step"] += 1
        stream["seen"] += data.n_items
        total = options.total_docs or stream["seen"]
        with numba_threads(self.n_jobs):
            params, stats, estimate = stream["learner"].step(self.model_, self.params_, data, total, stream["step"])
        record = {"lap": stream["step"], "elbo": total_elbo(estimate), "terms": estimate, "exact": False}
        self._set_fitted(self.model_, params, stats, self.trace_ + [record], "partial_fit")
        return self

    def _new_stream(self, step: int, seen: int, rng=None, stochastic_model: bool = True) -> dict:
        """A ``partial_fit`` stream after ``step`` calls and ``seen`` documents (its whole state: the
        SVI step draws nothing at random)."""
        learner = make_learner(self._learn_config(options=self._options()), MovesConfig(),
                               rng if rng is not None else as_generator(self.random_state), "stochastic")
        return {"learner": learner, "step": step, "seen": seen, "stochastic_model": stochastic_model}

    def _set_fitted(self, model: TopicModel, params: TopicParams, stats: SuffStats, trace, stop_reason: str,
                    lower_bound: float | None = None):
        self.model_, self.params_, self.stats_ = model, params, stats
        self.trace_, self.stop_reason_ = trace, stop_reason
        self.heldout_per_word_ = None  # a collapsed fit with held-out tokens sets it (run_plan's attributes)
        self.converged_ = stop_reason == "converged"
        self.n_iter_ = len(trace)
        self.lower_bound_ = lower_bound if lower_bound is not None else trace[-1]["elbo"] if trace else float("nan")
        self.elbo_trace_ = np.array([r["elbo"] for r in trace])
        self.components_ = params.obs["lam"]
        self.topic_word_ = params.topic_word
        self.topic_sizes_ = stats.counts.copy()
        self.topic_weights_ = model.topic_weights(params)
        self.n_topics_ = int(np.sum(stats.counts >= driver.EFFECTIVE_COUNT))

    # ------------------------------------------------------------------ using the model
    @property
    def _n_features_out(self) -> int:
        """The columns of :meth:`transform`, one per topic: ``get_feature_names_out`` names them
        ``lda0, lda1, ...`` (the class name and the topic), as scikit-learn's LDA does."""
        return self.components_.shape[0]

    def _validated(self, X) -> BagOfWords:
        check_is_fitted(self, "params_")
        check_feature_names(self, X, reset=False)
        data = self._as_bow(X, tokens_over=self.vocabulary_)  # an empty document gets the prior's proportions
        check_n_features(self, data.n_features)
        return data

    @documented(TRANSFORM)
    def transform(self, X) -> np.ndarray:
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

    @documented(DOC_TOPIC_POSTERIOR)
    def doc_topic_posterior(self, X) -> tuple[np.ndarray, np.ndarray]:
        data = self._validated(X)
        if isinstance(self.model_, (TruncationFreeTopics, TwoLevelHDP)):
            raise ValueError("doc_topic_posterior needs the direct-assignment family (variational_family='direct', "
                             "not truncation_free or gibbs): the other fits keep no Dirichlet posterior per document")
        with numba_threads(self.n_jobs):
            local = self.model_.local_step(self.params_, data)
        shape = local.doc_topic + local.prior[None, :]
        return shape, np.ones_like(shape)

    @documented(SCORE)
    def score(self, X, y=None, *, total: bool = False) -> float:
        data = self._validated(X)
        mode = "tokens" if is_integral(data.counts.data) else "types"
        score = document_completion(self, data.counts, mode=mode, seed=0)
        return float(score.per_word * score.n_heldout_tokens if total else score.per_word)

    @documented(PERPLEXITY)
    def perplexity(self, X) -> float:
        return float(np.exp(-self.score(X)))

    @documented(TOP_WORDS)
    def top_words(self, n: int = 10, min_size: float = driver.EFFECTIVE_COUNT) -> list[dict]:
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True  # word counts (or non-negative weights)
        tags.non_deterministic = False
        return tags


@persist.register
class LDA(_TopicEstimator):
    __doc__ = LDA_DOC

    _weight_model = "lda"
    _variants = LDA_VARIANTS
    _option_keys = ("learning_rate_delay", "learning_rate_decay", "sampling", "local_max_iter", "local_tol",
                    "local_start", "local_accelerate", "total_docs", "n_restarts", "burn_in", "sample_threshold")

    def __init__(self, n_topics=10, *, doc_topic_prior=None, topic_word_prior=None, algorithm="vb",
                 algorithm_options=None, n_batches=1, batch_size=None, init="random", max_laps=100, min_laps=2,
                 tol=1e-4, n_active=None, n_jobs=1, executor=None, random_state=None, verbose=0, callbacks=None, **option_keywords):
        self.n_topics, self.doc_topic_prior, self.topic_word_prior = n_topics, doc_topic_prior, topic_word_prior
        self.algorithm, self.algorithm_options = algorithm, self._with_legacy(algorithm_options, option_keywords)
        self.n_batches, self.batch_size, self.init = n_batches, batch_size, init
        self.max_laps, self.min_laps, self.tol, self.n_active = max_laps, min_laps, tol, n_active
        self.n_jobs, self.executor = n_jobs, executor
        self.random_state, self.verbose, self.callbacks = random_state, verbose, callbacks

    def _topic_word_prior(self) -> float:
        return 1.0 / self.n_topics if self.topic_word_prior is None else self.topic_word_prior

    def _weights_prior(self) -> dict:
        alpha = 1.0 / self.n_topics if self.doc_topic_prior is None else self.doc_topic_prior
        return TOPIC_WEIGHTS["lda"].default_prior(alpha)


@persist.register
class HDPTopicModel(_TopicEstimator):
    __doc__ = HDP_DOC

    _weight_model = "hdp"
    _variants = HDP_VARIANTS
    _option_keys = ("learning_rate_delay", "learning_rate_decay", "sampling", "local_max_iter", "local_tol",
                    "local_start", "local_accelerate", "total_docs", "n_restarts", "burn_in", "doc_truncation", "n_sweeps", "prune_every",
                    "concentration_priors")
    _new_option_keys = ("init_sweeps", "init_tokens")
    _option_defaults = {"n_restarts": 5}

    def __init__(self, n_topics=None, *, concentration=10.0, doc_topic_prior=1.0, topic_word_prior=0.05,
                 algorithm="memoized", variational_family="direct", algorithm_options=None, n_batches=10,
                 batch_size=None, init="gibbs", max_laps=100, min_laps=2, tol=1e-4, n_active=None, moves=None,
                 move_options=None, learn_concentration=False, n_jobs=1, executor=None, random_state=None, verbose=0, callbacks=None,
                 **option_keywords):
        self.n_topics, self.concentration = n_topics, concentration
        self.learn_concentration = learn_concentration
        self.doc_topic_prior, self.topic_word_prior = doc_topic_prior, topic_word_prior
        self.algorithm, self.variational_family = algorithm, variational_family
        self.algorithm_options = self._with_legacy(algorithm_options, option_keywords)
        self.n_batches, self.batch_size, self.init = n_batches, batch_size, init
        self.max_laps, self.min_laps, self.tol, self.n_active = max_laps, min_laps, tol, n_active
        self.moves, self.move_options = moves, move_options
        self.n_jobs, self.executor = n_jobs, executor
        self.random_state, self.verbose, self.callbacks = random_state, verbose, callbacks

    _move_kinds = ("birth", "merge", "delete")
    #: A run from K=100 holds dozens of near-empty topics; deleting them together (the group
    #: doubling while deletes succeed) clears them in a few laps instead of one per lap.
    #: Merges are screened by the data gain alone (not a bound for topics: most screened pairs fail,
    #: 6 of 148 on AP) and each tried pair costs a global step: at most 50 a lap, best screen first.
    #: A delete's documents re-solve their own fixed point over the other topics, so two refinement
    #: rounds keep what five gave on AP (same deletes accepted) at 0.8x the CPU of a fit.
    _move_defaults = {"delete_max_targets": 64, "merge_max_pairs": 50, "delete_refine_steps": 2}
    #: Every move, so that a start below the corpus's K can grow (Reuters from 1 topic: 1 -> 8). From
    #: 100 topics births are rarely accepted on real corpora (0 of 27-53 in topic_curves.md); the
    #: held-out edge over merges and deletes alone (defaults.md) comes from deleting every other lap
    #: (``delete_every``): merge+delete with ``delete_every=2`` scores the same (ap -7.9326 vs -7.9321,
    #: 20newsgroups -8.0127 vs -8.0133) at 0.86-0.88x the CPU.
    _default_moves = ("birth", "merge", "delete")

    @property
    def _family(self) -> str:
        return self.variational_family

    def _set_fitted(self, model: TopicModel, params: TopicParams, *rest, **keywords):
        super()._set_fitted(model, params, *rest, **keywords)
        if self._variant() is DIRECT:
            self.concentrations_ = TOPIC_WEIGHTS["hdp"].concentrations(model.weights_prior, params.weights)
        elif "concentrations_" in vars(self):  # a refit in another family must not keep the last fit's
            del self.concentrations_

    def _check_weights_options(self) -> None:
        self._learned()

    def _gibbs_start(self) -> GibbsStart:
        """The HDP's own sampler, ``algorithm_options["init_sweeps"]`` sweeps on at most
        ``algorithm_options["init_tokens"]`` tokens."""
        options = self._options()
        return GibbsStart(float(self.doc_topic_prior), float(self.concentration), options.init_sweeps,
                          options.init_tokens)

    def _start_topics(self) -> int:
        """``n_topics``, or with ``n_topics=None`` 0 for a learned start (``init="gibbs"``: the
        sampler starts from no topics) and :data:`DEFAULT_START_TOPICS` for the other inits."""
        if self.n_topics is None:
            return 0 if self.init in LEARNED_INIT_METHODS else DEFAULT_START_TOPICS
        return super()._start_topics()

    def _learned(self) -> tuple[str, ...]:
        """``learn_concentration`` as the names of the learned parameters, checked."""
        learn = self.learn_concentration
        if isinstance(learn, (bool, np.bool_)):
            learn = LEARNABLE if learn else ()
        if isinstance(learn, str) or not set(learn) <= set(LEARNABLE):
            raise ValueError(f"learn_concentration must be True, False or a list of names among {LEARNABLE}, "
                             f"got {self.learn_concentration!r}")
        if learn and self._variant() is not DIRECT:
            raise ValueError(f"learn_concentration needs variational_family='direct' and algorithm 'vb', 'stochastic' "
                             f"or 'memoized', got {self.variational_family!r} and {self.algorithm!r}")
        return tuple(learn)

    def _weights_prior(self) -> dict:
        learn = self._learned()
        return TOPIC_WEIGHTS["hdp"].default_prior(self.doc_topic_prior, self.concentration,
                                                  learn_alpha="doc_topic_prior" in learn,
                                                  learn_gamma="concentration" in learn)
