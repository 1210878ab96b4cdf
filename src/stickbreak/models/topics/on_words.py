"""A topic model's local step reads only the words of its documents (:class:`FeatureSliced`): a
worker keeps its part of a batch on those words and is sent only their columns of ``lam``, with
each topic's sum over the whole vocabulary so that ``E log phi_kv = psi(lam_kv) - psi(sum_v lam_kv)``
is exact.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...core.protocols import FeatureSliced


class OnWords(FeatureSliced):
    """:class:`FeatureSliced` for :class:`~stickbreak.models.topics.model.TopicModel`."""

    def features_of(self, batch) -> np.ndarray:
        return batch.words_used()

    def on_features(self, batch, features: np.ndarray):
        return batch.on_words(features)

    def params_on_features(self, params, features: np.ndarray):
        """``lam``'s columns ``features``, with each topic's sum over all words (the normalizer of ``E log phi``)."""
        lam = params.obs["lam"]
        sums = lam.sum(axis=1) if params.row_sums is None else params.row_sums
        return replace(params, obs={"lam": np.ascontiguousarray(lam[:, features])}, row_sums=sums)

    def local_to_all_features(self, local, features: np.ndarray, n_features: int):
        word_topic = np.zeros((n_features, local.word_topic.shape[1]))
        word_topic[features] = local.word_topic
        return replace(local, word_topic=word_topic)
