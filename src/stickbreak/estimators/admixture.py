"""scikit-learn style HDP admixtures of any observation family: :class:`HDPAdmixture` (a shell over
:class:`stickbreak.models.topics.admixture.Admixture`; Hughes 2016, Ch. 5, image patches grouped
by image). Groups are passed the way hmmlearn passes sequences: ``fit(X, lengths)`` with the items
of all groups stacked in ``X`` and ``lengths`` the number of items of each group (their order
inside a group does not matter to the fit), or a list of 2-D arrays, one per group.

>>> import numpy as np
>>> from stickbreak import HDPAdmixture
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(600, 4)) * np.repeat([[1, 1, 1, 1], [3, .3, 1, 1], [.3, 3, 1, 1]], 200, axis=0)
>>> model = HDPAdmixture(n_topics=10, random_state=0).fit(X, lengths=[50] * 12)
>>> model.topic_proportions(X, lengths=[50] * 12).shape  # the moves kept 3 of the 10 topics
(12, 3)
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .. import driver, persist
from ..config import LearnConfig, check_choice, check_int, moves_config
from ..core.validate import check_positive
from ..core.suffstats import SuffStats
from ..data import DenseData, Sequences
from ..learn import check_moves
from ..models.mixture.init import initial_params as mixture_initial_params
from ..models.mixture.model import MixtureModel
from ..models.topics.admixture import UNSUPPORTED, Admixture
from ..models.topics.options import START_NAMES, LocalOptions
from ..priors import MIXTURE_WEIGHTS, topic_hdp
from ._admixture_docs import ADMIXTURE_DOC
from ._common import ReportMixin, SavableMixin, as_generator, checked_family, chunks_for, check_feature_names, check_fit_memory, check_n_features, check_n_jobs, numba_threads
from ._fitting import run_plan, variational_plan
from .hmm import as_sequences

#: Observation models whose items are single rows of ``X``.
ADMIXTURE_OBS_MODELS = ("gauss", "diag_gauss", "zero_mean_gauss", "bern")
ADMIXTURE_ALGORITHMS = ("memoized", "vb")
ADMIXTURE_INITS = ("kmeans++", "random")
#: Moves memoized VI makes on the topics (all of them by default).
ADMIXTURE_MOVES = ("birth", "merge", "delete")


@persist.register
class HDPAdmixture(SavableMixin, ReportMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    __doc__ = ADMIXTURE_DOC

    report_kind = "admixture"

    def __init__(self, n_topics=50, *, obs_model="zero_mean_gauss", obs_prior=None, concentration=10.0,
                 doc_topic_prior=0.5, algorithm="memoized", n_batches=1, moves=None, move_options=None,
                 init="kmeans++", local_start="scratch",
                 local_max_iter=100, local_tol=0.05, max_laps=100, min_laps=2, tol=1e-6, random_state=None,
                 verbose=0, n_jobs=1, callbacks=None):
        self.n_topics = n_topics
        self.obs_model = obs_model
        self.obs_prior = obs_prior
        self.concentration = concentration
        self.doc_topic_prior = doc_topic_prior
        self.algorithm = algorithm
        self.n_batches = n_batches
        self.moves = moves
        self.move_options = move_options
        self.init = init
        self.local_start = local_start
        self.local_max_iter = local_max_iter
        self.local_tol = local_tol
        self.max_laps = max_laps
        self.min_laps = min_laps
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.callbacks = callbacks

    # ------------------------------------------------------------------ configuration
    def _family(self):
        name = str(self.obs_model)
        return checked_family(name, self.obs_prior, ADMIXTURE_OBS_MODELS,
                              f"is not supported by HDPAdmixture ({UNSUPPORTED.get(name, 'not a family of single items')})")

    def _configs(self):
        """``(learn config, moves config, local options)``, checking every setting before any data are read."""
        check_int("n_topics", self.n_topics, 1)
        self._family()
        check_positive("concentration", self.concentration)
        check_positive("doc_topic_prior", self.doc_topic_prior)
        check_positive("local_tol", self.local_tol)
        check_int("local_max_iter", self.local_max_iter, 1)
        check_choice("algorithm", self.algorithm, ADMIXTURE_ALGORITHMS)
        check_choice("init", self.init, ADMIXTURE_INITS)
        check_choice("local_start", self.local_start, START_NAMES)
        check_n_jobs(self.n_jobs)
        learn = LearnConfig(algorithm=self.algorithm, max_laps=self.max_laps, min_laps=self.min_laps, tol=self.tol,
                            n_batches=self.n_batches)
        moves = moves_config(self.moves, self.move_options, ADMIXTURE_MOVES, type(self).__name__,
                             algorithm=self.algorithm, default_moves=ADMIXTURE_MOVES)
        check_moves(learn.algorithm, moves.moves)
        return learn, moves, LocalOptions(max_iter=int(self.local_max_iter), tol=float(self.local_tol),
                                          start=self.local_start, n_chunks=chunks_for(self.n_jobs))

    def _make_model(self, items: DenseData | None, local: LocalOptions, obs_prior=None) -> Admixture:
        """The model, its observation prior from ``items`` and ``obs_prior`` options, or given (a saved model's)."""
        family = self._family()
        prior = topic_hdp.default_prior(float(self.doc_topic_prior), float(self.concentration))
        if obs_prior is None:
            obs_prior = family.default_prior(items, **dict(self.obs_prior or {}))
        return Admixture(family, obs_prior, topic_hdp, prior, local)

    def _initial(self, model: Admixture, seqs: Sequences, items: DenseData, rng: np.random.Generator):
        """Topics from the items alone, as a mixture of the family would start (k-means++ or random items)."""
        mixture = MixtureModel(model.obs, model.obs_prior, MIXTURE_WEIGHTS["dp"], MIXTURE_WEIGHTS["dp"].default_prior(1.0))
        topics = mixture_initial_params(mixture, items, int(self.n_topics), self.init, rng).obs
        return model.initial_params(topics, seqs.n_items)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None, *, lengths=None):
        """Fit the admixture to groups of items.

        Every setting and the data are checked before any work starts.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), list of arrays or Sequences
            The items of all groups stacked, in group order, with ``lengths``; or a list of 2-D
            arrays, one per group; or a :class:`~stickbreak.Sequences`.
        lengths : array-like of int of shape (n_groups,), optional
            Items per group, in order, summing to ``n_samples`` (with a stacked ``X`` only);
            default: one group.
        y : None
            Ignored; for scikit-learn's API.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        learn_cfg, moves_cfg, local = self._configs()
        check_feature_names(self, X, reset=True)
        seqs = as_sequences(X, lengths, what="X")
        family = self._family()
        items = family.check_data(seqs.X)
        n_topics, dim = int(self.n_topics), seqs.n_features
        check_fit_memory(type(self).__name__, n_topics * (6 * seqs.n_frames + 6 * dim * dim),
                         f"lower n_topics (now {n_topics}).")
        if learn_cfg.n_batches > seqs.n_items:
            raise ValueError(f"n_batches={learn_cfg.n_batches} exceeds the number of groups ({seqs.n_items}): "
                             f"batches hold whole groups; use n_batches <= {seqs.n_items}")
        rng = as_generator(self.random_state)
        model = self._make_model(items, local)
        batches = driver.split_batches(seqs, learn_cfg.n_batches, int(rng.integers(2**31)))
        plan = variational_plan(learn_cfg.algorithm, model, batches.data, self._initial(model, seqs, items, rng),
                                batches.data)
        with numba_threads(self.n_jobs):
            fitted = run_plan(plan, learn_cfg, moves_cfg, rng,
                              owner=type(self).__name__, callbacks=self.callbacks, verbose=self.verbose)
        self.n_features_in_ = dim
        self._set_fitted(fitted.model, fitted.params, fitted.stats, fitted.trace, fitted.result.stop_reason,
                         fitted.lower_bound, fitted.accepted_moves)
        return self

    def _set_fitted(self, model: Admixture, params, stats, trace, stop_reason: str, lower_bound: float, moves):
        self.model_, self.params_, self.stats_ = model, params, stats
        self.trace_, self.stop_reason_, self.moves_ = trace, stop_reason, moves
        self.converged_ = stop_reason == "converged"
        self.n_iter_ = len(trace)
        self.lower_bound_ = float(lower_bound)
        self.n_topics_ = params.n_components
        self.topic_counts_ = stats.counts.copy()
        self.n_active_topics_ = int(np.sum(self.topic_counts_ >= driver.EFFECTIVE_COUNT))
        self.topic_weights_ = model.topic_weights(params)
        for name, value in model.obs.summary(params.obs).items():
            setattr(self, f"{name}_", value)

    # ------------------------------------------------------------------ using the model
    def _validated(self, X, lengths) -> Sequences:
        check_is_fitted(self, "params_")
        check_feature_names(self, X, reset=False)
        seqs = as_sequences(X, lengths, what="X")
        check_n_features(self, seqs.n_features)
        self.model_.obs.check_data(seqs.X)
        return seqs

    def _local(self, seqs: Sequences):
        with numba_threads(self.n_jobs):
            return self.model_.local_step(self.params_, seqs)

    def topic_proportions(self, X, lengths=None) -> np.ndarray:
        """Each group's expected topic proportions ``E[pi_dk]`` under the fitted topics.

        One local step per group (the topics fixed) gives its expected topic counts ``N_dk``;
        ``E[pi_dk] = (N_dk + alpha E[pi^G_k]) / (N_d + alpha)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), list of arrays or Sequences
            The items of all groups stacked, in group order, with ``lengths``; or a list of 2-D
            arrays, one per group; or a :class:`~stickbreak.Sequences`.
        lengths : array-like of int of shape (n_groups,), optional
            Items per group, in order, summing to ``n_samples`` (with a stacked ``X`` only);
            default: one group.

        Returns
        -------
        proportions : ndarray of shape (n_groups, n_topics)
            Each group's proportions; the mass beyond the model's topics, ``alpha E[pi^G_>K]``,
            is left out, so rows sum to slightly below 1.
        """
        seqs = self._validated(X, lengths)
        prior, prior_rest = self.model_.weights.pseudo_counts(self.model_.weights_prior, self.params_.weights)
        theta = self._local(seqs).doc_topic + prior[None, :]
        return theta / (theta.sum(axis=1, keepdims=True) + prior_rest)

    def transform(self, X, lengths=None) -> np.ndarray:
        """Each item's topic responsibilities within its group.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), list of arrays or Sequences
            The items of all groups stacked, in group order, with ``lengths``; or a list of 2-D
            arrays, one per group; or a :class:`~stickbreak.Sequences`.
        lengths : array-like of int of shape (n_groups,), optional
            Items per group, in order, summing to ``n_samples`` (with a stacked ``X`` only);
            default: one group.

        Returns
        -------
        resp : ndarray of shape (n_samples, n_topics)
            ``q(z_n = k)`` of every item; rows sum to 1.
        """
        return self._local(self._validated(X, lengths)).word_topic

    def fit_transform(self, X, y=None, *, lengths=None) -> np.ndarray:
        """Fit the admixture, then return :meth:`transform` of the same groups.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), list of arrays or Sequences
            The items of all groups stacked, in group order, with ``lengths``; or a list of 2-D
            arrays, one per group; or a :class:`~stickbreak.Sequences`.
        lengths : array-like of int of shape (n_groups,), optional
            Items per group, in order, summing to ``n_samples`` (with a stacked ``X`` only);
            default: one group.
        y : None
            Ignored; for scikit-learn's API.

        Returns
        -------
        resp : ndarray of shape (n_samples, n_topics)
            ``q(z_n = k)`` of every item under the fitted model; rows sum to 1.
        """
        return self.fit(X, lengths=lengths).transform(X, lengths=lengths)

    @property
    def _n_features_out(self) -> int:
        """One output column per topic (``get_feature_names_out``: hdpadmixture0, ...)."""
        return self.params_.n_components

    def predict(self, X, lengths=None) -> np.ndarray:
        """Each item's most responsible topic within its group.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), list of arrays or Sequences
            The items of all groups stacked, in group order, with ``lengths``; or a list of 2-D
            arrays, one per group; or a :class:`~stickbreak.Sequences`.
        lengths : array-like of int of shape (n_groups,), optional
            Items per group, in order, summing to ``n_samples`` (with a stacked ``X`` only);
            default: one group.

        Returns
        -------
        topics : ndarray of shape (n_samples,)
            The topic index of each item, in ``range(n_topics_)``.
        """
        return np.argmax(self.transform(X, lengths), axis=1)

    def score_samples(self, X, lengths=None) -> np.ndarray:
        """Held-out log predictive density of each item given the other half of its group, in nats.

        Document completion: each group's items at even positions (in the order given) fit its
        topic weights and score those at odd positions, and the other way round; an item's
        density mixes the topics' posterior predictives with the group's expected weights, plus
        the mass beyond the truncation at a fresh topic from the prior. A one-item group is
        scored under the corpus weights.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), list of arrays or Sequences
            The items of all groups stacked, in group order, with ``lengths``; or a list of 2-D
            arrays, one per group; or a :class:`~stickbreak.Sequences`.
        lengths : array-like of int of shape (n_groups,), optional
            Items per group, in order, summing to ``n_samples`` (with a stacked ``X`` only);
            default: one group.

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            ``log p(x_n | the other half of its group, training data)`` of each item.
        """
        seqs = self._validated(X, lengths)
        out = np.empty(seqs.n_frames)
        for parity in (0, 1):
            observed, scored = _halves(seqs, parity)
            weights = np.zeros((seqs.n_items, self.params_.n_components))
            if len(observed.kept):
                weights[observed.kept] = self._local(observed.groups).doc_topic
            out[scored.index] = self.model_.log_predictive(self.params_, scored.groups, weights[scored.kept])
        return out

    def score(self, X, y=None, *, lengths=None, total: bool = False) -> float:
        """Mean held-out log predictive density per item, in nats (higher is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), list of arrays or Sequences
            The items of all groups stacked, in group order, with ``lengths``; or a list of 2-D
            arrays, one per group; or a :class:`~stickbreak.Sequences`.
        y : None
            Ignored; for scikit-learn's API.
        lengths : array-like of int of shape (n_groups,), optional
            Items per group, in order, summing to ``n_samples`` (with a stacked ``X`` only);
            default: one group.
        total : bool, default=False
            Return the sum over items instead of the mean, as every estimator's ``score`` does.

        Returns
        -------
        score : float
            The mean (or, with ``total``, the sum) of :meth:`score_samples`.
        """
        values = self.score_samples(X, lengths)
        return float(np.sum(values) if total else np.mean(values))

    # ------------------------------------------------------------------ persistence
    def save(self, path):
        """Save the fitted model to one ``.npz`` file of arrays with JSON metadata (no pickle).

        The file holds the variational parameters, the priors, the statistics, the trace, the
        accepted moves and the constructor parameters (callbacks and a Generator
        ``random_state`` are not saved), with a SHA-256 digest; :func:`stickbreak.load` or
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
        arrays = {**persist.prefixed("obs_prior.", self.model_.obs_prior), **persist.prefixed("obs.", self.params_.obs),
                  **persist.prefixed("weights.", self.params_.weights), "uids": self.params_.uids,
                  **self.stats_.to_arrays("stats.")}
        extra = {"trace": self.trace_, "stop_reason": self.stop_reason_, "lower_bound": self.lower_bound_,
                 "moves": self.moves_, **self._input_extra()}
        return persist.save_model(path, type(self).__name__, self._saved_params(), arrays, extra)

    @classmethod
    def _from_saved(cls, meta, arrays):
        est = cls(**cls._loaded_params(meta))
        _, _, local = est._configs()
        model = est._make_model(None, local, obs_prior=persist.nested_arrays(arrays, "obs_prior."))
        fitted = model.make_params(arrays["uids"], persist.nested_arrays(arrays, "obs."),
                                   persist.nested_arrays(arrays, "weights."))
        extra = meta["extra"]
        est._restore_input(extra)
        est._set_fitted(model, fitted, SuffStats.from_arrays(arrays, "stats."), extra["trace"], extra["stop_reason"],
                        extra["lower_bound"], extra["moves"])
        return est


class _Part:
    """Some items of every group: ``groups`` (the non-empty ones, as :class:`Sequences`), which
    groups they are (``kept``) and the items' positions in the whole ``X`` (``index``)."""

    def __init__(self, seqs: Sequences, take: np.ndarray):
        group = np.repeat(np.arange(seqs.n_items), seqs.lengths)
        self.index = np.flatnonzero(take)
        sizes = np.bincount(group[self.index], minlength=seqs.n_items)
        self.kept = np.flatnonzero(sizes > 0)
        self.groups = Sequences(seqs.X[self.index], np.concatenate([[0], np.cumsum(sizes[self.kept])]))


def _halves(seqs: Sequences, parity: int) -> tuple[_Part, _Part]:
    """``(observed, scored)``: each group's items at positions of the other parity, and of ``parity``;
    a one-item group's item is scored with nothing observed."""
    position = np.arange(seqs.n_frames) - np.repeat(seqs.offsets[:-1], seqs.lengths)
    scored = position % 2 == parity
    return _Part(seqs, ~scored), _Part(seqs, scored)
