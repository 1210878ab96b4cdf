"""ARCHITECTURE.md's worked examples, run as written: each "How to add ..." section's Python blocks
are executed in order in one namespace, then checked the way the package's own parts are."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st

from stickbreak import obs, priors
from stickbreak.config import LearnConfig, MixtureConfig, MovesConfig
from stickbreak.driver import fit
from stickbreak.learn import LEARNERS, BatchVB, make_learner
from stickbreak.models import make_mixture_model
from stickbreak.models.mixture.init import initial_params
from stickbreak.persist import codec

from conftest import assert_same_stats, check_birth_delta, check_delete_delta, check_merge_delta

GUIDE = Path(__file__).resolve().parents[1] / "ARCHITECTURE.md"


def _sections() -> dict[str, list[str]]:
    """``{section title: [python code blocks]}`` for the "How to add ..." sections."""
    out, title = {}, None
    for part in re.split(r"^## ", GUIDE.read_text(), flags=re.M)[1:]:
        title, _, body = part.partition("\n")
        if title.startswith("How to add"):
            out[title.strip()] = re.findall(r"```python\n(.*?)```", body, flags=re.S)
    return out


SECTIONS = _sections()


def test_the_guide_has_its_worked_examples():
    assert list(SECTIONS) == ["How to add an observation family", "How to add an allocation model",
                              "How to add an algorithm"]
    assert all(SECTIONS.values())


@pytest.fixture(scope="module")
def guide():
    """Every example block, run in order in one namespace (as a reader would)."""
    module = types.ModuleType("architecture_guide")  # a real module: dataclasses look their module up
    sys.modules[module.__name__] = module
    try:
        for title, blocks in SECTIONS.items():
            for block in blocks:
                exec(compile(block, f"ARCHITECTURE.md: {title}", "exec"), module.__dict__)
        yield module.__dict__
    finally:
        # other tests in this process see the built-in families, weights and algorithms only
        del sys.modules[module.__name__]
        obs.OBS_MODELS.pop("poisson", None)
        priors.MIXTURE_WEIGHTS.pop("uniform", None)
        LEARNERS.pop("incremental", None)
        codec.STATE_TYPES.pop("IncrementalState", None)


@pytest.fixture
def poisson_guide(guide):
    return guide


def test_observation_family_guide_runs_and_finds_the_clusters(poisson_guide):
    fitted, truth, X = poisson_guide["fitted"], poisson_guide["truth"], poisson_guide["X"]
    labels = fitted.predict(X)
    assert len(np.unique(labels)) == 3
    for k in np.unique(labels):  # each cluster is one simulated cluster
        assert np.bincount(truth[labels == k]).max() / np.sum(labels == k) > 0.95


def test_observation_family_expectations_match_monte_carlo(poisson_guide):
    family = poisson_guide["poisson"]
    nat = {"shape": np.array([[2.5, 7.0]]), "rate": np.array([[1.5, 0.5]])}
    draws = st.gamma(a=nat["shape"][0], scale=1.0 / nat["rate"][0]).rvs(size=(200_000, 2), random_state=0)
    expected = family.expected_t(nat)
    assert expected["shape"][0] == pytest.approx(np.log(draws).mean(axis=0), abs=0.008)  # ~5 standard errors
    assert expected["rate"][0] == pytest.approx(-draws.mean(axis=0), rel=5e-3)
    # the predictive of one count (per feature) sums to one over the counts
    per_feature = [np.exp(family.log_predictive({k: v[:, [d]] for k, v in nat.items()},
                                                family.check_data(np.arange(200.0)[:, None]))).sum() for d in (0, 1)]
    assert per_feature == pytest.approx([1.0, 1.0], abs=1e-9)


def test_observation_family_moves_are_exact(poisson_guide):
    """The new family inside a DP mixture: merge, delete and birth ΔELBO equal brute force."""
    X = poisson_guide["X"][:300]
    data = obs.get("poisson").check_data(X)
    model = make_mixture_model(MixtureConfig(obs_model="poisson", n_components=4), data)
    params = initial_params(model, data, 4, "kmeans++", np.random.default_rng(0))
    for _ in range(3):
        params = model.global_step(model.summarize(data, model.local_step(params, data), params.uids))
    uids = params.uids
    check_merge_delta(model, data, params, np.array([[uids[0], uids[3]], [uids[1], uids[2]]]))

    def softmax(logits):
        resp = np.exp(logits - logits.max(axis=1, keepdims=True))
        return resp / resp.sum(axis=1, keepdims=True)

    check_delete_delta(model, data, params, softmax)
    check_birth_delta(model, data, params, MovesConfig(moves=("birth",), birth_min_items=5))


def test_allocation_model_guide_merges_components_exactly(guide):
    """The uniform weights inside the mixture: the merge ΔELBO equals brute force, and the fit the
    guide ran never lowered the exact ELBO (memoized VI warns otherwise, and the suite turns
    that warning into an error)."""
    result, data = guide["result"], guide["data"]
    elbos = [record.elbo for record in result.trace]
    assert all(b >= a - 1e-9 * abs(a) for a, b in zip(elbos[1:], elbos[2:]))
    model = make_mixture_model(MixtureConfig(obs_model="gauss", weights="uniform", n_components=4), data)
    params = initial_params(model, data, 4, "kmeans++", np.random.default_rng(1))
    uids = params.uids
    check_merge_delta(model, data, params, np.array([[uids[0], uids[1]], [uids[2], uids[3]]]))


def test_algorithm_guide_with_one_batch_is_batch_vb(guide):
    """Incremental VB over one batch is batch VB, lap for lap."""
    data, model = guide["data"], guide["model"]
    learn = LearnConfig(algorithm="incremental", max_laps=5, tol=0)
    start = initial_params(model, data, 4, "kmeans++", np.random.default_rng(0))
    ours = fit(model, [data], start, make_learner(learn, MovesConfig(), np.random.default_rng(0)), learn)
    batch = fit(model, [data], start, BatchVB(), LearnConfig(algorithm="vb", max_laps=5, tol=0))
    assert [r.elbo for r in ours.trace] == pytest.approx([r.elbo for r in batch.trace], rel=1e-12)
    assert ours.trace[-1].elbo > ours.trace[0].elbo


def test_algorithm_guide_merges_keep_the_batches_statistics_adding_up(guide):
    """After the merges the guide's learner accepted (replayed on every batch's statistics), the
    batches' statistics still add up to the whole-data statistics the global step used."""
    state = guide["result"].state
    assert state.stats.n_components < 8
    assert_same_stats(sum((c.without_merge_terms() for c in state.cached[1:]), state.cached[0].without_merge_terms()),
                      state.stats)
