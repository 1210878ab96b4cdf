"""scikit-learn style DILN topic model (Paisley, Wang & Blei 2012), a thin shell over
:class:`~stickbreak.models.diln.model.DILNModel` and the shared batch and stochastic learners.

>>> from stickbreak import DILN, datasets
>>> ap = datasets.load("ap")
>>> model = DILN(n_topics=100, max_laps=30, random_state=0).fit(ap.X)
>>> model.top_correlated_pairs(5)          # the most positively correlated topic pairs
>>> model.document_locations(ap.X[:10])    # u_m, for retrieval by cosine similarity
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import driver, persist
from ..data.bow import is_integral
from ..models.diln.model import DILNModel, DILNPrior, DilnStats, nearest_by_cosine, topic_correlation
from ..config import DILNOptions, check_int, check_positive
from ._topic_plans import BATCH_LOCAL_TOL, STOCHASTIC_LOCAL_TOL, TopicVariant, variational
from ._common import numba_threads
from .topics import _TopicEstimator
from ..evaluate.completion_mc import model_completion


def diln_model(est, obs_prior, options, stochastic: bool) -> DILNModel:
    """DILN for batch VI (the paper's Algorithm 1: each document's locations optimised, warm starts
    allowed) or for stochastic steps (Algorithm 2: Newton steps, documents from scratch)."""
    local_tol = options.local_tol if options.local_tol is not None else (STOCHASTIC_LOCAL_TOL if stochastic
                                                                         else BATCH_LOCAL_TOL)
    update = options.concentration_update
    if update == "auto":
        update = "joint" if stochastic else "paper"
    return DILNModel(obs_prior, est._prior(), bool(est.correlated), "newton_step" if stochastic else "optimize",
                     "scratch" if stochastic else options.local_start, int(options.local_max_iter), float(local_tol),
                     location_tol=1e-3, newton_steps=int(options.newton_steps), n_chunks=est._n_chunks(),
                     keep_documents=not stochastic or update == "joint", concentration_update=update)


_DILN = TopicVariant(diln_model, variational, streams=True)
#: DILN fits by batch or stochastic VI.
DILN_VARIANTS = {("vb", "direct"): _DILN, ("stochastic", "direct"): _DILN}


@persist.register
class DILN(_TopicEstimator):
    __doc__ = """The discrete infinite logistic normal topic model (Paisley, Wang & Blei 2012).

    An HDP whose document-level topic weights are correlated through latent locations: topic k sits
    at ``l_k`` in R^d, document m at ``u_m``, and ``Z_mk ~ Gamma(beta p_k, exp(-l_k'u_m))``, so topics
    whose locations point the same way tend to appear together. Truncated at ``n_topics``; the
    number of topics used is learned. Batch VI is the paper's Algorithm 1, stochastic VI its
    Algorithm 2 (Newton-preconditioned steps for the sticks and locations, natural-gradient topics).

    Parameters
    ----------
    n_topics : int
        Truncation T (the paper's 200); topics the data do not need stay (nearly) empty.
    latent_dim, location_variance : int, float
        d and c of the locations ``l_k ~ N(0, c I_d)`` (default c = 1/d; paper d = 20, c = 1/20; c < 1).
    topic_word_prior : float
        gamma0 of the topics ``eta_k ~ Dir(gamma0)`` (paper: 0.1 to 1 batch, 0.01 stochastic).
    correlated : bool
        False sets ``exp(-l'u) := 1``: the HDP special case (§4.3), the same code otherwise.
    alpha_prior, beta_prior : (shape, rate)
        Gamma priors of the top-level concentration alpha and the document-level beta (paper: (1, 1e-3)).
    initial_beta : float
        beta before the first global step (the paper does not give its start). Under the paper's
        update (``algorithm_options={"concentration_update": "paper"}``, the default of batch VI)
        beta stays near its start, since each step's optimum is close to the beta the documents
        were fitted with: on 20newsgroups the batch HDP ended at beta 1.9 from 1 and 7.0 from 20,
        stochastic VI at 2.5 from 1 and 21-26 from 20, 0.42-0.49 nats/word worse held out from 1.
        The joint update (the default of stochastic VI) ends at the same beta from either start
        (``benchmarks/results/diln_beta_20newsgroups.md``, ``diln_stochastic_20newsgroups.md``).
    algorithm : {"vb", "svi" (alias "stochastic")}
        Batch coordinate ascent (the ELBO never decreases) or stochastic VI; ``tol`` is the
        fractional ELBO change at which batch VI stops (the paper's 1e-3).
    init : {"kmeans_l1", "random", "documents", "exponential"}
        ``"kmeans_l1"``: the paper's three iterations of k-means with the L1 distance on the
        documents' word distributions, clusters ordered by usage, smoothed (§5.2).
    algorithm_options : dict, optional
        Fields of :class:`stickbreak.config.DILNOptions` (each was a constructor argument of the same
        name; still accepted, with a FutureWarning): ``learning_rate_delay``, ``learning_rate_decay``
        (25, 0.75) and ``sampling`` of stochastic VI (step ``(delay + t)^-decay``, the paper's zeta =
        25, kappa in {0.6, 0.75, 0.9}); ``local_max_iter`` (100), ``local_tol`` and ``local_start``,
        the document-level loop: iterations cap, tolerance on ``max_k |Delta N_dk|`` (default 0.5 for
        batch VI, 0.05 for stochastic VI) and, for batch VI, where each document starts:
        ``"scratch"`` (from the prior weights every lap), ``"warm"`` (from the last lap) or ``"best"``
        (both, keeping the better). Warm and best make the ELBO provably monotone but stay near the
        first lap's assignments (see :class:`~stickbreak.models.diln.model.DILNModel`); scratch is the
        default. ``newton_steps`` (1): Newton steps on each document's location per local iteration.
        ``total_docs``: the stream size ``partial_fit`` assumes.
    n_batches, batch_size : int
        Stochastic VI: minibatches per lap, or documents per minibatch (overrides ``n_batches``).
        Batch VI: the corpus is processed in ``n_batches`` pieces (the same result).
    max_laps, min_laps, tol
        Stop when the fractional ELBO change falls below ``tol`` (after ``min_laps``) or after ``max_laps``.
    n_jobs, executor, random_state, verbose, callbacks
        As for :class:`~stickbreak.LDA`.

    Attributes
    ----------
    topic_word_, components_, topic_sizes_, n_topics_, topic_weights_ (``p_k``), vocabulary_,
    lower_bound_, elbo_trace_, trace_, n_iter_, converged_, stop_reason_ : as for :class:`~stickbreak.LDA`.
    topic_correlation_ : (n_topics, n_topics) cosine of the topic locations, ``l_i'l_j / |l_i||l_j|``.
    topic_locations_ : (n_topics, latent_dim) the locations ``l_k``.
    alpha_, beta_ : the fitted concentrations.
    """

    _weight_model = "diln"
    _variants = DILN_VARIANTS
    _options_class = DILNOptions
    report_kind = "diln"

    def __init__(self, n_topics=200, *, latent_dim=20, location_variance=None, topic_word_prior=0.5,
                 correlated=True, alpha_prior=(1.0, 1e-3), beta_prior=(1.0, 1e-3), initial_beta=1.0, algorithm="vb",
                 algorithm_options=None, n_batches=1, batch_size=None, init="kmeans_l1", max_laps=100, min_laps=2,
                 tol=1e-3, n_jobs=1, executor=None, random_state=None, verbose=0, callbacks=None, **option_keywords):
        self.n_topics, self.latent_dim, self.location_variance = n_topics, latent_dim, location_variance
        self.topic_word_prior, self.correlated, self.initial_beta = topic_word_prior, correlated, initial_beta
        self.alpha_prior, self.beta_prior = alpha_prior, beta_prior
        self.algorithm, self.algorithm_options = algorithm, self._with_legacy(algorithm_options, option_keywords)
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

    def _check_settings(self) -> None:
        super()._check_settings()
        check_int("n_topics", self.n_topics, 2)
        check_positive("initial_beta", self.initial_beta)
        if not isinstance(self.correlated, (bool, np.bool_)):
            raise TypeError(f"correlated must be True (DILN) or False (its HDP special case), got {self.correlated!r}")
        self._prior()

    def _initial_params(self, model, lam, n_docs, rng):
        return model.initial_params(lam, rng, float(self.initial_beta))

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
        """``(shape, rate)`` (D, T) of ``q(Z_d)`` fitted to the documents ``X`` with the corpus-level
        parameters fixed (Eqs. 22-24): ``Z_dk ~ Gamma(a_dk, b_dk)``, proportions ``Z_d / sum_k Z_dk``."""
        local = self._local(X)
        return local.a, local.b

    def transform(self, X) -> np.ndarray:
        """Document-topic proportions ``E[Z_dk] / sum_j E[Z_dj]`` (D, T)."""
        local = self._local(X)
        mean = local.mean_z
        return mean / mean.sum(axis=1, keepdims=True)

    def document_locations(self, X) -> np.ndarray:
        """The documents' locations ``u_m`` (D, latent_dim): documents close in angle use correlated
        topics (the paper's retrieval by cosine similarity, Fig. 7)."""
        if not self.correlated:
            raise ValueError("the HDP special case (correlated=False) has no document locations")
        return self._local(X).u

    def similar_documents(self, X_query, X_reference=None, n: int = 10) -> tuple[np.ndarray, np.ndarray]:
        """For each query document, the ``n`` reference documents (default: the queries themselves,
        each excluding itself) whose locations ``u`` have the largest cosine similarity (Fig. 7):
        ``(indices, similarities)``, both (D_query, n)."""
        query = self.document_locations(X_query)
        reference = query if X_reference is None else self.document_locations(X_reference)
        return nearest_by_cosine(query, reference, n, exclude_self=X_reference is None)

    def top_correlated_pairs(self, n: int = 10, min_size: float = driver.EFFECTIVE_COUNT,
                             negative: bool = False, among: int | None = 30) -> list[dict]:
        """The ``n`` most positively (``negative=True``: negatively) correlated pairs among the ``among``
        largest topics (the paper's figures show the 30 most probable; None: all topics with at least
        ``min_size`` tokens): ``{"topics": (i, j), "correlation"}``, strongest first."""
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

    def score(self, X, y=None, n_samples: int = 100, *, total: bool = False) -> float:
        """Held-out per-word log-likelihood (nats) by the paper's document completion (§5.1, Eq. 40):
        each document's tokens are split at random in half (seed 0), q of the document is fitted to the
        first half, and the second is scored by Monte Carlo over q(Z) and q(eta)
        (:func:`stickbreak.evaluate.model_completion`). Higher is better; ``total=True``: the sum over
        the held-out words. Non-integer weights (tf-idf) have no tokens to split: their word types are
        split instead."""
        data = self._validated(X)
        mode = "tokens" if is_integral(data.counts.data) else "types"
        score = model_completion(self, data.counts, seed=0, n_samples=n_samples, mode=mode)
        return float(score.total if total else score.per_word)
