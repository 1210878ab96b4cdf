"""The blocked Gibbs sampler's kernels (kernels/hmm/sampling.py) against exact enumeration and
their NumPy twins (kernels/hmm/_reference_sampling.py): forward filtering, backward sampling
draws whole paths with their exact posterior probabilities; the table counts and sticky
overrides have their exact expectations. Every check is seeded; tolerances are 5 Monte Carlo
standard errors."""

import itertools

import numpy as np
import pytest
from scipy.special import logsumexp

from stickbreak.kernels.hmm import _reference_sampling as ref
from stickbreak.kernels.hmm import sampling

N_STATES, LENGTH = 3, 4


def _model(seed, zero_some=False):
    rng = np.random.default_rng(seed)
    start = rng.dirichlet(np.ones(N_STATES))
    trans = rng.dirichlet(np.ones(N_STATES), size=N_STATES)
    if zero_some:  # an impossible start and two impossible jumps; the diagonal keeps every row alive
        start[2] = 0.0
        trans[0, 1] = trans[2, 0] = 0.0
        start, trans = start / start.sum(), trans / trans.sum(axis=1, keepdims=True)
    return start, trans, rng.normal(size=(LENGTH, N_STATES)) * 1.5


def _path_posterior(start, trans, loglik):
    """Every path's posterior probability (N_STATES ** LENGTH,) and the log-evidence, by enumeration."""
    paths = np.array(list(itertools.product(range(N_STATES), repeat=LENGTH)))
    with np.errstate(divide="ignore"):
        log_p = (np.log(start[paths[:, 0]]) + np.log(trans[paths[:, :-1], paths[:, 1:]]).sum(axis=1)
                 + loglik[np.arange(LENGTH), paths].sum(axis=1))
    evidence = logsumexp(log_p)
    return np.exp(log_p - evidence), evidence


def _frequencies(states, n_draws):
    codes = states.reshape(n_draws, LENGTH) @ (N_STATES ** np.arange(LENGTH - 1, -1, -1))
    return np.bincount(codes, minlength=N_STATES ** LENGTH) / n_draws


def _repeated(loglik, n_draws):
    return np.tile(loglik, (n_draws, 1)), np.arange(0, n_draws * LENGTH + 1, LENGTH, dtype=np.int64)


def _check_paths(freq, exact, n_draws):
    se = np.sqrt(exact * (1 - exact) / n_draws)
    assert np.all(np.abs(freq - exact) <= 5 * se + 1e-12), np.max(np.abs(freq - exact) / (se + 1e-300))
    assert np.all(freq[exact == 0] == 0)  # impossible paths are never drawn


@pytest.mark.parametrize("zero_some", [False, True])
def test_ffbs_draws_paths_with_their_exact_posterior_probabilities(zero_some):
    start, trans, loglik = _model(1, zero_some)
    exact, evidence = _path_posterior(start, trans, loglik)
    n_draws = 40000
    X, offsets = _repeated(loglik, n_draws)
    states = np.empty(len(X), dtype=np.int64)
    log_evidence = sampling.ffbs(start, trans, X, offsets, 7, states)
    np.testing.assert_allclose(log_evidence, evidence, rtol=1e-12, atol=1e-10)
    _check_paths(_frequencies(states, n_draws), exact, n_draws)


def test_the_numpy_twin_draws_the_same_distribution():
    start, trans, loglik = _model(2, zero_some=True)
    exact, evidence = _path_posterior(start, trans, loglik)
    n_draws = 3000
    X, offsets = _repeated(loglik, n_draws)
    states, log_evidence = ref.ffbs(start, trans, X, offsets, np.random.default_rng(3))
    np.testing.assert_allclose(log_evidence, evidence, rtol=1e-12)
    _check_paths(_frequencies(states, n_draws), exact, n_draws)


def test_ffbs_survives_likelihoods_far_apart_and_a_seed_repeats_its_draws():
    """The data favour an unreachable state by 2000 nats: the filter rescales over reachable states only."""
    rng = np.random.default_rng(4)
    start, trans = np.array([0.5, 0.5, 0.0]), np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.3, 0.3, 0.4]])
    loglik = rng.normal(size=(500, 3))
    loglik[:, 2] += 2000.0
    offsets = np.array([0, 200, 500], dtype=np.int64)
    first, again = np.empty(500, dtype=np.int64), np.empty(500, dtype=np.int64)
    evidence = sampling.ffbs(start, trans, loglik, offsets, 11, first)
    sampling.ffbs(start, trans, loglik, offsets, 11, again)
    assert np.all(np.isfinite(evidence)) and set(np.unique(first)) <= {0, 1}
    np.testing.assert_array_equal(first, again)
    _, twin = ref.ffbs(start, trans, loglik, offsets, rng)
    np.testing.assert_allclose(evidence, twin, rtol=1e-10)


def test_transition_counts_match_the_twin():
    rng = np.random.default_rng(5)
    states = rng.integers(0, 4, 60).astype(np.int64)
    offsets = np.array([0, 1, 25, 60], dtype=np.int64)
    for got, want in zip(sampling.transition_counts(states, offsets, 4), ref.transition_counts(states, offsets, 4)):
        np.testing.assert_array_equal(got, want)


def _expected_tables(counts, conc):
    """``E[m] = sum_{i<n} c / (c + i)``: customer i+1 opens a table with probability c / (c + i)."""
    means = [np.sum(c / (c + np.arange(int(n)))) for n, c in zip(counts.ravel(), conc.ravel())]
    return np.array(means).reshape(counts.shape)


def test_table_counts_and_overrides_have_their_exact_expectations():
    beta = np.array([0.5, 0.3, 0.15, 0.05])
    alpha, kappa, start_alpha = 2.0, 6.0, 5.0
    start_counts = np.array([3.0, 0.0, 1.0, 2.0])
    trans_counts = np.array([[40, 3, 0, 1], [2, 25, 4, 0], [0, 5, 12, 1], [1, 0, 2, 30]], dtype=float)
    conc = np.vstack([start_alpha * beta, alpha * beta + kappa * np.eye(4)])
    expected_m = _expected_tables(np.vstack([start_counts, trans_counts]), conc)
    rho = kappa / (alpha + kappa)
    expected_w = np.diag(expected_m[1:]) * rho / (rho + beta * (1 - rho))
    n_draws = 3000
    draws = [sampling.sticky_table_counts(start_counts, trans_counts, beta, alpha, kappa, start_alpha, seed)
             for seed in range(n_draws)]
    m, w = np.array([d[0] for d in draws]), np.array([d[1] for d in draws])
    assert np.all(m <= np.vstack([start_counts, trans_counts])) and np.all(w <= np.diagonal(m[:, 1:], axis1=1, axis2=2))
    for got, want in ((m, expected_m), (w, expected_w)):
        se = got.std(axis=0) / np.sqrt(n_draws)
        assert np.all(np.abs(got.mean(axis=0) - want) <= 5 * se + 1e-12)
    rng = np.random.default_rng(6)
    twin = [ref.sticky_table_counts(start_counts, trans_counts, beta, alpha, kappa, start_alpha, rng)
            for _ in range(n_draws)]
    m_twin = np.array([t[0] for t in twin])
    se = m_twin.std(axis=0) / np.sqrt(n_draws)
    assert np.all(np.abs(m_twin.mean(axis=0) - expected_m) <= 5 * se + 1e-12)


def test_no_stickiness_no_overrides_and_every_used_pair_has_a_table():
    counts = np.array([[3.0, 0.0], [1.0, 7.0]])
    m, w = sampling.sticky_table_counts(np.array([1.0, 0.0]), counts, np.array([0.6, 0.4]), 1.0, 0.0, 1.0, 0)
    assert np.all(w == 0) and np.all((m[1:] >= 1) == (counts >= 1)) and m[0, 0] == 1 and m[0, 1] == 0
