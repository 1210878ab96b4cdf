"""Synthetic data sets of the thesis's toy experiments (generators, not files)."""

from __future__ import annotations

import numpy as np


def edge_prototypes(side: int = 5, n_orientations: int = 8) -> np.ndarray:
    """Binary half-plane edges through the patch centre at ``n_orientations`` evenly spaced angles,
    shape (n_orientations, side * side)."""
    rows, cols = np.mgrid[0:side, 0:side] - (side - 1) / 2.0
    angles = 2 * np.pi * (np.arange(n_orientations) + 0.5) / n_orientations  # no pixel on an edge
    return np.stack([(np.cos(a) * cols + np.sin(a) * rows > 0).ravel().astype(float) for a in angles])


def make_edge_patches(n_items: int = 100_000, side: int = 5, noise: float = 0.05, seed: int = 0):
    """Zero-mean image patches from 8 equiprobable edge clusters (Hughes 2016, §4.4, Fig. 4.6).

    Cluster k draws ``x = a p_k + noise * e`` with a scalar ``a ~ N(0, 1)``, its edge prototype ``p_k``
    and white noise ``e``: a zero-mean Gaussian with covariance ``p_k p_k^T + noise^2 I``.
    Returns ``(X, labels)``.
    """
    rng = np.random.default_rng(seed)
    prototypes = edge_prototypes(side)
    labels = rng.integers(0, len(prototypes), n_items)
    X = rng.normal(size=(n_items, 1)) * prototypes[labels] + noise * rng.normal(size=(n_items, side * side))
    return X, labels


def make_lda_corpus(n_docs: int = 300, n_topics: int = 4, n_words: int = 40, doc_length: int = 80,
                    doc_topic_prior: float = 0.2, seed: int = 0):
    """Documents drawn from LDA with ``n_topics`` sparse topics over disjoint blocks of words (plus a
    little shared mass). Returns ``(counts (csr), topic_word (K, V), doc_topic (D, K))``."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    block = n_words // n_topics
    topic_word = np.full((n_topics, n_words), 0.02 / n_words)
    for k in range(n_topics):
        topic_word[k, k * block:(k + 1) * block] += rng.dirichlet(np.full(block, 2.0)) * 0.98
    topic_word /= topic_word.sum(axis=1, keepdims=True)
    doc_topic = rng.dirichlet(np.full(n_topics, doc_topic_prior), size=n_docs)
    word_probs = doc_topic @ topic_word
    counts = np.stack([rng.multinomial(doc_length, p / p.sum()) for p in word_probs])
    return sp.csr_matrix(counts.astype(float)), topic_word, doc_topic
