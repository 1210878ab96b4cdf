"""Every move's exact ELBO change equals the brute-force change recomputed from responsibilities."""

import numpy as np
import pytest

from stickbreak import obs
from stickbreak.alloc import make_mixture_model
from stickbreak.config import MixtureConfig, MovesConfig
from stickbreak.core.model import total_elbo
from stickbreak.driver import split_batches
from stickbreak.learn.init import initial_params
from stickbreak.moves import birth, delete, merge

from conftest import ALL_FAMILIES, real_data_for


def _case(name, n_components=5, n_items=300, seed=0):
    data = obs.get(name).check_data(real_data_for(name, n_items))
    model = make_mixture_model(MixtureConfig(obs_model=name, n_components=n_components), data)
    params = initial_params(model, data, n_components, "kmeans++", np.random.default_rng(seed))
    for _ in range(3):  # a few VB laps, so the responsibilities are realistic
        params = model.global_step(model.summarize(data, model.local_step(params, data), params.uids))
    return model, data, params


def _elbo(model, stats):
    return total_elbo(model.score(stats)[1])


def _assert_same_stats(a, b):
    np.testing.assert_array_equal(a.uids, b.uids)
    for key in a.fields:
        np.testing.assert_allclose(a.fields[key], b.fields[key], rtol=1e-10, atol=1e-8, err_msg=key)
    np.testing.assert_allclose(a.elbo_terms["entropy"], b.elbo_terms["entropy"], rtol=1e-10, atol=1e-8)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_merge_delta_equals_brute_force(name):
    model, data, params = _case(name)
    uids = params.uids
    pairs = np.array([[uids[0], uids[3]], [uids[1], uids[2]]])
    local = model.local_step(params, data)
    stats = model.summarize(data, local, uids, merge_pairs=pairs)
    for kept, removed in pairs:
        fast = stats.merge(kept, removed).without_merge_terms()
        resp = local.resp.copy()
        a, b = int(np.flatnonzero(uids == kept)[0]), int(np.flatnonzero(uids == removed)[0])
        resp[:, a] += resp[:, b]
        brute = model.summarize_resp(data, np.delete(resp, b, axis=1), np.delete(uids, b))
        _assert_same_stats(fast, brute)
        before = _elbo(model, stats.without_merge_terms())
        assert _elbo(model, fast) - before == pytest.approx(_elbo(model, brute) - before, rel=1e-9, abs=1e-7)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_merge_score_is_an_upper_bound_on_the_gain(name):
    model, data, params = _case(name)
    local = model.local_step(params, data)
    first, second = np.triu_indices(params.n_components, k=1)
    pairs = np.column_stack([params.uids[first], params.uids[second]])
    stats = model.summarize(data, local, params.uids, merge_pairs=pairs)
    base = stats.without_merge_terms()
    params_now, terms = model.score(base)
    scores = merge.pair_scores(model, params_now, base, first, second)
    gains = [_elbo(model, stats.merge(a, b).without_merge_terms()) - total_elbo(terms) for a, b in pairs]
    assert np.all(np.array(gains) <= scores + 1e-8)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_birth_delta_equals_brute_force(name):
    """A birth tracked over two batches (and re-expanded at a revisit): the whole-data candidate
    (target's row replaced by its kept part, newborns appended, Eq. 4.22) equals the statistics of
    the explicit proposal responsibilities over all items."""
    model, data, params = _case(name, n_components=2, n_items=400)
    batches = split_batches(data, 2, seed=0)
    locals_ = [model.local_step(params, batch) for batch in batches.data]
    parts = [model.summarize(batch, loc, params.uids) for batch, loc in zip(batches.data, locals_)]
    whole = parts[0] + parts[1]
    target = int(params.uids[np.argmax(whole.counts)])
    cfg = MovesConfig(moves=("birth",), birth_min_items=5)
    rng = np.random.default_rng(0)
    proposal = birth.start(model, 0, batches.data[0], locals_[0], params, target, list(range(10, 20)), 2,
                           cfg, rng)
    proposal = birth.extend(model, proposal, 1, batches.data[1], locals_[1], params, cfg, rng)  # pool complete
    assert proposal is not None and proposal.created and not proposal.complete and len(proposal.born) >= 2
    used = {1: (proposal.centers, proposal.log_weights)}
    used[1] = None  # batch 1 was expanded right at creation; re-expand both below with known parameters
    for b in (0, 1):  # batch 0 expanded for the first time, batch 1 again (a revisit)
        used[b] = (proposal.centers, proposal.log_weights)
        proposal = birth.extend(model, proposal, b, batches.data[b], locals_[b], params, cfg, rng)
    assert proposal.complete
    fast = birth.candidate(whole, proposal)
    column = int(np.flatnonzero(params.uids == target)[0])
    uids = np.concatenate([params.uids, proposal.born])
    brute = None
    for b, batch in enumerate(batches.data):
        owned = locals_[b].resp[:, column]
        split = birth.split_target(model, batch, owned, *used[b])
        resp = locals_[b].resp.copy()
        resp[:, column] = split[:, 0]  # the target keeps part of its mass
        part = model.summarize_resp(batch, np.column_stack([resp, split[:, 1:]]), uids)
        brute = part if brute is None else brute + part
    _assert_same_stats(fast, brute)
    before = _elbo(model, whole)
    assert _elbo(model, fast) - before == pytest.approx(_elbo(model, brute) - before, rel=1e-9, abs=1e-7)
    ordered, _, terms, _ = birth.best_order(model, fast)
    assert total_elbo(terms) >= _elbo(model, fast) - 1e-9
    _assert_same_stats(ordered.reorder(fast.uids), fast)


@pytest.mark.parametrize("name", ALL_FAMILIES)
def test_delete_delta_equals_brute_force(name):
    """The summed per-batch delete proposals equal the statistics of the explicit proposal
    responsibilities; with one refinement step they are the local step of the model with the
    target removed (its stick taken out), softmax over the remaining components."""
    model, data, params = _case(name, n_components=4, n_items=300)
    batches = split_batches(data, 3, seed=0)
    parts = [model.summarize(b, model.local_step(params, b), params.uids) for b in batches.data]
    whole = sum(parts[1:], parts[0])
    target = int(params.uids[np.argmin(whole.counts)])
    proposals = [delete.batch_proposal(model, b, params, target, whole, part, refine_steps=1)
                 for b, part in zip(batches.data, parts)]
    fast = sum(proposals[1:], proposals[0])
    keep = params.uids != target
    without = delete.without_component(params, target)
    brute = None
    for batch in batches.data:
        logits = model.log_weights(without, batch)
        resp = np.exp(logits - logits.max(axis=1, keepdims=True))
        resp /= resp.sum(axis=1, keepdims=True)
        part = model.summarize_resp(batch, resp, params.uids[keep])
        brute = part if brute is None else brute + part
    _assert_same_stats(fast, brute)
    before = _elbo(model, whole)
    assert _elbo(model, fast) - before == pytest.approx(_elbo(model, brute) - before, rel=1e-9, abs=1e-7)


def test_reorder_delta_equals_brute_force():
    model, data, params = _case("gauss")
    local = model.local_step(params, data)
    stats = model.summarize(data, local, params.uids)
    order = params.uids[::-1]
    brute = model.summarize_resp(data, local.resp[:, ::-1], order)
    _assert_same_stats(stats.reorder(order), brute)
    assert _elbo(model, stats.reorder(order)) == pytest.approx(_elbo(model, brute), rel=1e-12)
