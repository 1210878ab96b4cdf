"""Aligned Hamming distance of a predicted state sequence against a true segmentation."""

import itertools

import numpy as np
import pytest

from stickbreak.data import DataError
from stickbreak.evaluate import align_states, hamming_distance, segmentation_report


def test_permuted_labels_score_zero():
    rng = np.random.default_rng(0)
    true = rng.integers(0, 5, size=200)
    perm = np.array([3, 7, 0, 9, 4])  # a relabelling, with names outside 0..4
    pred = perm[true]
    assert hamming_distance(true, pred) == 0.0
    assert hamming_distance(true, pred, normalize=False) == 0.0
    assert align_states(true, pred) == {int(perm[k]): k for k in range(5)}


def test_small_example_by_hand():
    true = [0, 0, 0, 1, 1, 1, 2, 2]
    pred = [5, 5, 6, 6, 6, 6, 7, 5]
    # table (pred x true): 5 -> [2, 0, 1], 6 -> [1, 3, 0], 7 -> [0, 0, 1]; best: 5->0, 6->1, 7->2, 6 frames right
    assert align_states(true, pred) == {5: 0, 6: 1, 7: 2}
    assert hamming_distance(true, pred) == pytest.approx(2 / 8)
    assert hamming_distance(true, pred, normalize=False) == 2
    report = segmentation_report(true, pred)
    assert report == {"hamming": 0.25, "n_errors": 2, "n_frames": 8, "n_pred_states": 3, "n_true_labels": 3,
                      "mapping": {5: 0, 6: 1, 7: 2}}


def test_one_to_one_not_majority_vote():
    # both predicted states overlap true label 0 most; one-to-one forces the second onto label 1
    true = [0, 0, 0, 0, 1, 1]
    pred = [0, 0, 0, 1, 1, 1]
    assert align_states(true, pred) == {0: 0, 1: 1}
    assert hamming_distance(true, pred, normalize=False) == 1


def test_more_predicted_states_than_true_labels():
    true = [0] * 6 + [1] * 6
    pred = [0] * 4 + [1] * 2 + [2] * 5 + [3]
    mapping = align_states(true, pred)
    assert mapping == {0: 0, 1: None, 2: 1, 3: None}
    # the 2 frames of state 1 and the one of state 3 are errors
    assert hamming_distance(true, pred, normalize=False) == 3
    report = segmentation_report(true, pred)
    assert report["n_pred_states"] == 4 and report["n_true_labels"] == 2
    assert report["hamming"] == pytest.approx(3 / 12)


def test_fewer_predicted_states_than_true_labels():
    true = [0, 0, 1, 1, 2, 2]
    pred = [4, 4, 4, 4, 4, 4]
    assert align_states(true, pred) == {4: 0}
    assert hamming_distance(true, pred) == pytest.approx(4 / 6)


def test_state_matched_without_overlap_maps_to_none():
    # table: state 0 -> [3, 1], state 1 -> [1, 0]; the unique optimum pairs state 1 with label 1, which it never hits
    true = [0, 0, 0, 0, 1]
    pred = [0, 0, 0, 1, 0]
    assert align_states(true, pred) == {0: 0, 1: None}
    assert hamming_distance(true, pred, normalize=False) == 2


def test_list_of_sequences_is_pooled():
    true = [np.array([0, 0, 1]), np.array([1, 1, 2, 2])]
    pred = [np.array([2, 2, 0]), np.array([0, 0, 1, 2])]
    flat = hamming_distance(np.concatenate(true), np.concatenate(pred))
    assert hamming_distance(true, pred) == flat == pytest.approx(1 / 7)
    # a flat prediction is accepted against per-sequence truth too
    assert hamming_distance(true, np.concatenate(pred)) == flat


def test_foreground_only_ignores_negative_labels():
    true = np.array([-1, -1, 0, 0, 0, -2, 1, 1, -1])
    pred = np.array([7, 7, 3, 3, 3, 9, 4, 4, 3])
    assert hamming_distance(true, pred) > 0
    assert hamming_distance(true, pred, foreground_only=True) == 0.0
    report = segmentation_report(true, pred, foreground_only=True)
    assert report["n_frames"] == 5 and report["n_true_labels"] == 2 and report["n_pred_states"] == 2
    assert report["mapping"] == {3: 0, 4: 1}
    # the background frames would otherwise pull state 7 onto label -1
    assert align_states(true, pred)[7] == -1
    assert align_states(true, pred, foreground=true >= 0) == {3: 0, 4: 1}


def test_foreground_errors_counted_over_foreground():
    true = np.array([-1, 0, 0, 0, 1])
    pred = np.array([0, 0, 0, 1, 1])
    assert hamming_distance(true, pred, foreground_only=True, normalize=False) == 1
    assert hamming_distance(true, pred, foreground_only=True) == pytest.approx(1 / 4)


def _brute_force_matches(true, pred):
    """The most frames that any one-to-one (partial) matching of predicted states to true labels gets right."""
    true_values, pred_values = sorted(set(true)), sorted(set(pred))
    slots = true_values + [None] * len(pred_values)
    best = 0
    for choice in itertools.permutations(slots, len(pred_values)):
        mapping = dict(zip(pred_values, choice))
        best = max(best, sum(mapping[p] == t for t, p in zip(true, pred)))
    return best


@pytest.mark.parametrize("seed", range(12))
def test_optimal_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_true, n_pred = rng.integers(1, 5), rng.integers(1, 6)
    true = rng.integers(0, n_true, size=30).tolist()
    pred = rng.integers(0, n_pred, size=30).tolist()
    errors = hamming_distance(true, pred, normalize=False)
    assert errors == 30 - _brute_force_matches(true, pred)
    mapping = align_states(true, pred)
    assert sum(mapping[p] == t for t, p in zip(true, pred)) == 30 - errors
    matched = [v for v in mapping.values() if v is not None]
    assert len(matched) == len(set(matched))  # one-to-one


@pytest.mark.parametrize("true, pred, message", [
    ([0, 1, 2], [0, 1], "3 frames but pred_labels has 2"),
    ([], [], "true_labels is empty"),
    ([[0, 1], [1]], [[0], [1, 1]], "different sequence lengths"),
    (np.zeros((2, 2), int), np.zeros((2, 2), int), "1-D array"),
    ([np.array([0, 1]), np.zeros((2, 2))], [0, 1, 0, 1], r"true_labels\[1\]"),
])
def test_clear_errors(true, pred, message):
    with pytest.raises(DataError, match=message):
        hamming_distance(true, pred)


def test_no_foreground_frames_is_an_error():
    with pytest.raises(DataError, match="no foreground frames"):
        hamming_distance([-1, -2, -1], [0, 0, 1], foreground_only=True)
    with pytest.raises(DataError, match="selects no frames"):
        align_states([0, 1], [0, 1], foreground=np.array([False, False]))
    with pytest.raises(DataError, match="boolean mask"):
        align_states([0, 1], [0, 1], foreground=np.array([1, 0]))
