"""ΔELBO = after − before for every move a model supports (Hughes 2016, Ch. 4): the statistics a move
builds from cached terms equal those of the explicit local parameters after the move (brute force),
and so does the ELBO change.

Mixtures (every family, dense and L-sparse) use conftest's checks of merge, delete and birth over
their responsibilities; HMMs are checked against the NumPy twin's full pairwise marginals (merge,
delete, birth); topic models against a local step without the deleted topics, and merges against
token responsibilities rebuilt from converged document counts (dense).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma

from stickbreak.config import MovesConfig
from stickbreak.core import sparse_resp
from stickbreak.core.protocols import ItemResponsibilities, TrackedBirths, WholeDataBirths, declares, total_elbo
from stickbreak.kernels import RESP_FLOOR
from stickbreak.kernels.mixture import _reference as kernel_twins
from stickbreak.models.hmm.birth import expanded_params
from stickbreak.models.topics.model import TopicLocal, TopicModel
from stickbreak.obs import expfam
from stickbreak.core.local_parts import on_batches
from stickbreak.models.mixture.init import bregman_kmeans, kmeans_plus_plus
from stickbreak.moves import birth
from stickbreak.moves.delete import proposal_here

from cases import cases_with
from conftest import assert_same_stats, chain_stats, check_birth_delta, check_delete_delta, check_merge_delta


def _after_vb_laps(model, data, params, laps=3):
    """Parameters after a few batch VB laps, so the local parameters are realistic."""
    for _ in range(laps):
        params = model.global_step(model.summarize(data, model.local_step(params, data), params.uids), params)
    return params


def _elbo(model, stats, params=None) -> float:
    return total_elbo(model.score(stats, params)[1])


def _assert_same_delta(model, before, fast, brute, params=None, rel=1e-9):
    base = _elbo(model, before, params)
    assert _elbo(model, fast, params) - base == pytest.approx(_elbo(model, brute, params) - base, rel=rel, abs=1e-7)


# ---------------------------------------------------------------------------------------------- mixtures
def _mixture(case):
    model, data, params = case()
    return model, data, _after_vb_laps(model, data, params)


def _in_family(model):
    """Dense responsibilities as the model's family holds them (L-sparse CSR with ``n_active``)."""
    return (lambda resp: resp) if model.n_active is None else sp.csr_matrix


@pytest.mark.parametrize("case", cases_with(ItemResponsibilities))
def test_mixture_merge_delta(case):
    model, data, params = _mixture(case)
    uids = params.uids
    check_merge_delta(model, data, params, np.array([[uids[0], uids[3]], [uids[1], uids[2]]]), _in_family(model))


@pytest.mark.parametrize("case", cases_with(ItemResponsibilities))
def test_mixture_delete_delta(case):
    model, data, params = _mixture(case)

    def reassign(logits):  # softmax, or top-L, over the remaining components
        if model.n_active is None:
            resp = np.exp(logits - logits.max(axis=1, keepdims=True))
            return resp / resp.sum(axis=1, keepdims=True)
        values, indices, _, _ = kernel_twins.top_l_resp(logits, model.n_active, RESP_FLOOR)
        return sparse_resp.from_top_l(values, indices, logits.shape[1])

    check_delete_delta(model, data, params, reassign)


def kmeans_split(model, pool, n_groups, rng, n_kmeans_iters):
    return bregman_kmeans(model, pool, kmeans_plus_plus(model, pool, n_groups, rng), n_kmeans_iters)


@pytest.mark.parametrize("case", cases_with(ItemResponsibilities))
def test_mixture_birth_delta(case, monkeypatch):
    """(The small word-count cases hold no split the collapsed sampler would propose; the candidate's
    exactness does not depend on how the pool was split, so the k-means split is proposed here.)"""
    monkeypatch.setattr(birth, "split_labels", kmeans_split)
    model, data, params = _mixture(case)
    as_family = _in_family(model)
    check_birth_delta(model, data, params, MovesConfig(moves=("birth",), birth_min_items=5, birth_max_new=3),
                      lambda resp, split: as_family(resp))


# ---------------------------------------------------------------------------------------------- hidden Markov models
def _assert_same_chain_stats(a, b):
    """Fields agree; the entropy of a chain is compared in total (its split over states is a convention)."""
    np.testing.assert_array_equal(a.uids, b.uids)
    for key in b.fields:
        np.testing.assert_allclose(a.fields[key], b.fields[key], rtol=1e-8, atol=1e-8, err_msg=key)
    assert a.elbo_terms["entropy"].sum() == pytest.approx(b.elbo_terms["entropy"].sum(), rel=1e-8)


def _hmm(case):
    model, data, params = case()
    return model, data, _after_vb_laps(model, data, params, laps=2)


@pytest.mark.parametrize("case", cases_with(WholeDataBirths))
def test_hmm_merge_delta(case):
    model, data, params = _hmm(case)
    pairs = params.uids[np.array([[0, 3], [1, 2]])]
    stats = model.summarize(data, model.local_step(params, data, merge_pairs=pairs), params.uids, merge_pairs=pairs)
    for columns, (kept, removed) in zip(([0, 3], [1, 2]), pairs):
        fast = stats.merge(kept, removed).without_merge_terms()
        brute = chain_stats(model, params, data, tuple(columns))
        _assert_same_chain_stats(fast, brute)
        _assert_same_delta(model, stats.without_merge_terms(), fast, brute, params)


@pytest.mark.parametrize("case", cases_with(WholeDataBirths))
def test_hmm_delete_delta(case):
    """One refinement step: the proposal is the exact q(z) of the chain without the target."""
    model, data, params = _hmm(case)
    local = model.local_step(params, data)
    stats = model.summarize(data, local, params.uids)
    target = int(params.uids[np.argmin(stats.counts)])
    proposal, _ = proposal_here(model, params, data, local, (target,), stats, stats, 1)
    brute = chain_stats(model, model.without_states(params, (target,)), data)
    _assert_same_chain_stats(proposal, brute)
    _assert_same_delta(model, stats, proposal, brute, params)


@pytest.mark.parametrize("case", cases_with(WholeDataBirths))
def test_hmm_birth_delta(case):
    """The birth's candidate, each batch expanded separately, is the exact q(z) under the expanded states."""
    model, data, params = _hmm(case)
    whole = model.summarize(data, model.local_step(params, data), params.uids)
    target, born = int(params.uids[1]), np.array([10, 11])
    centers = expfam.concat_components(expfam.select_components(params.obs, [1]),
                                       expfam.select_components(params.obs, [0, 2]))
    with np.errstate(divide="ignore"):
        log_weights = np.log([0.0, 0.4, 0.6])
    batches = [data.subset([0, 2]), data.subset([1, 3])]
    parts = model.birth_proposal(on_batches(batches), params, whole, target, centers, log_weights, born, 1)
    candidate = (parts[0] + parts[1]).without_merge_terms()
    expanded = expanded_params(model, params, whole, target, centers, log_weights, born)
    brute = chain_stats(model, expanded, data.subset([0, 2, 1, 3]))
    _assert_same_chain_stats(candidate, brute)
    _assert_same_delta(model, whole, candidate, brute, params)


# ---------------------------------------------------------------------------------------------- topic models
def _topics(case, **local):
    model, data, params = case()
    return replace(model, local=replace(model.local, **local)), data, params


@pytest.mark.parametrize("case",
                         cases_with(TrackedBirths, where=lambda case: not declares(case()[0], ItemResponsibilities)))
def test_topic_delete_delta(case):
    """One iteration, warm, no refinement: the proposal is a local step over the remaining topics
    (the planned merge pairs' terms included)."""
    model, data, params = _topics(case, max_iter=1, start="warm")
    local = model.local_step(params, data)
    stats = model.summarize(data, local, params.uids)
    targets, keep = tuple(params.uids[[0, 3]]), [1, 2, 4]
    pairs = params.uids[np.array([[1, 2]])]
    proposal, warm = proposal_here(model, params, data, local, targets, stats, stats, 1, pairs)
    current = model.without_topic(params, targets)
    brute_local = model.local_step(current, data, warm=local.doc_topic[:, keep], merge_pairs=pairs)
    brute = model.summarize(data, brute_local, current.uids, merge_pairs=pairs)
    assert_same_stats(proposal, brute)
    np.testing.assert_allclose(proposal.merge_entropy, brute.merge_entropy, rtol=1e-10)
    np.testing.assert_allclose(warm, brute_local.doc_topic)
    _assert_same_delta(model, stats, proposal, brute, params, rel=1e-12)


@pytest.mark.parametrize("case", cases_with(TrackedBirths, where=lambda case: isinstance(case()[0], TopicModel)
                                            and case()[0].local.n_active is None))
def test_topic_merge_delta(case):
    """Merged statistics from the gathered pair terms equal those of the merged token responsibilities."""
    model, data, params = _topics(case, tol=1e-11, max_iter=5000)
    kept, removed = int(params.uids[0]), int(params.uids[3])
    pairs = np.array([[kept, removed]])
    local = model.local_step(params, data, merge_pairs=pairs)
    stats = model.summarize(data, local, params.uids, merge_pairs=pairs)
    theta = local.doc_topic + local.prior[None, :]
    c = data.counts
    rows = np.repeat(np.arange(data.n_items), np.diff(c.indptr))
    joint = params.exp_loglik[c.indices] * np.exp(digamma(theta))[rows]
    resp = joint / joint.sum(axis=1, keepdims=True)  # per token, exact at the fixed point
    keep = [k for k in range(params.n_components) if k != 3]
    resp[:, 0] += resp[:, 3]
    resp = resp[:, keep]
    doc_topic, prior = local.doc_topic.copy(), local.prior.copy()
    doc_topic[:, 0] += doc_topic[:, 3]
    prior[0] += prior[3]
    word_topic = np.zeros((data.n_features, len(keep)))
    np.add.at(word_topic, c.indices, c.data[:, None] * resp)
    merged_local = TopicLocal(doc_topic[:, keep], prior[keep], local.prior_rest, word_topic,
                              -(c.data[:, None] * resp * np.log(resp)).sum(axis=0), local.n_iters, local.n_restarts)
    brute = model.summarize(data, merged_local, params.uids[keep])
    fast = stats.merge(kept, removed).without_merge_terms()
    assert_same_stats(fast, brute, rtol=1e-7)
    _assert_same_delta(model, stats.without_merge_terms(), fast, brute, params, rel=1e-8)
