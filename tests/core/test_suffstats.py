"""SuffStats: additivity under any batch split, surgery by uid, merge = stats of merged labels."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from stickbreak.models.mixture.model import MixtureLocal
from stickbreak.models import make_mixture_model
from stickbreak.config import MixtureConfig
from stickbreak.core.suffstats import SuffStats

from conftest import ALL_FAMILIES, small_data

N_ITEMS = 24


def _model_and_data(name, seed=0):
    data = small_data(name, np.random.default_rng(seed), N_ITEMS)
    return make_mixture_model(MixtureConfig(obs_model=name), data), data


def _stats(model, data, resp):
    from stickbreak.kernels import RESP_FLOOR

    entropy = -(np.maximum(resp, RESP_FLOOR) * np.log(np.maximum(resp, RESP_FLOOR))).sum(axis=0)
    return model.summarize(data, MixtureLocal(resp, np.zeros(len(resp)), entropy))


def _assert_stats_close(a: SuffStats, b: SuffStats):
    np.testing.assert_array_equal(a.uids, b.uids)
    for group_a, group_b in ((a.fields, b.fields), (a.elbo_terms, b.elbo_terms)):
        assert group_a.keys() == group_b.keys()
        for key in group_a:
            np.testing.assert_allclose(group_a[key], group_b[key], rtol=1e-10, atol=1e-9, err_msg=key)
    for key in a.scalars:
        assert a.scalars[key] == pytest.approx(b.scalars[key], rel=1e-10, abs=1e-9)


@pytest.mark.parametrize("name", ALL_FAMILIES)
@given(assignment=st.lists(st.integers(0, 3), min_size=N_ITEMS, max_size=N_ITEMS))
def test_stats_additive_under_any_batch_split(name, assignment):
    model, data = _model_and_data(name)
    resp = np.random.default_rng(3).dirichlet(np.ones(4), size=N_ITEMS)
    whole = _stats(model, data, resp)
    assignment = np.array(assignment)
    parts = [
        _stats(model, data.subset(np.flatnonzero(assignment == b)), resp[assignment == b])
        for b in np.unique(assignment)
    ]
    _assert_stats_close(sum(parts[1:], parts[0]), whole)


@pytest.mark.parametrize("name", ALL_FAMILIES)
@given(labels=st.lists(st.integers(0, 4), min_size=N_ITEMS, max_size=N_ITEMS),
       pair=st.sampled_from([(0, 1), (3, 1), (4, 2)]))
def test_merged_stats_equal_stats_of_merged_labels(name, labels, pair):
    model, data = _model_and_data(name)
    labels = np.array(labels)
    resp = np.eye(5)[labels]
    a, b = pair
    stats = _stats(model, data, resp)
    stats = SuffStats(stats.uids, stats.fields, stats.elbo_terms, stats.scalars,
                      merge_pairs=[[a, b]], merge_entropy=[0.0])  # hard labels: merged entropy is 0
    merged = stats.merge(a, b)
    relabelled = np.where(labels == b, a, labels)
    keep = [k for k in range(5) if k != b]
    expected = _stats(model, data, np.eye(5)[relabelled][:, keep])
    expected = SuffStats(np.array(keep), expected.fields, expected.elbo_terms, expected.scalars)
    _assert_stats_close(merged, expected)


def _toy_stats(n_comp=4, pairs=()):
    rng = np.random.default_rng(0)
    return SuffStats(
        uids=np.arange(10, 10 + n_comp),
        fields={"N": rng.random(n_comp), "x": rng.random((n_comp, 2))},
        elbo_terms={"entropy": rng.random(n_comp)},
        scalars={"n_items": 5.0},
        merge_pairs=np.array(pairs, dtype=np.int64).reshape(-1, 2),
        merge_entropy=np.arange(len(pairs), dtype=float),
    )


def test_surgery_by_uid():
    s = _toy_stats(pairs=[(10, 11), (12, 13)])
    grown = s.insert_empty([20, 21])
    assert grown.uids.tolist() == [10, 11, 12, 13, 20, 21]
    np.testing.assert_array_equal(grown.fields["x"][4:], 0.0)
    removed = grown.remove(11)
    assert removed.uids.tolist() == [10, 12, 13, 20, 21]
    assert removed.merge_pairs.tolist() == [[12, 13]]  # the pair touching uid 11 is gone
    reordered = s.reorder([13, 12, 11, 10])
    np.testing.assert_array_equal(reordered.counts, s.counts[::-1])
    np.testing.assert_array_equal(reordered.reorder([10, 11, 12, 13]).fields["x"], s.fields["x"])
    merged = s.merge(12, 13)
    assert merged.uids.tolist() == [10, 11, 12]
    assert merged.counts[2] == pytest.approx(s.counts[2] + s.counts[3])
    assert merged.elbo_terms["entropy"][2] == s.pair_entropy(12, 13) == 1.0
    assert merged.merge_pairs.tolist() == [[10, 11]]


def test_arithmetic_scale_and_round_trip():
    s = _toy_stats(pairs=[(10, 12)])
    doubled = s + s
    np.testing.assert_allclose(doubled.fields["x"], s.scaled(2.0).fields["x"])
    assert doubled.scalars["n_items"] == 10.0 and doubled.merge_entropy[0] == 0.0
    np.testing.assert_allclose((doubled - s).counts, s.counts)
    assert sum([s, s, s]).scalars["n_items"] == 15.0
    back = SuffStats.from_arrays(s.to_arrays("p."), "p.")
    _assert_stats_close(back, s)
    np.testing.assert_array_equal(back.merge_pairs, s.merge_pairs)


def test_errors_name_the_problem():
    s = _toy_stats()
    with pytest.raises(ValueError, match="different components"):
        s + s.reorder([13, 12, 11, 10])
    with pytest.raises(KeyError, match="no component with uid 99"):
        s.remove(99)
    with pytest.raises(KeyError, match="no cached merge terms"):
        s.merge(10, 11)
    with pytest.raises(ValueError, match="unique"):
        SuffStats(uids=[1, 1], fields={"N": np.zeros(2)})
    with pytest.raises(ValueError, match="'N'"):
        SuffStats(uids=[1], fields={"x": np.zeros(1)})
    with pytest.raises(ValueError, match="leading axis"):
        SuffStats(uids=[1, 2], fields={"N": np.zeros(3)})


def test_merge_fields_replace_the_sum_and_survive_arithmetic_selection_and_saving():
    base = _toy_stats(pairs=[(10, 11), (12, 13)])
    s = base.with_merge_terms(base.merge_pairs, np.array([0.5, 0.25]), {"N": np.array([7.0, 9.0])})
    merged = s.merge(10, 11)
    assert merged.fields["N"][0] == 7.0  # the cached merged value, not N_10 + N_11
    np.testing.assert_allclose(merged.fields["x"][0], s.fields["x"][0] + s.fields["x"][1])
    assert merged.elbo_terms["entropy"][0] == 0.5
    assert merged.merge_fields["N"].tolist() == [9.0] and merged.merge_pairs.tolist() == [[12, 13]]
    doubled = (s + s).scaled(0.5)
    np.testing.assert_allclose(doubled.merge_fields["N"], [7.0, 9.0])
    assert s.select([12, 13, 10]).merge_fields["N"].tolist() == [9.0]
    again = SuffStats.from_arrays(s.to_arrays("p."), "p.")
    np.testing.assert_array_equal(again.merge_fields["N"], s.merge_fields["N"])
    assert s.without_merge_terms().merge_fields == {}
    with pytest.raises(ValueError, match="merge field 'nope' must name a field"):
        base.with_merge_terms(base.merge_pairs, np.zeros(2), {"nope": np.zeros(2)})
    with pytest.raises(ValueError, match="different merge pairs"):
        s + base


def test_statistics_without_some_fields_share_the_rest_and_merge_alike():
    """A merge judged from two rows carries the statistics without their wide fields: the other
    fields are the same arrays, and merging the narrow statistics gives the full merge's fields."""
    s = _toy_stats(pairs=[(10, 11), (12, 13)])
    s = s.with_merge_terms(s.merge_pairs, s.merge_entropy, {"x": np.zeros((2, 2)).ravel()[:2]})
    narrow = s.without_fields(("x",))
    assert list(narrow.fields) == ["N"] and narrow.fields["N"] is s.fields["N"] and narrow.merge_fields == {}
    full, merged = s.merge(12, 13), narrow.merge(12, 13)
    np.testing.assert_array_equal(merged.counts, full.counts)
    np.testing.assert_array_equal(merged.elbo_terms["entropy"], full.elbo_terms["entropy"])
    with pytest.raises(ValueError, match="'N' cannot be dropped"):
        s.without_fields(("N",))
