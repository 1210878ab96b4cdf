"""LDA document weights: ``pi_d ~ Dir(alpha, ..., alpha)`` over K topics (Blei et al. 2003).

``alpha`` is the per-topic pseudo-count (scikit-learn's ``doc_topic_prior``, gensim's ``alpha``;
the thesis's Ch. 7 writes it as ``alpha / K``). Nothing here is learned: the global step is empty
and the top-level ELBO term is the prior normaliser ``D c_Dir(alpha 1_K)``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

name = "lda"


def default_prior(doc_topic_prior: float = 0.1, concentration: float | None = None) -> dict[str, float]:
    if not (np.isfinite(doc_topic_prior) and doc_topic_prior > 0):
        raise ValueError(f"doc_topic_prior must be positive, got {doc_topic_prior}")
    return {"alpha": float(doc_topic_prior)}


def initial(prior, n_topics: int, n_docs: float) -> dict[str, np.ndarray]:
    return {"n_topics": np.asarray(n_topics)}


def pseudo_counts(prior, weights) -> tuple[np.ndarray, float]:
    """``(a_k, a_>K)`` of the document prior ``Dir(a)``."""
    return np.full(int(weights["n_topics"]), prior["alpha"]), 0.0


def align(weights, old_uids, new_uids):
    """The weights over the topics ``new_uids`` (a move's candidate): only their number."""
    return {"n_topics": np.asarray(len(new_uids))}


def global_step(prior, stats, previous) -> dict[str, np.ndarray]:
    return {"n_topics": np.asarray(stats.n_components)}


def top_elbo(prior, weights, n_docs: float) -> float:
    """``D c_Dir(alpha 1_K)`` (the ``E log p(pi_d)`` normaliser of every document)."""
    k, alpha = int(weights["n_topics"]), prior["alpha"]
    return float(n_docs * (gammaln(k * alpha) - k * gammaln(alpha)))


def blend(old, target, step: float):
    return dict(target)


def expected_weights(prior, weights) -> np.ndarray:
    k = int(weights["n_topics"])
    return np.full(k, 1.0 / k)
