"""The docstrings of :class:`~stickbreak.DPMixture` and :class:`~stickbreak.FiniteMixture` (kept apart
from the code: the two share every parameter but ``n_components``, ``concentration`` and the defaults)."""

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
    init : {"kmeans++", "random"}, default="kmeans++"
        First clusters: Bregman k-means++ seeding followed by ``n_kmeans_iters`` hard k-means steps
        (Hughes 2016, §2.7), or ``n_components`` random items.
    n_kmeans_iters : int, default=3
        Hard k-means steps after the k-means++ seeding (0: each item joins its nearest seed).
    max_laps : int, default=200
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
        or an existing Dask cluster. The workers hold the data, each batch split among them; the
        fit is the same on every executor up to round-off. Moves are decided on the driver.
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
    **option_keywords
        Deprecated: the fields of ``algorithm_options`` given as keywords (``learning_rate_delay=``,
        ``learning_rate_decay=``, ``sampling=``); they are folded into ``algorithm_options`` with a
        FutureWarning.

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

DP_DOC = """Dirichlet-process mixture fitted by variational inference (Hughes 2016, Ch. 3-4).

    The number of clusters is learned. By default memoized VI starts from more clusters than the
    data need (``n_components="auto"``: one per 100 items, between 1 and 100) and merges join
    them, deletes remove them and births split them, each only when the exact ELBO rises (Hughes
    2016, Ch. 4); ``n_components`` is then only the initial number of clusters. Under the other
    algorithms (no moves) it is the truncation level K, an upper bound: clusters the data do not
    need end up (nearly) empty. The truncation is on ``q(z)`` only (nested truncation, Hughes
    2016, Eq. 3.19-3.20): the sticks beyond K stay at their prior.

    Parameters
    ----------
    n_components : int or "auto", default="auto"
        Initial number of clusters (memoized VI with moves), or the truncation level K; "auto":
        ``n_samples // 100`` between 1 and 100.
    obs_model : {"gauss", "diag_gauss", "zero_mean_gauss", "mult", "bern"}, default="gauss"
        Likelihood of each cluster: full-covariance Gaussian (Normal-Wishart prior), diagonal
        Gaussian (Normal-Gamma), zero-mean Gaussian (Wishart), multinomial word counts (Dirichlet;
        a scipy sparse matrix is fine) or independent binary features (Beta).
    concentration : float, default=1.0
        DP concentration gamma of the stick prior ``u_k ~ Beta(1, gamma)``;
        larger favours more clusters.""" + _PARAMETERS_AFTER_CONCENTRATION % {
    "algorithm": "memoized",
    "moves": "Default (None): all three under memoized VI, none under the other algorithms;",
    "learned": "gamma = argmax sum_k E log Beta(u_k | 1, gamma)",
    "weights": " (they sum to less than 1: the rest is the mass of the sticks beyond the truncation)",
} + """
    See Also
    --------
    FiniteMixture : The same model with K fixed and a Dirichlet prior on the weights.
    sklearn.mixture.BayesianGaussianMixture : Batch VB of a truncated DP Gaussian mixture.

    Examples
    --------
    >>> from stickbreak import DPMixture, datasets
    >>> X = datasets.load("old_faithful").X  # 272 eruptions: duration, waiting time
    >>> model = DPMixture(random_state=0).fit(X)
    >>> model.n_active_components_ <= model.n_components_
    True
    >>> model.predict(X[:5]).shape, model.predict_proba(X[:5]).shape == (5, model.n_components_)
    ((5,), True)
    >>> bool(model.weights_.sum() < 1.0)
    True
    >>> model.stop_reason_
    'converged'
    """

FINITE_DOC = """Finite Bayesian mixture with a symmetric Dirichlet prior on the weights (Hughes 2016, §2.6).

    ``pi ~ Dir(alpha, ..., alpha)`` over a fixed number K of components; the parameters are those
    of :class:`DPMixture` but for ``n_components``, ``concentration`` and the defaults (batch VB,
    no moves).

    Parameters
    ----------
    n_components : int or "auto", default=20
        The number of components K ("auto": ``n_samples // 100`` between 1 and 100). Moves, if
        asked for under memoized VI, change it.
    obs_model : {"gauss", "diag_gauss", "zero_mean_gauss", "mult", "bern"}, default="gauss"
        Likelihood of each component, as for :class:`DPMixture`.
    concentration : float, default=1.0
        The per-component Dirichlet parameter alpha of ``Dir(alpha, ..., alpha)`` (scikit-learn's
        ``weight_concentration_prior`` with ``"dirichlet_distribution"``; the thesis writes it
        gamma / K); smaller favours fewer occupied components.""" + _PARAMETERS_AFTER_CONCENTRATION % {
    "algorithm": "vb",
    "moves": "Default (None): none under every algorithm;",
    "learned": "alpha = argmax E log Dir(pi | alpha, ..., alpha)",
    "weights": " (they sum to 1)",
} + """
    See Also
    --------
    DPMixture : The nonparametric version, which learns the number of clusters.

    Examples
    --------
    >>> from stickbreak import FiniteMixture, datasets
    >>> X = datasets.load("old_faithful").X
    >>> model = FiniteMixture(n_components=2, random_state=0).fit(X)
    >>> model.means_.shape, model.covariances_.shape
    ((2, 2), (2, 2, 2))
    >>> model.score_samples(X).shape
    (272,)
    >>> model.converged_
    True
    """
