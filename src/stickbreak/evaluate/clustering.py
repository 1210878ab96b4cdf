"""Clustering scores against reference labels."""

from __future__ import annotations

import numpy as np

from ..core.docstrings import composed

#: numpydoc text of the labels both scores take, their ``$labels`` (:func:`._docstrings.composed`).
LABELS = """labels_true : array-like of shape (n_items,)
        The reference labels.
    labels_pred : array-like of shape (n_items,)
        The cluster of each item (e.g. ``estimator.predict(X)``)."""


@composed(labels=LABELS)
def majority_vote_accuracy(labels_true, labels_pred) -> float:
    """Accuracy after mapping each cluster to its most frequent true label (Hughes 2016, §4.4).

    Several clusters may map to the same label, so more clusters never lower the score (every
    item its own cluster scores 1); compare models with similar numbers of clusters.

    Parameters
    ----------
    $labels

    Returns
    -------
    float
        The fraction of items whose cluster's majority label is their own, in (0, 1].

    See Also
    --------
    cluster_label_table : The majority label and purity of each cluster.

    Examples
    --------
    >>> from stickbreak.evaluate import majority_vote_accuracy
    >>> print(majority_vote_accuracy([0, 0, 1, 1, 1], [5, 5, 5, 7, 7]))
    0.8
    """
    labels_true = np.asarray(labels_true)
    labels_pred = np.asarray(labels_pred)
    correct = 0
    for cluster in np.unique(labels_pred):
        members = labels_true[labels_pred == cluster]
        correct += int(np.max(np.unique(members, return_counts=True)[1]))
    return correct / len(labels_true)


@composed(labels=LABELS)
def cluster_label_table(labels_true, labels_pred) -> list[tuple[int, int, object, float]]:
    """``(cluster, size, majority label, purity)`` per non-empty cluster, largest first.

    Parameters
    ----------
    $labels

    Returns
    -------
    list of tuple (int, int, object, float)
        One row per cluster that holds an item: its id, its number of items, its most frequent
        true label (the smallest on a tie) and the fraction of its items carrying that label;
        sorted by size, largest first.

    Examples
    --------
    >>> from stickbreak.evaluate import cluster_label_table
    >>> for row in cluster_label_table([0, 0, 1, 1, 1], [5, 5, 5, 7, 7]):
    ...     print(row[:3], round(row[3], 2))
    (5, 3, 0) 0.67
    (7, 2, 1) 1.0
    """
    labels_true = np.asarray(labels_true)
    labels_pred = np.asarray(labels_pred)
    rows = []
    for cluster in np.unique(labels_pred):
        members = labels_true[labels_pred == cluster]
        values, counts = np.unique(members, return_counts=True)
        rows.append((int(cluster), len(members), values[np.argmax(counts)].item(), counts.max() / len(members)))
    return sorted(rows, key=lambda r: -r[1])
