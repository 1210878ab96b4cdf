"""L-sparse responsibilities for mixtures (Hughes 2016, Sec. 7.1, Alg. 7.2): kernels against their
twins and the dense path, optimality under the sparsity constraint, sparse statistics of every
family, exact moves and monotone memoized VI, the estimator and the CLI."""

import itertools
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp

from stickbreak import DPMixture, FiniteMixture, load, obs
from stickbreak.models import make_mixture_model
from stickbreak.cli.main import main
from stickbreak.config import MixtureConfig, MovesConfig
from stickbreak.core import sparse_resp
from stickbreak.driver import ELBODecreaseWarning
from stickbreak.kernels import RESP_FLOOR
from stickbreak.kernels.mixture import _reference as ref
from stickbreak.models.mixture import moves as mixture_moves
from stickbreak.moves import birth
from stickbreak import kernels
from stickbreak.models.mixture.init import initial_params
from stickbreak.obs import gaussian_common

from conftest import (ALL_FAMILIES, assert_cache_consistent, assert_same_stats, check_birth_delta, check_delete_delta,
                      check_merge_delta, elbo_of, fit_memoized, small_data)

LOGITS = {
    "ordinary": lambda rng: rng.normal(size=(60, 9)),
    "ties": lambda rng: rng.integers(0, 3, size=(40, 8)).astype(float),
    "all_equal": lambda rng: np.zeros((5, 6)),
    "huge_spread": lambda rng: rng.normal(size=(30, 7)) * 1e4,
    "very_negative": lambda rng: rng.normal(size=(20, 5)) - 1e300,
    "wide": lambda rng: rng.normal(size=(25, 80)),  # L > 32 takes the index-scan ordering
    "one_item": lambda rng: rng.normal(size=(1, 12)),
}


def _toy(n_per=120, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0, 0], [7, 0], [0, 7], [7, 7], [3.5, 3.5], [-5, 3]], dtype=float)
    return np.concatenate([rng.normal(size=(n_per, 2)) + c for c in centers])


def _model(name, data, n_active, n_components=5):
    return make_mixture_model(MixtureConfig(obs_model=name, n_components=n_components, n_active=n_active), data)


def _params(model, data, n_components, seed=0, laps=2):
    params = initial_params(model, data, n_components, "kmeans++", np.random.default_rng(seed))
    for _ in range(laps):
        params = model.global_step(model.summarize(data, model.local_step(params, data), params.uids))
    return params


# ---------------------------------------------------------------------------------------------- kernels
@pytest.mark.parametrize("case", sorted(LOGITS))
def test_top_l_resp_matches_twin(case):
    logits = LOGITS[case](np.random.default_rng(0))
    n_comp = logits.shape[1]
    for n_active in sorted({1, 2, 3, n_comp // 2 + 1, n_comp - 1, n_comp} - {0}):
        values, indices, log_norm, entropy = kernels.top_l_resp(logits.copy(), n_active, RESP_FLOOR)
        with np.errstate(over="ignore", invalid="ignore"):
            t_values, t_indices, t_norm, t_entropy = ref.top_l_resp(logits.copy(), n_active, RESP_FLOOR)
        assert values.shape == indices.shape == (len(logits), n_active) and indices.dtype == np.int64
        np.testing.assert_array_equal(indices, t_indices)  # ties: the lower index wins
        np.testing.assert_allclose(values, t_values, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(log_norm, t_norm, rtol=1e-12)
        np.testing.assert_allclose(entropy, t_entropy, rtol=1e-10, atol=1e-12)
        assert (np.diff(indices, axis=1) > 0).all()  # ascending, distinct
        assert np.allclose(values.sum(axis=1), 1.0) and (values >= RESP_FLOOR).all()


def test_top_l_resp_tie_break_prefers_lower_index():
    logits = np.array([[1.0, 3.0, 3.0, 0.0, 3.0, 3.0]])
    _, indices, _, _ = kernels.top_l_resp(logits.copy(), 2, RESP_FLOOR)
    np.testing.assert_array_equal(indices, [[1, 2]])
    _, indices, _, _ = kernels.top_l_resp(logits.copy(), 5, RESP_FLOOR)
    np.testing.assert_array_equal(indices, [[0, 1, 2, 4, 5]])


@pytest.mark.parametrize("case", ["ordinary", "ties", "huge_spread", "wide", "one_item"])
def test_top_l_with_l_equal_k_is_the_dense_kernel_bit_for_bit(case):
    logits = LOGITS[case](np.random.default_rng(1))
    dense = logits.copy()
    log_norm, entropy = kernels.normalize_log_resp(dense, RESP_FLOOR)
    values, indices, s_norm, s_entropy = kernels.top_l_resp(logits.copy(), logits.shape[1], RESP_FLOOR)
    np.testing.assert_array_equal(indices, np.broadcast_to(np.arange(logits.shape[1]), indices.shape))
    np.testing.assert_array_equal(values, dense)
    np.testing.assert_array_equal(s_norm, log_norm)
    np.testing.assert_array_equal(s_entropy, entropy)


@pytest.mark.parametrize("n_active", [1, 2, 3, 4, 5, 6])
def test_top_l_is_the_optimum_over_all_l_sparse_responsibilities(n_active):
    """Eq. 7.4: max over r with at most L non-zeros of sum_k r_k (W_k - log r_k) is the log-sum-exp of
    the best support; enumerate every L-subset (K = 6) and compare."""
    rng = np.random.default_rng(n_active)
    logits = np.concatenate([rng.normal(size=(30, 6)) * 2.0, rng.integers(0, 2, size=(10, 6)).astype(float)])
    values, indices, log_norm, _ = kernels.top_l_resp(logits.copy(), n_active, RESP_FLOOR)
    for n, row in enumerate(logits):
        best = max(logsumexp(row[list(s)]) for s in itertools.combinations(range(6), n_active))
        assert log_norm[n] == pytest.approx(best, rel=1e-12, abs=1e-12)
        # the returned r attains it: sum_l r_l (W_l - log r_l) = log_norm
        r, w = values[n], row[indices[n]]
        assert float(np.sum(r * (w - np.log(r)))) == pytest.approx(log_norm[n], rel=1e-10, abs=1e-10)
        # and no other support of the same size does better (random r on random supports)
        for _ in range(5):
            support = rng.choice(6, n_active, replace=False)
            q = rng.dirichlet(np.ones(n_active))
            assert float(np.sum(q * (row[support] - np.log(q)))) <= log_norm[n] + 1e-12


def test_sparse_entropy_outer_and_pair_kernels_match_twins():
    rng = np.random.default_rng(2)
    n_comp = 7
    values, indices, _, entropy = kernels.top_l_resp(rng.normal(size=(50, n_comp)) * 3, 3, RESP_FLOOR)
    values[::5, 0] = 0.0  # unused slots count for nothing
    X = rng.normal(size=(50, 4)) + 2.0
    np.testing.assert_allclose(kernels.sparse_weighted_outer_sums(X, values, indices, n_comp),
                               ref.sparse_weighted_outer_sums(X, values, indices, n_comp), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernels.sparse_column_entropy(values, indices, n_comp, RESP_FLOOR),
                               ref.sparse_column_entropy(values, indices, n_comp, RESP_FLOOR), rtol=1e-12, atol=1e-300)
    first, second = np.triu_indices(n_comp, k=1)
    fast = kernels.sparse_pair_merge_entropy(values, indices, n_comp, first, second, RESP_FLOOR)
    np.testing.assert_allclose(fast, ref.sparse_pair_merge_entropy(values, indices, n_comp, first, second, RESP_FLOOR),
                               rtol=1e-12, atol=1e-300)
    # by hand: entries where neither is selected add nothing, where one is, its own term
    dense = sparse_resp.to_dense(sparse_resp.from_top_l(values, indices, n_comp))
    merged = dense[:, first] + dense[:, second]
    np.testing.assert_allclose(fast,
                               -np.sum(np.where(merged > 0, merged * np.log(np.where(merged > 0, merged, 1)), 0),
                                       axis=0),
                               rtol=1e-12)


def test_sparse_outer_sums_equal_the_dense_path():
    rng = np.random.default_rng(3)
    values, indices, _, _ = kernels.top_l_resp(rng.normal(size=(80, 6)), 2, RESP_FLOOR)
    resp = sparse_resp.from_top_l(values, indices, 6)
    X = rng.normal(size=(80, 5))
    np.testing.assert_allclose(gaussian_common.weighted_outer_sums(X, resp),
                               gaussian_common.weighted_outer_sums(X, resp.toarray()), rtol=1e-11, atol=1e-12)


# ---------------------------------------------------------------------------------------------- model
@pytest.mark.parametrize("name", ["gauss", "mult"])
def test_model_with_n_active_k_is_the_dense_path_bit_for_bit(name):
    rng = np.random.default_rng(0)
    data = small_data(name, rng, n_items=60)
    dense_model, full_model = _model(name, data, None), _model(name, data, 5)
    params = _params(dense_model, data, 5)
    pairs = np.array([[0, 1], [2, 4]])
    a, b = dense_model.local_step(params, data), full_model.local_step(params, data)
    assert isinstance(b.resp, np.ndarray)
    np.testing.assert_array_equal(a.resp, b.resp)
    np.testing.assert_array_equal(a.log_norm, b.log_norm)
    np.testing.assert_array_equal(a.entropy, b.entropy)
    sa = dense_model.summarize(data, a, params.uids, merge_pairs=pairs)
    sb = full_model.summarize(data, b, params.uids, merge_pairs=pairs)
    for key in sa.fields:
        np.testing.assert_array_equal(sa.fields[key], sb.fields[key])
    np.testing.assert_array_equal(sa.merge_entropy, sb.merge_entropy)
    # and the top-L kernel at L = K gives the very same responsibilities
    logits = full_model.log_weights(params, data)
    values, indices, log_norm, entropy = kernels.top_l_resp(logits, 5, RESP_FLOOR)
    np.testing.assert_array_equal(values, a.resp)
    np.testing.assert_array_equal(log_norm, a.log_norm)
    np.testing.assert_array_equal(entropy, a.entropy)


def test_sparse_local_step_layout_and_values():
    data = obs.get("gauss").check_data(_toy(40))
    model = _model("gauss", data, 2, n_components=6)
    params = _params(model, data, 6)
    local = model.local_step(params, data)
    resp = local.resp
    assert sp.isspmatrix_csr(resp) and resp.shape == (data.n_items, 6)
    np.testing.assert_array_equal(resp.indptr, np.arange(0, (data.n_items + 1) * 2, 2))
    logits = model.log_weights(params, data)
    values, indices, log_norm, entropy = ref.top_l_resp(logits, 2, RESP_FLOOR)
    np.testing.assert_allclose(resp.toarray(), sparse_resp.to_dense(sparse_resp.from_top_l(values, indices, 6)),
                               rtol=1e-12)
    np.testing.assert_allclose(local.log_norm, log_norm, rtol=1e-12)
    np.testing.assert_allclose(local.entropy, entropy, rtol=1e-10, atol=1e-300)
    stats = model.summarize(data, local, params.uids)
    assert isinstance(stats.fields["N"], np.ndarray) and stats.fields["N"].shape == (6,)
    np.testing.assert_allclose(stats.fields["N"].sum(), data.n_items)
    np.testing.assert_array_equal(sparse_resp.row_argmax(resp), np.argmax(resp.toarray(), axis=1))


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_sparse_suff_stats_equal_dense_stats_of_the_densified_resp(name):
    rng = np.random.default_rng(4)
    family = obs.get(name)
    data = small_data(name, rng, n_items=50)
    prior = family.default_prior(data)
    values, indices, _, _ = kernels.top_l_resp(rng.normal(size=(data.n_items, 6)) * 2, 2, RESP_FLOOR)
    resp = sparse_resp.from_top_l(values, indices, 6)
    fast, slow = family.suff_stats(data, resp, prior), family.suff_stats(data, resp.toarray(), prior)
    assert set(fast) == set(slow)
    for key in fast:
        assert type(fast[key]) is np.ndarray, key
        np.testing.assert_allclose(fast[key], slow[key], rtol=1e-11, atol=1e-11, err_msg=key)
    model = _model(name, data, 2, n_components=6)
    first, second = np.array([0, 1, 2]), np.array([3, 5, 4])
    s_fast = model.summarize_resp(data, resp, np.arange(6))
    n_dense = resp.toarray().sum(axis=0)
    np.testing.assert_allclose(s_fast.fields["N"], n_dense, rtol=1e-12)
    np.testing.assert_allclose(s_fast.elbo_terms["entropy"],
                               ref.sparse_column_entropy(values, indices, 6, RESP_FLOOR), rtol=1e-12, atol=1e-300)
    local = model.local_step(_params(_model(name, data, None, 6), data, 6, laps=1), data)
    with_pairs = model.summarize(data, local, np.arange(6), merge_pairs=np.column_stack([first, second]))
    v, i = sparse_resp.top_l_parts(local.resp)
    np.testing.assert_allclose(with_pairs.merge_entropy,
                               ref.sparse_pair_merge_entropy(v, i, 6, first, second, RESP_FLOOR),
                               rtol=1e-12, atol=1e-300)


def test_pickle_keeps_n_active():
    data = obs.get("gauss").check_data(_toy(10))
    model = _model("gauss", data, 3)
    assert pickle.loads(pickle.dumps(model)).n_active == 3
    assert pickle.loads(pickle.dumps(_model("gauss", data, None))).n_active is None


# ---------------------------------------------------------------------------------------------- moves
def _sparse_case(n_active=2, n_components=6, n_items=80, seed=0):
    data = obs.get("gauss").check_data(_toy(n_items, seed))
    model = _model("gauss", data, n_active, n_components)
    return model, data, _params(model, data, n_components, seed, laps=3)


def test_sparse_merge_delta_equals_brute_force():
    model, data, params = _sparse_case()
    uids = params.uids

    def still_sparse(resp):  # a merge keeps every row within L non-zeros
        merged = sp.csr_matrix(resp)
        assert np.diff(merged.indptr).max() <= model.n_active
        return merged

    check_merge_delta(model, data, params, np.array([[uids[0], uids[3]], [uids[1], uids[2]], [uids[4], uids[5]]]),
                      still_sparse)


def test_sparse_delete_delta_equals_brute_force():
    """The delete's re-assignment is itself top-L over the remaining components."""
    model, data, params = _sparse_case(n_active=2, n_components=5)

    def top_two(logits):
        values, indices, _, _ = ref.top_l_resp(logits, 2, RESP_FLOOR)
        return sparse_resp.from_top_l(values, indices, logits.shape[1])

    check_delete_delta(model, data, params, top_two)


@pytest.mark.parametrize("n_active, n_components", [(2, 3), (4, 2)])
def test_sparse_birth_delta_equals_brute_force_and_stays_l_sparse(n_active, n_components):
    """The birth's restricted re-assignment of the target's mass uses one slot, so every item keeps
    at most L non-zeros; the candidate equals the explicit proposal's statistics."""
    model, data, params = _sparse_case(n_active, n_components, n_items=100)
    slots = model.split_slots
    assert slots == 1

    def in_family(resp, split):
        assert ((split > 0).sum(axis=1) <= slots).all()
        full = sp.csr_matrix(resp)
        assert np.diff(full.indptr).max() <= n_active  # the proposal stays in the L-sparse family
        return full

    check_birth_delta(model, data, params, MovesConfig(moves=("birth",), birth_min_items=5, birth_max_new=4),
                      in_family)


# ---------------------------------------------------------------------------------------------- memoized VI
def _fit_memoized(X, name, n_active, moves, n_components, max_laps=8, n_batches=3, seed=0, **options):
    return fit_memoized(X, name, moves, n_batches, n_components, max_laps, seed, n_active=n_active, **options)[2]


@pytest.mark.parametrize("n_active", [1, 2])
@pytest.mark.parametrize("moves", [(), ("merge", "delete"), ("birth", "merge", "delete")])
def test_memoized_sparse_elbo_never_decreases(n_active, moves):
    n_components = 8 if "birth" not in moves else 2
    result = _fit_memoized(_toy(80), "gauss", n_active, moves, n_components, seed=1)
    elbo = np.array([r.elbo for r in result.trace])
    assert np.all(np.diff(elbo[1:]) >= -1e-9 * np.abs(elbo[2:]))
    assert_cache_consistent(result.state)
    if moves:
        accepted = {kind: sum(r.moves[kind]["accepted"] for r in result.trace) for kind in moves}
        assert sum(accepted.values()) > 0, accepted


@pytest.mark.parametrize("n_active", [1, 2])
def test_memoized_sparse_moves_exercise_every_kind(n_active):
    """Seeded runs in which births, merges and deletes are all accepted, with the ELBO checked after
    every batch and every move (a decrease is an error)."""
    result = _fit_memoized(_toy(80), "gauss", n_active, ("birth", "merge", "delete"), 4, max_laps=10,
                           seed=0, birth_max_new=6)
    accepted = {kind: sum(r.moves[kind]["accepted"] for r in result.trace) for kind in ("birth", "merge", "delete")}
    assert min(accepted.values()) > 0, accepted
    assert_cache_consistent(result.state)


def test_overlapping_births_with_l_above_k_keep_every_item_within_l():
    """Two births in one lap, from K = 2 with L = 4 (> K: the local step is dense): each split gives
    an item's share to one slot, so the accepted q keeps every item within L non-zeros and the next
    top-L local step cannot lose ELBO. (Splitting over L - K + 1 slots per birth left 6 non-zeros.)"""
    X = np.random.default_rng(0).uniform(-10, 10, size=(400, 2))
    data = obs.get("gauss").check_data(X)
    model = make_mixture_model(MixtureConfig(obs_model="gauss", n_components=2, n_active=4,
                                             obs_prior={"covariance": 4.0}), data)
    params = _params(model, data, 2, laps=3)
    local = model.local_step(params, data)
    stats = model.summarize(data, local, params.uids)
    cfg = MovesConfig(moves=("birth",), birth_max_new=3, birth_min_items=5)
    resp, born = sparse_resp.to_dense(local.resp).copy(), []
    for column, target in enumerate(params.uids):
        uids = list(range(100 + 3 * column, 103 + 3 * column))
        proposal = birth.start(model, 0, data, local, params, int(target), uids, 1, cfg, np.random.default_rng(1))
        used = (proposal.centers, proposal.log_weights)
        proposal = birth.extend(model, proposal, 0, data, local, params, cfg, np.random.default_rng(1))
        stats = birth.candidate(stats, proposal)  # the second birth applies to the first's result
        split = sparse_resp.to_dense(mixture_moves.split_target(model, data, resp[:, column], *used,
                                                        model.split_slots))
        resp[:, column] = split[:, 0]
        born.append((proposal.born, split[:, 1:len(proposal.born) + 1]))
    full = np.column_stack([resp] + [cols for _, cols in born])
    assert full.shape[1] > 4 and ((full > 0).sum(axis=1) <= 4).all()
    brute = model.summarize_resp(data, full, np.concatenate([params.uids] + [uids for uids, _ in born]))
    assert_same_stats(stats, brute.reorder(stats.uids))
    after = model.global_step(stats)
    assert elbo_of(model,
                   model.summarize(data, model.local_step(after, data), after.uids)) >= elbo_of(model, stats) - 1e-9


@pytest.mark.slow
def test_zero_mean_gauss_patches_with_n_active():
    """8x8 zero-mean patches (synthetic: a few random covariances) with L = 2 of K = 8."""
    rng = np.random.default_rng(5)
    factors = [rng.normal(size=(64, 64)) * s for s in (0.2, 0.5, 1.0)]
    X = np.concatenate([rng.normal(size=(150, 64)) @ f.T for f in factors])
    X -= X.mean(axis=1, keepdims=True)
    result = _fit_memoized(X, "zero_mean_gauss", 2, ("merge", "delete"), 8, max_laps=6)
    elbo = np.array([r.elbo for r in result.trace])
    assert np.all(np.diff(elbo[1:]) >= -1e-9 * np.abs(elbo[2:]))
    est = DPMixture(algorithm="vb", n_components=8, obs_model="zero_mean_gauss", n_active=2, max_laps=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
    proba = est.predict_proba(X)
    assert proba.shape == (len(X), est.n_components_) and ((proba > 0).sum(axis=1) <= 2).all()


# ---------------------------------------------------------------------------------------------- estimator and CLI
@pytest.mark.parametrize("cls", [DPMixture, FiniteMixture])
def test_estimator_with_n_active_fits_predicts_and_round_trips(cls, tmp_path):
    X = _toy(60)
    est = cls(n_components=10, n_active=2, algorithm="memoized", n_batches=2, moves=("merge", "delete"),
              max_laps=10, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ELBODecreaseWarning)
        warnings.simplefilter("ignore", UserWarning)
        est.fit(X)
    assert est.n_active == 2 and est.model_.n_active == 2
    assert np.all(np.diff(est.elbo_trace_[1:]) >= -1e-9 * np.abs(est.elbo_trace_[2:]))
    proba = est.predict_proba(X)
    assert type(proba) is np.ndarray and proba.shape == (len(X), est.n_components_)
    assert ((proba > 0).sum(axis=1) <= 2).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.predict(X), np.argmax(proba, axis=1))
    assert est.n_active_components_ >= 5
    path = est.save(tmp_path / "model.npz")
    back = load(path)
    assert back.n_active == 2 and back.model_.n_active == 2
    np.testing.assert_array_equal(back.predict_proba(X), proba)
    assert pickle.loads(pickle.dumps(est)).model_.n_active == 2


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_n_active_at_least_k_fits_exactly_like_dense():
    X = _toy(40)
    a = DPMixture(algorithm="vb", n_components=4, max_laps=5, random_state=0).fit(X)
    b = DPMixture(algorithm="vb", n_components=4, n_active=4, max_laps=5, random_state=0).fit(X)
    c = DPMixture(algorithm="vb", n_components=4, n_active=9, max_laps=5, random_state=0).fit(X)
    np.testing.assert_array_equal(a.elbo_trace_, b.elbo_trace_)
    np.testing.assert_array_equal(a.elbo_trace_, c.elbo_trace_)
    np.testing.assert_array_equal(a.predict_proba(X), c.predict_proba(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("algorithm, n_jobs", [("vb", 2), ("stochastic", 1)])
def test_other_algorithms_run_with_n_active(algorithm, n_jobs):
    X = _toy(50)
    est = DPMixture(n_components=8, n_active=3, algorithm=algorithm, n_batches=3, n_jobs=n_jobs, max_laps=6,
                    random_state=0).fit(X)
    assert np.isfinite(est.lower_bound_) and ((est.predict_proba(X) > 0).sum(axis=1) <= 3).all()
    if algorithm == "vb":
        assert np.all(np.diff(est.elbo_trace_) >= -1e-9 * np.abs(est.elbo_trace_[1:]))


@pytest.mark.parametrize("bad", [0, -1, 2.5, "x", True])
def test_bad_n_active_is_rejected_before_any_work(bad):
    X = np.full((5, 2), np.nan)  # bad data too: the n_active error must come first
    with pytest.raises(ValueError, match="n_active must be a positive integer"):
        DPMixture(n_active=bad).fit(X)
    with pytest.raises(ValueError, match="n_active"):
        MixtureConfig(n_active=bad)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_cli_n_active(tmp_path, capsys):
    code = main(["fit", "mixture", "old_faithful", "-K", "8", "--n-active", "2", "--max-laps", "20", "--seed", "0",
                 "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "L=2" in out
    assert load(tmp_path / "model.npz").n_active == 2
    assert main(["fit", "mixture", "old_faithful", "--n-active", "0", "--quiet"]) == 2
    assert "--n-active must be a positive integer" in capsys.readouterr().err
