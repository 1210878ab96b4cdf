"""The docstrings of :class:`~stickbreak.LDA` and :class:`~stickbreak.HDPTopicModel` (kept apart
from the code; DILN's own is in :mod:`.diln`)."""

LDA_DOC = """Latent Dirichlet allocation by variational inference (Blei et al. 2003; Hoffman et al. 2013).

    Parameters
    ----------
    n_topics : int
    doc_topic_prior : float, optional
        Per-topic Dirichlet parameter alpha of the document proportions (default 1 / n_topics).
    topic_word_prior : float, optional
        Dirichlet pseudo-count of every word in every topic (default 1 / n_topics).
    algorithm : also "gibbs", "svb", "cvb", "cvb0", "hybrid_vb_gibbs", "hybrid_cvb_gibbs"
        Collapsed inference on unique (document, word) pairs (Welling, Teh & Kappen 2008), one sweep
        per lap (``max_laps`` sweeps, ``tol=0`` to run them all): collapsed Gibbs, standard VB per
        pair, collapsed VB (second order), CVB0, and the hybrids that sample the tokens of pairs with
        count ``<= sample_threshold`` (r, default 1; an algorithm option) and treat the rest by SVB or
        CVB. ``fit(X, heldout=H)`` scores held-out tokens of the same documents after every sweep
        (``heldout_per_word_``; samplers average the predictive after the ``burn_in`` option's sweeps, Eq. 31).
    """

HDP_DOC = """The HDP topic model of Hughes (2016, Ch. 5): the number of topics is learned.

    Direct-assignment truncation on ``q(z)`` only, a full Beta posterior on every top-level stick
    with the surrogate bound (Eq. 5.18-5.29), the sticks' means optimised by L-BFGS.

    Parameters
    ----------
    n_topics : int
        Initial number of topics under memoized VI with moves (the default), which then add and
        remove topics; under the other algorithms the truncation level K, an upper bound (topics the
        data do not need stay nearly empty).
    concentration : float
        Top-level stick concentration gamma (``u_k ~ Beta(1, gamma)``); larger favours more topics.
    doc_topic_prior : float
        Document concentration alpha of ``pi_d ~ Dir(alpha pi^G)`` (default 1; the thesis's 0.5 is the
        ``"hughes2016"`` preset).
    topic_word_prior : float
        Dirichlet pseudo-count of every word in every topic (default 0.05; the thesis's 0.1 is the
        ``"hughes2016"`` preset).
    learn_concentration : bool or sequence of {"doc_topic_prior", "concentration"}
        Set alpha and/or gamma by empirical Bayes (True: both): every global step alternates them
        with the sticks on the ELBO (alpha in closed form on the surrogate of Eq. 5.25, gamma by a
        1-D search), so the ELBO never falls and moves stay exact; the values given are where they
        start, the values used are in ``concentrations_``. Direct family, variational algorithms
        only. Off by default: it raised the ELBO but not the held-out score on ap, wiki and
        20newsgroups (``benchmarks/results/empirical_bayes.md``).
    moves : sequence of {"birth", "merge", "delete"}, optional
        Memoized VI only: split topics into new ones (births, from the documents that use them),
        merge pairs of topics and delete small ones, each accepted only when the exact whole-data
        ELBO rises (Hughes 2016, §5.5.1-5.5.3), so K adapts to what the data need. Default (None):
        all three under memoized VI, none otherwise; ``()`` for none.
    move_options : dict, optional
        Fields of :class:`stickbreak.config.MovesConfig`, e.g. ``{"merge_max_pairs": 50}``.
    variational_family : {"direct", "two_level"}
        ``"direct"``: Hughes's direct assignment above. ``"two_level"``: the two-level stick-breaking
        family of Hoffman et al. (2013, §3.3; Wang et al. 2011) with ``doc_truncation`` atoms per
        document (an algorithm option, default 20) pointing to the ``n_topics`` corpus topics
        (``concentration`` = omega, ``doc_topic_prior`` = alpha); algorithms "vb" and "svi";
        ``local_tol`` is then the relative change of the document's ELBO (default 1e-4 for "vb",
        1e-3 for "svi").
    algorithm : also "gibbs"
        The direct-assignment collapsed Gibbs sampler (Teh et al. 2006, §5.3): ``max_laps`` sweeps
        (``tol=0`` runs them all), each followed by table counts and ``beta ~ Dir(m, gamma)``; topics
        are created and removed freely from no topics at all (``n_topics`` is unused).
        ``fit(X, heldout=H)`` scores held-out tokens of the same documents after every sweep
        (``heldout_per_word_``, the predictive averaged over the sweeps after ``burn_in``). The
        ``concentration_priors`` option, ``((shape, rate), (shape, rate))``, puts Gamma priors on
        ``doc_topic_prior`` (alpha) and ``concentration`` (gamma), which then start at the given
        values and are resampled after every sweep by auxiliary variables (Teh et al. 2006, App. A;
        Escobar & West 1995); Teh et al.'s choice is ``((1, 1), (1, 0.1))``. The last values are in
        ``concentrations_``; ``transform`` keeps the constructor's ``doc_topic_prior``.

    ``HDPTopicModel.paper_preset("hoffman2013")`` and ``paper_preset("wang_blei2012")`` give the
    papers' settings (``LDA.paper_preset("hoffman2013", n_topics=100)`` likewise).
    """

COMMON_DOC = """
    algorithm : {"vb", "svi" (alias "stochastic"), "memoized", "truncation_free"}
        Full-batch coordinate ascent, stochastic VI (Hoffman et al. 2013), memoized VI (Hughes 2016,
        Alg. 5.5) or, for the HDP only, truncation-free SVI (Wang & Blei 2012: starts from no topics,
        creates them in a sampled, locally collapsed local step; ``n_topics`` is then unused).
    algorithm_options : dict, optional
        The knobs only some algorithms read (:class:`stickbreak.config.TopicOptions`), e.g.
        ``{"learning_rate_decay": 0.9}``; each was a constructor argument of the same name before
        (still accepted, with a FutureWarning):

        * ``learning_rate_delay``, ``learning_rate_decay`` (10, 0.7), ``sampling``: stochastic VI's
          step ``(delay + t)^-decay`` (tau, kappa) and minibatch sampling;
        * ``local_max_iter``, ``local_tol``, ``n_restarts``, ``local_start``: the per-document fixed
          point of "vb", "svi" and "memoized": iterations cap (100), tolerance on ``max_k |Delta N_dk|``
          (default 0.5 for "vb" and "memoized", 0.05 for "stochastic" and ``partial_fit``), sparse
          restart proposals per document (Alg. 5.2; LDA 0, HDP 5) and where it starts
          (``"scratch"``, ``"warm"`` or ``"best"``; see :class:`stickbreak.models.topics.model.LocalOptions`;
          warm and best make batch and memoized VI provably monotone); ``local_accelerate``: SQUAREM
          over the fixed point (None: on for LDA's "vb" and "memoized", off for the HDP and stochastic
          steps; :func:`stickbreak.estimators._topic_plans.accelerated` has the measurements);
        * ``total_docs``: the corpus size streamed batches stand for (``partial_fit``, "truncation_free");
        * ``burn_in`` (10): collapsed samplers' sweeps before the held-out predictive is averaged;
        * LDA: ``sample_threshold``; HDP: ``doc_truncation`` (two-level family), ``n_sweeps`` and
          ``prune_every`` (truncation-free SVI: Gibbs sweeps of the local sampler per minibatch (5),
          documents between prunes of topics holding less than one word (Wang & Blei: 20,000)),
          ``concentration_priors`` (Gibbs).
    n_batches, batch_size : int
        Batches (memoized) or minibatches per lap (stochastic); ``batch_size`` (documents per
        minibatch, S) overrides ``n_batches`` with ``ceil(n_docs / batch_size)``.
    init : {"random", "documents", "exponential", "kmeans_l1"}
        Nearly uniform random topics (scikit-learn's start), topics from random documents, the SVI
        paper's ``eta + Exponential(100 D / (K V))`` (Hoffman et al. 2013, footnote 6), or the DILN
        paper's k-means with the L1 distance (Paisley et al. 2012, §5.2).
    max_laps, min_laps, tol
        Stop when the relative ELBO change falls below ``tol`` (after ``min_laps``) or after ``max_laps``.
    n_active : int, optional
        L-sparse local steps (Hughes 2016, Ch. 7): at most this many topics per word type of a
        document get a non-zero responsibility, which makes large ``n_topics`` affordable; the
        moves stay exact within that family. None (default) is dense.
    n_jobs : int
        Threads for the local step (-1: all cores), or worker processes with ``executor``.
    executor : None, "threads", "processes", "dask", a scheduler address or a ``distributed.Client``
        Where the local steps run (:mod:`stickbreak.parallel`): the driver's threads (None, the
        default), ``n_jobs`` local worker processes, a Dask ``LocalCluster`` of ``n_jobs`` workers,
        or an existing Dask cluster. The workers hold the data, each batch split among them; the
        fit is the same on every executor up to round-off. Moves are decided on the driver.
    random_state, verbose, callbacks
        Seed; 1 shows a progress bar; ``callback(lap_record, params)`` after every lap (``params.topic_word``
        holds the current topics), returning True stops the fit.

    Attributes
    ----------
    topic_word_ : (n_topics, V) posterior-mean word probabilities of every topic.
    components_ : (n_topics, V) Dirichlet parameters ``lam`` (scikit-learn's name).
    topic_sizes_ : (n_topics,) expected training tokens per topic.
    n_topics_ : topics actually used (at least one expected token).
    topic_weights_ : corpus-level topic probabilities (HDP ``E[pi^G]``; LDA uniform).
    concentrations_ : (HDPTopicModel, direct family) ``{"doc_topic_prior", "concentration"}`` the final
        ELBO uses (learned ones as learned).
    vocabulary_ : the words, when known.
    lower_bound_, elbo_trace_, trace_, n_iter_, converged_, stop_reason_ : as for :class:`DPMixture`.
"""
