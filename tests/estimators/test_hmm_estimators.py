"""HDPHMM and FiniteHMM: hmmlearn-style input, recovery, save/load, scikit-learn contract, bad input."""

import json
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import stickbreak
from stickbreak import HDPHMM, FiniteHMM, Sequences, datasets, persist
from stickbreak.datasets.synthetic import make_sticky_hmm_toy
from stickbreak.estimators import hmm_base as hmm_module
from stickbreak.evaluate import hamming_distance


@pytest.fixture(scope="module")
def toy():
    X, offsets, labels = make_sticky_hmm_toy(n_sequences=6, length=200, seed=0)
    return X, np.diff(offsets), labels


@pytest.fixture(scope="module")
def sticky(toy):
    X, lengths, _ = toy
    return HDPHMM(n_states=20, stickiness=50.0, random_state=0).fit(X, lengths=lengths)


def test_sticky_hdphmm_recovers_the_toy_segmentation(toy, sticky):
    X, lengths, labels = toy
    assert hamming_distance(labels, sticky.predict(X, lengths)) == 0.0
    assert sticky.n_states_ == len(np.unique(labels)) == sticky.n_active_states_  # moves removed the rest
    assert sticky.converged_ and sticky.n_iter_ == len(sticky.trace_) and sticky.elbo_ == sticky.trace_[-1]["elbo"]
    assert {m["kind"] for m in sticky.moves_} <= {"birth", "merge", "delete", "reorder",
                                                  "prune"} and len(sticky.moves_) > 0
    K = sticky.n_states_
    assert sticky.means_.shape == (K, 2) and sticky.covariances_.shape == (K, 2, 2)
    assert sticky.startprob_.shape == (K,) and sticky.transmat_.shape == (K, K)
    np.testing.assert_allclose(sticky.startprob_.sum(), 1.0)
    np.testing.assert_allclose(sticky.transmat_.sum(axis=1), 1.0)
    assert np.all(np.diag(sticky.transmat_) > 0.9)  # the toy stays with probability 0.99
    assert 0 < sticky.state_weights_.sum() < 1.0  # the rest is the mass of states beyond the truncation
    assert sticky.state_counts_.sum() == pytest.approx(X.shape[0])


def test_predict_proba_score_and_input_forms(toy, sticky):
    X, lengths, _ = toy
    K = sticky.n_states_
    states = sticky.predict(X, lengths)
    proba = sticky.predict_proba(X, lengths)
    assert states.shape == (X.shape[0],) and states.min() >= 0 and states.max() < K
    assert proba.shape == (X.shape[0], K)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.mean(np.argmax(proba, axis=1) == states) > 0.99
    pieces = np.split(X, np.cumsum(lengths)[:-1])
    seqs = Sequences.from_arrays(X, np.concatenate([[0], np.cumsum(lengths)]))
    for other in (sticky.predict(pieces), sticky.predict(seqs)):
        np.testing.assert_array_equal(other, states)
    per_sequence = sticky.score_sequences(pieces)
    assert per_sequence.shape == (6,) and sticky.score(X, lengths=lengths,
                                                       total=True) == pytest.approx(per_sequence.sum())
    assert sticky.score(X, lengths=lengths) == pytest.approx(per_sequence.sum() / len(X))  # per frame
    assert sticky.predict(X[:50]).shape == (50,)  # without lengths: one sequence
    with pytest.raises(ValueError, match="X has 3 features, but HDPHMM is expecting 2"):
        sticky.predict(np.ones((5, 3)))
    with pytest.raises(NotFittedError):
        HDPHMM().predict(X)


def test_save_load_round_trip(tmp_path, toy, sticky):
    X, lengths, _ = toy
    path = sticky.save(tmp_path / "hmm")
    assert path.suffix == ".npz"
    back = stickbreak.load(path)
    assert type(back) is HDPHMM and back.get_params() == {**sticky.get_params(), "callbacks": None}
    np.testing.assert_array_equal(back.predict(X, lengths), sticky.predict(X, lengths))
    np.testing.assert_array_equal(back.predict_proba(X, lengths), sticky.predict_proba(X, lengths))
    assert back.score(X, lengths=lengths) == sticky.score(X, lengths=lengths)
    for name in ("transmat_", "startprob_", "state_weights_", "means_", "covariances_", "state_counts_"):
        np.testing.assert_array_equal(getattr(back, name), getattr(sticky, name))
    assert back.trace_ == sticky.trace_ and back.moves_ == sticky.moves_ and back.elbo_ == sticky.elbo_
    with np.load(path, allow_pickle=False) as z:  # plain arrays plus JSON, nothing pickled
        assert json.loads(str(z[persist.META_KEY]))["estimator"] == "HDPHMM"
    with pytest.raises(TypeError, match="not a FiniteHMM"):
        FiniteHMM.load(path)


def test_clone_get_params_and_the_two_classes():
    est = HDPHMM(n_states=7, stickiness=3.0, concentration=2.0, moves=("merge",))
    copy = clone(est)
    assert copy.get_params() == est.get_params() and copy is not est
    assert est.get_params()["concentration"] == 2.0 and "concentration" not in FiniteHMM().get_params()
    assert set(HDPHMM().get_params()) - set(FiniteHMM().get_params()) == {"concentration", "learn_concentration"}
    assert repr(HDPHMM(stickiness=1.0)) == "HDPHMM(stickiness=1.0)"
    with pytest.raises(TypeError):
        FiniteHMM(concentration=1.0)


def test_births_grow_the_toy_from_one_state(toy):
    X, lengths, labels = toy
    model = HDPHMM(n_states=1, stickiness=50.0, moves=("birth", "merge", "delete"), n_batches=3, random_state=0)
    model.fit(X, lengths=lengths)
    assert hamming_distance(labels, model.predict(X, lengths)) == 0.0
    assert model.n_states_ == len(np.unique(labels))
    kinds = [m["kind"] for m in model.moves_]
    assert kinds.count("birth") >= 2


def test_finite_hmm_keeps_its_states(toy):
    X, lengths, labels = toy
    model = FiniteHMM(n_states=8, stickiness=50.0, random_state=0).fit(X, lengths=lengths)
    assert model.n_states_ == 8 and model.moves_ == []  # no moves by default: K stays
    np.testing.assert_allclose(model.state_weights_, 1 / 8)
    np.testing.assert_allclose(model.transmat_.sum(axis=1), 1.0)
    assert hamming_distance(labels, model.predict(X, lengths)) < 0.2


def test_autoregressive_states_on_mocap6():
    mocap = datasets.load("mocap6")
    Xprev = mocap.extras["Xprev"]
    with pytest.warns(ConvergenceWarning, match="did not converge in 3 laps"):
        model = HDPHMM(n_states=10, obs_model="ar_gauss", stickiness=50.0, max_laps=3, random_state=0)
        model.fit(mocap.X, Xprev=Xprev)
    K = model.n_states_
    assert model.coefs_.shape == (K, 12, 12) and model.covariances_.shape == (K, 12, 12)
    assert model.predict(mocap.X, Xprev=Xprev).shape == (2058,)
    with_prev = Sequences.from_arrays(mocap.X.X, mocap.X.offsets, Xprev=Xprev)
    np.testing.assert_array_equal(model.predict(with_prev), model.predict(mocap.X, Xprev=Xprev))
    # without predecessors the first frame of each sequence is its own
    assert np.isfinite(model.score(mocap.X))


@pytest.mark.parametrize("algorithm", ["stochastic", "vb"])
def test_stochastic_and_batch_vb_run(toy, algorithm):
    X, lengths, _ = toy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = HDPHMM(n_states=10, stickiness=50.0, algorithm=algorithm, n_batches=3, max_laps=8,
                       random_state=0).fit(X, lengths=lengths)
    assert model.n_states_ == 10 and model.moves_ == []  # no moves outside memoized VI
    assert model.trace_[-1]["exact"] == (algorithm == "vb") and np.isfinite(model.elbo_)
    assert hamming_distance(toy[2], model.predict(X, lengths)) < 0.1


def test_two_threads_give_the_same_fit(toy):
    X, lengths, _ = toy
    fits = [HDPHMM(n_states=10, stickiness=50.0, n_batches=2, max_laps=5, tol=0, random_state=0, n_jobs=n)
            .fit(X, lengths=lengths) for n in (1, 2)]
    np.testing.assert_array_equal(fits[0].predict(X, lengths), fits[1].predict(X, lengths))
    assert fits[0].elbo_ == fits[1].elbo_


def test_callbacks_progress_bar_and_bernoulli_frames(toy, capsys):
    X, lengths, _ = toy
    seen = []
    model = FiniteHMM(n_states=4, obs_model="bern", max_laps=50, tol=0, random_state=0, verbose=1,
                      callbacks=[lambda record, params: seen.append(record.lap) or record.lap >= 3])
    model.fit((X > 0).astype(float), lengths=lengths)
    assert seen == [1, 2, 3] and model.stop_reason_ == "callback" and model.probs_.shape == (4, 2)
    assert "FiniteHMM" in capsys.readouterr().err  # the progress bar


@pytest.mark.parametrize(
    "est, args, kwargs, message",
    [
        (HDPHMM(), ([[0.0, 1.0]] * 4,), {"lengths": [2, 0, 2]},
         r"lengths \[1\] are below 1 frame.*drop the empty sequences"),
        (HDPHMM(), (np.ones((10, 2)),), {"lengths": [4, 5]}, r"lengths add up to 9 frames but X has 10"),
        (HDPHMM(), (np.ones((10, 2)),), {"lengths": [4.5, 5.5]}, r"lengths must be a 1-D list of whole numbers"),
        (HDPHMM(), (np.ones((10, 2)), [5, 5]), {}, r"second argument of fit is y.*2 entries for 10 frames.*lengths="),
        (HDPHMM(), ([np.ones((3, 2)), np.ones((0, 2))],), {}, r"X\[1\] has 0 items"),
        (HDPHMM(), (np.array([[1.0, np.nan]] * 4), [2, 2]), {}, r"NaN values in rows \[0, 1, 2, 3\].*impute"),
        (HDPHMM(n_batches=3), (np.ones((10, 2)),), {"lengths": [5, 5]},
         r"n_batches=3 exceeds the number of sequences \(2\)"),
        (HDPHMM(algorithm="stochastic"), (np.ones((30, 2)),), {}, r"X holds one sequence.*several sequences"),
        (HDPHMM(obs_model="poisson"), (np.ones((10, 2)),), {}, r"unknown observation model 'poisson'"),
        (HDPHMM(obs_model="mult"), (np.full((10, 2), -1.0),), {}, r"Negative values in data passed to X"),
        (HDPHMM(obs_model="bern"), (np.full((10, 2), 0.5),), {}, r"must be binary.*Threshold"),
        (HDPHMM(moves=("birth", "split")), (np.ones((10, 2)),), {}, r"move='split' is not valid; choose one of"),
        (HDPHMM(algorithm="vb", moves=("merge",)), (np.ones((10, 2)),), {}, r"need algorithm='memoized'"),
        (HDPHMM(algorithm="truncation_free"), (np.ones((10, 2)),), {}, r"algorithm='truncation_free' is not valid"),
        (HDPHMM(init="random"), (np.ones((10, 2)),), {}, r"init='random' is not valid"),
        (HDPHMM(stickiness=-1.0), (np.ones((10, 2)),), {}, r"stickiness must be zero or positive"),
        (FiniteHMM(transition_concentration=0.0), (np.ones((10, 2)),), {},
         r"transition_concentration must be positive"),
        (HDPHMM(n_states=0), (np.ones((10, 2)),), {}, r"n_states must be >= 1"),
        (HDPHMM(obs_prior={"colour": 1}), (np.ones((10, 2)),), {}, r"unknown prior option\(s\) \['colour'\]"),
        (HDPHMM(move_options={"colour": 1}), (np.ones((10, 2)),), {}, r"unknown move option"),
        (HDPHMM(n_jobs=0), (np.ones((10, 2)),), {}, r"n_jobs must be a positive integer or -1"),
        (HDPHMM(), ([np.ones((3, 2))] * 2,), {"lengths": [3, 3]}, r"list of sequences.*drop it"),
        (HDPHMM(obs_model="ar_gauss"), (np.ones((10, 2)),), {"Xprev": np.ones((9, 2))}, r"Xprev has shape \(9, 2\)"),
    ],
)
def test_bad_input_is_refused_before_any_work(monkeypatch, est, args, kwargs, message):
    def no_work(*a, **k):
        raise AssertionError("the fit started before the input was checked")

    monkeypatch.setattr(hmm_module, "initial_params", no_work)
    with pytest.raises(ValueError, match=message):
        est.fit(*args, **kwargs)
    assert not hasattr(est, "n_features_in_")


def test_decode_returns_the_viterbi_path_and_the_score_it_maximises(toy):
    X, lengths, _ = toy
    model = HDPHMM(n_states=6, max_laps=5, random_state=0).fit(X, lengths=lengths)
    score, states = model.decode(X, lengths)
    np.testing.assert_array_equal(states, model.predict(X, lengths))
    log_start, log_trans = model.model_._log_transitions(model.params_)
    loglik = model.model_.obs.expected_loglik(model.params_.obs,
                                              model.model_.frames(model._validated(X, lengths, None)))

    def path_score(path):  # the path's terms, frame by frame
        total, frame = 0.0, 0
        for length in lengths:
            run = path[frame:frame + length]
            total += log_start[run[0]] + sum(log_trans[a, b] for a, b in zip(run[:-1], run[1:]))
            total += sum(loglik[frame + t, run[t]] for t in range(length))
            frame += length
        return total

    assert score == pytest.approx(path_score(states), rel=1e-10)
    other = states.copy()
    other[10] = (other[10] + 1) % model.n_states_
    assert score >= path_score(other)


@pytest.mark.parametrize("obs_model", ["gauss", "diag_gauss", "zero_mean_gauss", "ar_gauss", "bern"])
def test_sample_draws_a_sequence_from_the_fitted_model(obs_model):
    """hmmlearn's sample: the states follow transmat_ and the frames each state's emission; a model
    refitted to many samples recovers the emission it drew from (Gaussian means, Bernoulli p)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) + np.repeat([[0.0, 0.0], [6.0, 6.0]], 150, axis=0)
    if obs_model == "bern":
        X = (X > 3.0).astype(float)
    model = FiniteHMM(n_states=2, obs_model=obs_model, max_laps=20, random_state=0).fit(X)
    frames, states = model.sample(20000, random_state=1)
    assert frames.shape == (20000, 2) and states.shape == (20000,) and set(states) <= set(range(model.n_states_))
    again_frames, again_states = model.sample(20000, random_state=1)
    np.testing.assert_array_equal(again_states, states)
    counts = np.zeros((model.n_states_, model.n_states_))
    np.add.at(counts, (states[:-1], states[1:]), 1)
    used = counts.sum(axis=1) > 1000
    np.testing.assert_allclose((counts / counts.sum(axis=1, keepdims=True))[used], model.transmat_[used], atol=0.02)
    for k in np.flatnonzero(used):
        mine = frames[states == k]
        if obs_model in ("gauss", "diag_gauss"):
            np.testing.assert_allclose(mine.mean(axis=0), model.means_[k], atol=0.1)
        if obs_model == "bern":
            np.testing.assert_allclose(mine.mean(axis=0), model.probs_[k], atol=0.03)
        if obs_model == "zero_mean_gauss":
            np.testing.assert_allclose(np.cov(mine.T), model.covariances_[k], rtol=0.1, atol=0.05)
        if obs_model == "ar_gauss":  # x_t - E[A_k] x_{t-1} is the state's noise
            at = np.flatnonzero(states[1:] == k) + 1
            residual = frames[at] - np.einsum("ij,tj->ti", model.coefs_[k], frames[at - 1])
            np.testing.assert_allclose(np.cov(residual.T), model.covariances_[k], rtol=0.1, atol=0.05)
    with pytest.raises(ValueError, match="n_samples"):
        model.sample(0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_the_ar_gaussian_hmm_fits_data_in_any_units_alike():
    """mocap6 in other units (x 1e-2, x 1e2) gets the same states as in its own with the default
    prior (issue 27: ARI 0.16 / 0.48 against the unscaled fit when coef_precision was fixed at 1)."""
    from sklearn.metrics import adjusted_rand_score

    seqs = datasets.load("mocap6").X
    labels = [HDPHMM(obs_model="ar_gauss", max_laps=6, random_state=0).fit(c * seqs.X, lengths=seqs.lengths)
              .predict(c * seqs.X, seqs.lengths) for c in (1.0, 1e-2, 1e2)]
    assert adjusted_rand_score(labels[0], labels[1]) == 1.0 and adjusted_rand_score(labels[0], labels[2]) == 1.0
