"""The docstrings of :class:`~stickbreak.LDA`, :class:`~stickbreak.HDPTopicModel` and the methods
they share with :class:`~stickbreak.DILN` (kept apart from the code, which the architecture test
keeps under 500 lines a file; DILN's class docstring is in :mod:`.diln`).
"""


# ---------------------------------------------------------------------------------------------------- constructors
_N_TOPICS_LDA = """
    n_topics : int, default=10
        Number of topics K."""

_PRIORS_LDA = """
    doc_topic_prior : float, optional
        Symmetric Dirichlet parameter alpha of each document's topic proportions ``pi_d ~ Dir(alpha)``
        (Blei et al. 2003). Default (None): ``1 / n_topics``.
    topic_word_prior : float, optional
        Symmetric Dirichlet parameter eta of every topic ``beta_k ~ Dir(eta)``, a pseudo-count of every
        word in every topic. Default (None): ``1 / n_topics``."""

_ALGORITHM_LDA = """
    algorithm : {"vb", "svi", "stochastic", "memoized", "gibbs", "svb", "cvb", "cvb0", "hybrid_vb_gibbs", \
"hybrid_cvb_gibbs"}, default="vb"
        Full-batch coordinate ascent ("vb"), stochastic VI ("svi", alias "stochastic"; Hoffman et al.
        2013) or memoized VI (Hughes 2016, Alg. 5.5), all three on the direct family ``q(z) q(pi)
        q(beta)``; or collapsed inference on unique (document, word) pairs (Welling, Teh & Kappen
        2008), one sweep per lap (``max_laps`` sweeps, ``tol=0`` to run them all): collapsed Gibbs,
        standard VB per pair ("svb"), collapsed VB (second order, "cvb"), CVB0, and the hybrids that
        sample the tokens of pairs with count ``<= sample_threshold`` (r, default 1; an algorithm
        option) and treat the rest by SVB or CVB. The collapsed algorithms need whole-number counts;
        ``fit(X, heldout=H)`` scores held-out tokens of the same documents after every sweep
        (``heldout_per_word_``; the samplers average the predictive after the ``burn_in`` option's
        sweeps, Welling et al. 2008, Eq. 31)."""

_N_TOPICS_HDP = """
    n_topics : int, optional
        Where the run starts. With ``init="gibbs"`` (the default) the sampler's chain seeded with
        ``n_topics`` documents competes with the default's two (from no topics and from 100
        documents), and the ELBO picks the start, so K need not follow ``n_topics``; with the other
        inits ``n_topics`` topics (None: 100). Under memoized VI with moves (the default) the moves
        then merge, delete and split topics; under the other algorithms it is the truncation level
        K, an upper bound (a learned start keeps its ``n_topics`` largest topics, or adds random
        ones). Unused by "truncation_free" and "gibbs", which start from no topics."""

_PRIORS_HDP = """
    concentration : float, default=10.0
        Top-level stick concentration gamma (``u_k ~ Beta(1, gamma)``, ``pi^G = stick(u)``; Hughes
        2016, Ch. 5); larger favours more topics.
    doc_topic_prior : float, default=1.0
        Document concentration alpha of ``pi_d ~ Dir(alpha pi^G)`` (default 1; the thesis's 0.5
        is the ``"hughes2016"`` preset).
    topic_word_prior : float, default=0.05
        Dirichlet pseudo-count eta of every word in every topic (the thesis's 0.1 is the
        ``"hughes2016"`` preset)."""

_ALGORITHM_HDP = """
    algorithm : {"memoized", "vb", "svi", "stochastic", "truncation_free", "gibbs"}, default="memoized"
        Memoized VI (Hughes 2016, Alg. 5.5; the only one with moves), full-batch coordinate ascent,
        stochastic VI ("svi", alias "stochastic"; Hoffman et al. 2013), truncation-free SVI (Wang &
        Blei 2012: starts from no topics and creates them in a sampled, locally collapsed local step)
        or the direct-assignment collapsed Gibbs sampler (Teh et al. 2006, §5.3): ``max_laps``
        sweeps (``tol=0`` runs them all), each followed by table counts and ``beta ~ Dir(m, gamma)``,
        topics created and removed freely. The last two need whole-number counts; under "gibbs",
        ``fit(X, heldout=H)`` scores held-out tokens of the same documents after every sweep
        (``heldout_per_word_``, the predictive averaged over the sweeps after ``burn_in``), and the
        ``concentration_priors`` option, ``((shape, rate), (shape, rate))``, puts Gamma priors on
        alpha and gamma, resampled after every sweep by auxiliary variables (Teh et al. 2006, App. A;
        Escobar & West 1995; Teh et al.'s choice is ``((1, 1), (1, 0.1))``).
    variational_family : {"direct", "two_level"}, default="direct"
        ``"direct"``: Hughes's direct assignment, truncated on ``q(z)`` only, with a full Beta
        posterior on every top-level stick and the surrogate bound (Hughes 2016, Eqs. 5.18-5.29).
        ``"two_level"``: the two-level stick-breaking family of Hoffman et al. (2013, §3.3; Wang et
        al. 2011) with ``doc_truncation`` atoms per document (an algorithm option, default 20)
        pointing to the ``n_topics`` corpus topics (``concentration`` is omega, ``doc_topic_prior``
        alpha); algorithms "vb" and "svi" only; ``local_tol`` is then the relative change of the
        document's ELBO (default 1e-4 for "vb", 1e-3 for "svi")."""

_ALGORITHM_OPTIONS = """
    algorithm_options : dict, optional
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
          ``concentration_priors`` ("gibbs"), ``init_sweeps`` and ``init_tokens`` (``init="gibbs"``)."""

_BATCHES_INIT = """
    n_batches : int
        Batches per lap (memoized VI: each batch's statistics are cached and replaced on its next
        visit) or minibatches per lap (stochastic VI).
    batch_size : int, optional
        Documents per minibatch S; overrides ``n_batches`` with ``ceil(n_documents / batch_size)``.
INIT_ENTRY
    max_laps : int, default=100
        Most passes over the data (sweeps for the samplers).
    min_laps : int, default=2
        Fewest passes before the tolerance may stop the fit.
    tol : float, default=1e-4
        Stop when the relative change of the ELBO between laps falls below ``tol``.
    n_active : int, optional
        L-sparse local steps (Hughes 2016, Ch. 7): at most this many topics per word type of a
        document get a non-zero responsibility, which makes large ``n_topics`` affordable; the moves
        stay exact within that family. None (default) is dense. Direct family, variational
        algorithms only."""

_INIT_LDA = """    init : {"random", "documents", "exponential", "kmeans_l1"}, default="random"
        The first topics: nearly uniform random topics (scikit-learn's start), topics from random
        documents, ``eta + Exponential(100 D / (K V))`` (Hoffman et al. 2013, footnote 6), or k-means
        with the L1 distance on the documents' word distributions (Paisley et al. 2012, §5.2)."""

_INIT_HDP = """    init : {"gibbs", "random", "documents", "exponential", "kmeans_l1"}, default="gibbs"
        The first topics. ``"gibbs"``: a learned start, the topics that the HDP's own
        direct-assignment collapsed Gibbs sampler (Teh et al. 2006, §5.3; the same alpha, gamma and
        eta) finds in ``init_sweeps`` sweeps (an algorithm option, default 200) over at most
        ``init_tokens`` tokens (default 5,000,000; a random subset of the documents beyond), the
        best by the model's ELBO of the chains judged halfway, from no topics, from 100 seed
        documents and, given another ``n_topics``, from that many; mean-field VI from them reaches a
        far higher ELBO than from random topics (``benchmarks/results/k_learning.md``). The others
        as for :class:`LDA`: nearly uniform random topics (the default before), topics from random
        documents, ``eta + Exponential(100 D / (K V))`` (Hoffman et al. 2013, footnote 6), or
        k-means with the L1 distance (Paisley et al. 2012, §5.2)."""

_MOVES_HDP = """
    moves : sequence of {"birth", "merge", "delete"}, optional
        Memoized VI only: split topics into new ones (births, from the documents that use them),
        merge pairs of topics and delete small ones, each accepted only when the exact whole-data
        ELBO rises (Hughes 2016, §5.5.1-5.5.3), so K adapts to what the data need. Default (None):
        all three under memoized VI, none otherwise; ``()`` for none.
    move_options : dict, optional
        Fields of :class:`stickbreak.config.MovesConfig`, e.g. ``{"merge_max_pairs": 50}``.
    learn_concentration : bool or sequence of {"doc_topic_prior", "concentration"}, default=False
        Set alpha and/or gamma by empirical Bayes (True: both): every global step alternates them
        with the sticks on the ELBO (alpha in closed form on the surrogate of Hughes 2016, Eq. 5.25,
        gamma by a 1-D search), so the ELBO never falls and moves stay exact; the values given are
        where they start, the values used are in ``concentrations_``. Direct family, variational
        algorithms only. Off by default: it raised the ELBO but not the held-out score on ap, wiki
        and 20newsgroups (``benchmarks/results/empirical_bayes.md``)."""

_RUNTIME = """
    n_jobs : int, default=1
        Threads for the local step (-1: all cores), or worker processes with ``executor``.
    executor : None, "threads", "processes", "dask", a scheduler address or a ``distributed.Client``
        Where the local steps run (:mod:`stickbreak.parallel`): the driver's threads (None, the
        default), ``n_jobs`` local worker processes, a Dask ``LocalCluster`` of ``n_jobs`` workers,
        or an existing Dask cluster. The workers hold the data, each batch split among them; the
        fit is the same on every executor up to round-off. Moves are decided on the driver.
    random_state : int, numpy.random.Generator or None
        Seed of the initialisation, the batches and any sampling.
    verbose : int, default=0
        0 silent, 1 a progress bar.
    callbacks : list of callable, optional
        Each called as ``callback(lap_record, params)`` after every lap (``params.topic_word`` holds
        the current topics); returning True stops the fit.
    **option_keywords
        Deprecated spellings of ``algorithm_options`` keys as constructor arguments (e.g.
        ``learning_rate_decay=0.9``): folded into ``algorithm_options`` with a FutureWarning."""

_ATTRIBUTES = """
    Attributes
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
        The final ELBO (nats).
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
        Held-out log-likelihood per token after every sweep (collapsed algorithms with ``heldout``)."""

_CONCENTRATIONS = """
    concentrations_ : dict
        ``{"doc_topic_prior": alpha, "concentration": gamma}`` the final ELBO uses (learned ones as
        learned; "gibbs": the last sample's). Direct family and "gibbs" only."""

_LDA_EXAMPLES = """

    See Also
    --------
    HDPTopicModel : The HDP topic model, which learns the number of topics.

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> ap = datasets.load("ap")          # 2,246 AP news articles, word counts
    >>> docs = ap.X[:200]                 # the first 200 (a BagOfWords with its vocabulary)
    >>> lda = LDA(n_topics=5, tol=1e-3, random_state=0).fit(docs)
    >>> lda.components_.shape
    (5, 10473)
    >>> lda.transform(docs).shape         # document-topic proportions
    (200, 5)
    >>> top = lda.top_words(3)[0]         # the largest topic
    >>> len(top["words"]), isinstance(top["words"][0][0], str)
    (3, True)
    >>> bool(lda.score(docs) < 0)         # held-out log-likelihood per word (nats)
    True
"""

_HDP_EXAMPLES = """

    See Also
    --------
    LDA : Latent Dirichlet allocation with a fixed number of topics.
    DILN : The HDP with correlated topics.

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak import HDPTopicModel, datasets
    >>> ap = datasets.load("ap")
    >>> docs = ap.X[:200]
    >>> hdp = HDPTopicModel(n_topics=10, tol=1e-3, random_state=0).fit(docs)
    >>> 1 <= hdp.n_topics_ <= hdp.topic_word_.shape[0]    # moves change K
    True
    >>> theta = hdp.transform(docs)
    >>> theta.shape[0], bool(np.allclose(theta.sum(axis=1), 1))
    (200, True)
    >>> sorted(hdp.concentrations_)
    ['concentration', 'doc_topic_prior']
"""

LDA_DOC = ("""Latent Dirichlet allocation by variational inference (Blei et al. 2003; Hoffman et al. 2013).

    The topics ``beta_k ~ Dir(eta)`` and each document's proportions ``pi_d ~ Dir(alpha)`` are
    fitted by batch, stochastic or memoized VI on the direct family, or by collapsed inference.
    ``LDA.paper_preset("hoffman2013", n_topics=100)`` gives the SVI paper's settings.

    Parameters
    ----------""" + _N_TOPICS_LDA + _PRIORS_LDA + _ALGORITHM_LDA + _ALGORITHM_OPTIONS
           + _BATCHES_INIT.replace("INIT_ENTRY", _INIT_LDA) + _RUNTIME + "\n" + _ATTRIBUTES + _LDA_EXAMPLES)

HDP_DOC = ("""The HDP topic model of Hughes (2016, Ch. 5): the number of topics is learned.

    Direct-assignment truncation on ``q(z)`` only, a full Beta posterior on every top-level stick
    with the surrogate bound (Eqs. 5.18-5.29), the sticks' means optimised by L-BFGS; memoized VI
    with birth, merge and delete moves by default. ``HDPTopicModel.paper_preset(name)`` gives the
    settings of Hoffman et al. (2013), Wang & Blei (2012) or Hughes (2016).

    Parameters
    ----------""" + _N_TOPICS_HDP + _PRIORS_HDP + _ALGORITHM_HDP + _ALGORITHM_OPTIONS
           + _BATCHES_INIT.replace("INIT_ENTRY", _INIT_HDP) + _MOVES_HDP + _RUNTIME + "\n" + _ATTRIBUTES + _CONCENTRATIONS + _HDP_EXAMPLES)

# ---------------------------------------------------------------------------------------------------- methods
_X_DOCS = """X : array-like or sparse matrix of shape (n_documents, n_words), BagOfWords, corpus or ShardStore
        Word counts: a scipy sparse or dense matrix, a DataFrame, a
        :class:`~stickbreak.data.BagOfWords`, a gensim-style corpus (lists of ``(word_id, count)``),
        token lists or raw text (counted over the fitted vocabulary)"""

PAPER_PRESET = """An estimator with a seed paper's settings.

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

FIT = f"""Fit the topic model to a document-word count matrix.

    Parameters
    ----------
    {_X_DOCS}.
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
    empty : {{"keep", "skip", "error"}}, default="keep"
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

PARTIAL_FIT = """One stochastic VI step on a minibatch of documents (streaming; Hoffman et al. 2013, Alg. 2).

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

TRANSFORM = f"""Document-topic proportions of the documents ``X``, the topics fixed.

    Parameters
    ----------
    {_X_DOCS}.

    Returns
    -------
    ndarray of shape (n_documents, n_topics)
        Posterior-mean proportions ``E[pi_d]`` of each document over the fitted topics (each row sums
        to one); a document without words gets the prior's proportions.
    """

DOC_TOPIC_POSTERIOR = f"""Each document's Dirichlet posterior over topics, as independent Gammas.

    With the topics fixed, ``q(pi_d) = Dir(N_d + a)``: the proportions are the normalised Gammas
    ``Gamma(shape = N_d + a, rate = 1)`` (the HDP's leftover mass ``a_>K`` is left out). The input of
    :func:`stickbreak.evaluate.model_completion` (Paisley et al. 2012, Eq. 40). Direct family only.

    Parameters
    ----------
    {_X_DOCS}.

    Returns
    -------
    shape : ndarray of shape (n_documents, n_topics)
        Gamma shapes ``N_dk + a_k``.
    rate : ndarray of shape (n_documents, n_topics)
        Gamma rates (all ones).
    """

SCORE = f"""Held-out log-likelihood per word (nats) by document completion.

    Each document's tokens are split at random in half (seed 0); the first half estimates its
    topic proportions, the second is scored (Hughes 2016, Eq. 5.59;
    :func:`stickbreak.evaluate.document_completion`).
    Higher is better. Non-integer weights (tf-idf) have no tokens to split: their word types are
    split instead.

    Parameters
    ----------
    {_X_DOCS}.
    y : None
        Ignored.
    total : bool, default=False
        Return the sum over the held-out words instead of the mean.

    Returns
    -------
    float
        Mean (or, with ``total=True``, summed) log-likelihood of the held-out words.
    """

PERPLEXITY = f"""Held-out perplexity per word, ``exp(-score(X))``.

    Parameters
    ----------
    {_X_DOCS}.

    Returns
    -------
    float
        The perplexity (lower is better).
    """

TOP_WORDS = """The most probable words of every used topic, largest topic first.

    Parameters
    ----------
    n : int, default=10
        Words per topic.
    min_size : float, default=1.0
        Topics with fewer expected training tokens are left out.

    Returns
    -------
    list of dict
        One ``{"topic": index, "size": expected tokens, "words": [(word, probability), ...]}`` per
        topic; words are vocabulary strings when the vocabulary is known, else column indices.
    """

SAVE = """Save the fitted model to ``path`` (.npz with JSON metadata; no pickle).

    The file holds the constructor parameters, the prior, topics, document-weight parameters,
    statistics, vocabulary, trace and the ``partial_fit`` stream's place; :meth:`load` (or
    :func:`stickbreak.load`) reads it back.

    Parameters
    ----------
    path : str or path-like
        The file to write (``.npz`` is appended when missing; its directory is created if needed).

    Returns
    -------
    pathlib.Path
        The path written (with the ``.npz`` suffix).
    """
