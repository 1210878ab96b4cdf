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

from .. import driver, persist
from ..config import LearnConfig, check_choice, check_int, moves_config
from ..core.validate import check_positive
from ..data import DenseData, Sequences
from ..learn import check_moves
from ..models.mixture.init import initial_params as mixture_initial_params
from ..models.mixture.model import MixtureModel
from ..models.topics.admixture import UNSUPPORTED, Admixture
from ..models.topics.options import START_NAMES, LocalOptions
from ..priors import MIXTURE_WEIGHTS, topic_hdp
from .admixture_use import GROUPS, FittedAdmixture
from ..core.docstrings import composed
from ._common import (ReportMixin, SavableMixin, as_generator, checked_family, chunks_for, check_feature_names,
                      check_fit_memory, check_n_jobs, numba_threads)
from ._fitting import run_plan, variational_plan
from .hmm_input import as_sequences

#: Observation models whose items are single rows of ``X``.
ADMIXTURE_OBS_MODELS = ("gauss", "diag_gauss", "zero_mean_gauss", "bern")
ADMIXTURE_ALGORITHMS = ("memoized", "vb")
ADMIXTURE_INITS = ("kmeans++", "random")
#: Moves memoized VI makes on the topics (all of them by default).
ADMIXTURE_MOVES = ("birth", "merge", "delete")


@persist.register
class HDPAdmixture(FittedAdmixture, SavableMixin, ReportMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                   BaseEstimator):
    """HDP admixture of any single-item observation model: topic models beyond word counts.

    Each group (an image, a document, a user) has its own topic weights ``pi_d ~ DP(alpha pi^G)``
    over corpus-level topics with weights ``pi^G ~ GEM(gamma)``; each item of the group comes
    from one topic, a component of ``obs_model`` (Teh et al. 2006). Fitted with the
    direct-assignment truncation and surrogate bound of Hughes (2016, Ch. 5), as
    :class:`~stickbreak.HDPTopicModel`, by memoized VI from ``n_topics`` topics with birth, merge
    and delete moves accepted on the exact ELBO, or by batch VB without moves: ``n_topics_``
    topics at the end, ``n_active_topics_`` of them holding at least one item's worth of mass.

    Parameters
    ----------
    n_topics : int, default=50
        Initial number of topics under memoized VI with moves; under "vb" (or ``moves=()``) the
        truncation level K, an upper bound.
    obs_model : {"zero_mean_gauss", "gauss", "diag_gauss", "bern"}, default="zero_mean_gauss"
        The observation model of a topic (one item = one row of ``X``): zero-mean Gaussian
        (Wishart prior on the precision; e.g. image patches), full- or diagonal-covariance
        Gaussian, or independent binary features.
    obs_prior : dict, optional
        Prior options of the observation model, e.g. ``{"covariance": 0.5, "dof": 10}``; see each
        module of :mod:`stickbreak.obs`. None: the family's defaults, set from the data.
    concentration : float, default=10.0
        Top-level stick concentration gamma (``u_k ~ Beta(1, gamma)``); larger favours more topics.
    doc_topic_prior : float, default=0.5
        Group concentration alpha of ``pi_d ~ DP(alpha pi^G)``.
    algorithm : {"memoized", "vb"}, default="memoized"
        Memoized VI (Hughes 2016, Alg. 5.5; the only one with moves) or full-batch coordinate ascent.
    n_batches : int, default=1
        Batches per lap of memoized VI; batches hold whole groups, so at most the number of groups.
    moves : sequence of {"birth", "merge", "delete"}, optional
        Memoized VI only: births split topics, merges join pairs, deletes absorb small topics into
        the others, each accepted only when the exact ELBO rises (Hughes 2016, §5.5). Default
        (None): all three under memoized VI, none under "vb"; ``()`` for none.
    move_options : dict, optional
        Fields of :class:`stickbreak.config.MovesConfig`, e.g. ``{"merge_max_pairs": 50}``.
    init : {"kmeans++", "random"}, default="kmeans++"
        First topics from the items alone, as a :class:`~stickbreak.DPMixture` of the family
        starts: Bregman k-means++ seeding and hard k-means steps, or random items.
    local_start : {"scratch", "warm", "best"}, default="scratch"
        Where each group's fixed point starts each lap: from the topics alone, from its last
        responsibilities (never lowers the ELBO), or the better of both.
    local_max_iter : int, default=100
        Most iterations of each group's fixed point per local step.
    local_tol : float, default=0.05
        Tolerance of the fixed point on the change of the group's expected topic counts.
    max_laps : int, default=100
        Most passes over the data.
    min_laps : int, default=2
        Fewest passes before the fit may stop as converged.
    tol : float, default=1e-6
        Stop when the relative change of the ELBO over a lap falls below ``tol``.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seed of the initialisation, the batches and the moves.
    verbose : int, default=0
        0 silent, 1 a progress bar.
    n_jobs : int, default=1
        Threads that share each local step's groups (-1: all cores).
    callbacks : list of callable, optional
        ``callback(lap_record, params)`` after every lap; returning True stops the fit.

    Attributes
    ----------
    n_topics_ : int
        Topics of the final model (after the moves, if any).
    n_active_topics_ : int
        Topics holding at least one expected training item.
    topic_counts_ : ndarray of shape (n_topics,)
        Expected number of training items per topic.
    topic_weights_ : ndarray of shape (n_topics,)
        Corpus-level topic weights ``E[pi^G_k]`` (they sum to less than 1: the rest is the mass
        beyond the truncation).
    means_ : ndarray of shape (n_topics, n_features)
        Posterior means of the topics (``"gauss"``, ``"diag_gauss"``).
    covariances_ : ndarray of shape (n_topics, n_features, n_features)
        ``E[Lambda_k]^-1`` of every topic (``"zero_mean_gauss"``, ``"gauss"``; shape
        (n_topics, n_features), the variances, for ``"diag_gauss"``).
    probs_ : ndarray of shape (n_topics, n_features)
        Posterior-mean probability of a 1 per topic and feature (``"bern"``).
    lower_bound_ : float
        Final ELBO in nats.
    trace_ : list of dict
        One record per lap (``lap``, ``elbo`` and its ``terms``, ``n_components``, ``n_effective``,
        ``seconds``, ``moves``, ...).
    n_iter_ : int
        Laps run.
    converged_ : bool
        Whether the fit stopped because the ELBO settled within ``tol``.
    stop_reason_ : {"converged", "max_laps", "callback", "interrupted"}
        Why the fit stopped.
    moves_ : list of dict
        The moves memoized VI accepted (reorders and prunes included), in order.
    n_features_in_ : int
        Number of features seen during :meth:`fit`.
    feature_names_in_ : ndarray of shape (n_features_in,)
        Column names of a DataFrame ``X`` (only then).
    params_, stats_, model_ : object
        The variational parameters, the whole-data sufficient statistics and the functional model
        (:class:`stickbreak.models.topics.admixture.Admixture`).

    See Also
    --------
    HDPTopicModel : The HDP topic model of word counts.
    DPMixture : One mixture shared by all items, without groups.

    Examples
    --------
    Twelve groups of 30 items; each group's items come from one of three covariances.

    >>> import numpy as np
    >>> from stickbreak import HDPAdmixture
    >>> rng = np.random.default_rng(0)
    >>> scales = np.repeat([[1, 1, 1, 1], [3, .3, 1, 1], [.3, 3, 1, 1]], 120, axis=0)
    >>> X = rng.normal(size=(360, 4)) * scales
    >>> model = HDPAdmixture(n_topics=6, random_state=0).fit(X, lengths=[30] * 12)
    >>> model.n_topics_ < 6, model.covariances_.shape[1:]
    (True, (4, 4))
    >>> proportions = model.topic_proportions(X, lengths=[30] * 12)
    >>> proportions.shape == (12, model.n_topics_)
    True
    >>> model.transform(X, lengths=[30] * 12).shape == (360, model.n_topics_)
    True
    """

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
                              "is not supported by HDPAdmixture "
                              f"({UNSUPPORTED.get(name, 'not a family of single items')})")

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
        mixture = MixtureModel(model.obs, model.obs_prior, MIXTURE_WEIGHTS["dp"],
                               MIXTURE_WEIGHTS["dp"].default_prior(1.0))
        topics = mixture_initial_params(mixture, items, int(self.n_topics), self.init, rng).obs
        return model.initial_params(topics, seqs.n_items)

    # ------------------------------------------------------------------ fitting
    @composed(**GROUPS)
    def fit(self, X, y=None, *, lengths=None):
        """Fit the admixture to groups of items.

        Every setting and the data are checked before any work starts.

        Parameters
        ----------
        $groups_y

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
