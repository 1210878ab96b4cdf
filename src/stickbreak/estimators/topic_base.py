"""The shell the topic estimators share (:class:`TopicEstimator`: settings, ``fit`` and
``partial_fit``) and the parameters their docstrings share (:func:`topic_docstring`);
:class:`~stickbreak.LDA` is in :mod:`.lda`, :class:`~stickbreak.HDPTopicModel` in :mod:`.hdp`,
:class:`~stickbreak.DILN` in :mod:`.diln`.
"""

from __future__ import annotations

from string import Template

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .. import driver
from ..models.topics.model import TopicModel, TopicParams
from ..config import MovesConfig, TopicOptions, check_choice, check_int, check_positive
from ..core.protocols import total_elbo
from ..core.suffstats import SuffStats
from ..data import BagOfWords, DataError, ShardStore
from ..data.documents import as_bag_of_words
from ..parallel import open_executor
from ..learn import check_moves, learner_spec, make_learner
from ..learn.registry import LEARNERS, canonical
from ..models.topics.init import GibbsStart
from ..obs import mult
from ._checkpoint import open_checkpoint
from ._common import (ReportMixin, SavableMixin, as_generator, check_executor_for, check_feature_names,
                      check_n_features, check_n_jobs, chunks_for, numba_threads,
                      prepare_data)
from ._fitting import lookup_plan, run_plan
from ._options import AlgorithmOptionsMixin
from .topic_settings import TopicSettings
from .topic_use import FittedTopics
from ._topic_plans import (LDA_VARIANTS, PRESETS, VARIATIONAL_FAMILIES, TopicVariant)


#: Parameters every topic estimator's docstring shares, by their ``$name`` in :func:`topic_docstring`.
SHARED_PARAMETERS = {
    "options": """    algorithm_options : dict, optional
        The settings only some algorithms read (fields of :class:`stickbreak.config.TopicOptions`),
        e.g. ``{"learning_rate_decay": 0.9}``:

        * ``learning_rate_delay``, ``learning_rate_decay`` (10, 0.7) and ``sampling``: stochastic
          VI's step size ``rho_t = (delay + t)^-decay`` (tau, kappa of Hoffman et al. 2013) and how
          minibatches are drawn;
        * ``local_max_iter`` (100), ``local_tol``, ``n_restarts``, ``local_start``: the per-document
          fixed point of "vb", "svi" and "memoized": iteration cap, tolerance on
          ``max_k |Delta N_dk|`` (default 0.5 for "vb" and "memoized", 0.05 for stochastic steps),
          sparse restart proposals per document (Hughes 2016, Alg. 5.2; LDA 0, HDP 5) and where it
          starts (``"scratch"``, ``"warm"`` or ``"best"``; warm and best make batch and memoized VI
          provably monotone); ``local_accelerate``: SQUAREM over the fixed point (None: on for LDA's
          "vb" and "memoized", off otherwise);
        * ``total_docs``: the corpus size streamed minibatches stand for (``partial_fit``,
          "truncation_free");
        * ``burn_in`` (10): the collapsed samplers' sweeps before the held-out predictive is averaged;
        * LDA: ``sample_threshold``; HDP: ``doc_truncation`` (two-level family), ``n_sweeps`` (5, Gibbs
          sweeps of the truncation-free local sampler per minibatch), ``prune_every`` (documents
          between prunes of topics holding less than one word; Wang & Blei: 20,000),
          ``concentration_priors`` ("gibbs"), ``init_sweeps`` and ``init_tokens`` (``init="gibbs"``).""",
    "batches": """    n_batches : int
        Batches per lap (memoized VI: each batch's statistics are cached and replaced on its next
        visit) or minibatches per lap (stochastic VI).
    batch_size : int, optional
        Documents per minibatch S; overrides ``n_batches`` with ``ceil(n_documents / batch_size)``.""",
    "laps": """    max_laps : int, default=100
        Most passes over the data (sweeps for the samplers).
    min_laps : int, default=2
        Fewest passes before the tolerance may stop the fit.
    tol : float, default=1e-4
        Stop when the relative change of the ELBO between laps falls below ``tol``.
    n_active : int, optional
        L-sparse local steps (Hughes 2016, Ch. 7): at most this many topics per word type of a
        document get a non-zero responsibility, which makes large ``n_topics`` affordable; the moves
        stay exact within that family. None (default) is dense. Direct family, variational
        algorithms only.""",
    "runtime": """    n_jobs : int, default=1
        Threads for the local step (-1: all cores), or worker processes with ``executor``.
    executor : None, "threads", "processes", "dask", a scheduler address or a ``distributed.Client``
        Where the local steps run (:mod:`stickbreak.parallel`): the driver's threads (None, the
        default), ``n_jobs`` local worker processes, a Dask ``LocalCluster`` of ``n_jobs`` workers,
        or an existing Dask cluster. The workers hold the data, each batch split among them.
        Memoized VI's laps go batch by batch on threads and are synchronous on processes and Dask
        (one call and one global step per lap, :mod:`stickbreak.learn.memo_sync`); executors with
        the same schedule give the same fit up to round-off. Moves are decided on the driver.
    random_state : int, numpy.random.Generator or None
        Seed of the initialisation, the batches and any sampling.
    verbose : int, default=0
        0 silent, 1 a progress bar.
    callbacks : list of callable, optional
        Each called as ``callback(lap_record, params)`` after every lap (``params.topic_word`` holds
        the current topics); returning True stops the fit.""",
    "attributes": """    Attributes
    ----------
    topic_word_ : ndarray of shape (n_topics, n_words)
        Posterior-mean word probabilities of every topic.
    components_ : ndarray of shape (n_topics, n_words)
        Dirichlet parameters ``lam`` of ``q(beta_k)`` (scikit-learn's name).
    topic_sizes_ : ndarray of shape (n_topics,)
        Expected training tokens per topic.
    n_topics_ : int
        Topics actually used (at least one expected token).
    topic_weights_ : ndarray of shape (n_topics,)
        Corpus-level topic probabilities (HDP ``E[pi^G]``, summing to less than one; LDA uniform).
    vocabulary_ : tuple of str or None
        The words of the columns, when known.
    lower_bound_ : float
        The final ELBO (nats); under "truncation_free" the sampler's progressive log-likelihood per
        document, under the collapsed algorithms the collapsed log joint of the last sweep's counts
        (neither compares with an ELBO).
    elbo_trace_ : ndarray of shape (n_iter,)
        The ELBO after every lap.
    trace_ : list of dict
        Per-lap records (ELBO and its terms, K, seconds, moves tried and accepted).
    n_iter_ : int
        Laps run.
    converged_ : bool
        Whether the tolerance was met.
    stop_reason_ : str
        Why the fit stopped.
    heldout_per_word_ : ndarray or None
        Held-out log-likelihood per token after every sweep (collapsed algorithms with ``heldout``).""",
}


def topic_docstring(text: str) -> str:
    """``text`` with the shared parameters in place of ``$options``, ``$batches``, ``$laps``,
    ``$runtime`` and ``$attributes`` (numpydoc sections composed next to each class)."""
    return Template(text).substitute(SHARED_PARAMETERS)


class TopicEstimator(AlgorithmOptionsMixin, FittedTopics, SavableMixin, ReportMixin, ClassNamePrefixFeaturesOutMixin,
                     TransformerMixin, BaseEstimator):
    """Shared shell of :class:`~stickbreak.LDA`, :class:`~stickbreak.HDPTopicModel` and
    :class:`~stickbreak.DILN`: ``_variants`` maps (algorithm, variational family) to how the estimator
    fits (:mod:`._topic_plans`); the fitted model's methods are :class:`.topic_use.FittedTopics`'."""

    report_kind = "topics"

    _weight_model = "lda"
    _variants: dict = LDA_VARIANTS
    _options_class = TopicOptions

    # ------------------------------------------------------------------ configuration
    @classmethod
    def paper_preset(cls, name: str, **overrides):
        """An estimator with a seed paper's settings.

        Parameters
        ----------
        name : {"hoffman2013", "wang_blei2012", "hughes2016"}
            ``"hoffman2013"``: SVI (Hoffman et al. 2013, §4, §6: tau = 1, kappa = 0.9, S = 500, eta =
            0.01, the footnote-6 start; LDA alpha = 1 / K; the HDP's two-level family with K = 300, T = 20,
            omega = alpha = 1); ``"wang_blei2012"``: truncation-free SVI of the HDP (eta = 0.01, a = b = 1,
            100 documents a minibatch); ``"hughes2016"``: the memoized HDP with the thesis's priors
            (gamma = 10, alpha = 0.5, eta = 0.1; §5.6). LDA has the first, HDPTopicModel all three,
            DILN none.
        **overrides
            Constructor arguments replacing the preset's (``algorithm_options`` are merged with it).

        Returns
        -------
        estimator
            A new, unfitted estimator of this class.
        """
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
        return cls(**{**settings, **overrides}, algorithm_options=options)

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

    def _moves_config(self) -> MovesConfig:
        """The moves memoized VI makes: none (LDA and DILN take no ``moves``; the HDP's override)."""
        return MovesConfig()

    def _settings(self) -> TopicSettings:
        """Every setting checked and gathered into one frozen value, before any data are read (the
        model and plan builders read it, never the estimator)."""
        variant, options = self._variant(), self._options()
        start_topics = self._start_topics()
        topic_word_prior = self._topic_word_prior()
        check_positive("topic_word_prior", topic_word_prior)
        check_n_jobs(self.n_jobs)
        check_executor_for(self.algorithm, self.executor)
        n_active = self._n_active()
        if n_active is not None and not variant.sparse:
            raise ValueError(f"n_active (L-sparse local steps) applies to algorithm 'vb', 'svi' or 'memoized' with "
                             f"the direct variational family, not {self.algorithm!r}; drop n_active or "
                             "change algorithm")
        if self.batch_size is not None:
            check_int("batch_size", self.batch_size, 1)
        moves = self._moves_config()
        settings = TopicSettings(
            owner=type(self).__name__, variant=variant, options=options, moves=moves,
            weight_model=self._weight_model, weights_prior=self._weights_prior(), topic_word_prior=topic_word_prior,
            start_topics=start_topics, init=self.init, gibbs=self._gibbs_start(), n_active=n_active,
            n_chunks=chunks_for(self.n_jobs), algorithm=self.algorithm, max_laps=self.max_laps,
            min_laps=self.min_laps, tol=self.tol, n_batches=self.n_batches, batch_size=self.batch_size,
            minibatches=learner_spec(self._algorithm, list(LEARNERS)).minibatches, verbose=self.verbose,
            **self._model_settings())
        check_moves(settings.learn_config().algorithm, moves.moves)  # (the loop's settings checked too)
        return settings

    def _model_settings(self) -> dict:
        """The :class:`TopicSettings` fields only some estimators set (the HDP's concentrations, DILN's prior)."""
        return {}

    def _topic_word_prior(self) -> float:
        return self.topic_word_prior

    def _weights_prior(self) -> dict:
        """The document weights' prior in the direct family (DILN's model keeps its own, ``model_prior``)."""
        return {}

    def _n_active(self) -> int | None:
        """``n_active`` validated: a positive integer for the variational direct-assignment step, or None."""
        n_active = self.n_active
        if n_active is None:
            return None
        if isinstance(n_active, bool) or not isinstance(n_active, (int, np.integer)) or n_active < 1:
            raise ValueError(f"n_active must be a positive integer (topics per word type) or None, got {n_active!r}")
        return int(n_active)

    def _start_topics(self) -> int:
        """The number of topics the fit starts from (0: a learned start, from none), checked."""
        check_int("n_topics", self.n_topics, 1)
        return int(self.n_topics)

    def _gibbs_start(self) -> GibbsStart | None:
        """The sampler a learned start (``init="gibbs"``) runs; None: this estimator has no such start."""
        return None

    def _as_bow(self, X, vocabulary=None, empty: str = "keep", integer: bool = False, tokens_over=None) -> BagOfWords:
        """``X`` as counts; token lists are counted over ``tokens_over`` (a fitted model's vocabulary)."""
        if isinstance(X, ShardStore):  # validated when written, and on every read
            return X
        return as_bag_of_words(X, vocabulary, empty=empty, integer=integer, tokens_over=tokens_over)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None, vocabulary=None, heldout=None, *, empty="keep", checkpoint=None):
        """Fit the topic model to a document-word count matrix.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_words), BagOfWords, corpus or ShardStore
            Word counts: a scipy sparse or dense matrix, a DataFrame, a
            :class:`~stickbreak.data.BagOfWords`, a gensim-style corpus (lists of ``(word_id, count)``),
            token lists or raw text (counted over the fitted vocabulary).
            Counts may be non-negative weights (e.g. tf-idf) for the variational algorithms; the
            sampling ones (collapsed, "truncation_free", HDP "gibbs") need whole numbers. A ShardStore
            is read out of core (direct family, "vb", "stochastic" and "memoized").
        y : None
            Ignored (scikit-learn's convention for unsupervised estimators).
        vocabulary : list of str, CountVectorizer or gensim Dictionary, optional
            Names of the columns, for :meth:`top_words`; a BagOfWords or a DataFrame may carry its own.
        heldout : array-like or sparse matrix of shape (n_documents, n_words), optional
            Collapsed algorithms only: held-out token counts of the same documents, scored after every
            sweep into ``heldout_per_word_`` (Welling et al. 2008, §7, Eqs. 30-31).
        empty : {"keep", "skip", "error"}, default="keep"
            Documents without words are kept (they add nothing to the topics, as in scikit-learn and
            gensim), dropped with a warning, or refused.
        checkpoint : str or path-like, optional
            A directory where the state is saved after every lap, for :func:`stickbreak.resume`
            (direct family, "vb", "stochastic" and "memoized").

        Returns
        -------
        self
            The fitted estimator.
        """
        settings = self._settings()                                               # 1. the settings
        data = self._training_documents(X, vocabulary, empty, settings.variant)    # 2. the data
        heldout_counts = None if heldout is None else self._as_bow(heldout, integer=True).counts
        learn_cfg = settings.learn_config(data.n_items)                           # 3. the plan
        settings.check_memory(data, learn_cfg)
        rng = as_generator(self.random_state)
        with open_checkpoint(self, checkpoint, rng, settings.variant.resumable, data) as session:
            model = settings.model(data.n_features)
            layout = prepare_data(data, mult, learn_cfg, rng)
            plan = settings.variant.plan(settings, model, data, layout, learn_cfg, rng, heldout_counts)
            if heldout is not None and "heldout" not in plan.learner_options:
                raise ValueError(f"heldout is scored during collapsed inference only; algorithm={self.algorithm!r} "
                                 "fits without it (score held-out documents afterwards with score())")
            with numba_threads(self.n_jobs), open_executor(self.executor, self.n_jobs, kernel_threads=True) as executor:
                fitted = run_plan(plan, learn_cfg, settings.moves, rng, owner=settings.owner,  # 4. the run
                                  callbacks=self.callbacks, verbose=self.verbose, executor=executor, checkpoint=session)
        self.n_features_in_ = data.n_features
        self.vocabulary_ = data.vocabulary
        self._set_fitted(fitted.model, fitted.params, fitted.stats, fitted.trace, fitted.result.stop_reason,
                         fitted.lower_bound)
        for name, value in fitted.attributes.items():
            setattr(self, name, value)
        vars(self).pop("_stream", None)
        if settings.variant.streams:  # partial_fit goes on from here, as the step after this fit's last
            self._stream = self._new_stream(settings, len(fitted.trace) * learn_cfg.n_batches, data.n_items,
                                            settings.minibatches)
        return self

    def _training_documents(self, X, vocabulary, empty: str, variant):
        """``X`` as counts (a DataFrame's columns name the words), whole numbers where ``variant``
        samples tokens, and a shard store only where ``variant`` reads shards."""
        check_feature_names(self, X, reset=True)
        if vocabulary is None and "feature_names_in_" in vars(self):
            vocabulary = list(self.feature_names_in_)
        data = self._as_bow(X, vocabulary, empty=empty, integer=variant.integer_counts)
        if isinstance(data, ShardStore) and not variant.shards:
            raise DataError(f"algorithm={self.algorithm!r} (variational_family={self._family!r}) keeps the whole "
                            "corpus in memory and does not read shards; fit it on the documents themselves "
                            "(e.g. concat_items(list(store))) or use algorithm 'vb', 'stochastic' or 'memoized'.")
        return data

    def partial_fit(self, X, y=None, vocabulary=None):
        """One stochastic VI step on a minibatch of documents (streaming; Hoffman et al. 2013, Alg. 2).

        The step size is ``rho_t = (learning_rate_delay + t)^-learning_rate_decay`` at the t-th call;
        the minibatch's statistics are scaled to ``total_docs`` documents (an algorithm option), or to
        the number seen so far when it is None. The first call fixes the vocabulary size; after
        :meth:`fit` the steps go on from the fit's last. :meth:`save` keeps the stream's place: a saved
        and loaded model goes on as if the stream had never stopped.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_words), or BagOfWords
            Word counts of the minibatch (any form :meth:`fit` takes, except a ShardStore).
        y : None
            Ignored.
        vocabulary : list of str, CountVectorizer or gensim Dictionary, optional
            Names of the columns, read on the first call only.

        Returns
        -------
        self
            The updated estimator.
        """
        check_feature_names(self, X, reset="params_" not in vars(self))
        data = self._as_bow(X, vocabulary)
        settings = self._settings()
        if not settings.variant.streams:
            raise ValueError(f"partial_fit runs stochastic VI steps, which algorithm={self.algorithm!r} does not take; "
                             "call fit (truncation_free: with algorithm_options={'total_docs': ...} for a stream's "
                             "assumed size)")
        options = settings.options
        rng = as_generator(self.random_state)
        if "_stream" not in vars(self):  # the first call (fit leaves the stream at its last step and documents)
            self._stream = self._new_stream(settings, 0, 0, stochastic_model=True)
        if not hasattr(self, "params_"):
            model = settings.model(data.n_features, stochastic=True)
            lam = settings.initial_topics(data, model, rng, moves=False)
            params = settings.initial_params(model, lam, options.total_docs or data.n_items, rng)
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

    def _new_stream(self, settings: TopicSettings, step: int, seen: int, stochastic_model: bool = True) -> dict:
        """A ``partial_fit`` stream after ``step`` calls and ``seen`` documents (its whole state: the
        SVI step draws nothing at random, so its generator is a fresh one)."""
        learner = make_learner(settings.learn_config(), MovesConfig(), as_generator(self.random_state), "stochastic")
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True  # word counts (or non-negative weights)
        tags.non_deterministic = False
        return tags
