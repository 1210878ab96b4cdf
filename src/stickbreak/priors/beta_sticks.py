"""Stick-breaking weights from ``K - 1`` free ``Beta(a_k, b_k)`` sticks and a last stick fixed at one
(the truncation convention of Hoffman et al. 2013, Sec. 3.3): their expectations, shared by the
two-level HDP and the truncated stochastic baselines."""

from __future__ import annotations

import numpy as np
from scipy.special import digamma

from . import mixture_dp as dp_mixture


def expected_log_sticks(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``E log sigma_k`` (K,) for ``K - 1`` free sticks ``Beta(a_k, b_k)`` and the last fixed at one:

        E log sigma_k = E log v_k + sum_{l<k} E log(1 - v_l)   (k < K),    E log sigma_K = sum_{l<K} E log(1 - v_l)

    with ``E log v = psi(a) - psi(a + b)`` and ``E log(1 - v) = psi(b) - psi(a + b)`` (Hoffman et
    al. 2013, Sec. 3.3). Used for the corpus sticks ``V`` and the document sticks ``pi_d`` alike;
    the kernels' numba version is :func:`stickbreak.kernels.topics.two_level.expected_log_sticks`."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    last = float(np.sum(digamma(b) - digamma(a + b)))
    return np.append(dp_mixture.expected_log_weights({"eta1": a, "eta0": b}), last)


def expected_sticks(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``E sigma_k = E v_k prod_{l<k} (1 - E v_l)`` (K,), the last stick fixed at one: sums to one."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    head = dp_mixture.expected_weights({"eta1": a, "eta0": b})
    return np.append(head, np.prod(b / (a + b)))


def expected_corpus_weights(weights: dict) -> np.ndarray:
    """``E sigma_k(V)`` (K,) of the corpus sticks ``weights = {"a", "b"}``."""
    return expected_sticks(weights["a"], weights["b"])
