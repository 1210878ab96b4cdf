"""scikit-learn style DILN topic model (Paisley, Wang & Blei 2012), a thin shell over
:class:`~stickbreak.models.diln.model.DILNModel` and the shared batch and stochastic learners.

>>> from stickbreak import DILN, datasets
>>> ap = datasets.load("ap")
>>> model = DILN(n_topics=100, max_laps=30, random_state=0).fit(ap.X)
>>> pairs = model.top_correlated_pairs(5)          # the most positively correlated topic pairs
>>> locations = model.document_locations(ap.X[:10])    # u_m, for retrieval by cosine similarity
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import driver, persist
from ..models.diln.model import DILNModel, DILNPrior, DilnStats, nearest_by_cosine, topic_correlation
from ..config import DILNOptions, check_int, check_positive
from ._topic_plans import BATCH_LOCAL_TOL, STOCHASTIC_LOCAL_TOL, TopicVariant, variational
from ..core.docstrings import composed
from ._common import numba_threads
from .topic_base import TopicEstimator
from .topic_use import HELDOUT_SCORE
from ..evaluate.completion_mc import model_completion


def diln_model(settings, obs_prior, stochastic: bool) -> DILNModel:
    """DILN for batch VI (the paper's Algorithm 1: each document's locations optimised, warm starts
    allowed) or for stochastic steps (Algorithm 2: Newton steps, documents from scratch)."""
    options = settings.options
    local_tol = options.local_tol if options.local_tol is not None else (STOCHASTIC_LOCAL_TOL if stochastic
                                                                         else BATCH_LOCAL_TOL)
    update = options.concentration_update
    if update == "auto":
        update = "joint" if stochastic else "paper"
    return DILNModel(obs_prior, settings.model_prior, settings.correlated, "newton_step" if stochastic else "optimize",
                     "scratch" if stochastic else options.local_start, int(options.local_max_iter), float(local_tol),
                     location_tol=1e-3, newton_steps=int(options.newton_steps), n_chunks=settings.n_chunks,
                     keep_documents=not stochastic or update == "joint", concentration_update=update)


_DILN = TopicVariant(diln_model, variational, streams=True)
#: DILN fits by batch or stochastic VI.
DILN_VARIANTS = {("vb", "direct"): _DILN, ("stochastic", "direct"): _DILN}


@persist.register
class DILN(TopicEstimator):
    __doc__ = """The discrete infinite logistic normal topic model (Paisley, Wang & Blei 2012).

    An HDP whose document-level topic weights are correlated through latent locations: topic k sits
    at ``l_k`` in R^d, document m at ``u_m``, and ``Z_mk ~ Gamma(beta p_k, exp(-l_k'u_m))``, so topics
    whose locations point the same way tend to appear together. Truncated at ``n_topics``; the
    number of topics used is learned. Batch VI is the paper's Algorithm 1, stochastic VI its
    Algorithm 2 (Newton-preconditioned steps for the sticks and locations, natural-gradient topics).

    Parameters
    ----------
    n_topics : int, default=200
        Truncation T (the paper's 200; at least 2); topics the data do not need stay (nearly) empty.
    latent_dim : int, default=20
        Dimension d of the locations ``l_k`` and ``u_m`` (the paper's 20).
    location_variance : float, optional
        Variance c of the topic locations ``l_k ~ N(0, c I_d)``; default (None) ``1 / latent_dim``,
        the paper's 1/20 (c < 1).
    topic_word_prior : float, default=0.5
        gamma0 of the topics ``eta_k ~ Dir(gamma0)`` (paper: 0.1 to 1 batch, 0.01 stochastic).
    correlated : bool, default=True
        False sets ``exp(-l'u) := 1``: the HDP special case (§4.3), the same code otherwise.
    alpha_prior : tuple of (float, float), default=(1.0, 1e-3)
        ``(shape, rate)`` of the Gamma prior of the top-level concentration alpha (paper: (1, 1e-3)).
    beta_prior : tuple of (float, float), default=(1.0, 1e-3)
        ``(shape, rate)`` of the Gamma prior of the document-level concentration beta (paper: (1, 1e-3)).
    initial_beta : float, default=1.0
        beta before the first global step (the paper does not give its start). Under the paper's
        update (``algorithm_options={"concentration_update": "paper"}``, the default of batch VI)
        beta stays near its start, since each step's optimum is close to the beta the documents
        were fitted with: on 20newsgroups the batch HDP ended at beta 1.9 from 1 and 7.0 from 20,
        stochastic VI at 2.5 from 1 and 21-26 from 20, 0.42-0.49 nats/word worse held out from 1.
        The joint update (the default of stochastic VI) ends at the same beta from either start
        (``benchmarks/results/diln_beta_20newsgroups.md``, ``diln_stochastic_20newsgroups.md``).
    algorithm : {"vb", "svi", "stochastic"}, default="vb"
        Batch coordinate ascent (the paper's Algorithm 1; the ELBO never decreases) or stochastic VI
        ("svi", alias "stochastic"; Algorithm 2).
    algorithm_options : dict, optional
        Fields of :class:`stickbreak.config.DILNOptions`: ``learning_rate_delay``,
        ``learning_rate_decay`` (25, 0.75) and ``sampling`` of stochastic VI (step
        ``(delay + t)^-decay``, the paper's zeta = 25, kappa in {0.6, 0.75, 0.9});
        ``local_max_iter`` (100), ``local_tol`` and ``local_start``, the document-level loop:
        iterations cap, tolerance on ``max_k |Delta N_dk|`` (default 0.5 for batch VI, 0.05 for
        stochastic VI) and, for batch VI, where each document starts: ``"scratch"`` (from the prior
        weights every lap, the default), ``"warm"`` (from the last lap) or ``"best"`` (both, keeping
        the better). Warm and best make the ELBO provably monotone but stay near the first lap's
        assignments (see :class:`~stickbreak.models.diln.model.DILNModel`). ``newton_steps`` (1):
        Newton steps on each document's location per local iteration. ``concentration_update``
        (``"auto"``: ``"paper"`` for batch VI, ``"joint"`` for stochastic VI): how alpha and beta
        are updated. ``total_docs``: the stream size ``partial_fit`` assumes.
    n_batches : int, default=1
        Stochastic VI: minibatches per lap. Batch VI: the corpus is processed in ``n_batches``
        pieces (the same result).
    batch_size : int, optional
        Stochastic VI: documents per minibatch (overrides ``n_batches``).
    init : {"kmeans_l1", "random", "documents", "exponential"}, default="kmeans_l1"
        ``"kmeans_l1"``: the paper's three iterations of k-means with the L1 distance on the
        documents' word distributions, clusters ordered by usage, smoothed (§5.2); the others as
        for :class:`~stickbreak.LDA`.
    max_laps : int, default=100
        Most passes over the corpus.
    min_laps : int, default=2
        Fewest passes before the tolerance may stop the fit.
    tol : float, default=1e-3
        Stop when the fractional ELBO change falls below ``tol`` (the paper's 1e-3).
    n_jobs : int, default=1
        Threads for the local step (-1: all cores), or worker processes with ``executor``.
    executor : None, "threads", "processes", "dask", a scheduler address or a ``distributed.Client``
        Where the local steps run, as for :class:`~stickbreak.LDA`.
    random_state : int, numpy.random.Generator or None
        Seed of the initialisation and the minibatches.
    verbose : int, default=0
        0 silent, 1 a progress bar.
    callbacks : list of callable, optional
        Each called as ``callback(lap_record, params)`` after every lap; returning True stops the fit.

    Attributes
    ----------
    topic_word_ : ndarray of shape (n_topics, n_words)
        Posterior-mean word probabilities of every topic; ``components_`` their Dirichlet parameters.
    topic_sizes_ : ndarray of shape (n_topics,)
        Expected training tokens per topic; ``n_topics_`` counts those with at least one.
    topic_weights_ : ndarray of shape (n_topics,)
        The top-level stick weights ``p_k``.
    topic_correlation_ : ndarray of shape (n_topics, n_topics) or None
        Cosine of the topic locations, ``l_i'l_j / |l_i||l_j|`` (None when ``correlated=False``).
    topic_locations_ : ndarray of shape (n_topics, latent_dim)
        The locations ``l_k``.
    alpha_, beta_ : float
        The fitted concentrations.
    lower_bound_, elbo_trace_, trace_, n_iter_, converged_, stop_reason_, vocabulary_ : object
        As for :class:`~stickbreak.LDA`.

    See Also
    --------
    HDPTopicModel : The HDP topic model without topic correlations.

    Examples
    --------
    >>> from stickbreak import DILN, datasets
    >>> ap = datasets.load("ap")
    >>> docs = ap.X[:200]
    >>> diln = DILN(n_topics=10, random_state=0).fit(docs)
    >>> diln.topic_correlation_.shape
    (10, 10)
    >>> diln.transform(docs).shape
    (200, 10)
    >>> diln.document_locations(docs[:5]).shape      # u_m, for retrieval by cosine similarity
    (5, 20)
    >>> pairs = diln.top_correlated_pairs(2)          # the most positively correlated topic pairs
    >>> len(pairs), sorted(pairs[0])
    (2, ['correlation', 'topics'])
    """

    _weight_model = "diln"
    _variants = DILN_VARIANTS
    _options_class = DILNOptions
    report_kind = "diln"

    def __init__(self, n_topics=200, *, latent_dim=20, location_variance=None, topic_word_prior=0.5,
                 correlated=True, alpha_prior=(1.0, 1e-3), beta_prior=(1.0, 1e-3), initial_beta=1.0, algorithm="vb",
                 algorithm_options=None, n_batches=1, batch_size=None, init="kmeans_l1", max_laps=100, min_laps=2,
                 tol=1e-3, n_jobs=1, executor=None, random_state=None, verbose=0, callbacks=None):
        self.n_topics, self.latent_dim, self.location_variance = n_topics, latent_dim, location_variance
        self.topic_word_prior, self.correlated, self.initial_beta = topic_word_prior, correlated, initial_beta
        self.alpha_prior, self.beta_prior = alpha_prior, beta_prior
        self.algorithm, self.algorithm_options = algorithm, algorithm_options
        self.n_batches, self.batch_size, self.init = n_batches, batch_size, init
        self.max_laps, self.min_laps, self.tol = max_laps, min_laps, tol
        self.n_jobs, self.executor = n_jobs, executor
        self.random_state, self.verbose, self.callbacks = random_state, verbose, callbacks

    # ------------------------------------------------------------------ configuration
    def _prior(self) -> DILNPrior:
        check_int("latent_dim", self.latent_dim, 1)
        variance = 1.0 / self.latent_dim if self.location_variance is None else self.location_variance
        return DILNPrior(float(self.topic_word_prior), tuple(self.alpha_prior), tuple(self.beta_prior),
                         int(self.latent_dim), float(variance))

    def _start_topics(self) -> int:
        check_int("n_topics", self.n_topics, 2)
        return int(self.n_topics)

    def _n_active(self) -> None:
        return None  # (DILN's local step is dense: no n_active)

    def _model_settings(self) -> dict:
        check_positive("initial_beta", self.initial_beta)
        if not isinstance(self.correlated, (bool, np.bool_)):
            raise TypeError(f"correlated must be True (DILN) or False (its HDP special case), got {self.correlated!r}")
        return {"model_prior": self._prior(), "correlated": bool(self.correlated),
                "initial_beta": float(self.initial_beta)}

    def _set_fitted(self, model, params, stats, trace, stop_reason, lower_bound=None):
        stats = stats.core if isinstance(stats, DilnStats) else stats  # what is saved: no per-document arrays
        super()._set_fitted(model, params, stats, trace, stop_reason, lower_bound)
        self.topic_locations_ = params.locations
        self.topic_correlation_ = topic_correlation(params.locations) if model.correlated else None
        self.alpha_, self.beta_ = params.alpha, params.beta

    # ------------------------------------------------------------------ using the model
    def _local(self, X):
        data = self._validated(X)
        model = self.model_
        with numba_threads(self.n_jobs):
            return DILNModel(model.obs_prior, model.prior, model.correlated, local_start="scratch",
                             max_iter=model.max_iter, tol=min(model.tol, STOCHASTIC_LOCAL_TOL),
                             location_tol=model.location_tol, newton_steps=model.newton_steps,
                             n_chunks=model.n_chunks).local_step(self.params_, data)

    def doc_topic_posterior(self, X) -> tuple[np.ndarray, np.ndarray]:
        """The Gamma posterior ``q(Z_d)`` of each document's topic weights, the corpus-level parameters fixed.

        ``Z_dk ~ Gamma(a_dk, b_dk)`` (Paisley et al. 2012, Eqs. 22-24); the proportions are
        ``Z_d / sum_k Z_dk``. The input of :func:`stickbreak.evaluate.model_completion`.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_words), or BagOfWords
            Word counts (any form :meth:`fit` takes).

        Returns
        -------
        shape : ndarray of shape (n_documents, n_topics)
            The Gamma shapes ``a_dk``.
        rate : ndarray of shape (n_documents, n_topics)
            The Gamma rates ``b_dk``.
        """
        local = self._local(X)
        return local.a, local.b

    def transform(self, X) -> np.ndarray:
        """Document-topic proportions of the documents ``X``, the corpus-level parameters fixed.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_words), or BagOfWords
            Word counts (any form :meth:`fit` takes).

        Returns
        -------
        ndarray of shape (n_documents, n_topics)
            ``E[Z_dk] / sum_j E[Z_dj]`` under ``q(Z_d)``; each row sums to one.
        """
        local = self._local(X)
        mean = local.mean_z
        return mean / mean.sum(axis=1, keepdims=True)

    def document_locations(self, X) -> np.ndarray:
        """The documents' locations ``u_m`` in the topics' latent space.

        Documents close in angle use correlated topics (the paper's retrieval by cosine similarity,
        Paisley et al. 2012, Fig. 7). Only with ``correlated=True``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_words), or BagOfWords
            Word counts (any form :meth:`fit` takes).

        Returns
        -------
        ndarray of shape (n_documents, latent_dim)
            The fitted location of each document.
        """
        if not self.correlated:
            raise ValueError("the HDP special case (correlated=False) has no document locations")
        return self._local(X).u

    def similar_documents(self, X_query, X_reference=None, n: int = 10) -> tuple[np.ndarray, np.ndarray]:
        """The reference documents whose locations are most similar to each query document's.

        Similarity is the cosine of the locations ``u`` (Paisley et al. 2012, Fig. 7). Only with
        ``correlated=True``.

        Parameters
        ----------
        X_query : array-like or sparse matrix of shape (n_queries, n_words), or BagOfWords
            Word counts of the query documents.
        X_reference : array-like or sparse matrix of shape (n_references, n_words), optional
            Word counts of the documents to search; default: the queries themselves, each query
            excluding itself.
        n : int, default=10
            Documents returned per query.

        Returns
        -------
        indices : ndarray of int, shape (n_queries, n)
            Rows of the reference documents, most similar first.
        similarities : ndarray of shape (n_queries, n)
            Their cosine similarities.
        """
        query = self.document_locations(X_query)
        reference = query if X_reference is None else self.document_locations(X_reference)
        return nearest_by_cosine(query, reference, n, exclude_self=X_reference is None)

    def top_correlated_pairs(self, n: int = 10, min_size: float = driver.EFFECTIVE_COUNT,
                             negative: bool = False, among: int | None = 30) -> list[dict]:
        """The most correlated pairs of topics, by the cosine of their locations.

        Only with ``correlated=True``.

        Parameters
        ----------
        n : int, default=10
            Pairs returned.
        min_size : float, default=1.0
            Topics with fewer expected training tokens are left out.
        negative : bool, default=False
            The most negatively correlated pairs instead.
        among : int or None, default=30
            Pairs among the ``among`` largest topics only (the paper's figures show the 30 most
            probable); None: all topics with at least ``min_size`` tokens.

        Returns
        -------
        list of dict
            ``{"topics": (i, j), "correlation": float}`` per pair, strongest first.
        """
        check_is_fitted(self, "params_")
        if self.topic_correlation_ is None:
            raise ValueError("the HDP special case (correlated=False) has no topic correlations")
        used = np.flatnonzero(self.topic_sizes_ >= min_size)
        if among is not None:
            used = np.sort(used[np.argsort(-self.topic_sizes_[used], kind="stable")[:among]])
        corr = self.topic_correlation_[np.ix_(used, used)]
        i, j = np.triu_indices(len(used), k=1)
        values = corr[i, j]
        order = np.argsort(values if negative else -values, kind="stable")[:n]
        return [{"topics": (int(used[i[o]]), int(used[j[o]])), "correlation": float(values[o])} for o in order]

    @composed(**HELDOUT_SCORE)
    def score(self, X, y=None, n_samples: int = 100, *, total: bool = False) -> float:
        """Held-out log-likelihood per word (nats) by the paper's document completion.

        Each document's tokens are split at random in half (seed 0), ``q`` of the document is fitted
        to the first half, and the second is scored by Monte Carlo over ``q(Z)`` and ``q(eta)``
        (Paisley et al. 2012, §5.1, Eq. 40; :func:`stickbreak.evaluate.model_completion`). Higher is
        better. Non-integer weights (tf-idf) have no tokens to split: their word types are split
        instead.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_documents, n_words), or BagOfWords
            Word counts (any form :meth:`fit` takes).
        y : None
            Ignored.
        n_samples : int, default=100
            Monte Carlo samples per document.
        $total_and_returns
        """
        data, mode = self._heldout(X)
        score = model_completion(self, data.counts, seed=0, n_samples=n_samples, mode=mode)
        return float(score.total if total else score.per_word)
