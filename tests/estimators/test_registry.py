"""The learner registry (learn/registry.py) and the estimators' tables of fit plans built on it."""

import numpy as np
import pytest

from stickbreak import DILN, LDA, DPMixture, FiniteMixture, HDPHMM, HDPTopicModel
from stickbreak.config import ALGORITHMS, COLLAPSED_ALGORITHMS, LearnConfig, MovesConfig
from stickbreak.core.protocols import ChainSweeps, Memoizable, Model, Movable, Sampled, Swept
from stickbreak.datasets.synthetic import make_lda_corpus
from stickbreak.estimators.diln import DILN_VARIANTS
from stickbreak.estimators.mixture_base import MIXTURE_PLANS
from stickbreak.estimators._topic_plans import HDP_VARIANTS, LDA_VARIANTS
from stickbreak.learn import LEARNERS, BatchVB, MemoizedVI, StochasticVI, learner_spec, make_learner, required_protocol
from stickbreak.learn.blocked_gibbs import BlockedGibbs
from stickbreak.learn.collapsed import CollapsedSweeps
from stickbreak.learn.collapsed_hdp import DirectAssignmentGibbs
from stickbreak.learn.registry import ALGORITHM_ALIASES
from stickbreak.learn.truncation_free import TruncationFreeSVI

EXPECTED = {
    "vb": (BatchVB, Model), "stochastic": (StochasticVI, Model), "memoized": (MemoizedVI, Memoizable),
    "truncation_free": (TruncationFreeSVI, Sampled), "direct_assignment_gibbs": (DirectAssignmentGibbs, Swept),
    "blocked_gibbs": (BlockedGibbs, ChainSweeps),
    **{name: (CollapsedSweeps, Swept) for name in COLLAPSED_ALGORITHMS},
}


def test_the_registry_holds_exactly_the_expected_learners():
    assert set(LEARNERS) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_name_builds_its_learner_and_states_its_protocol(name):
    learner_class, protocol = EXPECTED[name]
    learner = make_learner(LearnConfig(), MovesConfig(), np.random.default_rng(0), name)
    assert type(learner) is learner_class
    assert required_protocol(name) is protocol and LEARNERS[name].protocol is protocol


def test_memoized_with_moves_needs_movable_and_moves_need_memoized():
    assert required_protocol("memoized", ("merge",)) is Movable
    assert required_protocol("memoized", ()) is Memoizable
    assert required_protocol("vb", ("merge",)) is Model  # no moves outside memoized VI: see below
    with pytest.raises(ValueError, match="need algorithm='memoized'"):
        make_learner(LearnConfig(algorithm="vb"), MovesConfig(moves=("merge",)), np.random.default_rng(0))


def test_aliases_and_the_names_users_choose_from():
    assert ALGORITHM_ALIASES == {"svi": "stochastic"}
    assert learner_spec("svi") is LEARNERS["stochastic"]
    assert type(make_learner(LearnConfig(algorithm="svi"), MovesConfig(), np.random.default_rng(0))) is StochasticVI
    public = {name for name, spec in LEARNERS.items() if spec.public}
    assert set(ALGORITHMS) == public | set(ALGORITHM_ALIASES)
    assert LEARNERS["stochastic"].minibatches and LEARNERS["truncation_free"].minibatches
    assert {name for name, spec in LEARNERS.items() if spec.exact} == {"vb", "memoized"}


def test_an_unknown_or_unsupported_name_lists_the_choices():
    with pytest.raises(ValueError,
                       match=r"does not support algorithm='mcmc'; choose one of \['vb', 'stochastic', 'svi'"):
        learner_spec("mcmc")
    with pytest.raises(ValueError, match=r"HMM does not support algorithm='gibbs' \(collapsed inference for LDA.*"
                                         r"choose one of \['vb', 'memoized'\]"):
        learner_spec("gibbs", choices=("vb", "memoized"), owner="HMM")


@pytest.mark.parametrize("table", [MIXTURE_PLANS, LDA_VARIANTS, HDP_VARIANTS, DILN_VARIANTS])
def test_every_estimator_table_names_registered_algorithms(table):
    for key in table:
        assert (key[0] if isinstance(key, tuple) else key) in LEARNERS


@pytest.fixture(scope="module")
def corpus():
    return make_lda_corpus(n_docs=40, n_topics=3, n_words=20, doc_length=30, seed=1)[0]


@pytest.mark.parametrize("est, message", [
    (LDA(3, algorithm="truncation_free"), (r"LDA does not support algorithm='truncation_free' \(truncation-free SVI.*"
                                           r"choose one of: algorithm='vb', algorithm='stochastic'")),
    (HDPTopicModel(3, algorithm="cvb"), (r"HDPTopicModel does not support algorithm='cvb' with variational_family="
                                         r"'direct' \(collapsed inference for LDA")),
    (HDPTopicModel(3, algorithm="gibbs", variational_family="two_level"),
     ("algorithm='gibbs' with variational_family='two_level'; choose one of: .*algorithm='gibbs' with "
      "variational_family='direct'")),
    (HDPTopicModel(3, algorithm="memoized", variational_family="two_level"), "variational_family='two_level'"),
    (DILN(3, algorithm="memoized"), "DILN does not support algorithm='memoized'"),
])
def test_topic_estimators_refuse_what_their_table_lacks(est, message, corpus):
    with pytest.raises(ValueError, match=message):
        est.fit(corpus)


@pytest.mark.parametrize("cls", [DPMixture, FiniteMixture])
def test_mixtures_refuse_collapsed_algorithms(cls):
    with pytest.raises(ValueError, match=f"{cls.__name__} does not support algorithm='cvb0' \\(collapsed inference"):
        cls(algorithm="cvb0").fit(np.random.default_rng(0).normal(size=(20, 2)))


def test_hmms_refuse_other_algorithms():
    with pytest.raises(ValueError, match="algorithm='truncation_free' is not valid; choose one of"):
        HDPHMM(algorithm="truncation_free").fit(np.zeros((10, 2)))
