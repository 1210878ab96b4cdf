"""The HMM allocation models (Hughes 2016, Ch. 6): bounds, exact ELBO, monotone learners, exact moves."""

import dataclasses
import warnings

import numpy as np
import pytest
from scipy.special import gammaln

from stickbreak import driver, obs
from stickbreak.models.hmm.model import HMMModel
from stickbreak.priors import transition_finite as finite_hmm, transition_hdp as hdp_hmm, top_sticks as sticks
from stickbreak.models.hmm.model import frames_for
from stickbreak.config import LearnConfig, MovesConfig
from stickbreak.core.suffstats import SuffStats
from stickbreak.data import DenseData, Sequences
from stickbreak.datasets.synthetic import make_sticky_hmm_toy
from stickbreak.kernels.hmm import _reference as ref
from stickbreak.learn.base import ELBODecreaseWarning
from stickbreak.learn.batch import BatchVB
from stickbreak.models.hmm.init import initial_params
from stickbreak.learn.memoized import MemoizedVI
from stickbreak.obs import expfam
from stickbreak.core.local_parts import on_batches
from stickbreak.moves.delete import proposal_here

from conftest import assert_cache_consistent, chain_stats


def _toy(n_sequences=6, length=120, seed=0):
    X, offsets, labels = make_sticky_hmm_toy(n_sequences=n_sequences, length=length, seed=seed)
    return Sequences.from_arrays(X, offsets), labels


def _model(data, kind="hdp", stickiness=0.0, family="gauss", learn=False):
    fam = obs.get(family)
    module = {"hdp": hdp_hmm, "finite": finite_hmm}[kind]
    prior = (module.default_prior(0.5, 5.0, stickiness, 10.0, learn=learn) if kind == "hdp"
             else module.default_prior(0.5, 5.0, stickiness))
    return HMMModel(fam, fam.default_prior(frames_for(fam, data)), module, prior)


def _c_dir(a):
    return gammaln(a.sum(axis=-1)) - gammaln(a).sum(axis=-1)


# ---------------------------------------------------------------------------------------- the bound
@pytest.mark.parametrize("kappa", [0.0, 0.3, 50.0])
def test_top_surrogate_is_below_the_exact_expectation(kappa):
    """``top_elbo`` <= E_q[sum_j c_Dir(prior_j(u))] + E log p(u) - E log q(u), by Monte Carlo."""
    rng = np.random.default_rng(0)
    prior = hdp_hmm.default_prior(0.5, 5.0, kappa, 3.0)
    n_states = 4
    rho, omega = rng.uniform(0.1, 0.6, n_states), rng.uniform(5.0, 40.0, n_states)
    a, b = rho * omega, (1 - rho) * omega
    u = rng.beta(a, b, size=(40_000, n_states))
    rest = np.cumprod(1 - u, axis=1)
    base = np.column_stack([u * np.column_stack([np.ones(len(u)), rest[:, :-1]]), rest[:, -1]])
    total = _c_dir(prior["start_alpha"] * base)
    for j in range(n_states):
        row = prior["alpha"] * base
        row[:, j] += kappa
        total = total + _c_dir(row)
    log_beta = lambda x, p, q: (p - 1) * np.log(x) + (q - 1) * np.log1p(-x) - (gammaln(p) + gammaln(q) - gammaln(p + q))  # noqa: E731
    total = total + (log_beta(u, 1.0, prior["gamma"]) - log_beta(u, a, b)).sum(axis=1)
    exact, stderr = total.mean(), total.std() / np.sqrt(len(total))
    bound = hdp_hmm.top_elbo(prior, rho, omega)
    assert bound <= exact + 4 * stderr


@pytest.mark.parametrize("kappa", [0.0, 2.0])
def test_stick_gradient_matches_finite_differences(kappa):
    rng = np.random.default_rng(1)
    prior = hdp_hmm.default_prior(0.5, 5.0, kappa, 3.0)
    on, off = hdp_hmm.surrogate_counts(prior, 5)
    omega = sticks.heuristic_omega(on, off, 3.0)
    rho, w, w_rest = rng.uniform(0.05, 0.6, 5), rng.normal(size=5) - 3, -4.0
    grad = sticks.gradient(3.0, rho, omega, on, off, w, w_rest)
    h = 1e-6
    for j in range(5):
        up, down = rho.copy(), rho.copy()
        up[j] += h
        down[j] -= h
        fd = (sticks.objective(3.0, up, omega, on, off, w,
                               w_rest) - sticks.objective(3.0, down, omega, on, off, w, w_rest)) / (2 * h)
        assert np.isclose(grad[j], fd, rtol=1e-5, atol=1e-6)


def test_corrected_sticky_counts():
    """Eq. 6.33 corrected: ``K`` and ``K (K + 1 - k) + 1``; without stickiness ``K + 1`` and ``(K + 1)(K + 1 - k)``."""
    on, off = hdp_hmm.surrogate_counts(hdp_hmm.default_prior(stickiness=5.0), 3)
    assert np.allclose(on, 3) and np.allclose(off, [10, 7, 4])
    on, off = hdp_hmm.surrogate_counts(hdp_hmm.default_prior(stickiness=0.0), 3)
    assert np.allclose(on, 4) and np.allclose(off, [12, 8, 4])


def test_sticky_kappa_zero_reduces_to_the_non_sticky_model():
    """kappa = 0 is the non-sticky HDP-HMM (Eq. 6.28, written out here), and at fixed sticks the
    sticky rows and local step tend to the non-sticky ones as kappa -> 0. (The sticky *bound* does
    not: its concavity step ``log(alpha pi_k + kappa) >= log kappa + ...`` loosens without limit, so
    kappa = 0 takes the non-sticky bound.)"""
    data, _ = _toy(4, 80)
    plain = _model(data, stickiness=0.0)
    prior = plain.transitions_prior
    params = initial_params(plain, data, 5, "contiguous_blocks", np.random.default_rng(0))
    rho, omega = params.trans["rho"], params.trans["omega"]
    K, k = 5, np.arange(1, 6)
    a, b = rho * omega, (1 - rho) * omega
    from scipy.special import digamma
    elog_u, elog_rest = digamma(a) - digamma(omega), digamma(b) - digamma(omega)
    c_beta = lambda p, q: gammaln(p + q) - gammaln(p) - gammaln(q)  # noqa: E731
    eq_6_28 = (K * np.log(prior["start_alpha"]) + K ** 2 * np.log(prior["alpha"])
               + np.sum(c_beta(1.0, prior["gamma"]) - c_beta(a, b) + (K + 2 - a) * elog_u
                        + ((K + 1) * (K + 1 - k) + prior["gamma"] - b) * elog_rest))
    assert np.isclose(hdp_hmm.top_elbo(prior, rho, omega), eq_6_28, rtol=1e-12)
    stats = plain.summarize(data, plain.local_step(params, data))
    fixed = {"rho": rho}
    reference = hdp_hmm.global_step(prior, stats.fields["start"], stats.fields["trans"], fixed, rounds=0)
    sticky = _model(data, stickiness=1e-10)
    rows = hdp_hmm.global_step(sticky.transitions_prior, stats.fields["start"], stats.fields["trans"], fixed, rounds=0)
    assert np.allclose(rows["trans"], reference["trans"], rtol=1e-8) and np.allclose(rows["start"], reference["start"])
    local = sticky.local_step(params.__class__(params.uids, params.obs, rows), data)
    assert np.allclose(local.resp, plain.local_step(params.__class__(params.uids, params.obs, reference), data).resp,
                       atol=1e-8)


# ---------------------------------------------------------------------------------------- exact ELBO
def _kl_dirichlet(theta, prior):
    elog = finite_hmm.expected_log_rows(theta)
    return _c_dir(theta) - _c_dir(prior) + ((theta - prior) * elog).sum(axis=-1)


def test_finite_hmm_elbo_equals_log_normaliser_minus_kl():
    """ELBO = sum log Z(E log params) - KL(q(pi)||p(pi)) - KL(q(phi)||p(phi)) at the optimal q(z)."""
    data, _ = _toy(3, 50)
    model = _model(data, kind="finite", stickiness=2.0)
    params = initial_params(model, data, 4, "contiguous_blocks", np.random.default_rng(2))
    params = model.global_step(model.summarize(data, model.local_step(params, data)), params)
    local = model.local_step(params, data)
    stats = model.summarize(data, local)
    start_prior, trans_prior = finite_hmm.prior_rows(model.transitions_prior, 4)
    kl = (_kl_dirichlet(params.trans["start"], start_prior) + _kl_dirichlet(params.trans["trans"], trans_prior).sum()
          + expfam.kl_to_prior(model.obs, model.obs_prior, params.obs).sum())
    assert np.isclose(sum(model.elbo_terms(params, stats).values()), local.log_norm.sum() - kl, rtol=1e-10)


@pytest.mark.parametrize("kind,kappa", [("hdp", 0.0), ("hdp", 20.0), ("finite", 5.0)])
def test_score_equals_elbo_terms_after_global_step(kind, kappa):
    data, _ = _toy(3, 60)
    model = _model(data, kind, kappa)
    params = initial_params(model, data, 6, "contiguous_blocks", np.random.default_rng(3))
    stats = model.summarize(data, model.local_step(params, data))
    fitted, terms = model.score(stats, params)
    assert np.isclose(sum(terms.values()), sum(model.elbo_terms(fitted, stats).values()), rtol=1e-10)


@pytest.mark.parametrize("kind,kappa,family", [("hdp", 0.0, "gauss"), ("hdp", 50.0, "diag_gauss"),
                                               ("finite", 10.0, "gauss"), ("hdp", 10.0, "ar_gauss")])
def test_batch_vb_elbo_is_monotone(kind, kappa, family):
    data, _ = _toy(4, 100)
    model = _model(data, kind, kappa, family)
    params = initial_params(model, data, 10, "contiguous_blocks", np.random.default_rng(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ELBODecreaseWarning)
        result = driver.fit(model, [data], params, BatchVB(), LearnConfig(max_laps=15, tol=0))
    elbos = np.array([r.elbo for r in result.trace])
    assert np.all(np.diff(elbos) >= -1e-9 * np.abs(elbos[1:]))


def _memoized_toy(kappa, n_states, moves, seed):
    """Memoized VI on an 8 x 150 toy over 4 batches, failing on any ELBO decrease; the ELBO after
    the first lap is checked to be monotone. Returns (model, result, Hamming distance)."""
    from stickbreak.evaluate import hamming_distance

    data, labels = _toy(8, 150, seed=1)
    model = _model(data, "hdp", kappa)
    params = initial_params(model, data, n_states, "contiguous_blocks", np.random.default_rng(6))
    batches = [data.subset(np.arange(b, 8, 4)) for b in range(4)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ELBODecreaseWarning)
        learner = MemoizedVI(MovesConfig(moves=moves), np.random.default_rng(seed))
        result = driver.fit(model, batches, params, learner, LearnConfig(max_laps=25, n_batches=4))
    result = dataclasses.replace(result, state=learner.saved_state(result.state, batches))  # with the batches' caches
    elbos = np.array([r.elbo for r in result.trace[1:]])
    assert np.all(np.diff(elbos) >= -1e-9 * np.abs(elbos[1:]))
    frames = np.concatenate([np.arange(data.offsets[s], data.offsets[s + 1]) for b in range(4) for s in range(b, 8, 4)])
    predicted = np.concatenate([model.viterbi(result.params, batch) for batch in batches])
    return model, result, hamming_distance(labels[frames], predicted)


@pytest.mark.slow
@pytest.mark.parametrize("kappa", [0.0, 50.0])
def test_memoized_with_moves_is_monotone_and_recovers_the_toy(kappa):
    _, result, hamming = _memoized_toy(kappa, 20, ("merge", "delete"), seed=1)
    assert sum(r.moves["merge"]["accepted"] for r in result.trace) > 0
    if kappa > 0:  # without stickiness, 1200 frames are too few to keep the rarest state apart
        assert hamming == 0.0


# ---------------------------------------------------------------------------------------- moves
@pytest.mark.parametrize("kappa, learn", [(0.0, False), (20.0, False), (0.0, True), (20.0, True)])
def test_merge_delta_elbo_equals_brute_force(kappa, learn):
    """Also with empirical-Bayes concentrations: the candidate's global step learns its own."""
    data, _ = _toy(3, 40)
    model = _model(data, "hdp", kappa, learn=learn)
    params = initial_params(model, data, 5, "contiguous_blocks", np.random.default_rng(7))
    pairs = np.array([[0, 3], [1, 2]])
    stats = model.summarize(data, model.local_step(params, data, merge_pairs=pairs), params.uids, merge_pairs=pairs)
    for a, b in pairs:
        merged = stats.merge(a, b)
        brute = chain_stats(model, params, data, (a, b))
        for name in merged.fields:
            assert np.allclose(merged.fields[name], brute.fields[name], rtol=1e-8, atol=1e-8), name
        assert np.isclose(merged.elbo_terms["entropy"].sum(), brute.elbo_terms["entropy"].sum(), rtol=1e-8)
        assert np.isclose(sum(model.score(merged, params)[1].values()), sum(model.score(brute, params)[1].values()),
                          rtol=1e-10)


def test_second_merge_in_a_lap_is_a_lower_bound():
    """Two merges of one lap: the cached entropies with the log 2 correction bound the exact one below."""
    data, _ = _toy(3, 60)
    model = _model(data, "hdp", 0.0)
    params = initial_params(model, data, 6, "contiguous_blocks", np.random.default_rng(8))
    pairs = np.array([[0, 1], [2, 3]])
    stats = model.summarize(data, model.local_step(params, data, merge_pairs=pairs), params.uids, merge_pairs=pairs)
    twice = stats.merge(0, 1).merge(2, 3, bound_against=[0])
    once = stats.merge(0, 1)
    # exact: merge (2, 3) after (0, 1) from the twin's marginals
    loglik = model.obs.expected_loglik(params.obs, DenseData(data.X))
    log_start, log_trans = model._log_transitions(params)
    exact = 0.0
    for s in range(data.n_items):
        lo, hi = data.offsets[s], data.offsets[s + 1]
        resp, pairwise, _ = ref.sequence_posterior(log_start, log_trans, loglik[lo:hi])
        resp, pairwise = ref.merge_states(*ref.merge_states(resp, pairwise, 0, 1), 1, 2)  # 2, 3 became 1, 2
        exact += ref.entropy_table(resp, pairwise).sum()
    assert twice.elbo_terms["entropy"].sum() <= exact + 1e-9
    assert np.allclose(twice.fields["trans"].sum(), once.fields["trans"].sum())


def test_delete_proposal_with_one_refinement_is_the_local_step_without_the_target():
    data, _ = _toy(3, 60)
    model = _model(data, "hdp", 10.0)
    params = initial_params(model, data, 5, "contiguous_blocks", np.random.default_rng(9))
    local = model.local_step(params, data)
    stats = model.summarize(data, local, params.uids)
    proposal, _ = proposal_here(model, params, data, local, (2,), stats, stats, 1)
    reduced = model.without_states(params, (2,))
    brute = model.summarize(data, model.local_step(reduced, data), reduced.uids)
    assert np.array_equal(proposal.uids, [0, 1, 3, 4])
    for name in brute.fields:
        assert np.allclose(proposal.fields[name], brute.fields[name])
    assert np.allclose(sum(model.score(proposal, params)[1].values()), sum(model.score(brute, params)[1].values()))


def test_split_matrix_moves_the_target_to_its_newborns():
    from stickbreak.models.hmm.birth import split_matrix

    E = split_matrix(4, 1, np.array([0.25, 0.75]))
    assert E.shape == (4, 5)
    assert np.allclose(E.sum(axis=1), 1.0)
    assert np.allclose(E[1], [0, 0.25, 0.75, 0, 0]) and E[0, 0] == 1 and E[2, 3] == 1 and E[3, 4] == 1
    M = np.random.default_rng(12).random((4, 4))
    expanded = E.T @ M @ E
    assert np.isclose(expanded.sum(), M.sum())
    assert np.allclose(expanded[1:3, 1:3].sum(), M[1, 1]) and np.allclose(expanded[0, 1:3].sum(), M[0, 1])


def _birth_setup(kappa, n_sequences=4, length=80, seed=13):
    from stickbreak.models.hmm.birth import expanded_params

    data, _ = _toy(n_sequences, length, seed=seed)
    model = _model(data, "hdp", kappa)
    params = initial_params(model, data, 3, "contiguous_blocks", np.random.default_rng(seed))
    whole = model.summarize(data, model.local_step(params, data), params.uids)
    params = model.global_step(whole, params)
    target, born = int(params.uids[1]), np.array([10, 11])
    centers = expfam.concat_components(expfam.select_components(params.obs, [1]),
                                       expfam.select_components(params.obs, [0, 2]))  # the newborns copy states 0, 2
    log_weights = np.log([0.0, 0.4, 0.6])
    return data, model, params, whole, target, centers, log_weights, born, expanded_params


@pytest.mark.parametrize("kappa", [0.0, 20.0])
def test_birth_candidate_over_batches_equals_brute_force(kappa):
    """The birth's candidate (each batch expanded separately) equals the twin's statistics of all the
    data under the expanded states, and so does its ELBO; the newborns replace the target in place."""
    with np.errstate(divide="ignore"):
        data, model, params, whole, target, centers, log_weights, born, expanded_params = _birth_setup(kappa)
    batches = [data.subset([0, 2]), data.subset([1, 3])]
    pairs = np.array([[int(params.uids[0]), 11]])
    parts = model.birth_proposal(on_batches(batches), params, whole, target, centers, log_weights, born, 1, pairs)
    candidate = (parts[0] + parts[1]).without_merge_terms()
    expanded = expanded_params(model, params, whole, target, centers, log_weights, born)
    assert np.array_equal(candidate.uids, [params.uids[0], 10, 11, params.uids[2]])
    brute = chain_stats(model, expanded, data.subset([0, 2, 1, 3]))
    for name in brute.fields:
        assert np.allclose(candidate.fields[name], brute.fields[name], rtol=1e-8, atol=1e-8), name
    assert np.isclose(candidate.elbo_terms["entropy"].sum(), brute.elbo_terms["entropy"].sum(), rtol=1e-8)
    assert np.isclose(sum(model.score(candidate, params)[1].values()), sum(model.score(brute, params)[1].values()),
                      rtol=1e-10)
    # the pair entropies gathered for merges in the expanded chain are exact too
    merged = (parts[0] + parts[1]).merge(*pairs[0])
    brute_merged = chain_stats(model, expanded, data.subset([0, 2, 1, 3]), (0, 2))
    assert np.isclose(merged.elbo_terms["entropy"].sum(), brute_merged.elbo_terms["entropy"].sum(), rtol=1e-8)


def test_expanded_transitions_split_the_target_by_its_shares():
    """The expanded transition posterior is fitted to the counts ``M0 E`` and ``E^T M E``: mass into
    the target is split 0.4 / 0.6 over the newborns, which share its mass out."""
    with np.errstate(divide="ignore"):
        data, model, params, whole, target, centers, log_weights, born, expanded_params = _birth_setup(0.0)
    expanded = expanded_params(model, params, whole, target, centers, log_weights, born)
    start_prior, trans_prior = hdp_hmm.prior_rows(model.transitions_prior, expanded.trans["rho"])
    counts = expanded.trans["trans"][:, :-1] - trans_prior[:, :-1]
    start = expanded.trans["start"][:-1] - start_prior[:-1]
    M, M0 = whole.fields["trans"], whole.fields["start"]
    shares = np.array([0.4, 0.6])
    assert np.allclose(counts[[0, 3]][:, [1, 2]], np.outer(M[[0, 2], 1], shares))
    assert np.allclose(counts[[1, 2]][:, [0, 3]], np.outer(shares, M[1, [0, 2]]))
    assert np.allclose(counts[1:3, 1:3], M[1, 1] * np.outer(shares, shares))
    assert np.allclose(start, [M0[0], *(M0[1] * shares), M0[2]])


@pytest.mark.slow
@pytest.mark.parametrize("kappa", [0.0, 50.0])
def test_memoized_births_from_one_state_are_monotone_consistent_and_recover_the_toy(kappa):
    """From a single state, births (with merges and deletes) find the toy's 8 states over 4 batches;
    the ELBO never drops, and the cached batch statistics fast-forwarded through the move log
    (full-width birth records, then the lap's merges) sum to the whole-data statistics."""
    _, result, hamming = _memoized_toy(kappa, 1, ("birth", "merge", "delete"), seed={0.0: 2, 50.0: 0}[kappa])
    accepted = {kind: sum(r.moves[kind]["accepted"] for r in result.trace) for kind in ("birth", "merge")}
    assert accepted["birth"] >= 2 and accepted["merge"] >= 1, accepted
    assert_cache_consistent(result.state)
    assert hamming == 0.0


def test_square_fields_follow_the_states():
    K = 4
    rng = np.random.default_rng(10)
    M = rng.random((K, K))
    stats = SuffStats(np.arange(K) + 10, {"N": rng.random(K), "trans": M}, square=("trans",))
    picked = stats.select([13, 10])
    assert np.allclose(picked.fields["trans"], M[np.ix_([3, 0], [3, 0])])
    padded = stats.insert_empty([20])
    assert padded.fields["trans"].shape == (5, 5) and np.allclose(padded.fields["trans"][:K, :K], M)
    merged = stats.merge(10, 12)
    expected = M.copy()
    expected[0] += expected[2]
    expected[:, 0] += expected[:, 2]
    assert np.allclose(merged.fields["trans"], np.delete(np.delete(expected, 2, 0), 2, 1))
    assert np.isclose(merged.fields["trans"].sum(), M.sum())
    assert np.allclose(stats.scaled(2.0).fields["trans"], 2 * M)
    again = SuffStats.from_arrays(stats.to_arrays("x."), "x.")
    assert again.square == ("trans",) and np.allclose(again.fields["trans"], M)


def test_stochastic_step_of_size_one_on_all_data_is_a_batch_step():
    from stickbreak.learn.stochastic import InMemoryMinibatches, StochasticVI

    data, _ = _toy(4, 60)
    model = _model(data, "hdp", 10.0)
    params = initial_params(model, data, 5, "contiguous_blocks", np.random.default_rng(11))
    learner = StochasticVI(lambda step: 1.0, np.random.default_rng(0))
    stepped, _, _ = learner.step(model, params, data, data.n_items, 1, estimate=False)
    batch = model.global_step(model.summarize(data, model.local_step(params, data), params.uids), params)
    for key in ("start", "trans", "rho"):
        assert np.allclose(stepped.trans[key], batch.trans[key])
    for key in model.obs.natural_keys:
        assert np.allclose(stepped.obs[key], batch.obs[key])
    result = driver.fit(model, InMemoryMinibatches(data, 2), params,
                        StochasticVI(lambda s: (1 + s) ** -0.51, np.random.default_rng(0)),
                        LearnConfig(algorithm="stochastic", max_laps=4, n_batches=2))
    assert np.isfinite(result.elbo) and result.n_laps == 4


def test_hmm_births_expand_every_batch_through_the_executor():
    """A chain's birth is expanded on every batch at once; its sweeps of local steps go through the
    executor, where the batches live (here the driver's two threads, which split each batch as
    worker processes do), and the fit is the one on a single thread."""
    from stickbreak.parallel import LocalExecutor

    class Counting(LocalExecutor):
        sweeps = 0

        def local_summaries(self, *args, **kwargs):
            self.sweeps += 1
            return super().local_summaries(*args, **kwargs)

    data, _ = _toy(8, 150, seed=1)
    model = _model(data, "hdp", 50.0)
    params = initial_params(model, data, 1, "contiguous_blocks", np.random.default_rng(6))
    batches = [data.subset(np.arange(b, 8, 4)) for b in range(4)]
    counting, results = Counting(2), []
    for executor in (counting, LocalExecutor(1)):
        learner = MemoizedVI(MovesConfig(moves=("birth", "merge", "delete")), np.random.default_rng(0))
        results.append(driver.fit(model, batches, params, learner, LearnConfig(max_laps=6, n_batches=4),
                                  executor=executor))
        executor.close()
    split, whole = results
    accepted = sum(r.moves["birth"]["accepted"] for r in split.trace)
    assert accepted >= 1 and counting.sweeps >= accepted * MovesConfig().birth_refine_steps
    assert [r.n_components for r in split.trace] == [r.n_components for r in whole.trace]
    np.testing.assert_allclose([r.elbo for r in split.trace], [r.elbo for r in whole.trace], rtol=1e-10)
