"""Every numba kernel against its NumPy twin, on ordinary and extreme inputs (DESIGN layer 1)."""

import numpy as np
import pytest

from stickbreak import kernels
from stickbreak.kernels import _reference_counts as counts_ref, _reference_gauss as gauss_ref
from stickbreak.kernels.mixture import _reference as ref

LOGIT_CASES = {
    "ordinary": lambda rng: rng.normal(size=(50, 6)),
    "huge_spread": lambda rng: rng.normal(size=(30, 5)) * 1e4,
    "large_offset": lambda rng: rng.normal(size=(30, 5)) + 1e8,
    "very_negative": lambda rng: rng.normal(size=(30, 5)) - 1e300,
    "one_component": lambda rng: rng.normal(size=(10, 1)),
    "ties": lambda rng: np.zeros((7, 4)),
    "one_item": lambda rng: rng.normal(size=(1, 9)),
}


@pytest.mark.parametrize("case", sorted(LOGIT_CASES))
def test_normalize_log_resp_matches_twin(case):
    logits = LOGIT_CASES[case](np.random.default_rng(0))
    fast, slow = logits.copy(), logits.copy()
    fast_norm, fast_entropy = kernels.normalize_log_resp(fast, kernels.RESP_FLOOR)
    with np.errstate(over="ignore", invalid="ignore"):
        slow_norm, slow_entropy = ref.normalize_log_resp(slow, kernels.RESP_FLOOR)
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(fast_norm, slow_norm, rtol=1e-12)
    np.testing.assert_allclose(fast_entropy, slow_entropy, rtol=1e-10, atol=1e-12)
    assert np.allclose(fast.sum(axis=1), 1.0) and (fast >= kernels.RESP_FLOOR).all()
    assert np.isfinite(fast_entropy).all() and (fast_entropy >= 0).all()


@pytest.mark.parametrize("scale", [1e-8, 0.01, 1.0, 1e3, 1e7])
def test_sparse_lgamma_ratio_matches_twin(scale):
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    X = sp.random(12, 30, density=0.3, random_state=2, format="csr", data_rvs=lambda n: rng.integers(1, 50, n))
    X.data = X.data.astype(float)
    lam_t = rng.gamma(1.0, scale, size=(30, 4)) + 1e-12
    fast = kernels.sparse_lgamma_ratio(X.indptr, X.indices, X.data, lam_t)
    slow = counts_ref.sparse_lgamma_ratio(X.indptr, X.indices, X.data, lam_t)
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("scale", [1e-8, 0.01, 1.0, 1e3, 1e7])
def test_merged_dirichlet_normalizers_match_twin_and_the_generic_merge_screen(scale):
    """The merge screen's merged log normalizers (any chunking of the pairs) equal the twin's and
    the generic exponential-family path they replace for topics."""
    from stickbreak.kernels.counts import merged_dirichlet_normalizers
    from stickbreak.obs import expfam, mult
    from stickbreak.core.suffstats import SuffStats

    rng = np.random.default_rng(3)
    counts = rng.gamma(0.3, scale, size=(7, 50)) * (rng.random((7, 50)) < 0.6)
    prior = {"lam": np.full(50, 0.1)}
    first, second = np.triu_indices(7, 1)
    first, second = np.append(first, [3, -1]), np.append(second, [-1, -1])  # -1: no row
    slow = counts_ref.merged_dirichlet_normalizers(counts, prior["lam"], first, second)
    fast = np.empty(len(first))
    for lo, hi in [(0, 5), (5, 6), (6, len(first))]:
        merged_dirichlet_normalizers(counts, prior["lam"], first, second, fast, lo, hi)
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(mult.merged_log_normalizers(prior, counts, first, second), slow, rtol=1e-12, atol=1e-9)
    stats = SuffStats(np.arange(7), {"N": counts.sum(axis=1), "word_counts": counts})
    pairs = slice(0, -2)
    generic = expfam._merged_log_normalizers(mult, prior, stats, first[pairs], second[pairs])
    np.testing.assert_allclose(slow[pairs], generic, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(slow[-2:], mult.log_normalizer(expfam.posterior(mult, prior, {
        "N": np.ones(2), "word_counts": np.vstack([counts[3], np.zeros(50)])})), rtol=1e-12, atol=1e-9)
    # a topic merged with an empty one gains exactly 0, whichever way the terms are summed
    counts[5] = 0.0
    stats = SuffStats(np.arange(7), {"N": counts.sum(axis=1), "word_counts": counts})
    post = expfam.posterior(mult, prior, stats.fields)
    gains = expfam.data_gain(mult, prior, post, stats, np.arange(7), np.full(7, 5),
                             lambda a, b: mult.merged_log_normalizers(prior, counts, a, b))
    assert (gains == 0.0).all()


def test_lgamma_gain_matches_twin_with_zero_and_negative_counts():
    """Collapsed LDA's log joint reads only the positive counts; zeros and round-off negatives add 0."""
    from stickbreak.kernels.counts import lgamma_gain

    rng = np.random.default_rng(3)
    counts = rng.integers(0, 6, (40, 7)).astype(float) * rng.random((40, 7)).round(1)
    counts[0, 0], counts[1, 2] = -1e-12, 0.0
    prior = rng.gamma(1.0, 0.2, 7)
    row_sums = np.empty(40)
    total = lgamma_gain(counts, prior, row_sums)
    expected_total, expected_rows = counts_ref.lgamma_gain(counts, prior)
    np.testing.assert_allclose(total, expected_total, rtol=1e-12)
    np.testing.assert_allclose(row_sums, expected_rows, rtol=1e-12)


def test_sparse_lgamma_ratio_empty_rows():
    import scipy.sparse as sp

    X = sp.csr_matrix(np.array([[0, 0, 0], [1, 0, 2.0]]))
    out = kernels.sparse_lgamma_ratio(X.indptr, X.indices, X.data, np.ones((3, 2)))
    np.testing.assert_array_equal(out[0], 0.0)
    np.testing.assert_allclose(out, counts_ref.sparse_lgamma_ratio(X.indptr, X.indices, X.data, np.ones((3, 2))))


@pytest.mark.parametrize("case", ["ordinary", "one_component", "ties", "one_item"])
def test_entropy_kernels_match_twins(case):
    rng = np.random.default_rng(3)
    logits = LOGIT_CASES[case](rng)
    resp = np.exp(logits - logits.max(axis=1, keepdims=True))
    resp /= resp.sum(axis=1, keepdims=True)
    resp[0, 0] = 0.0  # an exact zero is floored, 0 log 0 = 0
    np.testing.assert_allclose(kernels.column_entropy(resp, kernels.RESP_FLOOR),
                               ref.column_entropy(resp, kernels.RESP_FLOOR), rtol=1e-12, atol=1e-300)
    k = resp.shape[1]
    first = np.array([0, k - 1, 0], dtype=np.int64)
    second = np.array([k - 1, 0, 0], dtype=np.int64) if k > 1 else np.zeros(3, dtype=np.int64)
    np.testing.assert_allclose(kernels.pair_merge_entropy(resp, first, second, kernels.RESP_FLOOR),
                               ref.pair_merge_entropy(resp, first, second, kernels.RESP_FLOOR), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("n_comp, dim", [(1, 1), (3, 5), (7, 2)])
def test_blockwise_squared_norms_matches_twin(n_comp, dim):
    rng = np.random.default_rng(4)
    whitened = rng.normal(size=(11, n_comp * dim)) * 1e3
    shift = rng.normal(size=(n_comp, dim))
    fast, slow = np.full((15, n_comp), np.nan), np.full((15, n_comp), np.nan)
    kernels.blockwise_squared_norms(whitened, shift, fast, 2)
    gauss_ref.blockwise_squared_norms(whitened, shift, slow, 2)
    np.testing.assert_allclose(fast, slow, rtol=1e-13)
    assert np.isnan(fast[:2]).all() and np.isnan(fast[13:]).all()


def test_mahalanobis_against_direct_solve():
    from stickbreak.obs.gaussian_common import mahalanobis

    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    A = rng.normal(size=(3, 4, 4))
    chol = np.linalg.cholesky(A @ A.transpose(0, 2, 1) + np.eye(4))
    means = rng.normal(size=(3, 4))
    direct = np.stack([np.sum(np.linalg.solve(c, (X - m).T) ** 2, axis=0) for c, m in zip(chol, means)], axis=1)
    np.testing.assert_allclose(mahalanobis(X, chol, means), direct, rtol=1e-10)
    np.testing.assert_allclose(mahalanobis(X, chol),
                               np.stack([np.sum(np.linalg.solve(c, X.T) ** 2, axis=0) for c in chol], axis=1),
                               rtol=1e-10)


@pytest.mark.parametrize("n_rows, dim", [(1, 1), (9, 4), (5, 13)])
def test_packed_outer_products_match_twin(n_rows, dim):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(n_rows, dim)) * 1e3
    fast, slow = np.empty((n_rows, dim * (dim + 1) // 2)), np.empty((n_rows, dim * (dim + 1) // 2))
    kernels.packed_outer_products(X, fast)
    gauss_ref.packed_outer_products(X, slow)
    np.testing.assert_array_equal(fast, slow)  # one product each: bit-identical


@pytest.mark.parametrize("dim", [3, 200])
def test_weighted_outer_sums_packed_and_per_component_agree_with_a_direct_sum(dim, monkeypatch):
    """Both dense paths (packed blocks below PACKED_MAX_DIM features, one update per component
    above) equal sum_n r_nk x_n x_n^T computed directly, across several blocks of rows."""
    from stickbreak.obs import gaussian_common as G

    monkeypatch.setattr(G, "PACKED_BLOCK", 64 * dim * (dim + 1) // 2)  # 64 rows a block: 5 blocks
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, dim)) + 5.0
    resp = rng.dirichlet(np.ones(4), size=300)
    direct = np.einsum("nk,nd,ne->kde", resp, X, X)
    np.testing.assert_allclose(G.weighted_outer_sums(X, resp), direct, rtol=1e-12)
