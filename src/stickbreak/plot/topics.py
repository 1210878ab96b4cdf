"""Topic models (LDA, HDP, DILN): top words per topic, topic sizes, DILN's topic correlations; HDP
admixtures: topic sizes in items and each group's topic proportions."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ._figure import MAX_SHOWN, colours, largest, new_figure, plot_heatmap, plot_sizes


def plot_topic_words(estimator, n_words: int = 8, max_topics: int = MAX_SHOWN) -> Figure:
    """One small bar chart per used topic: its most probable words, titled with its size in tokens.

    Parameters
    ----------
    estimator : fitted topic model
        A model with ``top_words`` (LDA, HDPTopicModel, DILN); its topics come largest first.
    n_words : int, default=8
        The words shown per topic.
    max_topics : int, default=20
        The most topics shown.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import LDA, datasets, plot
    >>> X = datasets.load("ap").X[:200]
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X)
    >>> fig = plot.plot_topic_words(lda, n_words=5)
    >>> type(fig).__name__, len(fig.axes)
    ('Figure', 5)
    """
    topics = estimator.top_words(n_words)[:max_topics]
    fig, axes = new_figure(max(len(topics), 1), n_cols=4, width=12.0, row_height=0.28 * n_words + 0.9)
    for ax, topic, colour in zip(axes, topics, colours(len(topics))):
        words = [str(w) for w, _ in topic["words"]][::-1]
        ax.barh(np.arange(len(words)), [p for _, p in topic["words"]][::-1], color=colour)
        ax.set_yticks(np.arange(len(words)), words, fontsize=8)
        ax.tick_params(axis="x", labelsize=6)
        ax.xaxis.set_major_locator(MaxNLocator(3))
        ax.set_title(f"topic {topic['topic']}: {topic['size']:,.0f} tokens", fontsize=9)
    if not topics:
        axes[0].set_title("no topic in use")
    return fig


def plot_topic_sizes(estimator) -> Figure:
    """Tokens per used topic, largest first, as a bar chart.

    Parameters
    ----------
    estimator : fitted topic model
        A model with ``topic_sizes_`` and ``n_topics_`` (LDA, HDPTopicModel, DILN).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import LDA, datasets, plot
    >>> X = datasets.load("ap").X[:200]
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X)
    >>> type(plot.plot_topic_sizes(lda)).__name__
    'Figure'
    """
    return plot_sizes(estimator.topic_sizes_, estimator.n_topics_, "topic", "tokens")


def plot_topic_correlation(estimator, max_topics: int = 30) -> Figure:
    """DILN's learned topic correlations among the largest topics, labelled by each topic's top word.

    The correlation matrix ``topic_correlation_`` of the topics' latent locations, as in Paisley,
    Wang & Blei 2012, Figs. 4-6, on a diverging scale from -1 to 1.

    Parameters
    ----------
    estimator : fitted DILN
        A DILN fitted with ``correlated=True``.
    max_topics : int, default=30
        The most topics shown (the largest).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Raises
    ------
    ValueError
        If the model is the HDP special case (``correlated=False``), which has no correlations.

    Examples
    --------
    >>> from stickbreak import DILN, datasets, plot
    >>> X = datasets.load("ap").X[:200]
    >>> diln = DILN(n_topics=10, latent_dim=3, max_laps=3, random_state=0).fit(X)
    >>> type(plot.plot_topic_correlation(diln, max_topics=8)).__name__
    'Figure'
    """
    if estimator.topic_correlation_ is None:
        raise ValueError("the HDP special case (correlated=False) has no topic correlations")
    topics = estimator.top_words(1)[:max_topics]
    ids = [t["topic"] for t in topics]
    corr = estimator.topic_correlation_[np.ix_(ids, ids)]
    fig, (ax,) = new_figure(1, width=8.0, row_height=7.0)
    image = ax.imshow(corr, cmap="RdBu_r", vmin=-1, vmax=1)
    labels = [f"{t['topic']} {t['words'][0][0]}" for t in topics]
    ax.set_xticks(np.arange(len(ids)), labels, rotation=90, fontsize=7)
    ax.set_yticks(np.arange(len(ids)), labels, fontsize=7)
    ax.set_title(f"Topic correlations ({len(ids)} largest topics)")
    fig.colorbar(image, ax=ax, shrink=0.8, label="correlation")
    return fig


def plot_admixture_sizes(estimator) -> Figure:
    """Items per used topic of an :class:`~stickbreak.HDPAdmixture`, largest first, as a bar chart.

    Parameters
    ----------
    estimator : fitted HDPAdmixture
        The model (its ``topic_counts_`` of the ``n_active_topics_`` used topics).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import HDPAdmixture, datasets, plot
    >>> X = datasets.load("mocap6").X
    >>> model = HDPAdmixture(n_topics=5, max_laps=3, random_state=0).fit(X)
    >>> type(plot.plot_admixture_sizes(model)).__name__
    'Figure'
    """
    return plot_sizes(estimator.topic_counts_, estimator.n_active_topics_, "topic", "items")


def plot_group_topics(estimator, X, lengths=None, max_groups: int = 60, max_topics: int = MAX_SHOWN) -> Figure:
    """Each group's topic proportions as a heatmap: which topics each group mixes.

    Rows are the first ``max_groups`` groups (``estimator.topic_proportions``), columns the
    ``max_topics`` largest topics, largest first.

    Parameters
    ----------
    estimator : fitted HDPAdmixture
        The model.
    X : Sequences, array-like of shape (n_items, n_features) or list of array-like
        The grouped items, as passed to ``estimator.topic_proportions``.
    lengths : array-like of int of shape (n_groups,), optional
        Items per group when ``X`` is one array of concatenated groups.
    max_groups : int, default=60
        The most groups shown (the first ones).
    max_topics : int, default=20
        The most topics shown.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot: save it with ``fig.savefig``).

    Examples
    --------
    >>> from stickbreak import HDPAdmixture, datasets, plot
    >>> X = datasets.load("mocap6").X
    >>> model = HDPAdmixture(n_topics=5, max_laps=3, random_state=0).fit(X)
    >>> type(plot.plot_group_topics(model, X)).__name__
    'Figure'
    """
    proportions = estimator.topic_proportions(X, lengths)[:max_groups]
    order = largest(estimator.topic_counts_, estimator.n_active_topics_, max_topics)
    return plot_heatmap(proportions[:, order], order, "topic (largest first)", "group",
                        f"Topic proportions of {len(proportions)} groups", 10.0,
                        min(0.12 * len(proportions) + 1.5, 8.0), aspect="auto", interpolation="nearest")
