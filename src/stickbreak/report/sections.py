"""What a report shows for each kind of model: its figures and its K, chosen by the kind the
estimator declares (``report_kind``: "mixture", "topics", "diln", "hmm" or "admixture")."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from typing import Any, Callable

import matplotlib
import numba
import numpy as np
import scipy
import scipy.sparse as sp

from ..plot import (MAX_SHOWN, plot_admixture_sizes, plot_cluster_means, plot_cluster_sizes, plot_durations,
                   plot_group_topics, plot_projection, plot_state_sequences, plot_topic_correlation, plot_topic_sizes,
                   plot_topic_words, plot_trace, plot_transitions)
from .._version import __version__
from ..data import BagOfWords, Sequences


@dataclass(frozen=True)
class ReportData:
    """The data a report draws from (all optional): items, true labels, HMM sequence layout, image shape.

    Parameters
    ----------
    X : array-like, sparse matrix, BagOfWords or Sequences, optional
        The data the figures that need data are drawn from.
    labels : array-like of shape (n_frames,), optional
        True labels per frame, aligned to an HMM's states.
    lengths : array-like of int of shape (n_sequences,), optional
        Frames per sequence (or items per group) when ``X`` is one concatenated array.
    Xprev : array-like of shape (n_frames, n_features), optional
        Each frame's predecessor, for autoregressive HMMs.
    image_shape : tuple of int, optional
        The shape of one item as an image (mixture means drawn as images).

    Examples
    --------
    >>> from stickbreak import datasets
    >>> from stickbreak.report import ReportData
    >>> digits = datasets.load("digits")
    >>> data = ReportData(digits.X, labels=digits.labels, image_shape=(8, 8))
    >>> data.image_shape, data.lengths is None
    ((8, 8), True)
    """

    X: Any = None
    labels: Any = None
    lengths: Any = None
    Xprev: Any = None
    image_shape: tuple | None = None


def _mixture(est, data: ReportData) -> list:
    figures = [("Cluster sizes", plot_cluster_sizes(est))]
    if data.X is not None and data.image_shape is not None:
        figures.append(("Cluster means as images", plot_cluster_means(est, data.X, data.image_shape)))
    elif data.X is not None:
        figures.append(("Items by cluster (PCA)", plot_projection(est, data.X)))
    return figures


def _topics(est, data: ReportData) -> list:
    return [("Top words per topic", plot_topic_words(est)), ("Topic sizes", plot_topic_sizes(est))]


def _diln(est, data: ReportData) -> list:
    figures = _topics(est, data)
    if est.topic_correlation_ is not None:
        figures.append(("Topic correlations", plot_topic_correlation(est)))
    return figures


def _hmm(est, data: ReportData) -> list:
    figures = [("Transition matrix", plot_transitions(est))]
    if data.X is not None:
        layout = dict(lengths=data.lengths, Xprev=data.Xprev)
        figures += [("State sequences", plot_state_sequences(est, data.X, labels=data.labels, **layout)),
                    ("State durations", plot_durations(est, data.X, **layout))]
    return figures


def _admixture(est, data: ReportData) -> list:
    figures = [("Topic sizes", plot_admixture_sizes(est))]
    if data.X is not None:
        figures.append(("Topic proportions per group", plot_group_topics(est, data.X, data.lengths)))
    return figures


@dataclass(frozen=True)
class Kind:
    figures: Callable[[Any, ReportData], list]
    counts: Callable[[Any], tuple[int, int]]  # (K, K in use)
    heldout: Callable[[Any], Any] = lambda est: None  # a held-out score per lap, or None
    tables: Callable[[Any], dict] = lambda est: {}  # the kind's own {heading: table}, e.g. the top words


def _topic_counts(est):
    return len(est.topic_sizes_), est.n_topics_


def _top_words(est, n_topics: int = MAX_SHOWN, n_words: int = 10) -> dict:
    """The largest topics' top words as text (searchable, copyable): ``{"Top words": {topic: words}}``."""
    return {"Top words": {f"topic {t['topic']} ({t['size']:,.0f} tokens)": " ".join(str(w) for w, _ in t["words"])
            for t in est.top_words(n_words)[:n_topics]}}


KINDS = {
    "mixture": Kind(_mixture, lambda est: (est.n_components_, est.n_active_components_)),
    "topics": Kind(_topics, _topic_counts, lambda est: est.heldout_per_word_, _top_words),
    "diln": Kind(_diln, _topic_counts, lambda est: est.heldout_per_word_, _top_words),
    "hmm": Kind(_hmm, lambda est: (est.n_states_, est.n_active_states_)),
    "admixture": Kind(_admixture, lambda est: (est.n_topics_, est.n_active_topics_)),
}


def kind_tables(est) -> dict:
    return KINDS[est.report_kind].tables(est)


def figures(est, data: ReportData) -> list:
    """``[(caption, Figure)]``: the trace first, then the kind's own figures."""
    kind = KINDS[est.report_kind]
    return [("ELBO and K over laps", plot_trace(est, kind.heldout(est)))] + kind.figures(est, data)


def fit_facts(est) -> dict:
    """Stop reason, laps, K, final ELBO and timings of a fitted estimator."""
    n_components, n_used = KINDS[est.report_kind].counts(est)
    seconds = est.trace_[-1]["seconds"] if est.trace_ else float("nan")
    return {"model": type(est).__name__, "stop reason": est.stop_reason_, "laps": est.n_iter_,
            "K (components kept)": n_components, "K in use": n_used, "final ELBO (nats)": f"{est.lower_bound_:.6g}",
            "training time (s)": f"{seconds:.2f}",
            "time per lap (s)": f"{seconds / max(est.n_iter_, 1):.3f}"}


def data_facts(X, lengths=None) -> dict:
    """Shape and size of the data: documents and tokens, sequences and frames, or items.

    Parameters
    ----------
    X : array-like, sparse matrix, BagOfWords or Sequences
        The data.
    lengths : array-like of int of shape (n_sequences,), optional
        Frames per sequence when ``X`` is one array of concatenated frames (hmmlearn style).

    Returns
    -------
    dict
        ``documents``, ``vocabulary``, ``tokens`` for a BagOfWords; ``sequences``, ``frames``,
        ``features`` for sequences; ``rows``, ``columns``, ``total count`` for a sparse matrix;
        ``items``, ``features`` otherwise.

    Examples
    --------
    >>> from stickbreak import datasets
    >>> from stickbreak.report import data_facts
    >>> data_facts(datasets.load("old_faithful").X)
    {'items': 272, 'features': 2}
    >>> data_facts(datasets.load("mocap6").X)
    {'sequences': 6, 'frames': 2058, 'features': 12}
    """
    if isinstance(X, BagOfWords):
        return {"documents": X.n_items, "vocabulary": X.n_features, "tokens": int(X.total_counts.sum())}
    if isinstance(X, Sequences):
        return {"sequences": X.n_items, "frames": X.n_frames, "features": X.n_features}
    if lengths is not None:
        return {"sequences": len(lengths), "frames": int(np.sum(lengths)), "features": np.shape(X)[1]}
    if sp.issparse(X):
        return {"rows": X.shape[0], "columns": X.shape[1], "total count": float(X.sum())}
    shape = np.shape(X)
    return {"items": shape[0], "features": shape[1] if len(shape) > 1 else 1}


def versions() -> dict:
    return {"stickbreak": __version__, "numpy": np.__version__, "numba": numba.__version__,
            "scipy": scipy.__version__, "matplotlib": matplotlib.__version__, "python": platform.python_version()}
