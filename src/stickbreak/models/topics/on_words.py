"""A topic model's local step reads only the words of its documents (:class:`FeatureSliced`): a
worker keeps its part of a batch on those words and is sent only their columns of ``lam``, with
each topic's sum over the whole vocabulary so that ``E log phi_kv = psi(lam_kv) - psi(sum_v lam_kv)``
is exact.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ...core.protocols import FeatureSliced
from ...core.suffstats import SuffStats
from ...data import BagOfWords


class OnWords(FeatureSliced):
    """:class:`FeatureSliced` for :class:`~stickbreak.models.topics.model.TopicModel`."""

    def features_of(self, batch) -> np.ndarray:
        return batch.words_used()

    def on_features(self, batch, features: np.ndarray):
        return batch.on_words(features)

    def params_on_features(self, params, features: np.ndarray, cut_derived: bool = False):
        """``lam``'s columns ``features``, with each topic's sum over all words (the normalizer of
        ``E log phi``, computed once however many workers are sent their columns); with
        ``cut_derived`` the word likelihoods too, cut from the whole ones (``E log phi_kv`` minus its
        maximum over topics is word by word, so the cut equals what the columns would give)."""
        likelihoods = None
        if cut_derived:
            likelihoods = (_rows(params.centered_loglik, features), _rows(params.exp_loglik, features))
        return replace(params, obs={"lam": _columns(params.obs["lam"], features)}, row_sums=params.lam_totals,
                       word_likelihoods=likelihoods)

    def local_to_all_features(self, local, features: np.ndarray, n_features: int):
        word_topic = np.zeros((n_features, local.word_topic.shape[1]))
        word_topic[features] = local.word_topic
        return replace(local, word_topic=word_topic)

    def centers_on_features(self, centers: dict, features: np.ndarray) -> dict:
        """The newborns' ``lam`` columns ``features``, with each row's sum over all words (``row_sums``)."""
        return {"lam": _columns(centers["lam"], features), "row_sums": centers["lam"].sum(axis=1)}

    def expansion_to_all_features(self, stats: SuffStats, features: np.ndarray, n_features: int) -> SuffStats:
        word_counts = np.zeros((stats.n_components, n_features))
        word_counts[:, features] = stats.fields["word_counts"]
        return replace(stats, fields={**stats.fields, "word_counts": word_counts})

    def items_to_all_features(self, items: BagOfWords, features: np.ndarray, n_features: int) -> BagOfWords:
        c = items.counts
        indices = features[c.indices].astype(c.indices.dtype)
        return BagOfWords(sp.csr_matrix((c.data, indices, c.indptr), shape=(c.shape[0], n_features)))


def _columns(lam: np.ndarray, features: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(lam[:, features])


def _rows(values: np.ndarray, features: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values[features])
