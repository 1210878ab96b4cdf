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


def bar_topics(side: int = 30, n_bars: int = 10, noise: float = 0.02) -> np.ndarray:
    """``n_bars`` bar topics on a ``side x side`` word grid (Hughes 2016, §5.6 toy bars): half are
    horizontal bands of ``2 side / n_bars`` rows, half vertical bands of as many columns; every
    topic keeps ``noise`` of its mass spread over all words. Returns (n_bars, side * side)."""
    half = n_bars // 2
    if n_bars != 2 * half or side % half:
        raise ValueError(f"n_bars must be even and n_bars / 2 must divide side, got n_bars={n_bars}, side={side}")
    width = side // half
    images = np.zeros((n_bars, side, side))
    for j in range(half):
        images[j, j * width:(j + 1) * width, :] = 1.0
        images[half + j, :, j * width:(j + 1) * width] = 1.0
    topics = images.reshape(n_bars, -1)
    topics /= topics.sum(axis=1, keepdims=True)
    return (1.0 - noise) * topics + noise / topics.shape[1]


def make_bars_corpus(n_docs: int = 1000, doc_length: int = 200, side: int = 30, n_bars: int = 10,
                     max_topics_per_doc: int = 3, noise: float = 0.02, seed: int = 0):
    """Toy bars documents (Hughes 2016, §5.6): each uses 1 to ``max_topics_per_doc`` random bars with
    uniform-Dirichlet proportions and draws ``doc_length`` tokens. Returns (counts CSR, topics)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    topics = bar_topics(side, n_bars, noise)
    rows = np.zeros((n_docs, topics.shape[1]))
    for d in range(n_docs):
        chosen = rng.choice(n_bars, size=rng.integers(1, max_topics_per_doc + 1), replace=False)
        weights = rng.dirichlet(np.ones(len(chosen)))
        rows[d] = rng.multinomial(doc_length, weights @ topics[chosen])
    return sp.csr_matrix(rows), topics


def make_sticky_hmm_toy(n_sequences: int = 32, length: int = 1000, n_states: int = 8, self_transition: float = 0.99,
                        radius: float = 3.0, spread: tuple[float, float] = (0.6, 0.2), seed: int = 0):
    """Sequences from an ``n_states`` sticky HMM with 2-D Gaussian emissions (Hughes 2016, §6.6 toy,
    after Foti et al. 2014): state k has its mean on a circle of ``radius`` at angle ``2 pi k / K``
    and a covariance elongated along the radius (standard deviations ``spread``); it stays with
    probability ``self_transition`` and otherwise jumps to a uniformly chosen other state; starts
    are uniform. Returns ``(X (n_sequences * length, 2), offsets, labels)``.
    """
    rng = np.random.default_rng(seed)
    angles = 2 * np.pi * np.arange(n_states) / n_states
    means = radius * np.column_stack([np.cos(angles), np.sin(angles)])
    rotations = np.stack([[[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]] for a in angles])
    chols = rotations * np.asarray(spread)[None, None, :]  # R diag(s): covariance R diag(s^2) R^T
    jump = np.full((n_states, n_states), (1.0 - self_transition) / (n_states - 1))
    np.fill_diagonal(jump, self_transition)
    labels = np.empty(n_sequences * length, dtype=np.int64)
    for s in range(n_sequences):  # simulation: a loop over steps is fine in a generator
        state = int(rng.integers(n_states))
        for t in range(length):
            labels[s * length + t] = state
            state = int(rng.choice(n_states, p=jump[state]))
    noise = rng.normal(size=(len(labels), 2))
    X = means[labels] + np.einsum("nde,ne->nd", chols[labels], noise)
    return X, np.arange(0, n_sequences * length + 1, length), labels
