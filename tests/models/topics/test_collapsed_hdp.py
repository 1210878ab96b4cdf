"""The HDP's direct-assignment collapsed Gibbs sampler (issue 7; Teh et al. 2006, §5.3): kernels
against their NumPy twins (sequential start, array growth, tables), counts consistent with the
assignments after every sweep, the sampler's stationary distribution against the exact HDP prior
over the number of topics, and the estimator."""

from __future__ import annotations

from math import lgamma

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak.data import BagOfWords
from stickbreak.kernels.gibbs import _reference_buckets as bucket_ref
from stickbreak.kernels.gibbs import _reference_hdp as ref
from stickbreak.kernels.gibbs import buckets
from stickbreak.kernels.gibbs import hdp as kern
from stickbreak.kernels.gibbs.lda import token_layout
from stickbreak.models.topics.collapsed_hdp import CollapsedHDP
from stickbreak.learn.collapsed_hdp import DirectAssignmentGibbs

ALPHA, GAMMA, ETA = 1.5, 0.7, 0.1


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(0)
    X = sp.random(10, 14, density=0.4, random_state=2, data_rvs=lambda n: rng.integers(1, 4, n)).tocsr()
    X.sort_indices()
    return X.astype(np.float64)


def _empty_state(X, slots):
    _, token_start = token_layout(X.data, np.inf)
    return token_start, [np.full(int(token_start[-1]), -1, dtype=np.int64), np.zeros((X.shape[1], slots)),
                         np.zeros((X.shape[0], slots)), np.zeros(slots), np.zeros(slots), np.ones(1)]


def test_sweeps_and_tables_match_numpy_twins_through_growth(corpus):
    """From no topics with two slots: the sequential first sweep must stop and resume after growth;
    later sweeps empty topics and create new ones (SparseLDA's buckets with the new topic's)."""
    ip, ix = corpus.indptr.astype(np.int64), corpus.indices.astype(np.int64)
    token_start, ours = _empty_state(corpus, 2)
    _, twin = _empty_state(corpus, 2)
    grown = 0
    for seed in range(4):
        for state, module in ((ours, buckets), (twin, bucket_ref)):
            stopped, step = 0, 0
            while stopped >= 0:
                z, Nwk, Njk, Nk, beta, rest = state
                stopped = module.bucket_sweep(ip, ix, token_start, z, Nwk, Njk, Nk, beta, ALPHA, ETA, rest, GAMMA,
                                              stopped, 100 * seed + step)
                if stopped >= 0:
                    state[1:5] = kern.grow(*state[1:5])
                    grown += module is buckets
                    step += 1
        for a, b in zip(ours, twin):
            np.testing.assert_array_equal(a, b)
        tables = kern.table_counts(ours[2], ours[4], ALPHA, seed)
        np.testing.assert_array_equal(tables, ref.table_counts(twin[2], twin[4], ALPHA, seed))
    assert grown >= 1
    z, Nwk, Njk, Nk, beta, rest = ours
    np.testing.assert_allclose(kern.predictive_probs(ip, ix, Nwk, Njk, Nk, beta, rest[0], ALPHA, ETA),
                               ref.predictive_probs(ip, ix, Nwk, Njk, Nk, beta, rest[0], ALPHA, ETA), rtol=1e-12)


def _learner(X, seed=0, heldout=None, burn_in=10):
    model = CollapsedHDP(ALPHA, GAMMA, ETA, X.shape[1])
    learner = DirectAssignmentGibbs(np.random.default_rng(seed), heldout, burn_in)
    return model, learner, learner.start(model, BagOfWords.from_counts(X), None)


def test_counts_weights_and_tables_stay_consistent_after_every_sweep(corpus):
    model, learner, state = _learner(corpus)
    token_start = learner._corpus.token_start
    pair = np.repeat(np.arange(corpus.nnz), np.diff(token_start))
    word, doc = corpus.indices[pair], np.repeat(np.arange(corpus.shape[0]), np.diff(corpus.indptr))[pair]
    for _ in range(15):
        learner.lap(model, None, state)
        p = state.params
        K = p.Nk.size
        assert (p.z >= 0).all()
        np.testing.assert_array_equal(p.Nk, np.bincount(p.z, minlength=K))
        Nwk, Njk = np.zeros_like(p.Nwk), np.zeros_like(p.Njk)
        np.add.at(Nwk, (word, p.z), 1.0)
        np.add.at(Njk, (doc, p.z), 1.0)
        np.testing.assert_array_equal(p.Nwk, Nwk)
        np.testing.assert_array_equal(p.Njk, Njk)
        used = p.Nk > 0
        assert (p.beta[~used] == 0).all() and (p.beta[used] > 0).all()
        assert p.beta.sum() + p.rest[0] == pytest.approx(1.0, abs=1e-12)
        assert (p.tables[used] >= 1).all() and (p.tables[used] <= p.Nk[used]).all()
        assert (p.tables[used] <= (p.Njk[:, used] > 0).sum(axis=0) * p.Nk[used]).all()
        np.testing.assert_array_equal(state.stats.counts, p.Nk[p.used])


def _log_antoniak(n: int, concentration: float) -> np.ndarray:
    """``log P(t tables | n customers)`` of a CRP, t = 0..n (unsigned Stirling numbers of the first kind)."""
    stirling = np.zeros((n + 1, n + 1))
    stirling[0, 0] = 1.0
    for i in range(1, n + 1):
        for t in range(1, i + 1):
            stirling[i, t] = stirling[i - 1, t - 1] + (i - 1) * stirling[i - 1, t]
    t = np.arange(n + 1)
    with np.errstate(divide="ignore"):
        return np.log(stirling[n]) + t * np.log(concentration) + lgamma(concentration) - lgamma(concentration + n)


@pytest.mark.slow
@pytest.mark.montecarlo
def test_stationary_distribution_of_topic_count_is_the_hdp_prior():
    """With one word type the likelihood is flat, so the chain samples the HDP prior. Tables per
    document follow a CRP(alpha) and the topics of all tables a CRP(gamma) (the Chinese restaurant
    franchise), which gives the exact law of the number of topics for documents of 3 and 4 tokens."""
    X = sp.csr_matrix(np.array([[3.0], [4.0]]))
    model, learner, state = _learner(X)
    n_topics = []
    for sweep in range(30_000):
        learner.lap(model, None, state)
        if sweep >= 100:
            n_topics.append(int((state.params.Nk > 0).sum()))
    empirical = np.bincount(n_topics, minlength=8)[:8] / len(n_topics)
    tables = np.exp(_log_antoniak(3, ALPHA))[:, None] * np.exp(_log_antoniak(4, ALPHA))[None, :]
    exact = np.zeros(8)
    for t1 in range(4):
        for t2 in range(5):
            if tables[t1, t2] > 0:
                exact[: t1 + t2 + 1] += tables[t1, t2] * np.exp(_log_antoniak(t1 + t2, GAMMA))
    assert exact.sum() == pytest.approx(1.0)
    assert 0.5 * np.abs(empirical - exact).sum() < 0.01, (empirical.round(4), exact.round(4))


def test_heldout_predictive_sums_to_one_and_averages_after_burn_in(corpus):
    W = corpus.shape[1]
    every_word = sp.csr_matrix(np.ones((corpus.shape[0], W)))
    model, learner, state = _learner(corpus, heldout=every_word, burn_in=2)
    probs = []
    for _ in range(5):
        learner.lap(model, None, state)
        p = state.params
        probs.append(kern.predictive_probs(every_word.indptr, every_word.indices.astype(np.int64), p.Nwk, p.Njk,
                                           p.Nk, p.beta, p.rest[0], ALPHA, ETA))
        np.testing.assert_allclose(probs[-1].reshape(-1, W).sum(axis=1), 1.0, rtol=1e-12)
    averaged = np.mean(probs[2:], axis=0)
    assert state.heldout_per_word[-1] == pytest.approx(np.log(averaged).mean(), rel=1e-12)
    assert state.heldout_per_word[1] == pytest.approx(np.log(probs[1]).mean(), rel=1e-12)


def test_hdp_estimator_gibbs_fits_scores_and_round_trips(corpus, tmp_path):
    from stickbreak import HDPTopicModel, load

    H = sp.csr_matrix(corpus.multiply(corpus > 2))
    est = HDPTopicModel(concentration=GAMMA, doc_topic_prior=ALPHA, topic_word_prior=ETA, algorithm="gibbs",
                        max_laps=8, tol=0.0, algorithm_options={"burn_in": 3}, random_state=0).fit(corpus, heldout=H)
    assert est.n_iter_ == 8 and len(est.heldout_per_word_) == 8 and np.isfinite(est.heldout_per_word_).all()
    K = est.topic_word_.shape[0]
    assert est.n_topics_ == K >= 1 and (np.diff(est.topic_sizes_) <= 0).all()
    assert est.topic_sizes_.sum() == corpus.sum()
    tables = est.stats_.fields["tables"]
    np.testing.assert_allclose(est.topic_weights_, tables / (tables.sum() + GAMMA), rtol=1e-10)  # E[beta | m]
    theta = est.transform(corpus[:4])
    assert theta.shape == (4, K)
    np.testing.assert_allclose(load(est.save(tmp_path / "hdp.npz")).transform(corpus[:4]), theta)
    assert np.isfinite(est.score(corpus))
    with pytest.raises(ValueError, match="variational_family='direct'"):
        HDPTopicModel(algorithm="gibbs", variational_family="two_level").fit(corpus)
    with pytest.raises(ValueError, match="burn_in"):
        HDPTopicModel(algorithm="gibbs", algorithm_options={"burn_in": -1}).fit(corpus)


def test_cli_runs_collapsed_samplers_with_heldout_tokens(capsys):
    from stickbreak.cli.main import main

    assert main(["fit", "topics", "ap", "--algorithm", "gibbs", "--max-laps", "3", "--tol", "0",
                 "--heldout-tokens", "0.1", "--burn-in", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "HDPTopicModel(no truncation, gibbs)" in out and "log joint" in out and "held-out tokens:" in out
    assert main(["fit", "topics", "ap", "--model", "lda", "-K", "5", "--algorithm", "hybrid_cvb_gibbs",
                 "--sample-threshold", "2", "--max-laps", "2", "--tol", "0", "--heldout-tokens", "0.1", "--quiet"]) == 0
    assert "perplexity" in capsys.readouterr().out
    assert main(["fit", "topics", "ap", "--heldout-tokens", "0.1", "--quiet"]) == 2
    assert "--heldout-tokens is scored during collapsed inference" in capsys.readouterr().err


@pytest.mark.montecarlo
@pytest.mark.parametrize("which", ["alpha", "gamma"])
def test_concentration_updates_leave_their_exact_posterior_invariant(which):
    """Iterated alone, each auxiliary-variable update samples its conditional posterior: alpha given
    m tables over documents of n_j tokens, ``∝ Gamma(a, b) alpha^m prod_j Gamma(alpha)/Gamma(alpha + n_j)``;
    gamma given K topics among m tables, ``∝ Gamma(a, b) gamma^K Gamma(gamma)/Gamma(gamma + m)``."""
    from scipy.special import gammaln as lg

    from stickbreak.models.topics.collapsed_hdp import resample_doc_concentration, resample_dp_concentration

    rng = np.random.default_rng(0)
    lengths, tables, topics, (a, b) = np.array([5.0, 12.0, 30.0, 2.0]), 9.0, 4, (2.0, 1.0)
    value, draws = 1.0, []
    for _ in range(40_000):
        if which == "alpha":
            value = resample_doc_concentration(rng, value, tables, lengths, a, b)
        else:
            value = resample_dp_concentration(rng, value, topics, tables, a, b)
        draws.append(value)
    grid = np.linspace(1e-4, 30, 300_001)
    if which == "alpha":
        log_post = (a - 1 + tables) * np.log(grid) - b * grid + sum(lg(grid) - lg(grid + n) for n in lengths)
    else:
        log_post = (a - 1 + topics) * np.log(grid) - b * grid + lg(grid) - lg(grid + tables)
    post = np.exp(log_post - log_post.max())
    mean = (grid * post).sum() / post.sum()
    sd = np.sqrt(((grid - mean) ** 2 * post).sum() / post.sum())
    assert np.mean(draws) == pytest.approx(mean, rel=0.02)
    assert np.std(draws) == pytest.approx(sd, rel=0.03)


def test_hdp_gibbs_with_concentration_priors_records_the_last_values(corpus):
    from stickbreak import HDPTopicModel

    est = HDPTopicModel(algorithm="gibbs", algorithm_options={"concentration_priors": ((1, 1), (1, 0.1))}, max_laps=5,
                        tol=0.0,
                        random_state=0).fit(corpus)
    assert set(est.concentrations_) == {"doc_topic_prior", "concentration"}
    assert est.concentrations_["doc_topic_prior"] != est.doc_topic_prior  # moved from the start
    with pytest.raises(ValueError, match="concentration_priors must be"):
        HDPTopicModel(algorithm="gibbs", algorithm_options={"concentration_priors": (1, 1)}).fit(corpus)
