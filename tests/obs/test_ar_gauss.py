"""The AR(1) Gaussian family: explicit posterior formulas, exact marginal likelihood, Monte Carlo
moments under q, recovery of a simulated AR(1) process, and its lagged data container."""

import numpy as np
import pytest
from scipy import stats as st

from stickbreak import obs
from stickbreak.data import DataError, LaggedData, Sequences
from stickbreak.obs import ar_gauss as F
from stickbreak.obs import expfam


def _simulate(rng, n_frames, coefs, noise_cov, x0=None):
    """An AR(1) sequence ``x_t = A x_{t-1} + e_t``; returns frames and their predecessors."""
    dim = coefs.shape[0]
    chol = np.linalg.cholesky(noise_cov)
    X = np.empty((n_frames + 1, dim))
    X[0] = rng.normal(size=dim) if x0 is None else x0
    for t in range(1, n_frames + 1):
        X[t] = coefs @ X[t - 1] + chol @ rng.normal(size=dim)
    return LaggedData(X[1:], X[:-1])


def _case(seed=0, n_items=30, dim=2, dim_prev=3, n_components=2):
    """Items with D != E and a prior with nonzero M and a non-diagonal V, so no term hides."""
    rng = np.random.default_rng(seed)
    Xprev = rng.normal(size=(n_items, dim_prev))
    coefs = rng.normal(size=(dim, dim_prev)) * 0.5
    data = LaggedData(Xprev @ coefs.T + 0.3 * rng.normal(size=(n_items, dim)), Xprev)
    root = rng.normal(size=(dim_prev, dim_prev))
    prior = F.default_prior(data, coef_mean=rng.normal(size=(dim, dim_prev)),
                            coef_precision=root @ root.T + np.eye(dim_prev), dof=dim + 3.5)
    resp = rng.dirichlet(np.ones(n_components), size=n_items)
    stats = F.suff_stats(data, resp, prior)
    stats["N"] = resp.sum(axis=0)
    return data, prior, resp, stats, expfam.posterior(F, prior, stats)


def _prior_common(prior):
    nu, M, V, _, B, _ = F.common_params({k: v[None] for k, v in prior.items()})
    return float(nu[0]), M[0], V[0], B[0]


def test_posterior_update_matches_explicit_formulas():
    data, prior, resp, stats, post = _case()
    nu, M, V, B = _prior_common(prior)
    V_inv = np.linalg.inv(V)
    got_nu, got_M, got_V, _, got_B, _ = F.common_params(post)
    for k in range(resp.shape[1]):
        r = resp[:, k]
        xxT = (data.X * r[:, None]).T @ data.X
        xxpT = (data.X * r[:, None]).T @ data.Xprev
        xpxpT = (data.Xprev * r[:, None]).T @ data.Xprev
        V_hat = np.linalg.inv(V_inv + xpxpT)
        M_hat = (M @ V_inv + xxpT) @ V_hat
        B_hat = B + xxT + M @ V_inv @ M.T - M_hat @ np.linalg.inv(V_hat) @ M_hat.T
        assert got_nu[k] == pytest.approx(nu + r.sum(), rel=1e-12)
        np.testing.assert_allclose(got_V[k], V_hat, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got_M[k], M_hat, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got_B[k], B_hat, rtol=1e-9, atol=1e-10)


def test_optimal_elbo_equals_log_marginal_likelihood_by_chain_rule():
    """One component, all responsibilities 1: ``L_data = log p(x_1..x_N | xp)``, which the chain rule
    writes as a sum of one-step posterior predictives (the closed-form Student-t)."""
    data, prior, *_ = _case(seed=1, n_items=20)
    ones = np.ones((data.n_items, 1))
    stats = {"N": np.array([float(data.n_items)]), **F.suff_stats(data, ones, prior)}
    post = expfam.posterior(F, prior, stats)
    elbo = expfam.elbo_data_optimal(F, prior, post, F.log_base(data))
    chain = 0.0
    for t in range(data.n_items):
        seen = data.subset(np.arange(t))
        seen_stats = {"N": np.array([float(t)]), **F.suff_stats(seen, np.ones((t, 1)), prior)}
        chain += F.log_predictive(expfam.posterior(F, prior, seen_stats), data.subset([t]))[0, 0]
    assert elbo == pytest.approx(chain, rel=1e-10)


def _draws_from_q(post, k, rng, size):
    """(A, Lambda) draws from q_k via scipy.stats: Lambda ~ Wishart(nu, B^-1), A ~ MN(M, Lambda^-1, V),
    the latter as ``M + chol(Lambda^-1) Z`` with ``Z ~ MN(0, I, V)`` (one vectorised call)."""
    nu, M, V, _, B, _ = F.common_params(post)
    lams = st.wishart(df=nu[k], scale=np.linalg.inv(B[k])).rvs(size, random_state=rng)
    unit = st.matrix_normal(np.zeros_like(M[k]), np.eye(M.shape[1]), V[k]).rvs(size, random_state=rng)
    return M[k] + np.linalg.cholesky(np.linalg.inv(lams)) @ unit, lams


def _assert_within_standard_errors(draws, expected, n_se=5.0):
    mean = draws.mean(axis=0)
    se = draws.std(axis=0) / np.sqrt(len(draws))
    assert np.all(np.abs(mean - expected) <= n_se * se + 1e-10), (mean, expected, se)


def test_expected_t_matches_monte_carlo():
    data, prior, resp, stats, post = _case(seed=2)
    expected = F.expected_t(post)
    rng = np.random.default_rng(12)
    for k in range(resp.shape[1]):
        coefs, lams = _draws_from_q(post, k, rng, 20000)
        lam_a = lams @ coefs
        _assert_within_standard_errors(0.5 * np.linalg.slogdet(lams)[1], expected["nu"][k])
        _assert_within_standard_errors(-0.5 * lams, expected["scatter"][k])
        _assert_within_standard_errors(lam_a, expected["cross"][k])
        _assert_within_standard_errors(-0.5 * np.swapaxes(coefs, 1, 2) @ lam_a, expected["prec_pred"][k])


def test_expected_loglik_matches_monte_carlo():
    data, prior, resp, stats, post = _case(seed=3, n_items=10)
    closed_form = F.expected_loglik(post, data)
    rng = np.random.default_rng(13)
    for k in range(resp.shape[1]):
        coefs, lams = _draws_from_q(post, k, rng, 20000)
        residuals = data.X[None] - np.einsum("sde,ne->snd", coefs, data.Xprev)
        draws = 0.5 * (np.linalg.slogdet(lams)[1][:, None] - data.n_features * np.log(2 * np.pi)
                       - np.einsum("snd,sde,sne->sn", residuals, lams, residuals))
        _assert_within_standard_errors(draws, closed_form[:, k])


def test_posterior_recovers_a_simulated_ar1_process():
    rng = np.random.default_rng(4)
    coefs = np.array([[0.9, -0.2], [0.3, 0.6]])
    noise_cov = np.array([[0.5, 0.2], [0.2, 0.3]])
    data = _simulate(rng, 5000, coefs, noise_cov)
    prior = F.default_prior(data)
    stats = {"N": np.array([float(data.n_items)]), **F.suff_stats(data, np.ones((data.n_items, 1)), prior)}
    summary = F.summary(expfam.posterior(F, prior, stats))
    assert summary["coefs"].shape == (1, 2, 2) and summary["covariances"].shape == (1, 2, 2)
    np.testing.assert_allclose(summary["coefs"][0], coefs, atol=0.03)
    np.testing.assert_allclose(summary["covariances"][0], noise_cov, atol=0.03)


def test_responsibilities_pick_the_right_regime():
    """Two regimes with opposite dynamics: each frame's expected log-likelihood favours its own."""
    rng = np.random.default_rng(5)
    eye = np.eye(2)
    parts = [_simulate(rng, 400, sign * 0.95 * eye, 0.05 * eye) for sign in (1.0, -1.0)]
    data = LaggedData(np.vstack([p.X for p in parts]), np.vstack([p.Xprev for p in parts]))
    truth = np.repeat([0, 1], 400)
    prior = F.default_prior(data)
    stats = {"N": np.array([400.0, 400.0]), **F.suff_stats(data, np.eye(2)[truth], prior)}
    loglik = F.expected_loglik(expfam.posterior(F, prior, stats), data)
    assert np.mean(loglik.argmax(axis=1) == truth) > 0.95


# ---------------------------------------------------------------- prior and data


def test_default_prior_options():
    rng = np.random.default_rng(6)
    data = _simulate(rng, 200, 0.5 * np.eye(3), np.diag([1.0, 2.0, 0.5]))
    prior = F.default_prior(data)
    nu, M, V, B = _prior_common(prior)
    assert nu == 5.0 and not M.any()
    np.testing.assert_allclose(np.linalg.inv(V), np.diag(np.mean(data.Xprev ** 2, axis=0)))  # one average frame
    lstsq = np.linalg.lstsq(data.Xprev, data.X, rcond=None)[0]
    residual_ms = np.mean((data.X - data.Xprev @ lstsq) ** 2, axis=0)
    np.testing.assert_allclose(B / nu, np.diag(F.DEFAULT_RESIDUAL_FRACTION * residual_ms))
    custom = F.default_prior(data, covariance=0.2, dof=7, coef_mean=0.9, coef_precision=[1.0, 2.0, 4.0])
    nu, M, V, B = _prior_common(custom)
    assert nu == 7.0
    np.testing.assert_allclose(M, 0.9 * np.eye(3), atol=1e-12)
    np.testing.assert_allclose(V, np.diag([1.0, 0.5, 0.25]), atol=1e-12)
    np.testing.assert_allclose(B, 7 * 0.2 * np.eye(3), atol=1e-12)
    with pytest.raises(ValueError, match="coef_mean"):
        F.default_prior(data, coef_mean=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="coef_precision"):
        F.default_prior(data, coef_precision=-1.0)
    with pytest.raises(ValueError, match="dof"):
        F.default_prior(data, dof=1.0)
    with pytest.raises(ValueError, match="unknown prior option"):
        expfam.check_prior_options(F, {"sV": 1.0})


def test_the_default_prior_is_scale_invariant():
    """Data scaled by c: every natural parameter but nu scales by c**2, so the posterior coefficients
    are the same and the noise covariance scales by c**2 (issue 27: with coef_precision fixed at 1.0
    mocap6 scaled by 1e-2 gave ARI 0.16 against the unscaled fit)."""
    data = _simulate(np.random.default_rng(6), 200, 0.5 * np.eye(3), np.diag([1.0, 2.0, 0.5]))
    base = F.default_prior(data)
    for c in (1e-3, 1e2):
        scaled = F.default_prior(LaggedData(c * data.X, c * data.Xprev))
        assert scaled["nu"] == base["nu"]
        for name in ("prec_pred", "cross", "scatter"):
            np.testing.assert_allclose(scaled[name], c ** 2 * base[name], rtol=1e-9, atol=0)
    zero_feature = LaggedData(data.X, np.hstack([data.Xprev, np.zeros((200, 1))]))
    assert np.linalg.inv(_prior_common(F.default_prior(zero_feature))[2])[3, 3] == 1.0


def test_lagged_data_from_sequences_uses_previous_frame_and_first_frame_itself():
    X = np.arange(12.0).reshape(6, 2)
    data = LaggedData.from_sequences(X, [0, 4, 6])
    np.testing.assert_array_equal(data.Xprev, X[[0, 0, 1, 2, 4, 4]])
    assert data.n_items == 6 and data.n_features == 2
    sub = data.subset([5, 1])
    np.testing.assert_array_equal(sub.X, X[[5, 1]])
    np.testing.assert_array_equal(sub.Xprev, X[[4, 0]])
    explicit = LaggedData.from_sequences(X, [0, 6], Xprev=X[:, :1] - 1.0)  # E may differ from D
    assert explicit.Xprev.shape == (6, 1) and explicit.Xprev.dtype == np.float64


def test_lagged_data_validation_and_check_data():
    X = np.ones((4, 2))
    with pytest.raises(DataError, match="Xprev has 3"):
        LaggedData(X, np.ones((3, 2)))
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(DataError, match="NaN"):
        LaggedData(X, bad)
    with pytest.raises(DataError, match="offsets"):
        LaggedData.from_sequences(X, [0, 3])
    family = obs.get("ar_gauss")
    assert family is F
    with pytest.raises(DataError, match=r"needs each frame's predecessor: pass sequences \(stickbreak.data.Sequences\) "
                                        r"or LaggedData\(X, Xprev\)"):
        family.check_data(X)
    from_seqs = family.check_data(Sequences.from_arrays(np.arange(8.0).reshape(4, 2), np.array([0, 2, 4])))
    np.testing.assert_array_equal(from_seqs.Xprev, [[0, 1], [0, 1], [4, 5], [4, 5]])
