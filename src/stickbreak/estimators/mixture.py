"""scikit-learn style estimators for DP and finite mixtures (thin shells over the functional core).

>>> from stickbreak import DPMixture, datasets
>>> X = datasets.load("old_faithful").X
>>> model = DPMixture(n_components=10, random_state=0).fit(X)
>>> labels = model.predict(X)
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, DensityMixin
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .. import driver, obs, persist
from ..models.mixture.model import MixtureParams
from ..models import make_mixture_model
from ..config import InitConfig, LearnConfig, MixtureConfig, MixtureOptions, MovesConfig, moves_config
from ..core.sparse_resp import to_dense
from ..core.suffstats import SuffStats
from ..learn import check_moves
from ..learn.registry import canonical
from ..models.mixture.init import initial_params
from ..parallel import open_executor
from ._checkpoint import open_checkpoint
from ._common import (ReportMixin, SavableMixin, as_generator, check_executor_for, check_feature_names,
                      check_fit_memory, check_n_features, prepare_data)
from ._fitting import FitPlan, lookup_plan, run_plan, unless_interrupted, variational_plan
from ._mixture_docs import DP_DOC, FINITE_DOC
from ._options import AlgorithmOptionsMixin
from ..models.mixture.truncation_free import TruncationFreeDPMixture


#: ``n_components="auto"``: one initial cluster per this many items, between 1 and ``AUTO_MAX_COMPONENTS``.
AUTO_ITEMS_PER_COMPONENT = 100
AUTO_MAX_COMPONENTS = 100


def auto_components(n_items: int) -> int:
    """The initial number of clusters of ``n_components="auto"``: over-complete for the data's size,
    so that merges and deletes prune it and births refine it (from one cluster, births alone stall
    at fewer clusters and a lower ELBO: ``benchmarks/mixture_moves.py``)."""
    return int(min(AUTO_MAX_COMPONENTS, max(1, n_items // AUTO_ITEMS_PER_COMPONENT)))


def _variational(est, model, mixture_cfg, init_cfg, learn_cfg, data, rng) -> FitPlan:
    """VB, stochastic or memoized VI from a k-means++ (or random) start."""
    with threadpool_limits(limits=1, user_api="blas"):
        params = initial_params(model, data.sample, mixture_cfg.n_components, init_cfg.method, rng,
                                init_cfg.n_kmeans_iters)
    return variational_plan(learn_cfg.algorithm, model, data.source, params, data.batches.data)


def _truncation_free(est, model, mixture_cfg, init_cfg, learn_cfg, data, rng) -> FitPlan:
    """Truncation-free SVI for the DP mixture of multinomials (Wang & Blei 2012, §2.3): from no
    clusters, each minibatch's labels sampled from the locally collapsed ``q``; new clusters on the
    fly. The result is the same ``q`` family as VB's (Dirichlet topics, Beta sticks), so prediction,
    scoring and saving are shared; ``n_components`` is unused."""
    if est.obs_model != "mult" or mixture_cfg.weights != "dp":
        raise ValueError("algorithm='truncation_free' is implemented for DPMixture(obs_model='mult') (documents); "
                         f"got {type(est).__name__}(obs_model={est.obs_model!r})")
    eta = np.unique(model.obs_prior["lam"])
    if len(eta) != 1:
        raise ValueError("truncation-free SVI needs one pseudo_count for every word (a scalar obs_prior)")

    def as_mixture(tf):
        if tf.n_components == 0:
            raise ValueError("truncation-free SVI opened no cluster; pass more documents or more laps")
        fitted = make_mixture_model(replace(mixture_cfg, n_components=tf.n_components), obs_prior=model.obs_prior)
        return fitted, MixtureParams(tf.uids, {"lam": tf.lam}, {"eta1": tf.u, "eta0": tf.v})

    sampler = TruncationFreeDPMixture(float(eta[0]), float(mixture_cfg.concentration))
    return FitPlan("truncation_free", sampler, data.source, as_fitted=as_mixture, final_pass=data.batches.data)


#: How a mixture trains under each algorithm.
MIXTURE_PLANS = {"vb": _variational, "stochastic": _variational, "memoized": _variational,
                 "truncation_free": _truncation_free}


class _MixtureEstimator(AlgorithmOptionsMixin, SavableMixin, ReportMixin, DensityMixin, ClusterMixin, BaseEstimator):
    """Shared shell of :class:`DPMixture` and :class:`FiniteMixture`; subclasses set ``_weight_model``."""

    report_kind = "mixture"

    _weight_model = "dp"
    _options_class = MixtureOptions
    #: What ``moves=None`` runs under memoized VI.
    _default_moves: tuple = ()

    def __init__(self, n_components=20, *, obs_model="gauss", concentration=1.0, obs_prior=None,
                 algorithm="vb", algorithm_options=None, moves=None, move_options=None, init="kmeans++",
                 n_kmeans_iters=3, max_laps=200, min_laps=2, tol=1e-6, n_batches=1, n_jobs=1, executor=None, n_active=None,
                 learn_concentration=False, random_state=None, verbose=0, callbacks=None, **option_keywords):
        self.n_components = n_components
        self.learn_concentration = learn_concentration
        self.n_active = n_active
        self.algorithm = algorithm
        self.algorithm_options = self._with_legacy(algorithm_options, option_keywords)
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
            n_components = 1 if n_items is None else auto_components(n_items)
        mixture = MixtureConfig(
            obs_model=self.obs_model, weights=self._weight_model, n_components=n_components,
            concentration=self.concentration, obs_prior=dict(self.obs_prior or {}), n_active=self.n_active,
            learn_concentration=self.learn_concentration,
        )
        init = InitConfig(method=self.init, n_kmeans_iters=self.n_kmeans_iters)
        options = self._options()
        learn = LearnConfig(algorithm=self.algorithm, max_laps=self.max_laps, min_laps=self.min_laps, tol=self.tol,
                            n_batches=self.n_batches, n_jobs=self.n_jobs, learning_rate_delay=options.learning_rate_delay,
                            learning_rate_decay=options.learning_rate_decay, sampling=options.sampling)
        moves = moves_config(self.moves, self.move_options, owner=type(self).__name__, algorithm=learn.algorithm,
                             default_moves=self._default_moves)
        check_moves(learn.algorithm, moves.moves)
        return mixture, init, learn, moves

    def _validated(self, X):
        """Prediction input, checked against the fitted model."""
        check_is_fitted(self, "params_")
        check_feature_names(self, X, reset=False)
        data = obs.get(self.obs_model).check_data(X, "X")
        check_n_features(self, data.n_features)
        return data

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
            items).
        y : None
            Ignored; for scikit-learn's API.
        checkpoint : str, path-like or CheckpointDir, optional
            A directory where the fit's state is saved after every lap (and, under memoized and
            stochastic VI, within long laps; see :class:`~stickbreak.CheckpointDir`), to be continued by :func:`stickbreak.resume` after a crash; algorithms "vb",
            "stochastic" and "memoized". The directory must not hold a checkpoint already.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        build = lookup_plan(MIXTURE_PLANS, canonical(self.algorithm), type(self).__name__, lambda a: f"algorithm={a!r}")
        mixture_cfg, init_cfg, learn_cfg, moves_cfg = self._configs()
        check_executor_for(self.algorithm, self.executor)
        rng = as_generator(self.random_state)
        session = open_checkpoint(self, checkpoint, rng)
        check_feature_names(self, X, reset=True)
        data = prepare_data(X, obs.get(self.obs_model), learn_cfg, rng)
        if session is not None:
            session.check_data(data.whole)
        mixture_cfg = self._configs(data.batches.n_items)[0]
        # the batches are the shards for a ShardStore (n_batches is then unused), else n_batches
        self._check_memory(mixture_cfg.n_components, data.batches.n_items, data.n_features, len(data.batches.index))
        model = make_mixture_model(mixture_cfg, data.sample)
        plan = build(self, model, mixture_cfg, init_cfg, learn_cfg, data, rng)
        with open_executor(self.executor, learn_cfg.n_jobs) as executor:
            fitted = run_plan(plan, learn_cfg, moves_cfg, rng, owner=type(self).__name__,
                              callbacks=self.callbacks, verbose=self.verbose, executor=executor, checkpoint=session)
        labels, cut = unless_interrupted(lambda: driver.predict_labels(fitted.model, fitted.params, data.batches),
                                         lambda: np.full(data.batches.n_items, -1), "the labelling of the "
                                         "training items: labels_ is -1 for every item (predict(X) gives them)")
        self.n_features_in_ = data.n_features
        self._set_fitted(fitted.model, fitted.params, fitted.stats, fitted.trace,
                         "interrupted" if cut else fitted.result.stop_reason, labels, fitted.lower_bound,
                         fitted.accepted_moves)
        return self

    def _set_fitted(self, model, params: MixtureParams, stats: SuffStats, trace, stop_reason: str, labels,
                    lower_bound: float | None = None, move_log=()):
        self.model_ = model
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

    # ------------------------------------------------------------------ prediction
    def predict_proba(self, X) -> np.ndarray:
        """Responsibilities ``q(z_n = k)`` of every item for every cluster.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or sparse matrix
            Items of the kind the model was fitted on.

        Returns
        -------
        resp : ndarray of shape (n_samples, n_components)
            Dense responsibilities; each row sums to 1 (with ``n_active``, at most that many
            non-zeros per row).
        """
        data = self._validated(X)
        return to_dense(self.model_.local_step(self.params_, data).resp)

    def predict(self, X) -> np.ndarray:
        """Most probable cluster of each item (the largest responsibility).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or sparse matrix
            Items of the kind the model was fitted on.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster index of each item, in ``range(n_components_)``.
        """
        return np.argmax(self.predict_proba(X), axis=1)

    def score_samples(self, X) -> np.ndarray:
        """Log posterior predictive density ``log p(x_n | training data)`` of each item, in nats.

        Each cluster's posterior predictive (Student-t for the Gaussians, Dirichlet-multinomial for
        ``"mult"``, Beta-Bernoulli for ``"bern"``) weighted by ``E[pi_k]``; for the DP the stick
        mass beyond the truncation goes to a fresh cluster at its prior.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or sparse matrix
            Items of the kind the model was fitted on.

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            ``log p(x_n | training data)`` of each item.
        """
        data = self._validated(X)
        return self.model_.log_predictive(self.params_, data)

    def score(self, X, y=None, *, total: bool = False) -> float:
        """Mean log posterior predictive density per item, in nats (higher is better).

        The same convention in every family of stickbreak: a mean per item (frame, held-out word).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or sparse matrix
            Items of the kind the model was fitted on.
        y : None
            Ignored; for scikit-learn's API.
        total : bool, default=False
            Return the sum over the items instead of their mean.

        Returns
        -------
        score : float
            Mean (or, with ``total``, summed) :meth:`score_samples`.
        """
        scores = self.score_samples(X)
        return float(np.sum(scores) if total else np.mean(scores))

    # ------------------------------------------------------------------ persistence
    def save(self, path):
        """Save the fitted model to one ``.npz`` file of arrays with JSON metadata (no pickle).

        The file holds the variational parameters, the priors, the training labels and statistics,
        the trace and the constructor parameters (callbacks, a Generator ``random_state`` and a
        live executor are not saved), with a SHA-256 digest; :func:`stickbreak.load` or
        :meth:`load` reads it back.

        Parameters
        ----------
        path : str or path-like
            Where to write; ``.npz`` is appended when missing and missing directories are made.

        Returns
        -------
        path : pathlib.Path
            The path written.
        """
        check_is_fitted(self, "params_")
        params = self._saved_params()
        arrays = {
            **persist.prefixed("obs_prior.", self.model_.obs_prior),
            **persist.prefixed("obs.", self.params_.obs),
            **persist.prefixed("weights.", self.params_.weights),
            "uids": self.params_.uids,
            "labels": self.labels_,
            **self.stats_.to_arrays("stats."),
        }
        extra = {"trace": self.trace_, "stop_reason": self.stop_reason_, "lower_bound": float(self.lower_bound_),
                 "move_log": self.move_log_, **self._input_extra()}
        return persist.save_model(path, type(self).__name__, params, arrays, extra)

    @classmethod
    def _from_saved(cls, meta, arrays):
        est = cls._from_params(meta["params"])
        mixture_cfg = est._configs()[0]
        model = make_mixture_model(mixture_cfg, obs_prior=persist.nested_arrays(arrays, "obs_prior."))
        params = MixtureParams(arrays["uids"], persist.nested_arrays(arrays, "obs."),
                               persist.nested_arrays(arrays, "weights."))
        extra = meta["extra"]
        est._restore_input(extra)
        est._set_fitted(model, params, SuffStats.from_arrays(arrays, "stats."), extra["trace"], extra["stop_reason"],
                        arrays["labels"], extra.get("lower_bound"), extra.get("move_log", ()))  # older files kept neither
        return est

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.obs_model in ("mult", "bern")  # bern densifies sparse input
        tags.non_deterministic = False
        return tags


@persist.register
class DPMixture(_MixtureEstimator):
    __doc__ = DP_DOC

    _weight_model = "dp"
    _default_moves = ("birth", "merge", "delete")

    def __init__(self, n_components="auto", *, obs_model="gauss", concentration=1.0, obs_prior=None,
                 algorithm="memoized", algorithm_options=None, moves=None, move_options=None, init="kmeans++",
                 n_kmeans_iters=3, max_laps=200, min_laps=2, tol=1e-6, n_batches=1, n_jobs=1, executor=None, n_active=None,
                 learn_concentration=False, random_state=None, verbose=0, callbacks=None, **option_keywords):
        super().__init__(n_components, obs_model=obs_model, concentration=concentration, obs_prior=obs_prior,
                         algorithm=algorithm, algorithm_options=algorithm_options, moves=moves,
                         move_options=move_options, init=init, n_kmeans_iters=n_kmeans_iters, max_laps=max_laps,
                         min_laps=min_laps, tol=tol, n_batches=n_batches, n_jobs=n_jobs, executor=executor, n_active=n_active,
                         learn_concentration=learn_concentration, random_state=random_state, verbose=verbose, callbacks=callbacks, **option_keywords)


@persist.register
class FiniteMixture(_MixtureEstimator):
    __doc__ = FINITE_DOC

    _weight_model = "finite"
