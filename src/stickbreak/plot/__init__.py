"""Figures of fitted models: each function takes a fitted estimator (and data where needed) and
returns a :class:`matplotlib.figure.Figure`, drawn without pyplot (no window, no global state)."""

from ._figure import MAX_SHOWN
from .hmm import plot_durations, plot_state_sequences, plot_transitions
from .mixture import plot_cluster_means, plot_cluster_sizes, plot_projection
from .topics import (plot_admixture_sizes, plot_group_topics, plot_topic_correlation, plot_topic_sizes,
                     plot_topic_words)
from .trace import accepted_moves, plot_trace

__all__ = ["MAX_SHOWN", "accepted_moves", "plot_admixture_sizes", "plot_group_topics", "plot_cluster_means",
           "plot_cluster_sizes", "plot_durations", "plot_projection",
           "plot_state_sequences", "plot_topic_correlation", "plot_topic_sizes", "plot_topic_words", "plot_trace",
           "plot_transitions"]
