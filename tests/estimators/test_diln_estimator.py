"""The DILN estimator and CLI: fit, transform, locations, retrieval, correlations, streaming, save/load,
the HDP switch and clear errors, on the bundled AP corpus."""

import csv

import numpy as np
import pytest

import stickbreak
from stickbreak import DILN, datasets
from stickbreak.cli.main import main
from stickbreak.data import DataError

SMALL = dict(n_topics=12, latent_dim=3, init="random", max_laps=4, tol=0.0, random_state=0)


@pytest.fixture(scope="module")
def ap():
    corpus = datasets.load("ap")
    return corpus.X.subset(np.arange(300)), corpus.X.subset(np.arange(300, 340))


@pytest.fixture(scope="module")
def fitted(ap):
    return DILN(**SMALL).fit(ap[0])


@pytest.mark.compile_heavy
def test_fit_learns_topics_correlations_and_concentrations(fitted):
    assert fitted.n_iter_ == 4 and np.all(np.diff(fitted.elbo_trace_) > 0)
    assert 1 <= fitted.n_topics_ <= 12 and fitted.topic_word_.shape == (12, fitted.n_features_in_)
    np.testing.assert_allclose(fitted.topic_weights_.sum(), 1.0)
    corr = fitted.topic_correlation_
    np.testing.assert_allclose(corr, corr.T) and np.testing.assert_allclose(np.diag(corr), 1.0)
    assert fitted.alpha_ > 0 and fitted.beta_ > 0 and fitted.topic_locations_.shape == (12, 3)
    pairs = fitted.top_correlated_pairs(4)
    values = [p["correlation"] for p in pairs]
    assert values == sorted(values, reverse=True)
    negative = fitted.top_correlated_pairs(4, negative=True)
    assert negative[0]["correlation"] <= values[-1]
    assert all(fitted.topic_sizes_[list(p["topics"])].min() >= 1 for p in pairs)


def test_transform_locations_and_retrieval(fitted, ap):
    test = ap[1]
    theta = fitted.transform(test)
    assert theta.shape == (test.n_items, 12) and np.allclose(theta.sum(axis=1), 1.0)
    u = fitted.document_locations(test)
    assert u.shape == (test.n_items, 3) and np.isfinite(u).all()
    idx, sims = fitted.similar_documents(test, n=3)
    assert idx.shape == (test.n_items, 3) and np.all(idx != np.arange(test.n_items)[:, None])
    assert np.all(np.diff(sims, axis=1) <= 1e-12) and np.all(np.abs(sims) <= 1 + 1e-12)
    unit = u / np.linalg.norm(u, axis=1, keepdims=True)
    cos = unit @ unit.T
    np.fill_diagonal(cos, -np.inf)
    np.testing.assert_array_equal(idx[:, 0], np.argmax(cos, axis=1))
    shape, rate = fitted.doc_topic_posterior(test)
    np.testing.assert_allclose((shape / rate) / (shape / rate).sum(axis=1, keepdims=True), theta)


def test_save_load_round_trip(fitted, ap, tmp_path):
    path = fitted.save(tmp_path / "diln.npz")
    again = stickbreak.load(path)
    assert isinstance(again, DILN) and again.get_params() == {**fitted.get_params(), "alpha_prior": [1.0, 1e-3],
                                                               "beta_prior": [1.0, 1e-3]}
    np.testing.assert_allclose(again.transform(ap[1]), fitted.transform(ap[1]))
    np.testing.assert_allclose(again.topic_correlation_, fitted.topic_correlation_)
    assert again.alpha_ == fitted.alpha_ and again.beta_ == fitted.beta_
    assert again.top_words(3) == fitted.top_words(3)


def test_hdp_special_case(ap):
    hdp = DILN(**SMALL, correlated=False).fit(ap[0])
    assert hdp.topic_correlation_ is None and hdp.topic_locations_.shape == (12, 0)
    with pytest.raises(ValueError, match="HDP special case"):
        hdp.document_locations(ap[1])
    with pytest.raises(ValueError, match="HDP special case"):
        hdp.top_correlated_pairs()
    assert np.allclose(hdp.transform(ap[1]).sum(axis=1), 1.0)


def test_stochastic_fit_and_partial_fit(ap):
    svi = DILN(**{**SMALL, "max_laps": 2}, algorithm="svi", batch_size=100).fit(ap[0])
    assert svi.n_iter_ == 2 and np.isfinite(svi.lower_bound_) and svi.model_.global_update == "newton_step"
    stream = DILN(**SMALL, algorithm_options={"total_docs": 300})
    for start in (0, 100, 200):
        stream.partial_fit(ap[0].subset(np.arange(start, start + 100)))
    assert len(stream.trace_) == 3 and stream.stop_reason_ == "partial_fit"
    assert np.allclose(stream.transform(ap[1]).sum(axis=1), 1.0)


@pytest.mark.parametrize("options, message", [
    (dict(algorithm="memoized"), "algorithm"),
    (dict(location_variance=2.0), "below 1"),
    (dict(n_topics=1), "n_topics"),
    (dict(latent_dim=0), "latent_dim"),
    (dict(beta_prior=(0.5, 1.0)), "Gamma prior"),
    (dict(algorithm_options={"local_start": "middle"}), "local_start"),
    (dict(correlated="yes"), "correlated"),
])
def test_bad_options_fail_before_any_work(ap, options, message):
    with pytest.raises((ValueError, TypeError), match=message):
        DILN(**{**SMALL, **options}).fit(ap[0])


def test_bad_input_is_rejected(fitted, ap):
    X = ap[0].counts.toarray()
    X[3, 5] = -1
    with pytest.raises(DataError, match="negative"):
        DILN(**SMALL).fit(X)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(np.ones((2, 7)))


@pytest.mark.compile_heavy
def test_cli_fits_diln_on_bundled_ap(tmp_path, capsys):
    out_dir = tmp_path / "run"
    code = main(["fit", "topics", "ap", "--model", "diln", "-K", "10", "--latent-dim", "3", "--max-laps", "3",
                 "--heldout", "0.02", "--seed", "0", "--quiet", "--out", str(out_dir)])
    assert code == 0
    out = capsys.readouterr().out
    assert "DILN(K=10, vb)" in out and "most positively correlated topics" in out and "Monte Carlo" in out
    model = stickbreak.load(out_dir / "model.npz")
    assert isinstance(model, DILN)
    with open(out_dir / "correlations.csv") as fh:
        rows = list(csv.DictReader(fh))
    used = int(np.sum(model.topic_sizes_ >= 1))
    assert len(rows) == used * (used - 1) // 2
    assert main(["fit", "topics", "ap", "--model", "diln", "--no-correlation", "-K", "8", "--max-laps", "2",
                 "--quiet"]) == 0
    assert "correlated topics" not in capsys.readouterr().out
    assert main(["fit", "topics", "ap", "--model", "diln", "--moves", "merge"]) == 2
    assert "--moves is for the HDP" in capsys.readouterr().err
