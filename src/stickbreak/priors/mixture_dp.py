"""Dirichlet-process mixture weights by stick-breaking, full Beta posteriors per stick (Hughes 2016, Ch. 3).

``u_k ~ Beta(gamma1, gamma0)``, ``pi_k = u_k prod_{l<k} (1 - u_l)``; ``q(u_k) = Beta(eta1_k, eta0_k)``.
Nested truncation (Eq. 3.19-3.20): only ``q(z)`` is truncated at K, so every component beyond K
sits at its prior and adds exactly zero to the ELBO; appending an empty component leaves the
ELBO unchanged (Eq. 3.50).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

from . import empirical_bayes
from .merged_weights import refitted_gains

name = "dp"


def default_prior(concentration: float = 1.0, stick_a: float = 1.0, learn: bool = False) -> dict[str, float]:
    """Stick prior ``Beta(stick_a, concentration)``; the thesis's DP(gamma) is ``stick_a = 1``. With
    ``learn`` the concentration is set by empirical Bayes (:func:`concentration`); ``concentration``
    is then only where its search starts."""
    for label, value in (("concentration", concentration), ("stick_a", stick_a)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{label} must be positive, got {value}")
    return {"gamma1": float(stick_a), "gamma0": float(concentration), "learn": bool(learn)}


def concentration(prior, post) -> float:
    """The concentration the ELBO uses with ``q(u) = post``: the prior's, or with ``learn`` the
    empirical-Bayes optimum ``argmax_gamma sum_k E log Beta(u_k | gamma1, gamma)``."""
    if not prior["learn"]:
        return prior["gamma0"]
    return empirical_bayes.stick_concentration(prior["gamma1"], _expected_log_sticks(post)[1], prior["gamma0"])


def counts_beyond(counts: np.ndarray) -> np.ndarray:
    """``N^>_k = sum_{l>k} N_l`` (bnpy ``convertToN0``: [1,3,7,2] -> [12,9,2,0])."""
    tail = np.cumsum(counts[::-1])[::-1]
    return np.concatenate([tail[1:], [0.0]])


def global_step(prior, counts: np.ndarray) -> dict[str, np.ndarray]:
    """``eta1 = gamma1 + N_k``, ``eta0 = gamma0 + N^>_k`` (Eq. 3.43 corrected; Alg. 3.1); with a
    learned concentration, alternated with its update (:func:`concentration`) to their joint optimum."""
    beyond = counts_beyond(counts)
    return empirical_bayes.alternate(lambda gamma0: {"eta1": prior["gamma1"] + counts, "eta0": gamma0 + beyond},
                                     lambda post, gamma0: concentration({**prior, "gamma0": gamma0}, post),
                                     prior["gamma0"], prior["learn"])


def _expected_log_sticks(post):
    total = digamma(post["eta1"] + post["eta0"])
    return digamma(post["eta1"]) - total, digamma(post["eta0"]) - total


def expected_log_weights(post) -> np.ndarray:
    """``E log pi_k = E log u_k + sum_{l<k} E log(1 - u_l)`` (Eq. 3.32-3.33)."""
    log_u, log_rest = _expected_log_sticks(post)
    return log_u + np.concatenate([[0.0], np.cumsum(log_rest)[:-1]])


def expected_weights(post) -> np.ndarray:
    """``E[pi_k] = E[u_k] prod_{l<k} E[1 - u_l]`` (Eq. 3.18); sums to less than one."""
    mean_u = post["eta1"] / (post["eta1"] + post["eta0"])
    return mean_u * np.concatenate([[1.0], np.cumprod(1.0 - mean_u)[:-1]])


def log_beta_normalizer(a, b):
    """``c_B(a, b) = log Gamma(a + b) - log Gamma(a) - log Gamma(b)``."""
    return gammaln(a + b) - gammaln(a) - gammaln(b)


def elbo(prior, post, counts: np.ndarray) -> float:
    """``E log p(z|u) + E log p(u) - E log q(u)`` (Eq. 3.31), slack terms included."""
    log_u, log_rest = _expected_log_sticks(post)
    eta1, eta0 = post["eta1"], post["eta0"]
    g1, g0 = prior["gamma1"], concentration(prior, post)
    return float(
        np.sum(log_beta_normalizer(g1, g0) - log_beta_normalizer(eta1, eta0))
        + np.sum((counts + g1 - eta1) * log_u)
        + np.sum((counts_beyond(counts) + g0 - eta0) * log_rest)
    )


def merge_gains(prior, counts: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The weights' ELBO change of merging component ``second[m]`` into ``first[m]`` (``first <
    second``; Hughes 2016, §4.1's Delta L_weights), every pair at once.

    At the stick posterior of :func:`global_step` the ELBO is ``sum_k h(N_k, N^>_k)`` with
    ``h(N, M) = c_B(gamma1, gamma0) - c_B(gamma1 + N, gamma0 + M)``. Merging b into a < b changes
    a's term to ``h(N_a + N_b, N^>_a - N_b)``, lowers ``N^>_k`` by ``N_b`` for every a < k < b
    (prefix sums over k of a K x K table) and removes b's term. With a learned concentration the
    weights are refitted for each pair (:func:`~stickbreak.priors.merged_weights.refitted_gains`).
    """
    if prior["learn"]:
        return refitted_gains(global_step, elbo, prior, counts, first, second)
    g1, g0 = prior["gamma1"], prior["gamma0"]
    beyond = counts_beyond(counts)

    def h(n, m):
        return log_beta_normalizer(g1, g0) - log_beta_normalizer(g1 + n, g0 + m)

    own = h(counts, beyond)
    # lowered[k, j]: k's term with component j's mass no longer beyond it (used for k < j only)
    lowered = h(counts[:, None], np.maximum(beyond[:, None] - counts[None, :], 0.0)) - own[:, None]
    prefix = np.vstack([np.zeros(len(counts)), np.cumsum(lowered, axis=0)])  # prefix[k, j] = sum_{l<k} lowered[l, j]
    between = prefix[second, second] - prefix[first + 1, second]
    merged_first = h(counts[first] + counts[second], beyond[first] - counts[second])
    return merged_first - own[first] + between - own[second]
