"""Bernoulli likelihood over binary features with a Beta prior per feature (bnpy ``Bern``).

Prior ``phi_kd ~ Beta(lam1, lam0)``. Natural coordinates: ``lam1`` pairs with ``log phi`` and the
statistic ``ones = sum_n r_nk x_n``; ``lam0`` with ``log(1 - phi)`` and ``zeros = sum_n r_nk (1 - x_n)``;
``c = sum_d log Gamma(lam1 + lam0) - log Gamma(lam1) - log Gamma(lam0)``; ``h = 1`` (digest §2(d)).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

from ..core.sparse_resp import column_sums, weighted_sums
from ..data import DataError, DenseData
from ..data.errors import describe_rows
from .gaussian_common import dense_frames, per_feature
from .expfam import Natural

name = "bern"
natural_keys = ("lam1", "lam0")
stat_keys = ("ones", "zeros")
prior_options = ("pseudo_count_one", "pseudo_count_zero")

DEFAULT_PSEUDO_COUNT = 0.5


frames_of = dense_frames


def check_data(data, what: str = "X") -> DenseData:
    if hasattr(data, "toarray") and not isinstance(data, (np.ndarray, DenseData)):
        data = data.toarray()
    data = data if isinstance(data, DenseData) else DenseData.from_array(data, what)
    not_binary = (data.X != 0) & (data.X != 1)
    if not_binary.any():
        rows = np.flatnonzero(not_binary.any(axis=1))
        raise DataError(
            f"{what} must be binary (0/1) for the Bernoulli model; rows {describe_rows(rows)} have other values. "
            "Threshold the data (e.g. X > 0.5) or pick a Gaussian observation model."
        )
    return data


def default_prior(data: DenseData, pseudo_count_one=DEFAULT_PSEUDO_COUNT,
                  pseudo_count_zero=DEFAULT_PSEUDO_COUNT) -> Natural:
    lam1 = per_feature(pseudo_count_one, data.n_features, "pseudo_count_one")
    lam0 = per_feature(pseudo_count_zero, data.n_features, "pseudo_count_zero")
    if not ((lam1 > 0).all() and (lam0 > 0).all()):
        raise ValueError("Beta prior pseudo-counts must be positive")
    return {"lam1": lam1, "lam0": lam0}


def suff_stats(data: DenseData, resp, prior: Natural) -> dict[str, np.ndarray]:
    """``ones = sum_n r_nk x_n`` and ``zeros = sum_n r_nk (1 - x_n)``; ``resp`` dense or L-sparse CSR."""
    ones = weighted_sums(resp, data.X)
    return {"ones": ones, "zeros": column_sums(resp)[:, None] - ones}


def log_base(data: DenseData) -> float:
    return 0.0


def stats_to_natural(stats) -> Natural:
    return {"lam1": stats["ones"], "lam0": stats["zeros"]}


def log_normalizer(nat: Natural) -> np.ndarray:
    lam1, lam0 = nat["lam1"], nat["lam0"]
    return (gammaln(lam1 + lam0) - gammaln(lam1) - gammaln(lam0)).sum(axis=1)


def expected_t(nat: Natural) -> Natural:
    lam1, lam0 = nat["lam1"], nat["lam0"]
    total = digamma(lam1 + lam0)
    return {"lam1": digamma(lam1) - total, "lam0": digamma(lam0) - total}


def _bernoulli_loglik(X: np.ndarray, log_one: np.ndarray, log_zero: np.ndarray) -> np.ndarray:
    return X @ (log_one - log_zero).T + log_zero.sum(axis=1)[None, :]


def expected_loglik(nat: Natural, data: DenseData) -> np.ndarray:
    expected = expected_t(nat)
    return _bernoulli_loglik(data.X, expected["lam1"], expected["lam0"])


def log_predictive(nat: Natural, data: DenseData) -> np.ndarray:
    lam1, lam0 = nat["lam1"], nat["lam0"]
    total = np.log(lam1 + lam0)
    return _bernoulli_loglik(data.X, np.log(lam1) - total, np.log(lam0) - total)


def bregman_divergence(data: DenseData, prior: Natural, centers: Natural) -> np.ndarray:
    """Summed Bernoulli KL from prior-smoothed items to each center's mean."""
    lam1, lam0 = prior["lam1"], prior["lam0"]
    p = (data.X + lam1) / (1.0 + lam1 + lam0)
    neg_entropy = (p * np.log(p) + (1 - p) * np.log1p(-p)).sum(axis=1)
    mean = centers["lam1"] / (centers["lam1"] + centers["lam0"])
    cross = _bernoulli_loglik(p, np.log(mean), np.log1p(-mean))
    return np.maximum(neg_entropy[:, None] - cross, 0.0)


def summary(nat: Natural) -> dict[str, np.ndarray]:
    """Posterior mean probability of a 1 per component and feature, shape (K, D)."""
    return {"probs": nat["lam1"] / (nat["lam1"] + nat["lam0"])}


def draw(nat: Natural, states: np.ndarray, rng: np.random.Generator, prev0=None) -> np.ndarray:
    """Binary frames ``x_td ~ Bernoulli(E[p_kd])`` for the states ``z_t`` (``prev0`` unused)."""
    probs = summary(nat)["probs"]
    return (rng.random((len(states), probs.shape[1])) < probs[states]).astype(np.float64)
