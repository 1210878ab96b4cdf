"""Example calls of the topic kernels (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import csr, csr64, f8, i8
from .dense import dense_token_share, topic_local_step
from .evaluate import doc_heldout_loglik, doc_topic_fixed_point
from .kmeans_l1 import assign_l1
from .sparse import sparse_token_share, sparse_topic_local_step
from .two_level import hdp_sticks_local_step


def _local_step(doc_topic, n_active=None):
    """The dense or L-sparse local step's arguments (as :class:`~stickbreak.models.topics.model.LocalOptions` passes them)."""
    sparse = () if n_active is None else (n_active,)
    return (*csr(), f8(2, 2), f8(2, 2), f8(2), 0.0, doc_topic, 0, *sparse, 1, 0.0, 0, i8(0, 2), 1, f8(0, 2))


def examples():
    return [
        (topic_local_step, _local_step(f8(2, 2))),
        (topic_local_step, _local_step(f8(2, 2, order="F"))),  # a memoized warm start re-ordered by a move
        (sparse_topic_local_step, _local_step(f8(2, 2), 1)),
        (sparse_topic_local_step, _local_step(f8(2, 2, order="F"), 1)),
        (dense_token_share, (*csr()[:2], f8(1, 1), f8(1, 1), 0)),
        (sparse_token_share, (*csr()[:2], f8(1, 1), f8(1, 1), f8(1, 1), 0, 1)),
        (hdp_sticks_local_step, (*csr(), f8(1, 1), f8(1), 1.0, 1, 1, 0.0, 2, 1, f8(0, 1))),
        (doc_topic_fixed_point, (*csr64(), f8(1, 1), f8(1), 1, 0.0)),
        (doc_heldout_loglik, (*csr64(), f8(1, 1), f8(1, 1))),
        (assign_l1, (*csr64(), f8(1, 1), f8(1), 1)),
    ]
