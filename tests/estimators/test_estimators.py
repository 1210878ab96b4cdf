"""scikit-learn contract, save/load round trip, callbacks, interruption (DESIGN layer 4)."""

import json

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import stickbreak
from stickbreak import LDA, DPMixture, FiniteMixture, persist

from conftest import ALL_FAMILIES, real_data_for


@pytest.mark.parametrize("name", ALL_FAMILIES)
@pytest.mark.parametrize("cls", [DPMixture, FiniteMixture])
def test_save_load_round_trip(tmp_path, name, cls):
    X = real_data_for(name, 300)
    model = cls(n_components=5, obs_model=name, max_laps=10, random_state=0, obs_prior=None).fit(X)
    path = model.save(tmp_path / "model")
    assert path.suffix == ".npz"
    back = stickbreak.load(path)
    assert type(back) is cls and back.get_params() == {**model.get_params(), "callbacks": None}
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(back.score_samples(X), model.score_samples(X))
    np.testing.assert_array_equal(back.weights_, model.weights_)
    assert back.lower_bound_ == model.lower_bound_ and back.trace_ == model.trace_
    assert cls.load(path).n_iter_ == model.n_iter_
    with np.load(path, allow_pickle=False) as z:  # plain arrays plus JSON, nothing pickled
        meta = json.loads(str(z[persist.META_KEY]))
    assert meta["format_version"] == persist.FORMAT_VERSION and meta["estimator"] == cls.__name__


def test_save_with_array_prior_and_load_errors(tmp_path):
    X = real_data_for("gauss", 200)[:, :5]
    prior = {"mean": np.zeros(5), "covariance": np.full(5, 2.0), "dof": 9.0}
    model = DPMixture(algorithm="vb", n_components=3, obs_prior=prior, max_laps=5, tol=0.1).fit(X)
    back = stickbreak.load(model.save(tmp_path / "m.npz"))
    np.testing.assert_array_equal(back.get_params()["obs_prior"]["covariance"], prior["covariance"])
    np.save(tmp_path / "other.npy", np.zeros(3))
    with pytest.raises(FileNotFoundError, match="no saved model"):
        stickbreak.load(tmp_path / "missing.npz")
    np.savez(tmp_path / "plain.npz", a=np.zeros(2))
    with pytest.raises(ValueError, match="not a stickbreak model"):
        stickbreak.load(tmp_path / "plain.npz")
    with pytest.raises(TypeError, match="not a FiniteMixture"):
        FiniteMixture.load(tmp_path / "m.npz")


def test_fitted_attributes_and_scores():
    X = real_data_for("gauss", 400)
    model = DPMixture(algorithm="vb", n_components=8, random_state=0).fit(X)
    assert model.means_.shape == (8, 64) and model.covariances_.shape == (8, 64, 64)
    assert model.weights_.shape == (8,) and 0.99 < model.weights_.sum() < 1.0
    assert model.component_counts_.sum() == pytest.approx(400)
    assert model.n_active_components_ <= 8 and model.converged_
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert model.score(X) == pytest.approx(model.score_samples(X).mean())
    assert len(model.elbo_trace_) == model.n_iter_ == len(model.trace_)
    assert set(model.trace_[0]) == {"lap", "elbo", "terms", "n_components", "n_effective", "seconds", "exact", "moves",
                                     "bytes_moved"}
    diag = DPMixture(algorithm="vb", n_components=4, obs_model="diag_gauss", random_state=0).fit(X)
    assert diag.covariances_.shape == (4, 64)


def test_convergence_warning_and_callbacks():
    X = real_data_for("diag_gauss", 300)
    with pytest.warns(ConvergenceWarning, match="did not converge in 3 laps"):
        DPMixture(algorithm="vb", n_components=5, obs_model="diag_gauss", max_laps=3, tol=1e-12).fit(X)
    seen = []
    model = DPMixture(algorithm="vb", n_components=5, obs_model="diag_gauss", tol=0, max_laps=50,
                      callbacks=[lambda record, params: seen.append(record.lap) or record.lap >= 4]).fit(X)
    assert seen == [1, 2, 3, 4] and model.n_iter_ == 4


def test_keyboard_interrupt_keeps_last_complete_lap():
    X = real_data_for("diag_gauss", 300)

    def interrupt(record, params):
        if record.lap == 3:
            raise KeyboardInterrupt

    with pytest.warns(RuntimeWarning, match="interrupted: keeping the model as of lap 3"):
        model = DPMixture(algorithm="vb", n_components=5, obs_model="diag_gauss", tol=0, callbacks=[interrupt]).fit(X)
    assert model.interrupted_ and model.n_iter_ == 3
    assert model.predict(X).shape == (300,)


def test_clone_and_sparse_input_for_mult():
    import scipy.sparse as sp

    X = sp.csr_matrix(real_data_for("mult"))
    model = DPMixture(algorithm="vb", n_components=4, obs_model="mult", random_state=0, max_laps=20).fit(X)
    assert model.word_probs_.shape == (4, X.shape[1])
    np.testing.assert_allclose(model.word_probs_.sum(axis=1), 1.0)
    assert clone(model).get_params() == model.get_params()
    assert model.predict(X[:10]).shape == (10,)


@pytest.mark.parametrize("Estimator, size", [(DPMixture, {}), (FiniteMixture, {"n_components": 3})])
def test_a_multinomial_mixture_clusters_raw_text_and_token_lists(Estimator, size, tmp_path):
    """obs_model="mult" takes short texts as the topic models do: fit counts them (vocabulary_),
    predict counts new ones over that vocabulary, and a saved model does the same."""
    rng = np.random.default_rng(0)
    groups = [["apple", "banana", "cherry", "grape", "melon"], ["engine", "wheel", "brake", "tyre", "clutch"],
              ["goal", "match", "team", "referee", "league"]]
    labels = np.arange(90) % 3
    texts = [" ".join(rng.choice(groups[g], size=6)) for g in labels]
    model = Estimator(obs_model="mult", random_state=0, **size).fit(texts)  # DPMixture: K learned
    assert model.vocabulary_ == tuple(sorted(w for g in groups for w in g))
    assert len(set(zip(model.labels_, labels))) == 3  # one cluster per group
    np.testing.assert_array_equal(model.predict(texts), model.labels_)
    tokens = [text.split() + ["unseen"] for text in texts]  # a word outside the vocabulary is dropped
    np.testing.assert_array_equal(model.predict(tokens), model.labels_)
    back = stickbreak.load(model.save(tmp_path / "text.npz"))
    assert back.vocabulary_ == model.vocabulary_
    np.testing.assert_array_equal(back.predict(texts[:10]), model.labels_[:10])
    counts = Estimator(obs_model="mult", n_components=3, random_state=0, max_laps=3).fit(np.ones((20, 4)))
    assert counts.vocabulary_ is None


def test_save_with_generator_seed_and_labels_survive(tmp_path):
    X = real_data_for("diag_gauss", 200)
    model = DPMixture(algorithm="vb", n_components=4, obs_model="diag_gauss", random_state=np.random.default_rng(3),
                      max_laps=10).fit(X)
    back = stickbreak.load(model.save(tmp_path / "g.npz"))
    assert back.get_params()["random_state"] is None
    np.testing.assert_array_equal(back.labels_, model.labels_)
    np.testing.assert_array_equal(model.labels_, model.predict(X))


def test_failed_fit_leaves_estimator_unfitted():
    model = DPMixture(obs_prior={"covariance": -1.0})
    with pytest.raises(ValueError):
        model.fit(real_data_for("gauss", 50))
    assert not hasattr(model, "n_features_in_")


def test_a_second_ctrl_c_after_the_laps_keeps_the_fit(monkeypatch):
    """A Ctrl-C in the pass after the laps (the exact final pass of stochastic VI, the labelling of a
    mixture's items) keeps the laps, says so and marks the fit interrupted."""
    from stickbreak.estimators import _fitting, mixture_base

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    X = real_data_for("diag_gauss", 300)
    monkeypatch.setattr(mixture_base.driver, "predict_labels", killed)
    with pytest.warns(RuntimeWarning, match="labelling of the training items"):
        model = DPMixture(algorithm="vb", n_components=5, obs_model="diag_gauss", max_laps=3, tol=0).fit(X)
    assert model.interrupted_ and model.n_iter_ == 3 and (model.labels_ == -1).all()
    assert model.predict(X).shape == (300,)

    counts = real_data_for("mult")
    monkeypatch.setattr(_fitting, "final_pass", killed)
    with pytest.warns(RuntimeWarning, match="exact pass after the laps"):
        lda = LDA(n_topics=3, algorithm="stochastic", max_laps=2, n_batches=2, random_state=0).fit(counts)
    assert lda.stop_reason_ == "interrupted" and lda.n_iter_ == 2 and np.isfinite(lda.lower_bound_)
    assert np.allclose(lda.topic_word_.sum(axis=1), 1)


def test_mixtures_take_n_jobs_minus_one_as_every_core():
    X = np.random.default_rng(0).normal(size=(60, 2))
    assert DPMixture(n_jobs=-1, max_laps=3, random_state=0).fit(X).n_components_ >= 1
    with pytest.raises(ValueError, match="n_jobs"):
        DPMixture(n_jobs=0).fit(X)


def test_save_load_keeps_the_exact_lower_bound_and_the_move_log(tmp_path):
    X = np.random.default_rng(1).normal(size=(300, 2)) + np.repeat([[0, 0], [6, 6], [0, 6]], 100, axis=0)
    for model in (DPMixture(n_components=8, random_state=0),   # memoized VI with moves
                  DPMixture(n_components=4, algorithm="stochastic", n_batches=3, max_laps=4, random_state=0)):
        loaded = stickbreak.load(model.fit(X).save(tmp_path / "model.npz"))
        assert loaded.lower_bound_ == model.lower_bound_           # SVI's is rescored, not the last lap's estimate
        assert loaded.move_log_ == model.move_log_


def test_samplers_and_stochastic_fits_warn_when_max_laps_ends_a_run_whose_k_still_moves():
    from stickbreak import HDPTopicModel
    from stickbreak.datasets.synthetic import make_bars_corpus
    from stickbreak.estimators._fitting import still_moving

    counts, _ = make_bars_corpus(n_docs=150, doc_length=40, side=6, n_bars=6, seed=0)
    with pytest.warns(ConvergenceWarning,
                      match=r"did not converge in 6 laps \(K in use still moving: 36 -> 39 on average"):
        HDPTopicModel(algorithm="truncation_free", max_laps=6, batch_size=10, random_state=0).fit(counts)
    settled = [{"n_effective": k} for k in (10, 9, 47, 45, 48, 46, 47, 49, 45, 47)]  # a sampler's wandering K
    assert still_moving(settled, exact=False, tol=1e-4) is None
    trend = [{"n_effective": k} for k in (30, 34, 36, 40)]
    assert still_moving(trend, exact=False, tol=1e-4) == ("K in use still moving: 32 -> 38 on average over the last "
                                                          "2 laps and the 2 before")
    assert still_moving(settled, exact=True, tol=1e-4) == "relative ELBO change above tol=0.0001"
