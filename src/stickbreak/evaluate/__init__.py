"""Evaluation: held-out density and clustering scores, the same protocol for every model."""

from .clustering import cluster_label_table, majority_vote_accuracy
from .density import heldout_log_density, plugin_gaussian_log_density

__all__ = ["cluster_label_table", "heldout_log_density", "majority_vote_accuracy", "plugin_gaussian_log_density"]
