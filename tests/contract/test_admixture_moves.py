"""The admixture model (:mod:`stickbreak.models.topics.admixture`): its merge and birth statistics
against brute force over the items' explicit responsibilities (the delete's are in the contract
tests, with every other model's)."""

from dataclasses import replace

import numpy as np
import pytest
from scipy.special import digamma

from stickbreak.core.protocols import total_elbo
from stickbreak.models.topics.documents import TopicLocal

from cases import BY_NAME
from conftest import assert_same_stats

ADMIXTURES = [name for name in BY_NAME if name.startswith("admixture-")]


def _converged(name):
    model, data, params = BY_NAME[name]()
    return replace(model, local=replace(model.local, tol=1e-11, max_iter=5000)), data, params


@pytest.mark.parametrize("name", ADMIXTURES)
def test_merged_statistics_equal_those_of_the_merged_item_responsibilities(name):
    model, data, params = _converged(name)
    kept, removed = int(params.uids[0]), int(params.uids[3])
    pairs = np.array([[kept, removed]])
    local = model.local_step(params, data, merge_pairs=pairs)
    stats = model.summarize(data, local, params.uids, merge_pairs=pairs)
    exp_loglik, _ = model.item_rows(params, data)
    group = np.repeat(np.arange(data.n_items), data.lengths)
    joint = exp_loglik * np.exp(digamma(local.doc_topic + local.prior[None, :]))[group]
    resp = joint / joint.sum(axis=1, keepdims=True)  # exact at the fixed point
    np.testing.assert_allclose(resp, local.word_topic, rtol=1e-6, atol=1e-9)
    keep = [k for k in range(params.n_components) if k != 3]
    resp[:, 0] += resp[:, 3]
    doc_topic, prior = local.doc_topic.copy(), local.prior.copy()
    doc_topic[:, 0] += doc_topic[:, 3]
    prior[0] += prior[3]
    merged = TopicLocal(doc_topic[:, keep], prior[keep], local.prior_rest, resp[:, keep],
                        -(resp[:, keep] * np.log(resp[:, keep])).sum(axis=0), local.n_iters, local.n_restarts)
    brute = model.summarize(data, merged, params.uids[keep])
    fast = stats.merge(kept, removed).without_merge_terms()
    assert_same_stats(fast, brute, rtol=1e-7)
    delta_fast = total_elbo(model.score(fast)[1]) - total_elbo(model.score(stats.without_merge_terms())[1])
    delta_brute = total_elbo(model.score(brute)[1]) - total_elbo(model.score(stats.without_merge_terms())[1])
    assert delta_fast == pytest.approx(delta_brute, rel=1e-7, abs=1e-7)


@pytest.mark.parametrize("name", ADMIXTURES)
def test_a_birth_expansion_splits_exactly_the_targets_items(name):
    """Over [target, newborns] the expansion's counts and family statistics add up to the target's,
    and its entropy is at least the target's (the split adds the restricted step's)."""
    model, data, params = _converged(name)
    local = model.local_step(params, data)
    stats = model.summarize(data, local, params.uids)
    column = int(np.argmax(stats.counts))
    centers = {k: np.ascontiguousarray(v[[column, 1, 2]]) for k, v in params.obs.items()}
    expansion = model.birth_expansion(data, local, params, column, centers, np.log([0.2, 0.4, 0.4]), [column, 90, 91])
    target = stats.fields
    for key in expansion.fields:
        if key not in ("log_pi", "doc_gamma"):
            np.testing.assert_allclose(expansion.fields[key].sum(axis=0), target[key][column], rtol=1e-9, atol=1e-9,
                                       err_msg=key)
    assert expansion.counts[1:].sum() > 0
    assert expansion.elbo_terms["entropy"].sum() >= stats.elbo_terms["entropy"][column] - 1e-9
