"""MODEL_CASES: every model variant, small and seeded, with the protocols it must declare.

Each case builds ``(model, data, params)``: a model, a small data set of the kind it fits and
initial global parameters (``None`` for models that start from nothing: truncation-free and
collapsed). Builds are cached per process, so the invariants share them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
import pytest

from stickbreak import obs
from stickbreak.config import MixtureConfig
from stickbreak.core.protocols import (
    ChainSweeps, HDPSweeps, ItemResponsibilities, LDASweeps, Memoizable, Model, Sampled, TrackedBirths, WholeDataBirths)
from stickbreak.data import BagOfWords, Sequences
from stickbreak.datasets.synthetic import make_lda_corpus, make_sticky_hmm_toy
from stickbreak.models import make_mixture_model
from stickbreak.models.diln.model import DILNModel, DILNPrior
from stickbreak.models.hmm.init import initial_params as hmm_initial_params
from stickbreak.models.hmm.model import HMMModel, frames_for
from stickbreak.models.hmm.sampler import WeakLimitHMM
from stickbreak.models.mixture.init import initial_params as mixture_initial_params
from stickbreak.models.sampled import TruncationFreeDPMixture, TruncationFreeHDP
from stickbreak.models.topics.collapsed_hdp import CollapsedHDP
from stickbreak.models.topics.collapsed_lda import CollapsedLDA
from stickbreak.models.topics.admixture import Admixture
from stickbreak.models.topics.init import initial_topics
from stickbreak.models.topics.model import LocalOptions, TopicModel
from stickbreak.models.topics.two_level import TwoLevelHDP
from stickbreak.priors import topic_hdp, topic_lda, transition_finite, transition_hdp

from baselines import StochasticMeanFieldDP
from conftest import small_data


@dataclass(frozen=True)
class Case:
    """A model variant: its name, the protocols it must declare and how to build it."""

    name: str
    protocols: tuple
    build: Callable
    first_lap: str = "auto"  # memoized VI's first lap, where one batch must equal batch VB

    def __call__(self):
        return _built(self.name)

    def declares(self, protocol) -> bool:
        return any(protocol in p.__mro__ for p in self.protocols)


# ---------------------------------------------------------------------------------------------- builders
MIXTURE_FAMILIES = ("gauss", "diag_gauss", "zero_mean_gauss", "ar_gauss", "mult", "bern")


def _mixture(family: str, weights: str, n_active=None, n_components: int = 4):
    def build():
        rng = np.random.default_rng(3)
        data = obs.get(family).check_data(small_data(family, rng, n_items=60))
        config = MixtureConfig(obs_model=family, weights=weights, n_components=n_components, n_active=n_active)
        model = make_mixture_model(config, data)
        return model, data, mixture_initial_params(model, data, n_components, "kmeans++", np.random.default_rng(1))
    return build


def _corpus():
    counts, _, _ = make_lda_corpus(n_docs=60, n_topics=4, n_words=30, doc_length=40, seed=1)
    return BagOfWords.from_counts(counts)


def _topics(kind: str, n_active=None):
    def build():
        data = _corpus()
        module, prior = {"lda": (topic_lda, topic_lda.default_prior(0.3)),
                         "hdp": (topic_hdp, topic_hdp.default_prior(0.5, 3.0))}[kind]
        model = TopicModel({"lam": np.full(data.n_features, 0.1)}, module, prior,
                           LocalOptions(start="best", n_active=n_active))
        lam = initial_topics(data, model.obs_prior["lam"], 5, "random", np.random.default_rng(0))
        return model, data, model.initial_params(lam, data.n_items)
    return build


def _admixture(kind: str, family: str):
    def build():
        rng = np.random.default_rng(4)
        family_module = obs.get(family)
        data = Sequences.from_arrays(small_data(family, rng, n_items=90).X, np.arange(0, 91, 9))  # 10 groups of 9
        module, prior = {"lda": (topic_lda, topic_lda.default_prior(0.3)),
                         "hdp": (topic_hdp, topic_hdp.default_prior(0.5, 3.0))}[kind]
        dense = frames_for(family_module, data)
        model = Admixture(family_module, family_module.default_prior(dense), module, prior, LocalOptions(start="best"))
        topics = mixture_initial_params(make_mixture_model(MixtureConfig(obs_model=family, n_components=5), dense),
                                        dense, 5, "kmeans++", np.random.default_rng(1)).obs
        return model, data, model.initial_params(topics, data.n_items)
    return build


def _two_level():
    data = _corpus()
    model = TwoLevelHDP({"lam": np.full(data.n_features, 0.05)}, corpus_concentration=1.3, doc_concentration=0.8,
                        doc_truncation=4, max_iter=200, tol=1e-10)
    return model, data, model.initial_params(5, data.n_items, np.random.default_rng(8))


def _hmm(kind: str, family: str, stickiness: float):
    def build():
        X, offsets, _ = make_sticky_hmm_toy(n_sequences=4, length=60, seed=0)
        data = Sequences.from_arrays(X, offsets)
        module = {"hdp": transition_hdp, "finite": transition_finite}[kind]
        prior = (module.default_prior(0.5, 5.0, stickiness, 10.0) if kind == "hdp"
                 else module.default_prior(0.5, 5.0, stickiness))
        family_module = obs.get(family)
        model = HMMModel(family_module, family_module.default_prior(frames_for(family_module, data)), module, prior)
        return model, data, hmm_initial_params(model, data, 5, "contiguous_blocks", np.random.default_rng(5))
    return build


def _weak_limit_hmm():
    """The blocked Gibbs sampler's model; its start is the emission posterior of a variational init."""
    model, data, params = _hmm("hdp", "gauss", 10.0)()
    return WeakLimitHMM.of(model.obs, model.obs_prior, model.transitions_prior, 5), data, params.obs


def _hmm_mult():
    """A sticky HMM toy's state paths, each state emitting 15 tokens per frame from its own word distribution."""
    X, offsets, states = make_sticky_hmm_toy(n_sequences=4, length=60, seed=0)
    rng = np.random.default_rng(2)
    words = rng.dirichlet(np.full(12, 0.3), size=int(states.max()) + 1)
    counts = np.stack([rng.multinomial(15, words[k]) for k in states]).astype(float)
    data = Sequences.from_arrays(counts, offsets)
    prior = transition_hdp.default_prior(0.5, 5.0, 10.0, 10.0)
    model = HMMModel(obs.mult, obs.mult.default_prior(frames_for(obs.mult, data)), transition_hdp, prior)
    return model, data, hmm_initial_params(model, data, 5, "contiguous_blocks", np.random.default_rng(5))


def _diln(correlated: bool):
    def build():
        data = _corpus()
        prior = DILNPrior(topic_word_prior=0.3, latent_dim=3, location_variance=0.3)
        model = DILNModel({"lam": np.full(data.n_features, 0.3)}, prior, correlated=correlated, local_start="warm")
        rng = np.random.default_rng(0)
        return model, data, model.initial_params(initial_topics(data, model.obs_prior["lam"], 5, "random", rng), rng)
    return build


def _no_params(model_of_vocabulary):
    def build():
        data = _corpus()
        return model_of_vocabulary(data.n_features), data, None
    return build


# ---------------------------------------------------------------------------------------------- the table
MIXTURE = (TrackedBirths, ItemResponsibilities)
MODEL_CASES: tuple[Case, ...] = (
    *(Case(f"mixture-{weights}-{family}", MIXTURE, _mixture(family, weights))
      for family in MIXTURE_FAMILIES for weights in ("dp", "finite")),
    *(Case(f"mixture-dp-{family}-L2", MIXTURE, _mixture(family, "dp", n_active=2))
      for family in MIXTURE_FAMILIES),
    Case("lda", (TrackedBirths,), _topics("lda")),
    Case("hdp-topics", (TrackedBirths,), _topics("hdp")),
    Case("lda-L2", (TrackedBirths,), _topics("lda", n_active=2)),
    Case("hdp-topics-L2", (TrackedBirths,), _topics("hdp", n_active=2)),
    *(Case(f"admixture-{kind}-{family}", (TrackedBirths,), _admixture(kind, family))
      for kind, family in (("hdp", "zero_mean_gauss"), ("hdp", "gauss"), ("hdp", "diag_gauss"), ("lda", "bern"))),
    Case("two-level-hdp", (Memoizable, Sampled), _two_level),
    Case("hmm-finite-gauss", (WholeDataBirths,), _hmm("finite", "gauss", 0.0), first_lap="full"),
    Case("hmm-finite-ar_gauss", (WholeDataBirths,), _hmm("finite", "ar_gauss", 5.0), first_lap="full"),
    Case("hmm-sticky-hdp-gauss", (WholeDataBirths,), _hmm("hdp", "gauss", 10.0), first_lap="full"),
    Case("hmm-sticky-hdp-ar_gauss", (WholeDataBirths,), _hmm("hdp", "ar_gauss", 10.0), first_lap="full"),
    Case("hmm-sticky-hdp-mult", (WholeDataBirths,), _hmm_mult, first_lap="full"),
    Case("diln-correlated", (Model,), _diln(True)),
    Case("diln-hdp", (Model,), _diln(False)),
    Case("truncation-free-dp", (Sampled,), _no_params(lambda V: TruncationFreeDPMixture())),
    Case("truncation-free-hdp", (Sampled,), _no_params(lambda V: TruncationFreeHDP())),
    Case("stochastic-mean-field-dp", (Sampled,), _no_params(lambda V: StochasticMeanFieldDP(n_components=5))),
    Case("collapsed-lda-gibbs", (LDASweeps,), _no_params(lambda V: CollapsedLDA(np.full(4, 0.5), 0.1, V))),
    Case("collapsed-lda-cvb0", (LDASweeps,), _no_params(lambda V: CollapsedLDA(np.full(4, 0.5), 0.1, V, "cvb0"))),
    Case("collapsed-hdp", (HDPSweeps,), _no_params(lambda V: CollapsedHDP(1.0, 1.0, 0.1, V))),
    Case("weak-limit-hmm", (ChainSweeps,), _weak_limit_hmm),
)
BY_NAME = {case.name: case for case in MODEL_CASES}


@lru_cache(maxsize=None)
def _built(name: str):
    return BY_NAME[name].build()


def cases_with(protocol, where=lambda case: True) -> list:
    """pytest parameters: the cases declaring ``protocol`` (and satisfying ``where``), by name."""
    return [pytest.param(case, id=case.name) for case in MODEL_CASES if case.declares(protocol) and where(case)]


def split_halves(data):
    """The data as two disjoint, interleaved halves and their union in the same item order."""
    first, second = np.arange(0, data.n_items, 2), np.arange(1, data.n_items, 2)
    return data.subset(first), data.subset(second), data.subset(np.concatenate([first, second]))


def stats_arrays(stats) -> dict:
    """Every additive array of a set of statistics, by name (DILN's carry a core and document sums)."""
    core = getattr(stats, "core", stats)
    out = {f"field:{k}": v for k, v in core.fields.items()}
    out.update({f"elbo:{k}": v for k, v in core.elbo_terms.items()})
    out.update({f"scalar:{k}": v for k, v in core.scalars.items()})
    if core is not stats:
        out["location_sum"] = stats.location_sum
    return out
