"""The docstring of :class:`~stickbreak.HDPAdmixture` (kept apart from the code)."""

ADMIXTURE_DOC = """HDP admixture of any single-item observation model: topic models beyond word counts.

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
