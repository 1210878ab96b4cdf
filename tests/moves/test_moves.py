"""Every move's exact ELBO change equals the brute-force change recomputed from responsibilities."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA

from stickbreak import DPMixture, obs
from stickbreak.models import make_mixture_model
from stickbreak.config import MixtureConfig, MovesConfig
from stickbreak.core.protocols import total_elbo
from stickbreak.models.mixture.init import initial_params
from stickbreak.moves import birth
from stickbreak.moves.delete import proposal_here

from conftest import (ALL_FAMILIES, assert_same_stats, check_birth_delta, check_delete_delta, check_merge_delta,
                      elbo_of, real_data_for)


def _case(name, n_components=5, n_items=300, seed=0):
    data = obs.get(name).check_data(real_data_for(name, n_items))
    model = make_mixture_model(MixtureConfig(obs_model=name, n_components=n_components), data)
    params = initial_params(model, data, n_components, "kmeans++", np.random.default_rng(seed))
    for _ in range(3):  # a few VB laps, so the responsibilities are realistic
        params = model.global_step(model.summarize(data, model.local_step(params, data), params.uids))
    return model, data, params


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_merge_delta_equals_brute_force(name):
    model, data, params = _case(name)
    uids = params.uids
    check_merge_delta(model, data, params, np.array([[uids[0], uids[3]], [uids[1], uids[2]]]))


@pytest.mark.parametrize("weights", ["dp", "finite"])
def test_merge_and_delete_deltas_with_a_learned_concentration(weights):
    """With empirical-Bayes concentrations the moves' candidates are scored the same way (the weights'
    global step learns the concentration from the candidate's counts): ΔELBO equals brute force."""
    data = obs.get("gauss").check_data(real_data_for("gauss", 300))
    model = make_mixture_model(MixtureConfig(obs_model="gauss", weights=weights, n_components=5,
                                             learn_concentration=True), data)
    params = initial_params(model, data, 5, "kmeans++", np.random.default_rng(0))
    for _ in range(3):
        params = model.global_step(model.summarize(data, model.local_step(params, data), params.uids))
    uids = params.uids
    check_merge_delta(model, data, params, np.array([[uids[0], uids[3]], [uids[1], uids[2]]]))
    check_delete_delta(model, data, params, _softmax)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_merge_score_is_an_upper_bound_on_the_gain(name):
    model, data, params = _case(name)
    local = model.local_step(params, data)
    first, second = np.triu_indices(params.n_components, k=1)
    pairs = np.column_stack([params.uids[first], params.uids[second]])
    stats = model.summarize(data, local, params.uids, merge_pairs=pairs)
    base = stats.without_merge_terms()
    params_now, terms = model.score(base)
    scores = model.merge_scores(params_now, base, first, second)
    gains = [elbo_of(model, stats.merge(a, b).without_merge_terms()) - total_elbo(terms) for a, b in pairs]
    assert np.all(np.array(gains) <= scores + 1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_birth_delta_equals_brute_force(name):
    """A birth tracked over two batches (and re-expanded at a revisit): the whole-data candidate
    (target's row replaced by its kept part, newborns appended, Eq. 4.22) equals the statistics of
    the explicit proposal responsibilities over all items."""
    model, data, params = _case(name, n_components=2, n_items=400)
    fast = check_birth_delta(model, data, params, MovesConfig(moves=("birth",), birth_min_items=5))
    ordered, _, terms, _ = birth.best_order(model, fast)
    assert total_elbo(terms) >= elbo_of(model, fast) - 1e-9
    assert_same_stats(ordered.reorder(fast.uids), fast)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_birth_cleanup_merge_equals_brute_force(name):
    """Merging two newborns in every batch's expansion (the proposal cleanup) gives the statistics
    and ELBO of the explicit split with those two columns summed: the expansions' pair entropies are
    exact."""
    model, data, params = _case(name, n_components=2, n_items=400)
    check_birth_delta(model, data, params, MovesConfig(moves=("birth",), birth_min_items=5), merge_newborns=True)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_birth_cleanup_never_lowers_the_candidate(name):
    """The cleaned proposal's exact ELBO is at least the raw proposal's, with at least two newborns."""
    model, data, params = _case(name, n_components=2, n_items=400)
    cfg = MovesConfig(moves=("birth",), birth_min_items=5)
    whole = model.summarize(data, model.local_step(params, data), params.uids)
    target = int(params.uids[np.argmax(whole.counts)])
    proposal = birth.start(model, 0, data, model.local_step(params, data, keep_loglik=True), params, target,
                           list(range(10, 20)), 1, cfg, np.random.default_rng(0))
    assert proposal.complete and len(proposal.born) >= 3
    cleaned = birth.cleaned(model, whole, proposal)
    assert 2 <= len(cleaned.born) <= len(proposal.born)
    assert elbo_of(model, birth.candidate(whole, cleaned)) >= elbo_of(model, birth.candidate(whole, proposal))


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_delete_delta_equals_brute_force(name):
    """The summed per-batch delete proposals equal the statistics of the explicit proposal
    responsibilities; with one refinement step they are the local step of the model with the
    target removed (its stick taken out), softmax over the remaining components."""
    model, data, params = _case(name, n_components=4, n_items=300)
    check_delete_delta(model, data, params, _softmax)


def _softmax(logits):
    resp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return resp / resp.sum(axis=1, keepdims=True)


def test_reorder_delta_equals_brute_force():
    model, data, params = _case("gauss")
    local = model.local_step(params, data)
    stats = model.summarize(data, local, params.uids)
    order = params.uids[::-1]
    brute = model.summarize_resp(data, local.resp[:, ::-1], order)
    assert_same_stats(stats.reorder(order), brute)
    assert elbo_of(model, stats.reorder(order)) == pytest.approx(elbo_of(model, brute), rel=1e-12)


def test_a_tracked_birth_whose_newborns_win_nothing_fails():
    """Expansions that leave every newborn empty are no split: the proposal fails (on AP news a
    birth reached that state, and its expansion's log 0 made the whole-data ELBO NaN)."""
    from stickbreak.core.suffstats import SuffStats

    proposal = birth.TrackedBirth(3, (7, 8), 2, born=np.array([7, 8]), centers={"lam": np.ones((3, 4))},
                                  log_weights=np.log([0.5, 0.25, 0.25]), expansions={}, remaining=frozenset({0, 1}))
    empty = SuffStats(np.array([3, 7, 8]), {"N": np.array([4.0, 0.0, 0.0])})
    assert birth.advance(None, proposal, 0, empty, None, None, None) == (None, False)


@pytest.mark.parametrize("name", ["gauss", "mult"])
def test_mixture_delete_proposal_carries_the_merge_terms_of_the_planned_pairs(name):
    """The delete's last round gathers the merged entropies of the lap's pairs, equal to a local
    step and summary over the remaining components with those pairs (so merges follow the delete)."""
    model, data, params = _case(name, n_components=6)
    uids = params.uids
    pairs = np.array([[uids[0], uids[1]], [uids[2], uids[3]]])
    local = model.local_step(params, data)
    whole = model.summarize(data, local, uids)
    proposal, _ = proposal_here(model, params, data, local, (int(uids[5]),), whole, whole, 3, merge_pairs=pairs)
    current = model.delete_params(params, (int(uids[5]),))
    for _ in range(2):  # the earlier rounds: one batch, so the rest of the data holds nothing
        current = model.global_step(model.summarize(data, model.local_step(current, data), current.uids), current)
    brute = model.summarize(data, model.local_step(current, data), current.uids, merge_pairs=pairs)
    np.testing.assert_array_equal(proposal.merge_pairs, pairs)
    np.testing.assert_allclose(proposal.merge_entropy, brute.merge_entropy, rtol=1e-12)
    assert_same_stats(proposal.without_merge_terms(), brute.without_merge_terms())


def test_mixture_merges_follow_an_accepted_delete_in_the_same_lap():
    X = PCA(10, random_state=0).fit_transform(load_digits().data[:600])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # ELBODecreaseWarning is a RuntimeWarning
        model = DPMixture(n_components=60, obs_model="diag_gauss", moves=("merge", "delete"), random_state=0).fit(X)
    assert any(r["moves"]["delete"]["accepted"] and r["moves"]["merge"]["accepted"] for r in model.trace_)
