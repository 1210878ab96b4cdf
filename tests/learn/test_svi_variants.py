"""The SVI variants of issue 6 through the estimators and the CLI: the two-level HDP (batch and
stochastic, the sparse store path equal to the four verbs), truncation-free SVI, the truncated
stochastic mean-field baselines, presets, save/load and errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak import LDA, HDPTopicModel, load
from stickbreak.models.topics.two_level import TwoLevelHDP
from stickbreak.data import BagOfWords
from stickbreak.datasets.synthetic import make_bars_corpus
from stickbreak.learn.schedules import RobbinsMonro
from stickbreak.learn.stochastic import InMemoryMinibatches
from stickbreak.learn.truncation_free import TruncationFreeSVI

from baselines import StochasticMeanFieldDP


@pytest.fixture(scope="module")
def bars():
    X, _ = make_bars_corpus(n_docs=300, doc_length=100, side=6, n_bars=6, seed=0)
    return sp.csr_matrix(X)


@pytest.mark.compile_heavy
def test_store_step_with_rho_one_equals_the_verbs(bars):
    """A full-data step of size 1 on the lazy store (the model's Sampled side) equals
    global_step(summarize(local_step)) of the same TwoLevelHDP (its Memoizable side)."""
    V = bars.shape[1]
    model = TwoLevelHDP({"lam": np.full(V, 0.1)}, doc_truncation=4, tol=1e-6)
    params = model.initial_params(6, bars.shape[0], np.random.default_rng(0))
    bow = BagOfWords.from_counts(bars)
    expected = model.global_step(model.summarize(bow, model.local_step(params, bow)), params)

    learner = TruncationFreeSVI(np.random.default_rng(0), schedule=lambda t: 1.0, floor=False, prune_every=10**9)
    minibatches = InMemoryMinibatches(bow, 1)
    state = learner.lap(model, minibatches, learner.start(model, minibatches, model.store_params(params))).state
    got = state.params
    np.testing.assert_allclose(got.lam, expected.obs["lam"], rtol=1e-9)
    np.testing.assert_allclose(got.u[:-1], expected.weights["a"], rtol=1e-9)
    np.testing.assert_allclose(got.v[:-1], expected.weights["b"], rtol=1e-9)


def test_mean_field_dp_statistics_are_responsibilities(bars):
    """The truncated DP baseline's item statistics sum to the minibatch size and its word statistics to its tokens."""
    model = StochasticMeanFieldDP(0.5, 1.0, 7)
    bow = BagOfWords.from_counts(bars)
    learner = TruncationFreeSVI(np.random.default_rng(1), schedule=RobbinsMonro(1.0, 0.6))
    minibatches = InMemoryMinibatches(bow, 10)
    state = learner.start(model, minibatches,
                          model.initial_params(bow.n_features, bow.n_items, np.random.default_rng(1)))
    rows = np.arange(30)
    sample = model.sample_local(state.store, bow.counts, rows, 0)
    assert sample.item_stats.sum() == pytest.approx(30)
    assert sample.word_stats.sum() == pytest.approx(bow.counts[rows].sum())
    assert np.isfinite(sample.loglik).all()
    state = learner.lap(model, minibatches, state).state
    assert state.params.n_components == 7  # the truncation never changes


@pytest.mark.parametrize("algorithm", ["vb", "svi"])
def test_two_level_estimator_fits_transforms_and_round_trips(bars, algorithm, tmp_path):
    est = HDPTopicModel(8, variational_family="two_level", algorithm_options={"doc_truncation": 4}, concentration=1.0,
                        doc_topic_prior=1.0,
                        topic_word_prior=0.1, algorithm=algorithm, batch_size=50, max_laps=3, tol=0.0,
                        init="exponential", random_state=0).fit(bars)
    assert est.components_.shape == (8, bars.shape[1])
    assert est.topic_weights_.sum() == pytest.approx(1.0)
    theta = est.transform(bars[:5])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    assert np.isfinite(est.lower_bound_)
    again = load(est.save(tmp_path / "m.npz"))
    np.testing.assert_allclose(again.transform(bars[:5]), theta)
    # local step to a relative ELBO change of 1e-4 in batch VB, 1e-3 in SVI steps (the estimators' docstring)
    assert est.model_.tol == {"vb": 1e-4, "svi": 1e-3}[algorithm]


@pytest.mark.compile_heavy
def test_truncation_free_estimator_grows_topics_from_none(bars, tmp_path):
    est = HDPTopicModel.paper_preset("wang_blei2012", topic_word_prior=0.1, batch_size=20, max_laps=4, tol=0.0,
                                     random_state=0).fit(bars)
    assert est.algorithm == "truncation_free"
    assert 3 <= est.n_topics_ <= 40
    assert est.topic_weights_.sum() < 1.0  # the tail belongs to the uninstantiated topics
    theta = est.transform(bars[:5])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    again = load(est.save(tmp_path / "tf.npz"))
    np.testing.assert_allclose(again.transform(bars[:5]), theta)
    assert np.isfinite(est.score(bars[:50]))


def test_presets_and_errors(bars):
    lda = LDA.paper_preset("hoffman2013", n_topics=25)
    assert (lda.doc_topic_prior, lda.topic_word_prior, lda.batch_size) == (1 / 25, 0.01, 500)
    assert lda.algorithm_options["learning_rate_decay"] == 0.9
    hdp = HDPTopicModel.paper_preset("hoffman2013")
    assert (hdp.n_topics, hdp.algorithm_options["doc_truncation"], hdp.variational_family) == (300, 20, "two_level")
    with pytest.raises(ValueError, match="no preset"):
        HDPTopicModel.paper_preset("nope")
    with pytest.raises(ValueError, match="variational_family"):
        HDPTopicModel(variational_family="three_level").fit(bars)
    with pytest.raises(ValueError, match="truncation_free"):
        HDPTopicModel(algorithm="truncation_free", variational_family="two_level").fit(bars)
    with pytest.raises(ValueError, match="partial_fit"):
        HDPTopicModel(algorithm="truncation_free").partial_fit(bars)
    with pytest.raises(ValueError, match="batch_size"):
        LDA(algorithm="svi", batch_size=0).fit(bars)


@pytest.mark.slow
def test_cli_fits_two_level_and_truncation_free(capsys):
    from stickbreak.cli.main import main

    assert main(["fit", "topics", "ap", "--algorithm", "truncation_free", "--batch-size", "50",
                 "--max-laps", "2", "--quiet"]) == 0
    assert "truncation_free" in capsys.readouterr().out
    assert main(["fit", "topics", "ap", "--family", "two_level", "--algorithm", "svi", "-K", "20",
                 "--doc-truncation", "5", "--batch-size", "100", "--max-laps", "2", "--quiet"]) == 0
    assert "HDPTopicModel(K=20, svi)" in capsys.readouterr().out


@pytest.mark.compile_heavy
def test_dp_mixture_truncation_free_clusters_documents(tmp_path):
    """DPMixture(obs_model="mult", algorithm="truncation_free") opens clusters from none and recovers
    well-separated multinomial clusters; prediction and save/load use the shared mixture code."""
    from sklearn.metrics import adjusted_rand_score

    from stickbreak import DPMixture

    rng = np.random.default_rng(0)
    centers = rng.dirichlet(np.full(60, 0.05), size=5)
    labels = rng.integers(0, 5, 400)
    X = sp.csr_matrix(np.array([rng.multinomial(40, centers[z]) for z in labels], dtype=float))
    est = DPMixture(obs_model="mult", obs_prior={"pseudo_count": 0.5}, algorithm="truncation_free", n_batches=40,
                    max_laps=3, tol=0.0, random_state=0).fit(X)
    assert adjusted_rand_score(labels, est.labels_) > 0.9
    assert 5 <= est.n_active_components_ <= 10
    again = load(est.save(tmp_path / "dp.npz"))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    with pytest.raises(ValueError, match="obs_model='mult'"):
        DPMixture(obs_model="gauss", algorithm="truncation_free").fit(np.zeros((10, 2)) + rng.normal(size=(10, 2)))
