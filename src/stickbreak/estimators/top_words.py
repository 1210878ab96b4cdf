"""The most probable words of every topic: what every topic model shares, one document per topic
(:class:`~stickbreak.ShortTextTopicModel`) or many (:class:`~stickbreak.LDA` and the HDPs)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import driver


class TopWords:
    """``top_words``; the estimator sets ``topic_word_`` (K, V), ``topic_sizes_`` (K,) in expected
    tokens and ``vocabulary_`` (or None)."""

    def top_words(self, n: int = 10, min_size: float = driver.EFFECTIVE_COUNT) -> list[dict]:
        """The most probable words of every used topic, largest topic first.

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
        check_is_fitted(self, "params_")
        vocab = self.vocabulary_
        out = []
        for k in np.argsort(-self.topic_sizes_, kind="stable"):
            if self.topic_sizes_[k] < min_size:
                continue
            ids = np.argsort(-self.topic_word_[k], kind="stable")[:n]
            words = [(vocab[i] if vocab is not None else int(i), float(self.topic_word_[k, i])) for i in ids]
            out.append({"topic": int(k), "size": float(self.topic_sizes_[k]), "words": words})
        return out
