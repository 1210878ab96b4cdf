""":class:`ShortTextTopicModel`: one topic per document with K learned, for tweets, titles, questions
and reviews (the Dirichlet-process mixture of multinomials under the name and the attributes of a
topic model)."""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .. import persist
from .mixture import DP_FIELDS, DPMixture
from .mixture_base import mixture_fit_settings
from .top_words import TopWords


@persist.register
class ShortTextTopicModel(TopWords, ClassNamePrefixFeaturesOutMixin, TransformerMixin, DPMixture):
    __doc__ = ("""Topics of short texts, one topic per document, their number learned.

    The Dirichlet-process mixture of multinomials (Hughes 2016, Ch. 3; the model GSDMM samples, Yin
    & Wang 2014, and tweetopic's DMM fits, there with an upper bound on K): each document's words
    are drawn from the single topic it belongs to, ``phi_k ~ Dir(topic_word_prior)``, the topic
    weights from a DP with ``concentration``. Short documents hold too few words for an admixture
    (LDA, the HDP) to estimate each document's proportions; one topic per document pools them.

    K is learned with no upper bound: the documents are dealt at random among many clusters (one per
    10 documents, at most 1,000) and 10 sweeps of the model's collapsed Gibbs sampler (Yin & Wang
    2016's GSDPMM) empty the clusters the data do not support and open others; memoized VI with
    births, merges and deletes on the exact ELBO (Hughes 2016, Ch. 4) then refines that partition
    (``init="gibbs"``, :mod:`stickbreak.models.mixture.gibbs_start`). ``algorithm="truncation_free"``
    fits by truncation-free SVI from no topics instead (Wang & Blei 2012; faster, but on corpora
    of many small stories it keeps far fewer topics and ends with a lower ELBO). On the DMM
    literature's corpora and 20newsgroups openings, NMI and K against tweetopic's DMM and
    bitermplus's BTM given the true K: ``benchmarks/results/short_texts*.md``.

    It is :class:`~stickbreak.DPMixture` with ``obs_model="mult"`` and a topic model's names: raw
    text, token lists and count matrices in; ``top_words``, ``topic_word_``, ``transform``, the
    report's top words and :func:`stickbreak.export.to_pyldavis` out.

    Parameters
    ----------
    n_topics : int or "auto", default="auto"
        With ``init="gibbs"`` (the default) the clusters the documents are dealt among at the start
        ("auto": ``n_documents // 10`` between 1 and 1,000); K is then learned. With another
        ``init``, memoized VI starts from this many ("auto": ``n_documents // 30`` between 1 and
        100) and "vb" and "stochastic" fit exactly this many; unused by "truncation_free".
    concentration : float, default=1.0
        DP concentration of the topic weights; larger favours more topics.
    topic_word_prior : float or array-like of shape (n_words,), default=None
        Dirichlet pseudo-count of every word in every topic (GSDMM's beta); None: 0.1. How fine
        the topics are: a word a topic has not seen costs about ``topic_word_prior / topic size``,
        so larger values give fewer, coarser topics (STTM's SearchSnippets: about 200 topics at
        0.1, 17 at 1; ``benchmarks/results/short_texts*.md``)."""
               + mixture_fit_settings(**{**DP_FIELDS, "init": "gibbs", "max_laps": "20"}).rstrip() + """
    topic_word_ : ndarray of shape (n_components, n_words)
        Posterior-mean word probabilities of each topic.
    components_ : ndarray of shape (n_components, n_words)
        The topics' Dirichlet parameters (prior plus expected word counts).
    topic_sizes_ : ndarray of shape (n_components,)
        Expected training tokens per topic (``component_counts_``: documents per topic).
    topic_weights_ : ndarray of shape (n_components,)
        Expected DP weights of the topics (``weights_``).
    n_topics_ : int
        Topics holding at least one expected document.

    See Also
    --------
    HDPTopicModel : Many topics per document, for longer texts.

    Examples
    --------
    >>> from stickbreak import ShortTextTopicModel
    >>> travel = [f"{a} {b}" for a in ("cheap", "paris", "rome", "last minute")
    ...           for b in ("flights", "hotels", "hotel deals")]
    >>> code = [f"{a} {b}" for a in ("python", "pandas", "numpy", "sorting")
    ...         for b in ("list question", "dataframe merge", "array error")]
    >>> model = ShortTextTopicModel(random_state=0).fit(travel + code)
    >>> travel_topics, code_topics = set(model.labels_[:12]), set(model.labels_[12:])
    >>> model.n_topics_, len(travel_topics), travel_topics & code_topics  # a topic for travel, one for code
    (2, 1, set())
    >>> [word for word, _ in model.top_words(3)[0]["words"]]
    ['array', 'dataframe', 'error']
    >>> model.predict(["rome flights"]).tolist() == [model.labels_[0]]
    True
    >>> model.transform(["pandas merge"]).shape == (1, model.n_components_)
    True
        """)

    report_kind = "topics"
    #: Under memoized VI short texts support more topics than a mixture's default start finds: on 3,000
    #: 20newsgroups openings a start of n // 30 reached a higher ELBO than n // 100.
    _auto_items_per_component = 30

    def __init__(self, n_topics="auto", *, concentration=1.0, topic_word_prior=None, algorithm="memoized",
                 algorithm_options=None, moves=None, move_options=None, init="gibbs", n_kmeans_iters=3,
                 max_laps=20, min_laps=2, tol=1e-6, n_batches=1, n_jobs=1, executor=None, n_active=None,
                 learn_concentration=False, random_state=None, verbose=0, callbacks=None):
        self.n_topics = n_topics
        self.topic_word_prior = topic_word_prior
        super().__init__(n_topics, obs_model="mult", concentration=concentration, obs_prior=None,
                         algorithm=algorithm, algorithm_options=algorithm_options, moves=moves,
                         move_options=move_options, init=init, n_kmeans_iters=n_kmeans_iters, max_laps=max_laps,
                         min_laps=min_laps, tol=tol, n_batches=n_batches, n_jobs=n_jobs, executor=executor,
                         n_active=n_active, learn_concentration=learn_concentration, random_state=random_state,
                         verbose=verbose, callbacks=callbacks)

    # The mixture's settings, read from this model's own parameters (set_params and clone see only those).
    @property
    def n_components(self):
        """The mixture's initial number of components: ``n_topics``."""
        return self.n_topics

    @n_components.setter
    def n_components(self, value) -> None:
        self.n_topics = value

    @property
    def obs_model(self) -> str:
        """Always word counts (not a parameter)."""
        return "mult"

    @obs_model.setter
    def obs_model(self, value) -> None:
        if value != "mult":
            raise ValueError("ShortTextTopicModel models word counts: obs_model is 'mult'")

    @property
    def obs_prior(self) -> dict:
        """The mixture's observation prior options: ``topic_word_prior`` as the pseudo-count."""
        return {} if self.topic_word_prior is None else {"pseudo_count": self.topic_word_prior}

    @obs_prior.setter
    def obs_prior(self, value) -> None:
        if value:
            raise ValueError("ShortTextTopicModel takes its word prior as topic_word_prior")

    @property
    def _n_features_out(self) -> int:
        """The columns of :meth:`transform`, one per topic (named ``shorttexttopicmodel0, ...``)."""
        return self.n_components_

    def transform(self, X) -> np.ndarray:
        """Each document's posterior probability of each topic (:meth:`predict_proba`; one topic per
        document, so each row is its uncertainty over which).

        Parameters
        ----------
        X : raw text, token lists, array-like or sparse matrix
            Documents counted over the fitted vocabulary.

        Returns
        -------
        ndarray of shape (n_documents, n_components)
            Rows summing to one.
        """
        return self.predict_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True  # word counts
        return tags

    def _set_fitted(self, model, params, stats, trace, stop_reason: str, labels, lower_bound=None, move_log=()):
        super()._set_fitted(model, params, stats, trace, stop_reason, labels, lower_bound, move_log)
        self.components_ = params.obs["lam"]
        self.topic_word_ = self.word_probs_  # the multinomial's summary, set by the mixture
        self.topic_sizes_ = stats.fields["word_counts"].sum(axis=1)
        self.topic_weights_ = self.weights_
        self.n_topics_ = self.n_active_components_
        self.heldout_per_word_ = None  # the report's held-out curve: none (score is per document)
