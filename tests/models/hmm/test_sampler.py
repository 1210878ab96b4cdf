"""The weak-limit blocked Gibbs sampler of the sticky HDP-HMM (Fox et al. 2011, Alg. 3): its model
(models/hmm/sampler.py), learner (learn/blocked_gibbs.py) and estimator surface
(``HDPHMM(algorithm="gibbs")``), and memoized VI started from its output (``init=`` labels)."""

import numpy as np
import pytest

from stickbreak import HDPHMM, FiniteHMM, obs
from stickbreak.data import DataError, Sequences
from stickbreak.datasets.synthetic import make_sticky_hmm_toy
from stickbreak.evaluate import hamming_distance
from stickbreak.models.hmm.sampler import WeakLimitHMM, dirichlet_rows, labels_local
from stickbreak.obs import gauss


@pytest.fixture(scope="module")
def three_states():
    X, offsets, labels = make_sticky_hmm_toy(n_sequences=4, length=250, n_states=3, seed=3)
    return X, np.diff(offsets), labels


@pytest.fixture(scope="module")
def sampled(three_states):
    X, lengths, _ = three_states
    return HDPHMM(n_states=10, algorithm="gibbs", stickiness=10.0, max_laps=40, random_state=0).fit(X, lengths=lengths)


def test_the_sampler_recovers_three_states(three_states, sampled):
    X, lengths, labels = three_states
    assert hamming_distance(labels, sampled.sampled_states_) < 0.05
    assert hamming_distance(labels, sampled.predict(X, lengths)) < 0.05
    assert sampled.n_states_ == 3 and len(sampled.trace_) == 40 and np.isfinite(sampled.elbo_trace_).all()
    assert not any(r["exact"] for r in sampled.trace_) and set(sampled.trace_[-1]["terms"]) == {
        "log_p_x_given_z", "log_p_z_given_beta"}
    assert np.isfinite(sampled.log_evidence_) and np.isfinite(sampled.elbo_)


def test_memoized_vi_starts_from_the_samplers_states(three_states, sampled, tmp_path):
    X, lengths, labels = three_states
    vi = HDPHMM(n_states=sampled.n_states_, init=sampled.sampled_states_, moves=("merge", "delete"), stickiness=10.0,
                max_laps=10, random_state=0).fit(X, lengths=lengths)
    assert hamming_distance(labels, vi.predict(X, lengths)) < 0.05
    assert vi.elbo_ >= sampled.elbo_ - 1e-6 * abs(sampled.elbo_)  # soft q from the sample's hard q: no worse
    for est in (sampled, vi):  # both save and load (the labels as a parameter too)
        loaded = HDPHMM.load(est.save(tmp_path / est.algorithm))
        np.testing.assert_array_equal(loaded.predict(X, lengths), est.predict(X, lengths))
    np.testing.assert_array_equal(loaded.init, sampled.sampled_states_)


@pytest.mark.parametrize("init, error, message", [
    (np.zeros(5, dtype=int), DataError, "init holds 5 state labels but X has 1000 frames"),
    (np.full(1000, 4), ValueError, r"states 0 \.\. 3 \(n_states=4\), got values 4 \.\. 4; .*n_states=5"),
    (-np.ones(1000, dtype=int), ValueError, r"got values -1 \.\. -1"),
    (np.zeros(1000), ValueError, "1-D array of integers"),
    (np.zeros((1000, 1), dtype=int), ValueError, "1-D array of integers"),
    ("random", ValueError, r"init='random' is not valid; choose one of \['contiguous_blocks', 'kmeans\+\+'\]"),
])
def test_init_labels_are_validated(three_states, init, error, message):
    X, lengths, _ = three_states
    with pytest.raises(error, match=message):
        HDPHMM(n_states=4, init=init, max_laps=1).fit(X, lengths=lengths)


def test_what_the_sampler_refuses(three_states):
    X, lengths, _ = three_states
    with pytest.raises(ValueError, match="draws emissions of obs_model in \\['gauss'\\], not 'diag_gauss'"):
        HDPHMM(algorithm="gibbs", obs_model="diag_gauss", max_laps=1).fit(X, lengths=lengths)
    with pytest.raises(ValueError, match="keeps the concentrations fixed"):
        HDPHMM(algorithm="gibbs", learn_concentration=True, max_laps=1).fit(X, lengths=lengths)
    with pytest.raises(ValueError, match="algorithm='gibbs' is not valid"):
        FiniteHMM(algorithm="gibbs").fit(X, lengths=lengths)
    with pytest.raises(ValueError, match="need algorithm='memoized'"):
        HDPHMM(algorithm="gibbs", moves=("merge",)).fit(X, lengths=lengths)
    with pytest.raises(ValueError, match="runs in the driver's process only: each sweep draws every state sequence"):
        HDPHMM(algorithm="gibbs", executor="processes").fit(X, lengths=lengths)
    with pytest.raises(ValueError, match=r"HDPHMM\(algorithm='gibbs'\) cannot write checkpoints"):
        HDPHMM(algorithm="gibbs", max_laps=1).fit(X, lengths=lengths, checkpoint="/nonexistent/never-written")


def test_log_p_z_given_beta_is_the_polya_urn_probability_of_the_path():
    """The Dirichlet-multinomial rows equal the sequential (urn) probability of the states."""
    X = np.random.default_rng(0).normal(size=(9, 2))
    seqs = Sequences.from_arrays(X, [0, 6, 9])
    states = np.array([0, 0, 2, 2, 0, 1, 1, 1, 2])
    model = WeakLimitHMM(gauss, gauss.default_prior(obs.gauss.frames_of(seqs)), 3, 0.7, 2.0, 3.0, 5.0)
    beta = np.array([0.5, 0.2, 0.3])
    start_prior, rows = model.row_concentrations(beta)
    log_p, start_seen, row_seen = 0.0, np.zeros(3), np.zeros((3, 3))
    for lo, hi in ((0, 6), (6, 9)):
        z = states[lo]
        log_p += np.log((start_prior[z] + start_seen[z]) / (start_prior.sum() + start_seen.sum()))
        start_seen[z] += 1
        for prev, nxt in zip(states[lo:hi - 1], states[lo + 1:hi]):
            log_p += np.log((rows[prev, nxt] + row_seen[prev, nxt]) / (rows[prev].sum() + row_seen[prev].sum()))
            row_seen[prev, nxt] += 1
    local = labels_local(states, seqs.offsets, 3)
    terms = model.log_joint(seqs, model.emission_posterior(seqs, states), local.start, local.trans, beta)
    np.testing.assert_allclose(terms["log_p_z_given_beta"], log_p, rtol=1e-12)
    np.testing.assert_array_equal(local.trans, row_seen)


def test_dirichlet_rows_survive_vanishing_concentrations():
    rng = np.random.default_rng(2)
    rows = dirichlet_rows(rng, np.array([[1e-300, 2e-300, 0.0], [1.0, 2.0, 3.0]]))
    np.testing.assert_allclose(rows.sum(axis=1), 1.0)
    assert np.isfinite(rows).all()
