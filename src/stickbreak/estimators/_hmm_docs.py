"""The docstrings of :class:`~stickbreak.HDPHMM`, :class:`~stickbreak.FiniteHMM` and their methods
(kept apart from the code in :mod:`.hmm`, which the architecture test keeps under 500 lines)."""

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
        or an existing Dask cluster. The workers hold the data, each batch split among them; the
        fit is the same on every executor up to round-off. Moves are decided on the driver.
    callbacks : list of callable, optional
        Each called as ``callback(lap_record, params)`` after every lap; returning True stops the fit.
    **option_keywords
        Deprecated spellings of ``algorithm_options`` keys as constructor arguments (e.g.
        ``learning_rate_decay=0.9``): folded into ``algorithm_options`` with a FutureWarning.

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

_HDP_PARAMETERS = """
    concentration : float, default=10.0
        gamma of the top-level sticks ``u_k ~ Beta(1, gamma)``, ``pi^G = stick(u)``, shared by
        every row; larger favours more states.
    learn_concentration : bool, default=False
        Set alpha (``transition_concentration``), gamma and, when sticky, kappa (``stickiness``) by
        empirical Bayes: every global step alternates them with ``q`` on the ELBO's surrogate bound
        (Hughes 2016, Eqs. 6.28 and 6.33), so the ELBO still never falls and moves stay exact; the
        values given are where they start, ``alpha_0`` stays fixed. The values used are in
        ``concentrations_``. Off by default: on mocap6 it lowered the final ELBO and, by shrinking
        kappa, the segmentation (``benchmarks/results/empirical_bayes.md``)."""

_GIBBS = """
        ``"gibbs"``: the weak-limit blocked Gibbs sampler of Fox et al. (2011, Alg. 3) with
        ``n_states`` as the weak limit L, one sweep of all sequences per lap for ``max_laps`` laps
        (emissions: ``obs_model="gauss"`` only; ``n_batches`` unused; concentrations fixed). The
        fit is the variational posterior of the last sample (``elbo_`` its exact ELBO; ``trace_`` the
        log joint of every sweep; ``sampled_states_`` the last states, largest first: ``init=`` for
        memoized VI; see ``stickbreak.estimators._hmm_sampler``)."""

_HDP_ATTRIBUTES = """
    concentrations_ : dict
        The concentrations the final ELBO uses, by parameter name (learned ones as learned).
    sampled_states_ : ndarray of int, shape (n_frames,)
        ``algorithm="gibbs"`` only: the last sample's state of every frame.
    log_evidence_ : float
        ``algorithm="gibbs"`` only: the log joint of the last sample."""

_HDP_EXAMPLES = """
    See Also
    --------
    FiniteHMM : The same interface with a fixed number of states.

    Examples
    --------
    >>> from stickbreak import HDPHMM, datasets
    >>> mocap = datasets.load("mocap6")    # 6 sequences, 2,058 frames of 12 joint angles
    >>> Xprev = mocap.extras["Xprev"]      # each frame's predecessor, for the AR emissions
    >>> hmm = HDPHMM(n_states=5, obs_model="ar_gauss", stickiness=50.0, tol=1e-3, random_state=0)
    >>> hmm = hmm.fit(mocap.X, Xprev=Xprev)
    >>> hmm.transmat_.shape == (hmm.n_states_, hmm.n_states_)
    True
    >>> hmm.predict(mocap.X, Xprev=Xprev).shape      # the Viterbi state of every frame
    (2058,)
    >>> hmm.score_sequences(mocap.X, Xprev=Xprev).shape    # log p(x_d) of each sequence
    (6,)
"""

_FINITE_EXAMPLES = """
    See Also
    --------
    HDPHMM : The HDP-HMM, which learns the number of states.

    Examples
    --------
    hmmlearn's layout: the frames of all sequences stacked, with the frames per sequence.

    >>> import numpy as np
    >>> from stickbreak import FiniteHMM, datasets
    >>> mocap = datasets.load("mocap6")
    >>> X, lengths = mocap.X.X, np.diff(mocap.X.offsets)
    >>> X.shape, lengths.shape
    ((2058, 12), (6,))
    >>> hmm = FiniteHMM(n_states=4, obs_model="diag_gauss", tol=1e-3, random_state=0)
    >>> hmm = hmm.fit(X, lengths=lengths)
    >>> proba = hmm.predict_proba(X, lengths=lengths)
    >>> proba.shape, bool(np.allclose(proba.sum(axis=1), 1))
    ((2058, 4), True)
    >>> frames, states = hmm.sample(10, random_state=0)
    >>> frames.shape, states.shape
    ((10, 12), (10,))
"""

HDPHMM_DOC = """The (sticky) HDP hidden Markov model by variational inference (Hughes 2016, Ch. 6).

    The number of states is learned: ``n_states`` is only the initial number of states. Births,
    merges and deletes (memoized VI, on by default) add the states the data support and remove
    those they do not, each only when the exact ELBO rises. ``stickiness=0`` is the HDP-HMM of
    Teh et al. (2006), ``stickiness > 0`` the sticky HDP-HMM of Fox et al. (2011). The methods
    follow hmmlearn: ``fit(X, lengths=...)``, ``predict``, ``predict_proba``, ``decode``,
    ``score`` and ``sample``.
""" + _PARAMETERS.format(
    n_states_default=10, n_states="Initial number of states (the moves change it).",
    row="alpha pi^G + kappa e_j", row_ref=" (Hughes 2016, Ch. 6)", start="alpha_0 pi^G",
    hdp_parameters=_HDP_PARAMETERS, default_moves="('birth', 'merge', 'delete') with memoized VI, none otherwise",
    algorithms='{"memoized", "vb", "stochastic", "svi", "gibbs"}', gibbs=_GIBBS,
    renormalised=" (the HDP leaves some mass on states beyond the truncation; it is dropped)",
    state_weights="Top-level state probabilities ``E[pi^G]`` (their sum is below 1).",
    extra_attributes=_HDP_ATTRIBUTES) + _HDP_EXAMPLES

FINITE_HMM_DOC = """A Bayesian hidden Markov model with a fixed number of states, by variational inference.

    Dirichlet transition rows, the weak-limit form of the sticky HDP-HMM (Hughes 2016, §6.1). The
    methods follow hmmlearn: ``fit(X, lengths=...)``, ``predict``, ``predict_proba``, ``decode``,
    ``score`` and ``sample``.
""" + _PARAMETERS.format(
    n_states_default=50, n_states="Number of states K.", row="alpha / K + kappa e_j", row_ref="",
    start="alpha_0 / K", hdp_parameters="",
    default_moves="none (K stays fixed); ('birth', 'merge', 'delete') let the ELBO choose K",
    algorithms='{"memoized", "vb", "stochastic", "svi"}', gibbs="",
    renormalised=" (they already sum to one)",
    state_weights="Uniform ``1 / K`` (a finite HMM has no top level).", extra_attributes="") + _FINITE_EXAMPLES

# ---------------------------------------------------------------------------------------------------- methods
_X = """X : array-like of shape (n_frames, n_features), list of array-like, or Sequences
        The frames of all sequences stacked, one sequence after the other (with ``lengths``), a
        list of 2-D arrays (one per sequence), or a :class:`~stickbreak.data.Sequences`."""
_LENGTHS = """lengths : array-like of int, shape (n_sequences,), optional
        Frames per sequence, in order, summing to ``n_frames`` (stacked ``X`` only); default: ``X``
        is one sequence.
    Xprev : array-like of shape (n_frames, n_features), optional
        ``obs_model="ar_gauss"`` only: each frame's predecessor, laid out like ``X`` (a list when
        ``X`` is one); default: the previous frame of the same sequence, the first frame being its
        own predecessor. A ``Sequences`` may carry its own."""
_INPUT = _X + "\n    " + _LENGTHS

FIT = f"""Fit the HMM to sequences of frames.

    Starts from ``init`` (``contiguous_blocks``, ``kmeans++`` or given states); every setting and
    the data are checked before any work starts.

    Parameters
    ----------
    {_X}
    y : None
        Ignored (scikit-learn's convention for unsupervised estimators); ``lengths`` goes by keyword.
    {_LENGTHS}
    checkpoint : str or path-like, optional
        A directory where the state is saved after every lap, for :func:`stickbreak.resume`.

    Returns
    -------
    self
        The fitted estimator.
    """

PREDICT = f"""The most probable state path of every sequence (Viterbi).

    Under the ``E log`` start, transition and emission parameters of the fitted ``q``.

    Parameters
    ----------
    {_INPUT}

    Returns
    -------
    ndarray of int, shape (n_frames,)
        The state of every frame, sequences concatenated, a position ``0 .. n_states_ - 1`` of
        this model's states.
    """

DECODE = f"""The Viterbi path of :meth:`predict` and the score it maximises (hmmlearn's ``decode``).

    Parameters
    ----------
    {_INPUT}

    Returns
    -------
    score : float
        The sum along the path of the ``E log`` start, transition and emission terms, over all
        sequences.
    states : ndarray of int, shape (n_frames,)
        The state of every frame, as :meth:`predict` gives it.
    """

PREDICT_PROBA = f"""Posterior state marginals ``q(z_t = k)`` of every frame, by forward-backward.

    Parameters
    ----------
    {_INPUT}

    Returns
    -------
    ndarray of shape (n_frames, n_states)
        The probability of each state at each frame; rows sum to 1.
    """

SCORE_SEQUENCES = f"""Log predictive density of each sequence, ``log p(x_d)`` in nats.

    A *plug-in* predictive: the forward algorithm run with the posterior-mean start and
    transition probabilities (renormalised over the K states) and each state's posterior
    predictive density per frame (:meth:`stickbreak.models.hmm.model.HMMModel.log_predictive`),
    not the exact Bayesian predictive, which integrates over the transition parameters jointly
    along the sequence. The values sum to ``score(X, lengths=lengths, total=True)``.

    Parameters
    ----------
    {_INPUT}

    Returns
    -------
    ndarray of shape (n_sequences,)
        The log-likelihood of each sequence, in order (higher is better).
    """

SCORE = f"""Log predictive density per frame, in nats (higher is better).

    The sum over sequences of :meth:`score_sequences` (the plug-in predictive ``log p(x_d)``),
    divided by the number of frames, as every family scores a mean per item; ``total=True`` gives
    the sum, hmmlearn's ``score``.

    Parameters
    ----------
    {_X}
    y : None
        Ignored (as in :meth:`fit`); ``lengths`` goes by keyword.
    {_LENGTHS}
    total : bool, default=False
        Return the total log-likelihood of all sequences instead of the mean per frame.

    Returns
    -------
    float
        Mean log-likelihood per frame (or, with ``total=True``, the total).
    """

SAMPLE = """Draw one sequence from the fitted model (hmmlearn's ``sample``).

    A Markov chain from the posterior means ``startprob_`` and ``transmat_``, each frame from its
    state's posterior-mean emission. Not for ``obs_model="mult"`` (a frame's token count is not
    part of the model).

    Parameters
    ----------
    n_samples : int, default=1
        Frames to draw.
    random_state : int, numpy.random.Generator or None
        Seed of the draw.
    prev0 : array-like of shape (n_features,), optional
        ``obs_model="ar_gauss"`` only: the predecessor of the first frame (default zeros).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The frames.
    states : ndarray of int, shape (n_samples,)
        The state of every frame.
    """

SAVE = """Save the fitted model to ``path`` (.npz with JSON metadata; no pickle).

    The file holds the constructor parameters, the priors, the variational parameters, the
    statistics, the trace and the accepted moves; :meth:`load` (or :func:`stickbreak.load`) reads
    it back.

    Parameters
    ----------
    path : str or path-like
        The file to write (``.npz`` is appended when missing; its directory is created if needed).

    Returns
    -------
    pathlib.Path
        The path written (with the ``.npz`` suffix).
    """
