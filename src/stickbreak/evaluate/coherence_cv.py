"""The c_v topic coherence (Röder, Both & Hinneburg 2015, §3-4), as gensim's
``CoherenceModel(coherence="c_v")`` computes it: the measure most topic-model papers report.

For the top words ``W`` of a topic: the probabilities are boolean sliding windows of
``window_size`` tokens over the reference texts (:mod:`stickbreak.kernels.evaluate.windows`); each
pair's NPMI is ``log((P(w_i, w_j) + eps) / (P(w_i) P(w_j))) / -log(P(w_i, w_j) + eps)``; each word
``w_i`` has the context vector ``v_i = (NPMI(w_i, w_j))_{j in W}``, the whole set
``v_W = sum_i v_i``; the topic's coherence is the mean over ``i`` of ``cos(v_i, v_W)``
(segmentation "one-set", indirect cosine confirmation with gamma = 1, arithmetic mean).
"""

from __future__ import annotations

from itertools import chain
from typing import Sequence

import numpy as np

from ..data import DataError
from ..data.errors import describe_rows
from ..data.memory import check_memory
from ..kernels.evaluate.windows import window_occurrences

#: gensim's default window for c_v.
CV_WINDOW = 110


def texts_as_ids(texts, vocabulary: Sequence[str] | None) -> tuple[np.ndarray, np.ndarray]:
    """``(tokens, starts)``: every document's tokens as word ids in order (-1 for a token outside
    the vocabulary, which still takes its place in a window), documents ``tokens[starts[d]:starts[d + 1]]``.
    ``texts``: token lists (strings, mapped through ``vocabulary``) or word-id lists (-1 for another token)."""
    texts = list(texts)
    if any(isinstance(doc, (str, bytes)) for doc in texts):
        raise DataError("c_v reads the texts' word order: give each reference document as a list of tokens "
                        "(e.g. [text.lower().split() for text in texts]) or of word ids, not as a string.")
    docs = [list(doc) for doc in texts]
    starts = np.concatenate(([0], np.cumsum([len(doc) for doc in docs]))).astype(np.int64)
    flat = list(chain.from_iterable(docs))
    if any(isinstance(token, str) for token in flat):
        if vocabulary is None:
            raise DataError("the reference texts are tokens: pass vocabulary= (the model's vocabulary_) to map the "
                            "topics' word ids to them.")
        if not all(isinstance(token, str) for token in flat):
            raise DataError("a reference text mixes tokens and other values; give every document as a list of "
                            "strings (or every one as a list of word ids).")
        index = {word: i for i, word in enumerate(vocabulary)}
        return np.fromiter((index.get(token, -1) for token in flat), np.int64, len(flat)), starts
    tokens = np.asarray(flat, dtype=np.int64) if flat else np.zeros(0, np.int64)
    if tokens.min(initial=0) < -1:
        raise DataError(f"reference word ids must be word ids, or -1 for a token outside the vocabulary; found "
                        f"{tokens.min()}.")
    return tokens, starts


def cv_coherence(top_ids: np.ndarray, tokens: np.ndarray, starts: np.ndarray, window_size: int = CV_WINDOW,
                 eps: float = 1e-12) -> np.ndarray:
    """c_v of each topic (rows of ``top_ids``, word ids) on the texts ``(tokens, starts)`` of
    :func:`texts_as_ids`."""
    if not (isinstance(window_size, (int, np.integer)) and window_size >= 1):
        raise DataError(f"window_size must be a positive whole number of tokens, got {window_size!r}.")
    union, position = np.unique(top_ids, return_inverse=True)
    position = position.reshape(top_ids.shape)
    n_relevant = len(union)
    check_memory(8.0 * n_relevant ** 2, f"c_v over {n_relevant} distinct top words",
                 "score fewer topics or fewer top words at a time.")
    relevant = np.full(max(int(union.max()) + 2, int(tokens.max(initial=-1)) + 2), n_relevant, np.int64)
    relevant[union] = np.arange(n_relevant)
    occurrences, pairs = np.zeros(n_relevant, np.int64), np.zeros((n_relevant, n_relevant), np.int64)
    n_windows = window_occurrences(relevant[tokens], starts, n_relevant, int(window_size), occurrences, pairs)
    if (occurrences == 0).any():
        raise DataError(f"c_v needs every top word in the reference texts; word ids "
                        f"{describe_rows(union[occurrences == 0])} never occur. Use the texts the model was fitted "
                        "on (or a larger reference).")
    together = pairs + pairs.T
    together[np.diag_indices(n_relevant)] = occurrences
    joint, single = together / n_windows, occurrences / n_windows
    npmi = np.log((joint + eps) / (single[:, None] * single[None, :])) / -np.log(joint + eps)
    context = npmi[position[:, :, None], position[:, None, :]]  # (K, n, n): row i is v_i over the topic's words
    whole = context.sum(axis=1)  # v_W
    cosine = np.einsum("kij,kj->ki", context, whole) / (np.linalg.norm(context, axis=2)
                                                         * np.linalg.norm(whole, axis=1)[:, None])
    return cosine.mean(axis=1)
