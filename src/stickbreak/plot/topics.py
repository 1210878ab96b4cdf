"""Topic models (LDA, HDP, DILN): top words per topic, topic sizes, DILN's topic correlations; HDP
admixtures: topic sizes in items and each group's topic proportions."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ._figure import MAX_SHOWN, colours, largest, new_figure, plot_heatmap, plot_sizes


def plot_topic_words(estimator, n_words: int = 8, max_topics: int = MAX_SHOWN) -> Figure:
    """One small bar chart per used topic (largest first, at most ``max_topics``): its ``n_words``
    most probable words, titled with the topic's size in tokens."""
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
    """Tokens per used topic, largest first."""
    return plot_sizes(estimator.topic_sizes_, estimator.n_topics_, "topic", "tokens")


def plot_topic_correlation(estimator, max_topics: int = 30) -> Figure:
    """DILN's learned topic correlations among the ``max_topics`` largest topics (the paper's Figs. 4-6),
    labelled by each topic's top word."""
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
    """Items per used topic of an :class:`~stickbreak.HDPAdmixture`, largest first."""
    return plot_sizes(estimator.topic_counts_, estimator.n_active_topics_, "topic", "items")


def plot_group_topics(estimator, X, lengths=None, max_groups: int = 60, max_topics: int = MAX_SHOWN) -> Figure:
    """Each of the first ``max_groups`` groups' topic proportions (rows) over the ``max_topics``
    largest topics (columns, largest first): which topics each group mixes."""
    proportions = estimator.topic_proportions(X, lengths)[:max_groups]
    order = largest(estimator.topic_counts_, estimator.n_active_topics_, max_topics)
    return plot_heatmap(proportions[:, order], order, "topic (largest first)", "group",
                        f"Topic proportions of {len(proportions)} groups", 10.0,
                        min(0.12 * len(proportions) + 1.5, 8.0), aspect="auto", interpolation="nearest")
