"""Evaluation: held-out density, clustering and topic-model scores, the same protocol for every model."""

from .clustering import cluster_label_table, majority_vote_accuracy
from .completion_mc import MonteCarloCompletion, completion_monte_carlo, model_completion
from .density import heldout_log_density, plugin_gaussian_log_density
from .likelihood import HeldoutScore, dp_heldout_loglik, hdp_importance_loglik
from .segmentation import align_states, hamming_distance, segmentation_report
from .coherence import mean_coherence, topic_coherence
from .splitting import split_documents
from .topics import (CompletionScore, completion_from_split, document_completion, heldout_loglik, infer_doc_topics,
                     perplexity)

__all__ = [
    "CompletionScore",
    "HeldoutScore",
    "MonteCarloCompletion",
    "align_states",
    "cluster_label_table",
    "completion_from_split",
    "completion_monte_carlo",
    "document_completion",
    "dp_heldout_loglik",
    "hamming_distance",
    "hdp_importance_loglik",
    "heldout_log_density",
    "heldout_loglik",
    "infer_doc_topics",
    "majority_vote_accuracy",
    "mean_coherence",
    "model_completion",
    "perplexity",
    "plugin_gaussian_log_density",
    "segmentation_report",
    "split_documents",
    "topic_coherence",
]
