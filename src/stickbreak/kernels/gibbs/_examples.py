"""Example calls of the collapsed samplers' kernels (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import b1, csr, csr64, f8, i8
from . import buckets, dmm, hdp, lda


def examples():
    tokens = csr64()[:2]  # per-document token runs, built by the library: int64
    return [
        (lda.token_layout, (f8(1), 0.0)),
        (lda.build_counts, (*csr64(), b1(1), i8(1), i8(1), f8(1, 1), 1, 0)),
        (lda.sweep, (*csr64(), b1(1), i8(1), i8(1), f8(1, 1), f8(1, 1), f8(1, 1), f8(1), f8(1, 1), f8(1, 1), f8(1),
                     f8(1), 0.0, 0, 0)),
        (buckets.bucket_sweep, (*tokens, i8(1), i8(1), f8(1, 1), f8(1, 1), f8(1), f8(1), 0.0, 0.0, f8(1), 0.0, 0, 0)),
        (lda.predictive_probs, (*tokens, f8(1, 1), f8(1, 1), f8(1), f8(1), 0.0)),
        (lda.predictive_probs, (*csr()[:2], f8(1, 1), f8(1, 1), f8(1), f8(1), 0.0)),  # held-out CSR documents
        (hdp.table_counts, (f8(1, 1), f8(1), 0.0, 0)),
        (dmm.prior_evidences, (csr()[0], f8(1), f8(1), 0.1, 1)),
        (dmm.sweep, (*csr(), f8(1), f8(1), i8(1), f8(1, 1), f8(1), f8(1), 1, 1.0, 0, 0)),
        (hdp.predictive_probs, (*tokens, f8(1, 1), f8(1, 1), f8(1), f8(1), 0.0, 0.0, 0.0)),
        (hdp.predictive_probs, (csr()[0], i8(1), f8(1, 1), f8(1, 1), f8(1), f8(1), 0.0, 0.0, 0.0)),
    ]
