"""Example calls of the topic kernels (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import csr, csr64, f8, i8
from .dense import dense_token_share, topic_chunk
from .evaluate import fixed_point_chunk, heldout_loglik_chunk
from .kmeans_l1 import assign_chunk
from .sparse import PriorSelection, token_share, prior_selection, sparse_topic_chunk
from .two_level import sticks_chunk


def _chunk(n_active=None):
    """A chunk of the dense or L-sparse local step's arguments (as their Python entries pass them):
    the sparse one adds ``row_max`` after the likelihoods, and the prior selection and ``n_active``
    after ``start``."""
    likelihoods = (f8(2, 2),) if n_active is None else (f8(2, 2), f8(2))
    sparse = () if n_active is None else (PriorSelection(i8(0, 1), f8(0, 1), f8(0, 1), f8(0), f8(2), f8(2)), n_active)
    dense = (True,) if n_active is None else ()  # accelerate
    return (*csr(), *likelihoods, f8(2, 2), f8(2), 0.0, f8(2, 2), 0, *sparse, 1, 0.0, 0, i8(0, 2), 0, 1, f8(2, 2),
            f8(2), f8(0), i8(2), i8(2), f8(0, 2), *dense)


def examples():
    return [
        (topic_chunk, _chunk()),
        (sparse_topic_chunk, _chunk(1)),
        (dense_token_share, (*csr()[:2], f8(1, 1), f8(1, 1), 0)),
        (prior_selection, (f8(1, 1), f8(1), f8(1, 1), f8(1), 1)),
        (token_share, (*csr()[:2], f8(1, 1), f8(1), f8(1, 1), f8(1, 1), 0, 1)),
        (sticks_chunk, (*csr(), f8(1, 1), i8(1), f8(1), 1.0, 1, 1, 0.0, 2, 0, 1, f8(1, 1), f8(1), f8(1), f8(1), i8(1),
                        f8(0, 1))),
        (fixed_point_chunk, (*csr64(), f8(1, 1), f8(1), 1, 0.0, 0, 1, f8(1, 1), i8(1))),
        (heldout_loglik_chunk, (*csr64(), f8(1, 1), f8(1, 1), 0, 1, f8(1))),
        (assign_chunk, (*csr64(), f8(1, 1), f8(1), 0, 1, i8(1), f8(1))),
    ]
