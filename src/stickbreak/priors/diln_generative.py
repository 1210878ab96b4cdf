"""DILN's generative process and prior moments (Paisley, Wang & Blei 2012, Eqs. 10-16 and 13-14).

The normalised-gamma construction: sticks ``V_k ~ Beta(1, alpha)`` give ``p``; topic locations
``l_k ~ N(0, c I_d)``, document locations ``u_m ~ N(0, I_d)``; ``Z_mk ~ Gamma(beta p_k, rate
exp(-l_k'u_m))``, drawn as ``Y e^{l_k'u_m}`` with ``Y ~ Gamma(beta p_k, 1)`` (the scaling property of
§2.2); word topics ``C ~ Z_m / sum_k Z_mk``. ``correlated=False`` sets ``l'u := 0``: the HDP, whose
normalised weights are ``Dir(beta p)``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .diln_sticks import weights


def sample_sticks(rng: np.random.Generator, alpha: float, n_topics: int) -> np.ndarray:
    """``V_k ~ Beta(1, alpha)`` for ``k < T`` (``V_T := 1``)."""
    return rng.beta(1.0, alpha, n_topics - 1)


def sample_doc_weights(rng: np.random.Generator, p: np.ndarray, beta: float, locations: np.ndarray,
                       n_docs: int, correlated: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(Z (M, T), u (M, d))``: unnormalised topic weights of ``n_docs`` documents (Eq. 11 with Eq. 16)."""
    dim = locations.shape[1]
    u = rng.standard_normal((n_docs, dim)) if correlated else np.zeros((n_docs, dim))
    y = rng.gamma(np.broadcast_to(beta * p, (n_docs, len(p))))
    return y * np.exp(u @ locations.T), u


def sample_corpus(rng: np.random.Generator, n_docs: int, doc_length: int, n_words: int, n_topics: int = 20,
                  alpha: float = 5.0, beta: float = 5.0, topic_word_prior: float = 0.1, latent_dim: int = 5,
                  location_variance: float = 0.2, correlated: bool = True) -> dict:
    """A corpus drawn from DILN truncated at ``n_topics``: ``{"X" (csr counts), "topics" (T, V), "p",
    "locations" (T, d), "doc_locations" (M, d), "doc_weights" (M, T) normalised}``. Vectorised: the
    word counts of each document are one multinomial draw from its word distribution."""
    p = weights(sample_sticks(rng, alpha, n_topics))
    locations = rng.normal(0.0, np.sqrt(location_variance), (n_topics, latent_dim))
    topics = rng.dirichlet(np.full(n_words, topic_word_prior), n_topics)
    z, u = sample_doc_weights(rng, p, beta, locations, n_docs, correlated)
    total = z.sum(axis=1, keepdims=True)
    theta = np.where(total > 0, z / np.where(total > 0, total, 1.0), p[None, :])
    word_probs = theta @ topics
    word_probs /= word_probs.sum(axis=1, keepdims=True)
    counts = rng.multinomial(doc_length, word_probs)
    return {"X": sp.csr_matrix(counts.astype(float)), "topics": topics, "p": p, "locations": locations,
            "doc_locations": u, "doc_weights": theta}


def conditional_moments(p: np.ndarray, beta: float, kernel: np.ndarray):
    """Eq. 13, given ``p`` and ``K = L L'``: ``E[Z_i] = beta p_i e^{k_ii/2}``,
    ``V[Z_i] = beta p_i e^{2 k_ii} + beta^2 p_i^2 e^{k_ii}(e^{k_ii} - 1)``,
    ``Cov[Z_i, Z_j] = beta^2 p_i p_j e^{(k_ii + k_jj)/2}(e^{k_ij} - 1)``. Returns ``(mean (T,), cov (T, T))``
    (the diagonal of ``cov`` is the variance)."""
    diag = np.diag(kernel)
    mean = beta * p * np.exp(diag / 2)
    cov = beta**2 * np.outer(p, p) * np.exp((diag[:, None] + diag[None, :]) / 2) * np.expm1(kernel)
    cov[np.diag_indices_from(cov)] = beta * p * np.exp(2 * diag) + beta**2 * p**2 * np.exp(diag) * np.expm1(diag)
    return mean, cov


def stick_moments(alpha: float, i: int, j: int | None = None):
    """``E[p_i]``, ``E[p_i^2]`` and, for ``j < i``, ``E[p_i p_j]`` of the infinite stick-breaking
    weights (1-based indices; text below Eq. 14)."""
    mean = alpha ** (i - 1) / (1 + alpha) ** i
    square = 2 * alpha ** (i - 1) / ((1 + alpha) * (2 + alpha) ** i)
    if j is None:
        return mean, square
    if not j < i:
        raise ValueError("stick_moments needs j < i for the cross moment")
    return mean, square, alpha ** (i - 1) / ((2 + alpha) ** j * (1 + alpha) ** (i - j + 1))


def marginal_moments(alpha: float, beta: float, kernel: np.ndarray, i: int, j: int):
    """Eq. 14 (``p`` integrated out, 1-based ``j < i``): ``(E[Z_i], V[Z_i], Cov[Z_i, Z_j])``."""
    kii, kjj, kij = kernel[i - 1, i - 1], kernel[j - 1, j - 1], kernel[i - 1, j - 1]
    mean_i, square_i, cross = stick_moments(alpha, i, j)
    mean_j, _ = stick_moments(alpha, j)
    mean = beta * mean_i * np.exp(kii / 2)
    var = beta * mean_i * np.exp(2 * kii) + beta**2 * square_i * np.exp(2 * kii) - beta**2 * mean_i**2 * np.exp(kii)
    cov = beta**2 * np.exp((kii + kjj) / 2) * (cross * np.exp(kij) - mean_i * mean_j)
    return mean, var, cov
