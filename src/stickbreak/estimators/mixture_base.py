"""The shell the mixture estimators share (:class:`MixtureEstimator`: settings and ``fit``, the
fit plan of each algorithm) and the parameters their docstrings share
(:func:`mixture_parameters`); :class:`~stickbreak.DPMixture` and
:class:`~stickbreak.FiniteMixture` are in :mod:`.mixture`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, DensityMixin
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .. import driver, obs
from ..models.mixture.model import MixtureParams
from ..models import make_mixture_model
from ..config import InitConfig, LearnConfig, MixtureConfig, MixtureOptions, MovesConfig, moves_config
from ..core.suffstats import SuffStats
from ..data import BagOfWords
from ..data.documents import as_bag_of_words, holds_text
from ..learn import check_moves
from ..learn.registry import canonical
from ..models.mixture.gibbs_start import start_clusters
from ..models.mixture.init import initial_params
from ..parallel import open_executor
from ._checkpoint import open_checkpoint
from ._common import (ReportMixin, SavableMixin, as_generator, check_executor_for, check_feature_names,
                      check_fit_memory, check_n_features, check_prediction_memory, prepare_data)
from ._fitting import FitPlan, lookup_plan, run_plan, unless_interrupted, variational_plan
from .mixture_stream import StreamingMixture
from .mixture_use import FittedMixture
from ._options import AlgorithmOptionsMixin
from ..models.sampled import TruncationFreeDPMixture


#: ``n_components="auto"``: one initial cluster per this many items, between 1 and ``AUTO_MAX_COMPONENTS``.
AUTO_ITEMS_PER_COMPONENT = 100
AUTO_MAX_COMPONENTS = 100


def auto_components(n_items: int, items_per_component: int = AUTO_ITEMS_PER_COMPONENT) -> int:
    """The initial number of clusters of ``n_components="auto"``: over-complete for the data's size,
    so that merges and deletes prune it and births refine it (from one cluster, births alone stall
    at fewer clusters and a lower ELBO: ``benchmarks/mixture_moves.py``)."""
    return int(min(AUTO_MAX_COMPONENTS, max(1, n_items // items_per_component)))


def _variational(est, model, mixture_cfg, init_cfg, learn_cfg, data, rng) -> FitPlan:
    """VB, stochastic or memoized VI from a k-means++, random or (multinomials) collapsed Gibbs start."""
    with threadpool_limits(limits=1, user_api="blas"):
        params = initial_params(model, data.sample, mixture_cfg.n_components, init_cfg.method, rng,
                                init_cfg.n_kmeans_iters)
    if init_cfg.method == "gibbs":  # K learned by the start: the fit's memory for that K
        est._check_memory(params.n_components, data.batches.n_items, data.n_features, len(data.batches.index))
    return variational_plan(learn_cfg.algorithm, model, data.source, params, data.batches.data)


def _truncation_free(est, model, mixture_cfg, init_cfg, learn_cfg, data, rng) -> FitPlan:
    """Truncation-free SVI for the DP mixture of multinomials (Wang & Blei 2012, §2.3): from no
    clusters, each minibatch's labels sampled from the locally collapsed ``q``; new clusters on the
    fly. The result is the same ``q`` family as VB's (Dirichlet topics, Beta sticks), so prediction,
    scoring and saving are shared; ``n_components`` is unused."""
    if est.obs_model != "mult" or mixture_cfg.weights != "dp":
        raise ValueError("algorithm='truncation_free' is implemented for DPMixture(obs_model='mult') (documents); "
                         f"got {type(est).__name__}(obs_model={est.obs_model!r})")
    if mixture_cfg.learn_concentration:
        raise ValueError("algorithm='truncation_free' keeps the concentration fixed; learn_concentration=True needs "
                         "algorithm='vb', 'stochastic' or 'memoized'")
    eta = np.unique(model.obs_prior["lam"])
    if len(eta) != 1:
        raise ValueError("truncation-free SVI needs one pseudo_count for every word (a scalar obs_prior)")

    def as_mixture(tf):
        if tf.n_components == 0:
            raise ValueError("truncation-free SVI opened no cluster; pass more documents or more laps")
        fitted = make_mixture_model(replace(mixture_cfg, n_components=tf.n_components), obs_prior=model.obs_prior)
        return fitted, MixtureParams(tf.uids, {"lam": tf.lam}, {"eta1": tf.u, "eta0": tf.v})

    sampler = TruncationFreeDPMixture(float(eta[0]), float(mixture_cfg.concentration))
    return FitPlan("truncation_free", sampler, data.source, as_fitted=as_mixture, final_pass=data.batches.data,
                   rescore=True)  # lower_bound_: the exact ELBO of the final pass (the trace holds per-item estimates)


#: How a mixture trains under each algorithm.
MIXTURE_PLANS = {"vb": _variational, "stochastic": _variational, "memoized": _variational,
                 "truncation_free": _truncation_free}


def mixture_parameters(**fields: str) -> str:
    """The Parameters after ``concentration`` and the Attributes of a mixture estimator's docstring,
    with the fields that differ between :class:`~stickbreak.DPMixture` and
    :class:`~stickbreak.FiniteMixture` filled in."""
    return _PARAMETERS_AFTER_CONCENTRATION % fields


def mixture_fit_settings(**fields: str) -> str:
    """:func:`mixture_parameters` from ``algorithm`` on: the fit's settings and the Attributes, for
    a mixture that names its observation prior its own way."""
    text = mixture_parameters(**fields)
    return "\n" + text[text.index("    algorithm : "):]


_PARAMETERS_AFTER_CONCENTRATION = """
    obs_prior : dict, optional
        Prior options of the observation model, e.g. ``{"covariance": 0.5, "dof": 10}`` for the
        Gaussians (``covariance``: the prior guess of a cluster's ``E[Lambda]^-1``), ``{"pseudo_count":
        0.1}`` for ``"mult"`` or ``{"pseudo_count_one": 1, "pseudo_count_zero": 1}`` for ``"bern"``;
        see each module of :mod:`stickbreak.obs`. None: the family's defaults, set from the data.
    algorithm : {"vb", "stochastic" (alias "svi"), "memoized", "truncation_free"}, default="%(algorithm)s"
        Full-batch coordinate ascent VB, stochastic VI (Hoffman et al. 2013), memoized VI (Hughes
        2016, Ch. 4; the only one with ``moves``) or, for ``DPMixture(obs_model="mult")`` only,
        truncation-free SVI (Wang & Blei 2012, starting from no clusters; ``n_components`` unused).
    algorithm_options : dict, optional
        Fields of :class:`stickbreak.config.MixtureOptions`: ``learning_rate_delay`` and
        ``learning_rate_decay`` (tau, kappa; default 10 and 0.7), the stochastic VI step
        ``(tau + t)^-kappa``, and ``sampling`` (``"without_replacement"``, the default, or
        ``"with_replacement"``), how the minibatches of "stochastic" and "truncation_free" are drawn.
    moves : sequence of {"birth", "merge", "delete"}, optional
        Memoized VI only: births split clusters, merges join pairs and deletes absorb small clusters
        into the others, each accepted only when the exact whole-data ELBO rises (Hughes 2016, Ch. 4).
        %(moves)s ``()`` for none.
    move_options : dict, optional
        Fields of :class:`stickbreak.config.MovesConfig`, e.g. ``{"merge_max_pairs": 50}``.
    init : {"kmeans++", "random", "gibbs"}, default="%(init)s"
        First clusters: Bregman k-means++ seeding followed by ``n_kmeans_iters`` hard k-means steps
        (Hughes 2016, §2.7), ``n_components`` random items, or (DP mixtures of word counts) the
        partition that 10 sweeps of the model's collapsed Gibbs sampler reach from the documents
        dealt at random among ``n_components`` ("auto": one per 10 documents, at most 1,000), as many
        clusters as it ends with (:mod:`stickbreak.models.mixture.gibbs_start`).
    n_kmeans_iters : int, default=3
        Hard k-means steps after the k-means++ seeding (0: each item joins its nearest seed).
    max_laps : int, default=%(max_laps)s
        Most passes over the data.
    min_laps : int, default=2
        Fewest passes before the fit may stop as converged.
    tol : float, default=1e-6
        Stop when the relative change of the ELBO over a lap falls below ``tol`` (0: run all
        ``max_laps`` laps).
    n_batches : int, default=1
        Batches (memoized VI) or minibatches per lap (stochastic and truncation-free VI) the data are
        split into; every batch is one local step.
    n_jobs : int, default=1
        Threads for the local steps (a positive integer; ``-1`` is not accepted here), or worker
        processes with ``executor``.
    executor : None, "threads", "processes", "dask", a scheduler address or a ``distributed.Client``
        Where the local steps run (:mod:`stickbreak.parallel`): the driver's threads (None, the
        default), ``n_jobs`` local worker processes, a Dask ``LocalCluster`` of ``n_jobs`` workers,
        or an existing Dask cluster. The workers hold the data, each batch split among them.
        Memoized VI's laps go batch by batch on threads and are synchronous on processes and Dask
        (one call and one global step per lap, :mod:`stickbreak.learn.memo_sync`); executors with
        the same schedule give the same fit up to round-off. Moves are decided on the driver.
    n_active : int, optional
        At most this many clusters per item get a non-zero responsibility (L-sparse local step,
        Hughes 2016, Ch. 7): each item keeps its top ``n_active`` clusters, which is exactly
        optimal under that constraint and faster for large ``n_components``. None: dense.
    learn_concentration : bool, default=False
        Set the concentration by empirical Bayes: every global step alternates the update of the
        weights' posterior with ``%(learned)s`` to their joint optimum, so the ELBO is maximised over
        it too; ``concentration`` is then where it starts and ``concentration_`` the value learned.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seed of the initialisation, the batches, the minibatches and the moves.
    verbose : int, default=0
        0 silent, 1 a progress bar.
    callbacks : list of callable, optional
        ``callback(lap_record, params)`` after every lap (``lap_record`` a
        :class:`stickbreak.driver.LapRecord`, read as ``lap_record.elbo`` or, like an entry of
        ``trace_``, ``lap_record["elbo"]``; ``params`` the current global parameters); returning
        True stops the fit (``stop_reason_ == "callback"``).

    Attributes
    ----------
    n_components_ : int
        Clusters of the final model (after the moves, if any).
    weights_ : ndarray of shape (n_components,)
        Expected mixture weights ``E[pi_k]``%(weights)s.
    concentration_ : float
        The concentration the final ELBO uses (learned with ``learn_concentration``).
    component_counts_ : ndarray of shape (n_components,)
        Expected number of training items per cluster.
    n_active_components_ : int
        Clusters with at least one expected training item.
    means_ : ndarray of shape (n_components, n_features)
        Posterior means of the clusters (``"gauss"``, ``"diag_gauss"``).
    covariances_ : ndarray of shape (n_components, n_features, n_features)
        ``E[Lambda_k]^-1`` of every cluster (``"gauss"``, ``"zero_mean_gauss"``); shape
        (n_components, n_features), the variances, for ``"diag_gauss"``.
    word_probs_ : ndarray of shape (n_components, n_features)
        Posterior-mean word probabilities of every cluster (``"mult"``).
    vocabulary_ : tuple of str or None
        The word of each feature (``"mult"`` fitted on raw text, token lists or a BagOfWords with
        a vocabulary; None otherwise); text given to ``predict`` is counted over it.
    probs_ : ndarray of shape (n_components, n_features)
        Posterior-mean probability of a 1 per cluster and feature (``"bern"``).
    labels_ : ndarray of shape (n_samples,)
        Most probable cluster of every training item under the final model (-1 for every item
        when a second Ctrl-C cut their labelling short).
    lower_bound_ : float
        Final ELBO in nats: the last lap's under VB and memoized VI, recomputed by an exact pass
        after the laps under stochastic VI; under truncation-free SVI, whose laps record no ELBO,
        the last lap's progressive log-likelihood per document.
    elbo_trace_ : ndarray of shape (n_iter,)
        The ``elbo`` of every lap's record (estimates under stochastic VI).
    trace_ : list of dict
        One record per lap: ``lap``, ``elbo`` and its ``terms``, ``n_components``, ``n_effective``,
        ``seconds`` since the start, ``exact``, the ``moves`` tried and accepted, ``bytes_moved``.
    n_iter_ : int
        Laps run.
    converged_ : bool
        Whether the fit stopped because the ELBO settled within ``tol``.
    interrupted_ : bool
        Whether a Ctrl-C stopped the fit (the model is then that of the last complete lap).
    stop_reason_ : {"converged", "max_laps", "callback", "interrupted"}
        Why the fit stopped.
    move_log_ : list of dict
        The moves memoized VI accepted, in order (empty for the other algorithms); saved with the
        model.
    n_features_in_ : int
        Number of features seen during :meth:`fit`.
    feature_names_in_ : ndarray of shape (n_features_in,)
        Column names of a DataFrame ``X`` (only then).
    params_, stats_, model_ : object
        The variational parameters, the whole-data sufficient statistics and the functional model
        (:mod:`stickbreak.models.mixture`), for the library's own functions.
"""


class MixtureEstimator(AlgorithmOptionsMixin, FittedMixture, StreamingMixture, SavableMixin, ReportMixin, DensityMixin,
                       ClusterMixin, BaseEstimator):
    """Shared shell of :class:`~stickbreak.DPMixture` and :class:`~stickbreak.FiniteMixture` (settings and
    ``fit``; the fitted model's methods are :class:`.mixture_use.FittedMixture`'s); subclasses set
    ``_weight_model``."""

    report_kind = "mixture"

    _weight_model = "dp"
    _options_class = MixtureOptions
    #: What ``moves=None`` runs under memoized VI.
    _default_moves: tuple = ()
    #: ``n_components="auto"`` starts with one component per this many items.
    _auto_items_per_component = AUTO_ITEMS_PER_COMPONENT

    def __init__(self, n_components=20, *, obs_model="gauss", concentration=1.0, obs_prior=None,
                 algorithm="vb", algorithm_options=None, moves=None, move_options=None, init="kmeans++",
                 n_kmeans_iters=3, max_laps=200, min_laps=2, tol=1e-6, n_batches=1, n_jobs=1, executor=None,
                 n_active=None,
                 learn_concentration=False, random_state=None, verbose=0, callbacks=None):
        self.n_components = n_components
        self.learn_concentration = learn_concentration
        self.n_active = n_active
        self.algorithm = algorithm
        self.algorithm_options = algorithm_options
        self.moves = moves
        self.move_options = move_options
        self.obs_model = obs_model
        self.concentration = concentration
        self.obs_prior = obs_prior
        self.init = init
        self.n_kmeans_iters = n_kmeans_iters
        self.max_laps = max_laps
        self.min_laps = min_laps
        self.tol = tol
        self.n_batches = n_batches
        self.n_jobs = n_jobs
        self.executor = executor
        self.random_state = random_state
        self.verbose = verbose
        self.callbacks = callbacks

    # ------------------------------------------------------------------ configuration
    def _configs(self, n_items: int | None = None) -> tuple[MixtureConfig, InitConfig, LearnConfig, MovesConfig]:
        """The configurations; ``n_components="auto"`` resolves against ``n_items`` (one cluster
        when the data size is not known, e.g. to rebuild a saved model)."""
        n_components = self.n_components
        if isinstance(n_components, str) and n_components == "auto":
            n_components = (1 if n_items is None else start_clusters(n_items) if self.init == "gibbs"
                            else auto_components(n_items, self._auto_items_per_component))
        mixture = MixtureConfig(
            obs_model=self.obs_model, weights=self._weight_model, n_components=n_components,
            concentration=self.concentration, obs_prior=dict(self.obs_prior or {}), n_active=self.n_active,
            learn_concentration=self.learn_concentration,
        )
        init = InitConfig(method=self.init, n_kmeans_iters=self.n_kmeans_iters)
        options = self._options()
        learn = LearnConfig(algorithm=self.algorithm, max_laps=self.max_laps, min_laps=self.min_laps, tol=self.tol,
                            n_batches=self.n_batches, n_jobs=self.n_jobs,
                            learning_rate_delay=options.learning_rate_delay,
                            learning_rate_decay=options.learning_rate_decay, sampling=options.sampling)
        moves = moves_config(self.moves, self.move_options, owner=type(self).__name__, algorithm=learn.algorithm,
                             default_moves=self._default_moves)
        check_moves(learn.algorithm, moves.moves)
        return mixture, init, learn, moves

    def _validated(self, X):
        """Prediction input, checked against the fitted model."""
        check_is_fitted(self, "params_")
        check_feature_names(self, X, reset=False)
        data = obs.get(self.obs_model).check_data(self._counted(X, self.vocabulary_), "X")
        check_n_features(self, data.n_features)
        check_prediction_memory(type(self).__name__, data.n_items, self.params_.n_components)
        return data

    def _counted(self, X, vocabulary=None):
        """Raw text and token lists of a multinomial mixture counted as the topic models count them
        (:func:`~stickbreak.data.as_bag_of_words`; over ``vocabulary``, the fitted one, when given);
        any other input as given."""
        if self.obs_model == "mult" and holds_text(X):
            return as_bag_of_words(X, empty="keep", tokens_over=vocabulary)
        return X

    # ------------------------------------------------------------------ fitting
    def _check_memory(self, n_components: int, n_items: int, n_features: int, n_batches: int) -> None:
        """Per component a D x D scale (D for the other families) in a few copies; per batch an
        items x components responsibility matrix and its logs; components x components pair scores."""
        per_component = n_features * n_features if self.obs_model == "gauss" else n_features
        check_fit_memory(type(self).__name__,
                         n_components * (6 * per_component + 3 * -(-n_items // n_batches) + n_components),
                         f"lower n_components (now {n_components})" + (" or raise n_batches" if n_batches == 1 else "")
                         + ".")

    def fit(self, X, y=None, *, checkpoint=None):
        """Fit the mixture from a k-means++ (or random) start by the chosen ``algorithm``.

        Every setting and the data are checked before any work starts.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), sparse matrix or ShardStore
            The items: a dense array (a pandas DataFrame keeps its column names), a scipy sparse
            matrix of word counts for ``obs_model="mult"`` (or of binary features for ``"bern"``,
            densified), or a :class:`~stickbreak.ShardStore` of batches on disk for data larger than
            memory (the prior defaults and the initialisation then use a sample of up to 20,000
            items). ``"mult"`` also takes documents as raw text or token lists (one cluster per
            document: short texts), counted as the topic models count them (``vocabulary_``).
        y : None
            Ignored; for scikit-learn's API.
        checkpoint : str, path-like or CheckpointDir, optional
            A directory where the fit's state is saved after every lap (and, under memoized and
            stochastic VI, within long laps; see :class:`~stickbreak.CheckpointDir`), to be
            continued by :func:`stickbreak.resume` after a crash; algorithms "vb", "stochastic" and
            "memoized". The directory must not hold a checkpoint already.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        build = lookup_plan(MIXTURE_PLANS, canonical(self.algorithm), type(self).__name__, lambda a: f"algorithm={a!r}")
        mixture_cfg, init_cfg, learn_cfg, moves_cfg = self._configs()
        check_executor_for(self.algorithm, self.executor)
        rng = as_generator(self.random_state)
        with open_checkpoint(self, checkpoint, rng) as session:
            check_feature_names(self, X, reset=True)
            X = self._counted(X)
            data = prepare_data(X, obs.get(self.obs_model), learn_cfg, rng)
            if session is not None:
                session.check_data(data.whole)
            mixture_cfg = self._configs(data.batches.n_items)[0]
            # the batches are the shards for a ShardStore (n_batches is then unused), else n_batches; a
            # learned start ("gibbs") is checked again with the K it found (it usually ends far below its start)
            self._check_memory(min(mixture_cfg.n_components, AUTO_MAX_COMPONENTS) if init_cfg.method == "gibbs"
                               else mixture_cfg.n_components, data.batches.n_items, data.n_features,
                               len(data.batches.index))
            model = make_mixture_model(mixture_cfg, data.sample)
            plan = build(self, model, mixture_cfg, init_cfg, learn_cfg, data, rng)
            with open_executor(self.executor, learn_cfg.n_jobs) as executor:
                fitted = run_plan(plan, learn_cfg, moves_cfg, rng, owner=type(self).__name__,
                                  callbacks=self.callbacks, verbose=self.verbose, executor=executor, checkpoint=session)
        labels, cut = unless_interrupted(lambda: driver.predict_labels(fitted.model, fitted.params, data.batches),
                                         lambda: np.full(data.batches.n_items, -1), "the labelling of the "
                                         "training items: labels_ is -1 for every item (predict(X) gives them)")
        self.n_features_in_ = data.n_features
        self.vocabulary_ = X.vocabulary if isinstance(X, BagOfWords) else None
        self._set_fitted(fitted.model, fitted.params, fitted.stats, fitted.trace,
                         "interrupted" if cut else fitted.result.stop_reason, labels, fitted.lower_bound,
                         fitted.accepted_moves)
        return self

    def _set_fitted(self, model, params: MixtureParams, stats: SuffStats, trace, stop_reason: str, labels,
                    lower_bound: float | None = None, move_log=()):
        self.model_ = model
        self._stream_window = None  # partial_fit's recent items (StreamingMixture), none after fit or load
        self.move_log_ = list(move_log)
        self.labels_ = labels
        self.params_ = params
        self.stats_ = stats
        self.trace_ = trace
        self.stop_reason_ = stop_reason
        self.converged_ = stop_reason == "converged"
        self.interrupted_ = stop_reason == "interrupted"
        self.n_iter_ = len(trace)
        self.lower_bound_ = trace[-1]["elbo"] if lower_bound is None else lower_bound
        self.elbo_trace_ = np.array([r["elbo"] for r in trace])
        self.weights_ = model.weights.expected_weights(params.weights)
        self.concentration_ = float(model.weights.concentration(model.weights_prior, params.weights))
        self.component_counts_ = stats.counts.copy()
        self.n_components_ = params.n_components
        self.n_active_components_ = int(np.sum(stats.counts >= driver.EFFECTIVE_COUNT))
        for name, value in model.obs.summary(params.obs).items():
            setattr(self, f"{name}_", value)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.obs_model in ("mult", "bern")  # bern densifies sparse input
        tags.non_deterministic = False
        return tags
