"""Example calls of the truncation-free local steps (:mod:`stickbreak.kernels.warm`)."""

from .._example_args import f8, i8
from .local import (dp_minibatch_sample, dp_plugin_loglik, hdp_minibatch_sample, hdp_plugin_token_loglik,
                    stochastic_update)


def _minibatch():
    """``batch_vocabulary``'s output and the global state, as the samplers' Python entries pass them."""
    return i8(1), i8(2), i8(1), f8(1), f8(1, 1), f8(1), 1.0, 0.0, f8(1), f8(1), 0.0


def examples():
    return [
        (dp_minibatch_sample, (*_minibatch(), 1, 1, 0)),
        (hdp_minibatch_sample, (*_minibatch(), 0.0, 1, 1, 0)),
        (stochastic_update, (f8(1, 1), f8(1), 1.0, f8(1), f8(1), 0.0, 1, i8(1), f8(1, 1), f8(1), 0.0, 0.0)),
        (dp_plugin_loglik, (f8(1, 1), f8(1), i8(1), f8(1), i8(2), f8(1), f8(1), 1, 1)),
        (hdp_plugin_token_loglik, (f8(1, 1), f8(1), 0.0, i8(1), i8(1), i8(1), f8(2, 3)[:, :2], f8(1), 1,
                                   1)),  # doc_topic: a column slice
        (hdp_plugin_token_loglik, (f8(1, 1), f8(1), 0.0, i8(1), i8(1), i8(1), f8(1, 1), f8(1), 1,
                                   1)),  # the twin test's
    ]
