"""Empirical-Bayes concentrations of the mixture weights: the update maximises the ELBO's prior term,
the joint global step maximises the ELBO over the concentration too, and memoized VI with moves stays
monotone with it."""

import numpy as np
import pytest
from scipy.special import digamma

from stickbreak import DPMixture, FiniteMixture
from stickbreak.priors import empirical_bayes, mixture_dp, mixture_finite, top_sticks, topic_hdp, transition_hdp

COUNTS = np.array([500.0, 300.0, 100.0, 50.0, 5.0, 0.3, 0.0])
MODULES = [(mixture_dp, "gamma0"), (mixture_finite, "alpha")]


def test_stick_concentration_has_the_closed_form_for_the_dp():
    """With ``Beta(1, gamma)`` sticks the optimum is ``-K / sum_k E log(1 - u_k)``."""
    post = mixture_dp.global_step(mixture_dp.default_prior(2.0), COUNTS)
    log_rest = digamma(post["eta0"]) - digamma(post["eta1"] + post["eta0"])
    assert empirical_bayes.stick_concentration(1.0, log_rest,
                                               2.0) == pytest.approx(-len(COUNTS) / log_rest.sum(), rel=1e-9)


@pytest.mark.parametrize("stick_a", [0.5, 1.0, 3.0])
def test_stick_concentration_zeroes_the_gradient(stick_a):
    log_rest = np.array([-0.3, -1.2, -0.05, -2.0])
    c = empirical_bayes.stick_concentration(stick_a, log_rest, 1.0)
    assert len(log_rest) * (digamma(stick_a + c) - digamma(c)) + log_rest.sum() == pytest.approx(0.0, abs=1e-8)


@pytest.mark.parametrize("module, key", MODULES)
def test_learned_global_step_maximises_the_elbo_over_the_concentration(module, key):
    prior = module.default_prior(1.0, learn=True)
    post = module.global_step(prior, COUNTS)
    best = module.elbo(prior, post, COUNTS)
    learned = module.concentration(prior, post)
    for factor in (0.5, 0.9, 1.1, 2.0):
        fixed = {**prior, key: learned * factor, "learn": False}
        assert module.elbo(fixed, post, COUNTS) < best  # the same q at another concentration
        assert module.elbo(fixed, module.global_step(fixed, COUNTS), COUNTS) < best  # its own optimal q


@pytest.mark.parametrize("module, key", MODULES)
def test_fixed_concentration_is_unchanged(module, key):
    prior = module.default_prior(0.7)
    assert module.concentration(prior, module.global_step(prior, COUNTS)) == 0.7


@pytest.mark.parametrize("cls", [DPMixture, FiniteMixture])
def test_memoized_moves_stay_monotone_and_report_the_learned_concentration(cls):
    X = np.random.default_rng(0).normal(size=(600, 2)) + np.repeat(np.array([[0, 0], [6, 0], [0, 6]]), 200, axis=0)
    model = cls(n_components=6, algorithm="memoized", moves=("birth", "merge", "delete"), n_batches=3,
                learn_concentration=True, concentration=5.0, max_laps=15, random_state=0).fit(X)
    elbo = model.elbo_trace_
    assert np.all(np.diff(elbo[1:]) >= -1e-9 * np.abs(elbo[2:]))
    assert model.concentration_ != 5.0 and np.isfinite(model.concentration_)
    assert model.n_components_ == 3


# ------------------------------------------------------------------ HDP topics and HDP-HMM (surrogate bounds)
def _total(terms):
    return float(sum(terms.values()))


@pytest.fixture(scope="module")
def bars_stats():
    from stickbreak.data import BagOfWords
    from stickbreak.datasets.synthetic import make_bars_corpus
    from stickbreak.models.topics.init import initial_topics
    from stickbreak.models.topics.model import LocalOptions, TopicModel

    counts, _ = make_bars_corpus(n_docs=120, doc_length=50, side=6, n_bars=6, seed=3)
    data = BagOfWords.from_counts(counts)
    model = TopicModel({"lam": np.full(data.n_features, 0.1)}, topic_hdp,
                       topic_hdp.default_prior(0.5, 5.0, learn_alpha=True, learn_gamma=True), LocalOptions())
    lam = initial_topics(data, model.obs_prior["lam"], 8, "random", np.random.default_rng(0))
    params = model.initial_params(lam, data.n_items)
    return model, model.summarize(data, model.local_step(params, data), params.uids), params


def test_hdp_topic_global_step_maximises_the_elbo_over_both_concentrations(bars_stats):
    """At fixed statistics the learned ``alpha`` and ``gamma`` are optimal: moving either (``omega``
    following ``gamma``'s heuristic, as in the update) lowers the ELBO."""
    model, stats, previous = bars_stats
    params = model.global_step(stats, previous)
    weights = params.weights
    assert (float(weights["alpha"]), float(weights["gamma"])) != (0.5, 5.0)
    best = _total(model.elbo_terms(params, stats))
    n_docs = stats.scalars["n_items"]
    for factor in (0.5, 0.9, 1.1, 2.0):
        alpha = {**weights, "alpha": np.asarray(weights["alpha"] * factor)}
        gamma = {**weights, "gamma": np.asarray(weights["gamma"] * factor),
                 "omega": topic_hdp.init_omega(len(weights["rho"]), n_docs, float(weights["gamma"]) * factor)}
        for moved in (alpha, gamma):
            assert _total(model.elbo_terms(model.make_params(params.uids, params.obs["lam"], moved), stats)) < best


def test_hdp_topic_alpha_has_the_closed_form(bars_stats):
    model, stats, previous = bars_stats
    params = model.global_step(stats, previous)
    beta, rest = topic_hdp.stick_weights(params.weights["rho"])
    slope = beta @ stats.fields["log_pi"] + rest * stats.scalars["log_pi_rest"]
    expected = -stats.scalars["n_items"] * len(beta) / slope
    assert float(params.weights["alpha"]) == pytest.approx(expected, rel=1e-5)  # settled to SETTLED


@pytest.mark.parametrize("kappa", [0.0, 20.0])
def test_hdp_hmm_global_step_maximises_the_elbo_over_the_concentrations(kappa):
    from stickbreak.data import Sequences
    from stickbreak.datasets.synthetic import make_sticky_hmm_toy
    from stickbreak.models.hmm.init import initial_params
    from stickbreak.models.hmm.model import HMMModel, frames_for
    from stickbreak.obs import gauss

    X, offsets, _ = make_sticky_hmm_toy(n_sequences=3, length=80, seed=1)
    data = Sequences.from_arrays(X, offsets)
    prior = transition_hdp.default_prior(0.5, 5.0, kappa, 10.0, learn=True)
    model = HMMModel(gauss, gauss.default_prior(frames_for(gauss, data)), transition_hdp, prior)
    params = initial_params(model, data, 5, "contiguous_blocks", np.random.default_rng(0))
    stats = model.summarize(data, model.local_step(params, data), params.uids)
    start, trans = stats.fields["start"], stats.fields["trans"]
    post = transition_hdp.global_step(prior, start, trans, params.trans, rounds=200)
    best = _total(transition_hdp.elbo(prior, post, start, trans))
    n_states = len(post["rho"])
    on, off = transition_hdp.surrogate_counts(prior, n_states)
    keys = ("alpha", "kappa", "gamma") if kappa > 0 else ("alpha", "gamma")
    assert float(post["kappa"]) == kappa or kappa > 0
    for key in keys:
        for factor in (0.5, 0.9, 1.1, 2.0):
            moved = {**post, key: np.asarray(float(post[key]) * factor)}
            if key == "gamma":
                moved["omega"] = top_sticks.heuristic_omega(on, off, float(post["gamma"]) * factor)
            assert _total(transition_hdp.elbo(prior, moved, start, trans)) < best, (key, factor)


def test_estimators_learn_and_report_their_concentrations():
    from stickbreak import HDPHMM, HDPTopicModel
    from stickbreak.datasets.synthetic import make_bars_corpus, make_sticky_hmm_toy

    counts, _ = make_bars_corpus(n_docs=150, doc_length=50, side=6, n_bars=6, seed=4)
    topics = HDPTopicModel(12, learn_concentration=True, n_batches=3, max_laps=12, random_state=0).fit(counts)
    assert np.all(np.diff(topics.elbo_trace_[1:]) >= -1e-9 * np.abs(topics.elbo_trace_[2:]))
    assert set(topics.concentrations_) == {"doc_topic_prior", "concentration"}
    assert topics.concentrations_["doc_topic_prior"] != 1.0 and topics.concentrations_["concentration"] != 10.0
    fixed = HDPTopicModel(12, n_batches=3, max_laps=3, random_state=0).fit(counts)
    assert fixed.concentrations_ == {"doc_topic_prior": 1.0, "concentration": 10.0}

    X, offsets, _ = make_sticky_hmm_toy(n_sequences=4, length=150, seed=2)
    hmm = HDPHMM(stickiness=10.0, learn_concentration=True, max_laps=15,
                 random_state=0).fit(X, lengths=np.diff(offsets))
    assert np.all(np.diff(hmm.elbo_trace_[1:]) >= -1e-9 * np.abs(hmm.elbo_trace_[2:]))
    assert hmm.concentrations_["stickiness"] != 10.0 and hmm.concentrations_["transition_concentration"] != 0.5


@pytest.mark.parametrize("options", [dict(learn_concentration="concentration"), dict(learn_concentration=["alpha"]),
                                     dict(learn_concentration=True, variational_family="two_level", algorithm="vb"),
                                     dict(learn_concentration=True, algorithm="gibbs")])
def test_hdp_topic_learn_concentration_is_checked_before_fitting(options):
    from stickbreak import HDPTopicModel

    with pytest.raises(ValueError, match="learn_concentration"):
        HDPTopicModel(5, **options).fit(np.ones((4, 6)))
