"""The shell the HMM estimators share (:class:`HMMEstimator`: settings and ``fit``) and the
parameters their docstrings share (:func:`hmm_parameters`); :class:`~stickbreak.HDPHMM` and
:class:`~stickbreak.FiniteHMM` are in :mod:`.hmm`.

The signatures follow hmmlearn: ``fit(X, lengths=...)``, ``predict(X, lengths)``,
``predict_proba``, ``decode``, ``sample`` and ``score(X, lengths=...)``, where ``X`` holds the
frames of all sequences one after the other and ``lengths`` the number of frames of each
(``fit`` and ``score`` take it by keyword: their second argument is scikit-learn's ignored ``y``).
A list of 2-D arrays (one per sequence) or a :class:`~stickbreak.data.Sequences` works as well.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from .. import driver
from ..config import HMMOptions, LearnConfig, check_choice, check_int, moves_config
from ..core.suffstats import SuffStats
from ..learn import LEARNERS, InMemoryMinibatches, check_moves, learner_spec
from ..models.hmm.init import check_init, initial_params
from ..models.hmm.model import HMMModel
from ..models.hmm.params import HMMParams
from ..parallel import open_executor
from ..priors import top_sticks as sticks
from ._checkpoint import open_checkpoint
from ..core.docstrings import composed
from ._common import (ReportMixin, SavableMixin, as_generator, check_executor_for, check_feature_names, checked_family,
                      check_fit_memory, check_n_jobs, numba_threads)
from ._fitting import run_plan, variational_plan
from .hmm_input import INPUT_PARAMETERS, as_sequences, checked_frames, without_targets
from .hmm_use import FittedHMM
from ._hmm_sampler import gibbs_plan
from ._options import AlgorithmOptionsMixin

#: Observation models of a frame (``"mult"``: each frame a vector of word counts).
HMM_OBS_MODELS = ("gauss", "diag_gauss", "zero_mean_gauss", "ar_gauss", "bern", "mult")
HMM_ALGORITHMS = ("memoized", "vb", "stochastic", "svi")
HMM_INITS = ("contiguous_blocks", "kmeans++")
#: Moves memoized VI can make on HMM states.
HMM_MOVES = ("birth", "merge", "delete")


def hmm_parameters(**fields: str) -> str:
    """The Parameters and Attributes sections of an HMM estimator's docstring, with the fields that
    differ between :class:`~stickbreak.HDPHMM` and :class:`~stickbreak.FiniteHMM` filled in."""
    return _PARAMETERS.format(**fields)


_PARAMETERS = """
    Parameters
    ----------
    n_states : int, default={n_states_default}
        {n_states}
    obs_model : {{"gauss", "diag_gauss", "zero_mean_gauss", "ar_gauss", "bern", "mult"}}, default="gauss"
        Emission of each state: full or diagonal Gaussian, zero-mean Gaussian, first-order
        autoregressive Gaussian (``x_t ~ N(A_k x_(t-1), Sigma_k)``; predecessors from ``Xprev`` or
        the previous frame), independent Bernoulli features (binary data) or a multinomial over
        words (each frame a row of word counts; ``word_probs_`` per state; no ``sample``).
    obs_prior : dict, optional
        Prior options of the observation model, e.g. ``{{"covariance": 0.5, "dof": 10}}``; see each
        module in ``stickbreak.obs``.
    transition_concentration : float, default=0.5
        alpha: each transition row is ``pi_j ~ Dir({row})``{row_ref}.
    start_concentration : float, default=5.0
        alpha_0 of the start distribution ``pi_0 ~ Dir({start})``.
    stickiness : float, default=0.0
        kappa >= 0, extra prior mass on staying in the same state (the sticky HDP-HMM of Fox et al.
        2011; 0: not sticky). Segmentations of real data (motion capture, speech) want a large
        value, e.g. 50.{hdp_parameters}
    algorithm : {algorithms}, default="memoized"
        Memoized VI over ``n_batches`` batches of whole sequences (Hughes 2016, §6.4; the only one
        with moves), full-batch VB, or stochastic VI on minibatches of sequences (alias "svi",
        step ``(learning_rate_delay + t)^-learning_rate_decay``, Hoffman et al. 2013; needs two
        sequences or more).{gibbs}
    algorithm_options : dict, optional
        Fields of :class:`stickbreak.config.HMMOptions`: ``learning_rate_delay`` and
        ``learning_rate_decay`` (tau, kappa; default 10, 0.7), stochastic VI's step size.
    n_batches : int, default=1
        Batches (memoized, vb) or minibatches per lap (stochastic) of whole sequences; at most the
        number of sequences.
    moves : sequence of {{"birth", "merge", "delete"}}, optional
        Memoized VI: births (a state's frames, pooled over every sequence, clustered into new
        states whose statistics are rebuilt on all batches at once; Hughes 2016, §4.2 and §6.5),
        merges of pairs of states (Eq. 6.49) and deletes of small states, each accepted only when
        the exact whole-data ELBO rises. Default (None): {default_moves}. ``()`` for none.
    move_options : dict, optional
        Fields of :class:`stickbreak.config.MovesConfig`, e.g. ``{{"merge_max_pairs": 50}}``.
    init : {{"contiguous_blocks", "kmeans++"}} or array-like of int, shape (n_frames,)
        Each state fitted to one random window of consecutive frames (bnpy's ``randcontigblocks``,
        the default), the frames clustered by Bregman k-means++ ignoring time, or given per-frame
        states (one in ``0 .. n_states - 1`` per frame of X, e.g. a sampler's ``sampled_states_``).
    max_laps : int, default=100
        Most passes over the data (sweeps for "gibbs").
    min_laps : int, default=2
        Fewest passes before the tolerance may stop the fit.
    tol : float, default=1e-6
        Stop when the relative change of the ELBO between laps falls below ``tol``.
    random_state : int, numpy.random.Generator or None
        Seed of the initialisation, the batches, the moves and any sampling.
    verbose : int, default=0
        0 silent, 1 a progress bar.
    n_jobs : int, default=1
        Threads of the forward-backward and Viterbi kernels, parallel over sequences (-1: all cores),
        or worker processes with ``executor``.
    executor : None, "threads", "processes", "dask", a scheduler address or a ``distributed.Client``
        Where the local steps run (:mod:`stickbreak.parallel`): the driver's threads (None, the
        default), ``n_jobs`` local worker processes, a Dask ``LocalCluster`` of ``n_jobs`` workers,
        or an existing Dask cluster. The workers hold the data, each batch split among them.
        Memoized VI's laps go batch by batch on threads and are synchronous on processes and Dask
        (one call and one global step per lap, :mod:`stickbreak.learn.memo_sync`); executors with
        the same schedule give the same fit up to round-off. Moves are decided on the driver.
    callbacks : list of callable, optional
        Each called as ``callback(lap_record, params)`` after every lap; returning True stops the fit.

    Attributes
    ----------
    n_states_ : int
        Number of states K of the final model (moves change it).
    n_active_states_ : int
        States with at least one expected training frame.
    state_counts_ : ndarray of shape (n_states,)
        Expected training frames per state.
    startprob_ : ndarray of shape (n_states,)
        Posterior-mean start probabilities, renormalised over the K states.
    transmat_ : ndarray of shape (n_states, n_states)
        Posterior-mean transition probabilities, each row renormalised over the K states{renormalised}.
    state_weights_ : ndarray of shape (n_states,)
        {state_weights}
    means_, covariances_ : ndarray
        Gaussian states' posterior means (n_states, n_features) and ``E[Lambda]^-1``
        (n_states, n_features, n_features; "diag_gauss": variances, (n_states, n_features));
        ``"zero_mean_gauss"`` has only ``covariances_``.
    coefs_ : ndarray of shape (n_states, n_features, n_features)
        Posterior-mean AR coefficients (``"ar_gauss"``, with ``covariances_``).
    probs_ : ndarray of shape (n_states, n_features)
        Posterior-mean probability of a 1 (``"bern"``).
    word_probs_ : ndarray of shape (n_states, n_features)
        Posterior-mean word probabilities of each state (``"mult"``).
    elbo_ : float
        Final ELBO (nats; exact, also after stochastic VI); ``lower_bound_`` is the same.
    elbo_trace_ : ndarray of shape (n_iter,)
        The ELBO of every lap.
    trace_ : list of dict
        Per-lap records (ELBO and its terms, K, K_eff, seconds, moves tried and accepted).
    moves_ : list of dict
        The accepted moves, in order (with ``kind``, ``lap`` and the states' uids).
    converged_ : bool
        Whether the tolerance was met.
    n_iter_ : int
        Laps run.
    stop_reason_ : str
        Why the fit stopped.
    params_, model_ : object
        The variational parameters and the model, for the functional API.{extra_attributes}
"""


class HMMEstimator(AlgorithmOptionsMixin, FittedHMM, SavableMixin, ReportMixin, BaseEstimator):
    """Shared shell of :class:`~stickbreak.HDPHMM` and :class:`~stickbreak.FiniteHMM` (settings and
    ``fit``; the fitted model's methods are :class:`.hmm_use.FittedHMM`'s); subclasses set the
    transition module, its prior and the moves memoized VI makes by default."""

    report_kind = "hmm"

    _transitions = None  # the transition module, priors.transition_hdp or priors.transition_finite
    _default_moves: tuple = ()
    _options_class = HMMOptions
    _algorithms = HMM_ALGORITHMS

    def __init__(self, n_states=50, *, obs_model="gauss", obs_prior=None, transition_concentration=0.5,
                 start_concentration=5.0, stickiness=0.0, algorithm="memoized", algorithm_options=None, n_batches=1,
                 moves=None, move_options=None, init="contiguous_blocks", max_laps=100, min_laps=2, tol=1e-6,
                 random_state=None, verbose=0, n_jobs=1, executor=None, callbacks=None):
        self._set_constructor_params(locals())

    def _set_constructor_params(self, values: dict) -> None:
        """Every constructor parameter from the ``__init__``'s ``locals()``."""
        for name in self._get_param_names():
            setattr(self, name, values[name])

    # ------------------------------------------------------------------ configuration
    def _family(self):
        return checked_family(self.obs_model, self.obs_prior, HMM_OBS_MODELS,
                              "is not an emission family of HMM frames")

    def _transitions_prior(self) -> dict:
        return self._transitions.default_prior(self.transition_concentration, self.start_concentration,
                                               self.stickiness)

    def _configs(self):
        """``(learn config, moves config)``, checking every setting (before any data are read)."""
        check_int("n_states", self.n_states, 1)
        self._family()
        self._transitions_prior()  # checks the concentrations
        check_choice("algorithm", self.algorithm, self._algorithms)
        check_init(self.init, self.n_states)
        check_n_jobs(self.n_jobs)
        check_executor_for("blocked_gibbs" if self.algorithm == "gibbs" else self.algorithm, self.executor)
        options = self._options()
        learn = LearnConfig(algorithm=self.algorithm, max_laps=self.max_laps, min_laps=self.min_laps, tol=self.tol,
                            n_batches=self.n_batches, learning_rate_delay=options.learning_rate_delay,
                            learning_rate_decay=options.learning_rate_decay)
        moves = moves_config(self.moves, self.move_options, HMM_MOVES, type(self).__name__,
                             algorithm=self.algorithm, default_moves=self._default_moves)
        check_moves(learn.algorithm, moves.moves)
        return learn, moves

    def _make_model(self, frames=None, obs_prior=None) -> HMMModel:
        family = self._family()
        if obs_prior is None:
            obs_prior = family.default_prior(frames, **dict(self.obs_prior or {}))
        return HMMModel(family, obs_prior, self._transitions, self._transitions_prior())

    # ------------------------------------------------------------------ fitting
    @composed(**INPUT_PARAMETERS)
    def fit(self, X, y=None, *, lengths=None, Xprev=None, checkpoint=None):
        """Fit the HMM to sequences of frames.

        Starts from ``init`` (``contiguous_blocks``, ``kmeans++`` or given states); every setting and
        the data are checked before any work starts.

        Parameters
        ----------
        $x
        y : None
            Ignored (scikit-learn's convention for unsupervised estimators); ``lengths`` goes by keyword.
        $lengths
        checkpoint : str or path-like, optional
            A directory where the state is saved after every lap, for :func:`stickbreak.resume`.

        Returns
        -------
        self
            The fitted estimator.
        """
        learn_cfg, moves_cfg = self._configs()
        check_feature_names(self, X, reset=True)
        seqs = without_targets(y, as_sequences(X, lengths, Xprev), "fit")
        frames = checked_frames(self._family(), seqs)
        n_seq = seqs.n_items
        n_states, dim = int(self.n_states), seqs.n_features  # K x K transitions per chunk, K per frame, K x D x D
        check_fit_memory(type(self).__name__, n_states * (n_states * 70 + 4 * seqs.n_frames + 6 * dim * dim),
                         f"lower n_states (now {n_states}).")
        if learn_cfg.n_batches > n_seq:
            raise ValueError(f"n_batches={learn_cfg.n_batches} exceeds the number of sequences ({n_seq}): batches "
                             f"hold whole sequences; use n_batches <= {n_seq} (or split long sequences)")
        minibatches = learner_spec(learn_cfg.algorithm, list(LEARNERS)).minibatches
        if minibatches and n_seq < 2:
            raise ValueError(f"algorithm={self.algorithm!r} draws minibatches of whole sequences, and X holds one "
                             "sequence; use algorithm='memoized' or 'vb', or pass several sequences (lengths=)")
        rng = as_generator(self.random_state)
        with open_checkpoint(self, checkpoint, rng, data=seqs) as session:
            model = self._make_model(frames)
            batches = driver.split_batches(seqs, learn_cfg.n_batches, int(rng.integers(2**31)))
            source = InMemoryMinibatches(seqs, learn_cfg.n_batches) if minibatches else batches.data
            method, labels = check_init(self.init, self.n_states, seqs.n_frames)
            start = initial_params(model, seqs, self.n_states, method, rng, labels)
            plan = (gibbs_plan(model, seqs, start, int(self.n_states)) if learn_cfg.algorithm == "gibbs" else
                    variational_plan(learn_cfg.algorithm, model, source, start, batches.data))
            with numba_threads(self.n_jobs), open_executor(self.executor, self.n_jobs, kernel_threads=True) as executor:
                fitted = run_plan(plan, learn_cfg, moves_cfg, rng, owner=type(self).__name__, callbacks=self.callbacks,
                                  verbose=self.verbose, executor=executor, checkpoint=session)
        self.n_features_in_ = seqs.n_features
        self._set_fitted(fitted.model, fitted.params, fitted.stats, fitted.trace, fitted.result.stop_reason,
                         fitted.lower_bound, fitted.accepted_moves)
        for name, value in fitted.attributes.items():
            setattr(self, name, value)
        return self

    def _set_fitted(self, model: HMMModel, params: HMMParams, stats: SuffStats, trace, stop_reason: str,
                    elbo: float, moves):
        self.model_, self.params_, self.stats_ = model, params, stats
        self.trace_, self.stop_reason_, self.moves_ = trace, stop_reason, moves
        self.converged_ = stop_reason == "converged"
        self.n_iter_ = len(trace)
        self.elbo_ = self.lower_bound_ = float(elbo)
        self.elbo_trace_ = np.array([r["elbo"] for r in trace])
        self.n_states_ = params.n_components
        self.state_counts_ = stats.counts.copy()
        self.n_active_states_ = int(np.sum(stats.counts >= driver.EFFECTIVE_COUNT))
        start, trans = model.expected_transition_matrix(params)
        self.startprob_ = start / start.sum()
        self.transmat_ = trans / trans.sum(axis=1, keepdims=True)
        self.state_weights_ = self._state_weights(params)
        for name, value in model.obs.summary(params.obs).items():
            setattr(self, f"{name}_", value)

    def _state_weights(self, params: HMMParams) -> np.ndarray:
        return sticks.stick_weights(params.trans["rho"])[0]
