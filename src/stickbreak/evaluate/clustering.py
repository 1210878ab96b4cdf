"""Clustering scores against reference labels."""

from __future__ import annotations

import numpy as np


def majority_vote_accuracy(labels_true, labels_pred) -> float:
    """Accuracy after mapping each cluster to its most frequent true label (Hughes 2016, §4.4)."""
    labels_true = np.asarray(labels_true)
    labels_pred = np.asarray(labels_pred)
    correct = 0
    for cluster in np.unique(labels_pred):
        members = labels_true[labels_pred == cluster]
        correct += np.max(np.unique(members, return_counts=True)[1])
    return correct / len(labels_true)


def cluster_label_table(labels_true, labels_pred) -> list[tuple[int, int, object, float]]:
    """``(cluster, size, majority label, purity)`` per non-empty cluster, largest first."""
    labels_true = np.asarray(labels_true)
    labels_pred = np.asarray(labels_pred)
    rows = []
    for cluster in np.unique(labels_pred):
        members = labels_true[labels_pred == cluster]
        values, counts = np.unique(members, return_counts=True)
        rows.append((int(cluster), len(members), values[np.argmax(counts)].item(), counts.max() / len(members)))
    return sorted(rows, key=lambda r: -r[1])
