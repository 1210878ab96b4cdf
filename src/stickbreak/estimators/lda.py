"""Latent Dirichlet allocation, :class:`LDA` (a shell over :class:`~stickbreak.models.topics.model.TopicModel`).

>>> from stickbreak import LDA, datasets
>>> lda = LDA(n_topics=20, random_state=0).fit(datasets.load("ap").X)
"""

from __future__ import annotations

from .. import persist
from ..priors import TOPIC_WEIGHTS
from ._topic_plans import LDA_VARIANTS
from .topic_base import TopicEstimator, topic_docstring


@persist.register
class LDA(TopicEstimator):
    __doc__ = topic_docstring(
        """Latent Dirichlet allocation by variational inference (Blei et al. 2003; Hoffman et al. 2013).

    The topics ``beta_k ~ Dir(eta)`` and each document's proportions ``pi_d ~ Dir(alpha)`` are
    fitted by batch, stochastic or memoized VI on the direct family, or by collapsed inference.
    ``LDA.paper_preset("hoffman2013", n_topics=100)`` gives the SVI paper's settings.

    Parameters
    ----------
    n_topics : int, default=10
        Number of topics K.
    doc_topic_prior : float, optional
        Symmetric Dirichlet parameter alpha of each document's topic proportions ``pi_d ~ Dir(alpha)``
        (Blei et al. 2003). Default (None): ``1 / n_topics``.
    topic_word_prior : float, optional
        Symmetric Dirichlet parameter eta of every topic ``beta_k ~ Dir(eta)``, a pseudo-count of every
        word in every topic. Default (None): ``1 / n_topics``.
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
        sweeps, Welling et al. 2008, Eq. 31).
$options
$batches
    init : {"random", "documents", "exponential", "kmeans_l1"}, default="random"
        The first topics: nearly uniform random topics (scikit-learn's start), topics from random
        documents, ``eta + Exponential(100 D / (K V))`` (Hoffman et al. 2013, footnote 6), or k-means
        with the L1 distance on the documents' word distributions (Paisley et al. 2012, §5.2).
$laps
$runtime

$attributes

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
    """)

    _weight_model = "lda"
    _variants = LDA_VARIANTS
    _option_keys = ("learning_rate_delay", "learning_rate_decay", "sampling", "local_max_iter", "local_tol",
                    "local_start", "local_accelerate", "total_docs", "n_restarts", "burn_in", "sample_threshold")

    def __init__(self, n_topics=10, *, doc_topic_prior=None, topic_word_prior=None, algorithm="vb",
                 algorithm_options=None, n_batches=1, batch_size=None, init="random", max_laps=100, min_laps=2,
                 tol=1e-4, n_active=None, n_jobs=1, executor=None, random_state=None, verbose=0, callbacks=None):
        self.n_topics, self.doc_topic_prior, self.topic_word_prior = n_topics, doc_topic_prior, topic_word_prior
        self.algorithm, self.algorithm_options = algorithm, algorithm_options
        self.n_batches, self.batch_size, self.init = n_batches, batch_size, init
        self.max_laps, self.min_laps, self.tol, self.n_active = max_laps, min_laps, tol, n_active
        self.n_jobs, self.executor = n_jobs, executor
        self.random_state, self.verbose, self.callbacks = random_state, verbose, callbacks

    def _topic_word_prior(self) -> float:
        return 1.0 / self.n_topics if self.topic_word_prior is None else self.topic_word_prior

    def _weights_prior(self) -> dict:
        alpha = 1.0 / self.n_topics if self.doc_topic_prior is None else self.doc_topic_prior
        return TOPIC_WEIGHTS["lda"].default_prior(alpha)
