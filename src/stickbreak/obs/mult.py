"""Multinomial likelihood over word counts with a Dirichlet prior (bnpy ``Mult``).

Each item is a count vector ``x_n`` over a vocabulary of V words. Prior ``phi_k ~ Dir(lam)``;
natural coordinates: ``lam`` pairs with ``t = log phi`` and the statistic ``word_counts``
(``sum_n r_nk x_n``); ``c_Dir(lam) = log Gamma(sum lam) - sum log Gamma(lam_v)``; the base measure
is the multinomial coefficient ``log h(x) = log C! - sum_v log x_v!`` (digest §2(e)).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

from ..core.sparse_resp import is_sparse
from ..data import BagOfWords
from ..kernels import sparse_lgamma_ratio
from ..kernels.chunked import even_bounds, over_chunks, thread_budget
from ..kernels.counts import merged_dirichlet_normalizers
from .gaussian_common import per_feature
from .expfam import Natural

name = "mult"
natural_keys = ("lam",)
stat_keys = ("word_counts",)
prior_options = ("pseudo_count",)

DEFAULT_PSEUDO_COUNT = 0.1


#: Why a mixture of multinomials needs whole-number counts.
WHOLE_WORDS = ("a mixture of multinomials (one cluster per document) scores whole words, so it needs raw word "
               "counts; for real-valued features (embeddings) use DPMixture(obs_model='gauss' or 'diag_gauss'))")


def check_data(data, what: str = "X") -> BagOfWords:
    return data if isinstance(data, BagOfWords) else BagOfWords.from_counts(data, what=what,
                                                                            integer_because=WHOLE_WORDS)


def frames_of(sequences) -> BagOfWords:
    """The frames of :class:`~stickbreak.data.Sequences` as word-count rows (a frame may hold no token;
    counts may be any non-negative weights, as for every variational model)."""
    return BagOfWords.from_counts(sequences.X, allow_empty=True, integer=False)


def default_prior(data: BagOfWords, pseudo_count=DEFAULT_PSEUDO_COUNT) -> Natural:
    """Symmetric (scalar) or per-word (V,) Dirichlet pseudo-counts."""
    lam = per_feature(pseudo_count, data.n_features, "pseudo_count")
    if not (lam > 0).all():
        raise ValueError("prior option 'pseudo_count' must be positive (a scalar or one value per word)")
    return {"lam": lam}


def suff_stats(data: BagOfWords, resp, prior: Natural) -> dict[str, np.ndarray]:
    """``word_counts = sum_n r_nk x_n``, (K, V); ``resp`` dense or L-sparse CSR (sparse times sparse)."""
    if is_sparse(resp):
        return {"word_counts": (resp.T.tocsr() @ data.counts).toarray()}
    return {"word_counts": np.asarray(data.counts.T @ resp).T.copy()}


def log_base_per_item(data: BagOfWords) -> np.ndarray:
    """``log C_n! - sum_v log x_nv!`` per document."""
    counts = data.counts
    rows = np.repeat(np.arange(data.n_items), np.diff(counts.indptr))
    per_entry = np.bincount(rows, gammaln(counts.data + 1.0), minlength=data.n_items)
    return gammaln(data.total_counts + 1.0) - per_entry


def log_base(data: BagOfWords) -> float:
    return float(log_base_per_item(data).sum())


def stats_to_natural(stats) -> Natural:
    return {"lam": stats["word_counts"]}


def log_normalizer(nat: Natural) -> np.ndarray:
    lam = nat["lam"]
    return gammaln(lam.sum(axis=1)) - gammaln(lam).sum(axis=1)


def merged_log_normalizers(prior: Natural, word_counts: np.ndarray, first, second) -> np.ndarray:
    """``c_Dir(lam_bar + S_a + S_b)`` for each pair ``(first[m], second[m])`` of rows of
    ``word_counts`` (an index of -1 adds no row): a merge screen's log normalizers
    (:func:`.expfam.data_gain`), each one pass over its rows, the pairs on threads."""
    counts = np.ascontiguousarray(word_counts, dtype=float)
    lam = np.ascontiguousarray(prior["lam"], dtype=float)
    first, second = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
    out = np.empty(len(first))
    over_chunks(lambda c, lo, hi: merged_dirichlet_normalizers(counts, lam, first, second, out, lo, hi),
                even_bounds(len(first), thread_budget()))
    return out


def expected_t(nat: Natural, row_sums: np.ndarray | None = None) -> Natural:
    """``E log phi_kv``; ``row_sums``: each row's sum over all columns when ``lam`` holds only some."""
    lam = nat["lam"]
    return {"lam": digamma(lam) - digamma(lam.sum(axis=1) if row_sums is None else row_sums)[:, None]}


def expected_loglik(nat: Natural, data: BagOfWords) -> np.ndarray:
    return np.asarray(data.counts @ expected_t(nat)["lam"].T) + log_base_per_item(data)[:, None]


def log_predictive(nat: Natural, data: BagOfWords) -> np.ndarray:
    """Dirichlet-multinomial log probability of each document under each component."""
    lam = nat["lam"]
    total = lam.sum(axis=1)
    c = data.counts
    ratio = sparse_lgamma_ratio(c.indptr, c.indices, c.data, np.ascontiguousarray(lam.T))
    length = data.total_counts[:, None]
    return ratio + gammaln(total)[None, :] - gammaln(total[None, :] + length) + log_base_per_item(data)[:, None]


def bregman_divergence(data: BagOfWords, prior: Natural, centers: Natural) -> np.ndarray:
    """``C_n KL(p_n || mu_k)`` with ``p_n = (x_n + lam_bar) / (C_n + sum lam_bar)`` and ``mu_k = lam_k / sum lam_k``."""
    c = data.counts
    lam_bar = prior["lam"]
    length = data.total_counts
    z = length + lam_bar.sum()
    rows = np.repeat(np.arange(data.n_items), np.diff(c.indptr))
    smoothed = (c.data + lam_bar[c.indices]) / z[rows]
    background = lam_bar[c.indices] / z[rows]
    neg_entropy = (lam_bar @ np.log(lam_bar) - lam_bar.sum() * np.log(z)) / z
    neg_entropy += np.bincount(rows, smoothed * np.log(smoothed) - background * np.log(background), data.n_items)
    log_mu = np.log(centers["lam"]) - np.log(centers["lam"].sum(axis=1))[:, None]
    cross = (np.asarray(c @ log_mu.T) + (lam_bar @ log_mu.T)[None, :]) / z[:, None]
    return np.maximum(length[:, None] * (neg_entropy[:, None] - cross), 0.0)


def summary(nat: Natural) -> dict[str, np.ndarray]:
    """Posterior mean word probabilities per component, shape (K, V)."""
    lam = nat["lam"]
    return {"word_probs": lam / lam.sum(axis=1, keepdims=True)}
