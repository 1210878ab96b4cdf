"""Options of the per-document topic fixed point, shared by every model on
:class:`~stickbreak.models.topics.documents.DocumentWeights`."""

from __future__ import annotations

from dataclasses import dataclass

from ...kernels.topics.dense import topic_local_step
from ...kernels.topics.sparse import sparse_topic_local_step

START_NAMES = ("scratch", "warm", "best")


@dataclass(frozen=True)
class LocalOptions:
    """The per-document fixed point (Alg. 5.1-5.2).

    At most ``max_iter`` iterations; stop when ``max_k |Delta N_dk| < tol``. The thesis uses 100
    and 0.05; 0.5 ran 2.5x faster on Wikipedia LDA (K=20, 10 laps) and scored as well held out
    (-7.843 vs -7.848 nats/word). ``n_restarts`` sparse restart proposals per document (bnpy's
    default for the HDP is 5). ``start``: ``"scratch"`` from the likelihood and prior weights,
    ``"warm"`` from the previous lap's counts (bnpy ``initDocTopicCountLP='memo'``), or ``"best"``
    of both by the document's ELBO. Warm and best never lower the ELBO, so batch and memoized VI
    are then provably monotone; but warm alone stays near its first-lap assignments (Wikipedia:
    0.08 nats/word worse held out) and best costs 1.5x scratch, so scratch, bnpy's default, is ours.
    ``n_chunks`` splits the documents over parallel threads. ``n_active`` (L): at most this many
    topics per word type of a document get a non-zero responsibility (Hughes 2016, Ch. 7 §7.3;
    :mod:`~stickbreak.kernels.topics.sparse`); ``None``, or at least the number of topics, is dense.
    ``accelerate``: the dense fixed point by SQUAREM (:func:`~stickbreak.kernels.topics.dense._accelerated`),
    else the plain iteration (the default; the measurements are in
    :func:`stickbreak.estimators._topic_plans.accelerated`).
    """

    max_iter: int = 100
    tol: float = 0.5
    n_restarts: int = 0
    start: str = "scratch"
    n_chunks: int = 1
    n_active: int | None = None
    accelerate: bool = False

    def __post_init__(self):
        if self.start not in START_NAMES:
            raise ValueError(f"start={self.start!r} is not valid; choose one of {list(START_NAMES)}")
        if self.n_active is not None and (isinstance(self.n_active, bool) or int(self.n_active) != self.n_active
                                          or self.n_active < 1):
            raise ValueError(f"n_active={self.n_active!r} is not valid; give a positive integer (or None: dense)")

    def sparse_for(self, n_topics: int) -> bool:
        """Whether the L-sparse kernel runs for ``n_topics`` topics."""
        return self.n_active is not None and self.n_active < n_topics

    def run(self, indptr, indices, counts, exp_loglik, centered_loglik, prior, prior_rest, doc_topic, start,
            n_restarts, pairs, doc_weight, max_iter=None, n_active=None):
        """The dense or L-sparse kernel (same arguments and outputs) for these options."""
        max_iter = self.max_iter if max_iter is None else max_iter
        n_active = self.n_active if n_active is None else n_active
        if n_active is not None and n_active < doc_topic.shape[1]:
            return sparse_topic_local_step(indptr, indices, counts, exp_loglik, centered_loglik, prior, prior_rest,
                                           doc_topic, start, int(n_active), max_iter, self.tol, n_restarts, pairs,
                                           self.n_chunks, doc_weight)
        return topic_local_step(indptr, indices, counts, exp_loglik, centered_loglik, prior, prior_rest, doc_topic,
                                start, max_iter, self.tol, n_restarts, pairs, self.n_chunks, doc_weight,
                                self.accelerate)
