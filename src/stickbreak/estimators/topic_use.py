"""Using a fitted topic model: :class:`FittedTopics`, the methods :class:`~stickbreak.LDA`,
:class:`~stickbreak.HDPTopicModel` and :class:`~stickbreak.DILN` share once fitted (proportions,
posteriors, held-out scores, top words) and their save and load."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import persist
from ..core.suffstats import SuffStats
from ..data import BagOfWords
from ..data.bow import is_integral
from ..evaluate.topics import document_completion
from ..models.topics.two_level import TwoLevelHDP
from ..core.docstrings import composed
from ._common import SAVE_SECTIONS, check_feature_names, check_n_features, check_prediction_memory, numba_threads
from ._topic_plans import TruncationFreeTopics
from .top_words import TopWords


#: numpydoc text of the documents the methods take (:func:`._common.composed`).
DOCUMENTS = {"documents": """X : array-like, sparse matrix, BagOfWords, gensim-style corpus or token lists
            The documents' word counts, in any form :meth:`fit` takes (raw text and token lists are
            counted over the fitted vocabulary)."""}
#: numpydoc text of the held-out scores' ``total`` option and their Returns (:func:`._common.composed`).
HELDOUT_SCORE = {"total_and_returns": """total : bool, default=False
            Return the sum over the held-out words instead of the mean.

        Returns
        -------
        float
            Mean (or, with ``total=True``, summed) log-likelihood of the held-out words."""}


class FittedTopics(TopWords):
    """The fitted topic model's methods; the estimator sets ``model_``, ``params_``, ``stats_``,
    ``vocabulary_`` and the fitted attributes (``TopicEstimator._set_fitted``)."""

    @property
    def _n_features_out(self) -> int:
        """The columns of :meth:`transform`, one per topic: ``get_feature_names_out`` names them
        ``lda0, lda1, ...`` (the class name and the topic), as scikit-learn's LDA does."""
        return self.components_.shape[0]

    def _validated(self, X) -> BagOfWords:
        check_is_fitted(self, "params_")
        check_feature_names(self, X, reset=False)
        data = self._as_bow(X, tokens_over=self.vocabulary_)  # an empty document gets the prior's proportions
        check_n_features(self, data.n_features)
        check_prediction_memory(type(self).__name__, data.n_items, self.params_.n_components)
        return data

    def _heldout(self, X) -> tuple[BagOfWords, str]:
        """The validated documents and what document completion splits in half: their tokens
        (``"tokens"``), or their word types when the weights are not whole counts (tf-idf)."""
        data = self._validated(X)
        return data, "tokens" if is_integral(data.counts.data) else "types"

    @composed(**DOCUMENTS)
    def transform(self, X) -> np.ndarray:
        """Document-topic proportions of the documents ``X``, the topics fixed.

        Parameters
        ----------
        $documents

        Returns
        -------
        ndarray of shape (n_documents, n_topics)
            Posterior-mean proportions ``E[pi_d]`` of each document over the fitted topics (each row sums
            to one); a document without words gets the prior's proportions.
        """
        data = self._validated(X)
        with numba_threads(self.n_jobs):
            if isinstance(self.model_, TruncationFreeTopics):
                return self.model_.doc_topic(self.params_, data)
            if isinstance(self.model_, TwoLevelHDP):  # E theta_d = sum_i E sigma_i(pi_d) zeta_di (Hoffman et al. §4)
                theta = self.model_.expected_doc_topic(self.params_, data)
                return theta / np.maximum(theta.sum(axis=1, keepdims=True), 1e-300)
            local = self.model_.local_step(self.params_, data)
        theta = local.doc_topic + local.prior[None, :]
        return theta / theta.sum(axis=1, keepdims=True)

    @composed(**DOCUMENTS)
    def doc_topic_posterior(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Each document's Dirichlet posterior over topics, as independent Gammas.

        With the topics fixed, ``q(pi_d) = Dir(N_d + a)``: the proportions are the normalised Gammas
        ``Gamma(shape = N_d + a, rate = 1)`` (the HDP's leftover mass ``a_>K`` is left out). The input of
        :func:`stickbreak.evaluate.model_completion` (Paisley et al. 2012, Eq. 40). Direct family only.

        Parameters
        ----------
        $documents

        Returns
        -------
        shape : ndarray of shape (n_documents, n_topics)
            Gamma shapes ``N_dk + a_k``.
        rate : ndarray of shape (n_documents, n_topics)
            Gamma rates (all ones).
        """
        data = self._validated(X)
        if isinstance(self.model_, (TruncationFreeTopics, TwoLevelHDP)):
            raise ValueError("doc_topic_posterior needs the direct-assignment family (variational_family='direct', "
                             "not truncation_free or gibbs): the other fits keep no Dirichlet posterior per document")
        with numba_threads(self.n_jobs):
            local = self.model_.local_step(self.params_, data)
        shape = local.doc_topic + local.prior[None, :]
        return shape, np.ones_like(shape)

    @composed(**DOCUMENTS, **HELDOUT_SCORE)
    def score(self, X, y=None, *, total: bool = False) -> float:
        """Held-out log-likelihood per word (nats) by document completion.

        Each document's tokens are split at random in half (seed 0); the first half estimates its
        topic proportions, the second is scored (Hughes 2016, Eq. 5.59;
        :func:`stickbreak.evaluate.document_completion`).
        Higher is better. Non-integer weights (tf-idf) have no tokens to split: their word types are
        split instead.

        Parameters
        ----------
        $documents
        y : None
            Ignored.
        $total_and_returns
        """
        data, mode = self._heldout(X)
        score = document_completion(self, data.counts, mode=mode, seed=0)
        return float(score.per_word * score.n_heldout_tokens if total else score.per_word)

    @composed(**DOCUMENTS)
    def perplexity(self, X) -> float:
        """Held-out perplexity per word, ``exp(-score(X))``.

        Parameters
        ----------
        $documents

        Returns
        -------
        float
            The perplexity (lower is better).
        """
        return float(np.exp(-self.score(X)))

    @composed(**SAVE_SECTIONS)
    def save(self, path):
        """Save the fitted model to ``path`` (.npz with JSON metadata; no pickle).

        The file holds the constructor parameters, the prior, topics, document-weight parameters,
        statistics, vocabulary, trace and the ``partial_fit`` stream's place; :meth:`load` (or
        :func:`stickbreak.load`) reads it back.

        $save_sections
        """
        check_is_fitted(self, "params_")
        params = self._saved_params()
        arrays = self._fitted_arrays(self.params_.weights, "weights.")
        if self.vocabulary_ is not None:
            arrays["vocabulary"] = np.array(self.vocabulary_, dtype=str)
        extra = {"trace": self.trace_, "stop_reason": self.stop_reason_, **self._input_extra()}
        if "_stream" in vars(self):  # a partial_fit stream: a loaded model goes on with the next step
            extra["stream"] = {key: self._stream[key] for key in ("step", "seen", "stochastic_model")}
        return persist.save_model(path, type(self).__name__, params, arrays, extra)

    @classmethod
    def _from_saved(cls, meta, arrays):
        est = cls._from_params(meta["params"])
        stream = meta["extra"].get("stream")
        stochastic = None if stream is None else stream.get("stochastic_model", True)  # older files lack it
        settings = est._settings()
        model = settings.model(0, obs_prior=persist.nested_arrays(arrays, "obs_prior."), stochastic=stochastic)
        params = model.make_params(arrays["uids"], persist.nested_arrays(arrays, "obs.")["lam"],
                                   persist.nested_arrays(arrays, "weights."))
        extra = meta["extra"]
        est._restore_input(extra)
        est.vocabulary_ = tuple(arrays["vocabulary"].tolist()) if "vocabulary" in arrays else None
        est._set_fitted(model, params, SuffStats.from_arrays(arrays, "stats."), extra["trace"], extra["stop_reason"])
        if stream is not None:
            est._stream = est._new_stream(settings, int(stream["step"]), int(stream["seen"]),
                                          stochastic_model=stochastic)
        return est
