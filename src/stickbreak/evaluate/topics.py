"""Held-out document completion: one protocol for every topic model.

Document completion (Hughes 2016, Eq. 5.59; peers.md §3.2; Hoffman et al./Wang et al. SVI §4):

1. split each test document into an observed and a held-out part (:func:`split_documents`),
2. estimate theta_d from the observed part with the topics Phi fixed (:func:`infer_doc_topics`),
3. score ``sum log sum_k theta_dk phi_kw`` over the held-out tokens / their number (nats per word).

Only Phi (K x V) is needed, so our estimators and any peer library are scored identically. The
splitting lives in :mod:`.splitting` and topic coherence in :mod:`.coherence`; both are
re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..data import DataError
from ..kernels.topics.evaluate import doc_heldout_loglik, doc_topic_fixed_point
from ._checks import check_vocabulary, checked_counts, checked_prior, checked_topic_word
from .coherence import COHERENCE_MEASURES, mean_coherence, topic_coherence
from .splitting import SPLIT_MODES, split_documents

__all__ = ["COHERENCE_MEASURES", "SPLIT_MODES", "CompletionScore", "completion_from_split", "document_completion",
           "heldout_loglik", "infer_doc_topics", "mean_coherence", "perplexity", "split_documents", "topic_coherence"]


def _triplets(X: sp.csr_matrix):
    return X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64)


def _infer(phi: np.ndarray, observed: sp.csr_matrix, prior, max_iter: int, tol: float) -> np.ndarray:
    if int(max_iter) < 1 or not tol >= 0:
        raise DataError(f"need max_iter >= 1 and tol >= 0, got max_iter={max_iter}, tol={tol}.")
    a = checked_prior(prior, phi.shape[0])
    theta, _ = doc_topic_fixed_point(*_triplets(observed), np.ascontiguousarray(phi.T), a,  # type: ignore[call-arg]
                                     int(max_iter), float(tol))  # (numba's Dispatcher stub hides the signature)
    return theta


def infer_doc_topics(topic_word, observed, prior=None, max_iter: int = 500, tol: float = 1e-7) -> np.ndarray:
    """Each document's topic proportions theta from its observed counts with the topics Phi fixed.

    The EM fixed point of peers.md §3.2 (step 2 of document completion, Hughes 2016, Eq. 5.59):
    ``theta_dk <- (a_k + theta_dk sum_w n_dw phi_kw / sum_j theta_dj phi_jw) / (sum_k a_k + N_d)``,
    started uniform, until ``max |delta theta| < tol`` or ``max_iter``: the MAP of theta_d under a
    Dirichlet(1 + a) prior. Rows of ``topic_word`` are renormalised; a document with no observed
    words gets the prior mean ``a / sum(a)``.

    Parameters
    ----------
    topic_word : array-like of shape (n_topics, n_words) or fitted topic model
        Topic-word weights (rows renormalised to probabilities), or a model with ``topic_word_``.
    observed : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words)
        The observed counts of each document (non-negative; empty documents allowed).
    prior : float or array-like of shape (n_topics,), optional
        The Dirichlet parameter a (positive). Default ``1 / n_topics`` for every topic (total mass
        1, so unused truncation levels of an HDP cost almost nothing).
    max_iter : int, default=500
        The most fixed-point iterations.
    tol : float, default=1e-7
        Stop once no entry of theta changes by more than this.

    Returns
    -------
    ndarray of shape (n_documents, n_topics)
        Each document's topic proportions (rows sum to one).

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> X = datasets.load("ap").X
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X[:200])
    >>> import numpy as np
    >>> from stickbreak.evaluate import infer_doc_topics
    >>> theta = infer_doc_topics(lda.topic_word_, X[200:210])
    >>> theta.shape, bool(np.allclose(theta.sum(axis=1), 1.0))
    ((10, 5), True)
    """
    phi = checked_topic_word(topic_word)
    observed = checked_counts(observed, "observed")
    check_vocabulary(phi, observed, "observed")
    return _infer(phi, observed, prior, max_iter, tol)


def _loglik(phi: np.ndarray, theta: np.ndarray, heldout: sp.csr_matrix) -> tuple[float, int]:
    per_doc = doc_heldout_loglik(*_triplets(heldout), np.ascontiguousarray(phi.T),  # type: ignore[call-arg]
                                 np.ascontiguousarray(theta))  # (numba's Dispatcher stub hides the signature)
    return float(per_doc.sum()), int(round(heldout.data.sum()))


def heldout_loglik(topic_word, theta, heldout) -> tuple[float, int]:
    """``(sum over held-out tokens of log sum_k theta_dk phi_kw, number of held-out tokens)``.

    The numerator of Hughes 2016, Eq. 5.59 (step 3 of document completion). Rows of
    ``topic_word`` and ``theta`` are renormalised. ``-inf`` if a held-out word has probability
    zero under every topic (smooth Phi to avoid it).

    Parameters
    ----------
    topic_word : array-like of shape (n_topics, n_words) or fitted topic model
        Topic-word weights (rows renormalised to probabilities), or a model with ``topic_word_``.
    theta : array-like of shape (n_documents, n_topics)
        Each document's topic proportions (non-negative, positive row sums), e.g. from
        :func:`infer_doc_topics` on the observed part.
    heldout : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words)
        The held-out counts of the same documents.

    Returns
    -------
    total : float
        The summed log-likelihood of the held-out tokens, in nats.
    n_tokens : int
        The number of held-out tokens (sum of the counts, rounded).

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> X = datasets.load("ap").X
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X[:200])
    >>> from stickbreak.evaluate import heldout_loglik, infer_doc_topics, split_documents
    >>> observed, heldout = split_documents(X[200:250], seed=0)
    >>> theta = infer_doc_topics(lda.topic_word_, observed)
    >>> total, n_tokens = heldout_loglik(lda.topic_word_, theta, heldout)
    >>> bool(total < 0), n_tokens == int(heldout.sum())
    (True, True)
    """
    phi = checked_topic_word(topic_word)
    heldout = checked_counts(heldout, "heldout")
    check_vocabulary(phi, heldout, "heldout")
    theta = np.array(theta, dtype=np.float64)
    if theta.shape != (heldout.shape[0], phi.shape[0]):
        raise DataError(f"theta has shape {theta.shape}; expected (n_documents, n_topics) = "
                        f"{(heldout.shape[0], phi.shape[0])} to match heldout and topic_word.")
    totals = theta.sum(axis=1)
    if not np.isfinite(theta).all() or (theta < 0).any() or (totals <= 0).any():
        raise DataError("theta must be finite and non-negative with a positive sum in every row.")
    return _loglik(phi, theta / totals[:, None], heldout)


def perplexity(per_word: float) -> float:
    """Perplexity ``exp(-per_word)`` from a mean log-likelihood per token in nats.

    Parameters
    ----------
    per_word : float
        The mean log-likelihood per token, in nats (as ``per_word`` of the scores).

    Returns
    -------
    float
        The perplexity (lower is better).

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak.evaluate import perplexity
    >>> bool(np.isclose(perplexity(-np.log(1000.0)), 1000.0))
    True
    """
    return float(np.exp(-per_word))


@dataclass(frozen=True)
class CompletionScore:
    """Held-out document completion score (Hughes 2016, Eq. 5.59): higher ``per_word`` is better.

    Returned by :func:`document_completion` and :func:`completion_from_split`.

    Parameters
    ----------
    per_word : float
        The mean log-likelihood per held-out token, in nats.
    n_heldout_tokens : int
        The number of held-out tokens scored.
    n_documents : int
        The documents with at least one held-out token (the ones scored).
    mode : str
        How the documents were split: ``"tokens"``, ``"types"``, or ``"given"`` (a split
        passed to :func:`completion_from_split`).

    Attributes
    ----------
    perplexity : float
        ``exp(-per_word)``.

    Examples
    --------
    >>> from stickbreak.evaluate import CompletionScore
    >>> score = CompletionScore(per_word=-7.5, n_heldout_tokens=1200, n_documents=40, mode="tokens")
    >>> round(score.perplexity, 1)
    1808.0
    """

    per_word: float  # mean log-likelihood per held-out token, nats
    n_heldout_tokens: int
    n_documents: int  # documents with at least one held-out token (the ones scored)
    mode: str
    perplexity: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "perplexity", perplexity(self.per_word))


def completion_from_split(topic_word, observed, heldout, prior=None, *, mode: str = "given") -> CompletionScore:
    """Document completion of ``topic_word`` on an existing split (steps 2 and 3 of Hughes 2016, Eq. 5.59).

    Split once with :func:`split_documents` and score many models on it (the benchmark does this):
    theta is inferred from ``observed`` by :func:`infer_doc_topics` (500 iterations, tol 1e-7) and
    the held-out tokens scored by :func:`heldout_loglik`. Documents with no held-out tokens are
    ignored; those with an empty observed part use the prior mean.

    Parameters
    ----------
    topic_word : array-like of shape (n_topics, n_words) or fitted topic model
        Topic-word weights (rows renormalised to probabilities), or a model with ``topic_word_``.
    observed : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words)
        The observed parts of the test documents.
    heldout : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words)
        Their held-out parts.
    prior : float or array-like of shape (n_topics,), optional
        The Dirichlet parameter of :func:`infer_doc_topics` (default ``1 / n_topics``).
    mode : str, default="given"
        Recorded in the score's ``mode`` (e.g. the mode the split was made with).

    Returns
    -------
    CompletionScore
        The mean log-likelihood per held-out token and the counts scored.

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> X = datasets.load("ap").X
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X[:200])
    >>> from stickbreak.evaluate import completion_from_split, split_documents
    >>> observed, heldout = split_documents(X[200:250], seed=0)
    >>> score = completion_from_split(lda, observed, heldout, mode="tokens")
    >>> score.n_documents, bool(score.per_word < 0)
    (50, True)
    """
    phi = checked_topic_word(topic_word)
    observed, heldout = checked_counts(observed, "observed"), checked_counts(heldout, "heldout")
    check_vocabulary(phi, observed, "observed")
    check_vocabulary(phi, heldout, "heldout")
    if observed.shape[0] != heldout.shape[0]:
        raise DataError(f"observed has {observed.shape[0]} documents but heldout has {heldout.shape[0]}; "
                        "pass both parts of the same split_documents call.")
    scored = np.flatnonzero(np.diff(heldout.indptr) > 0)
    if len(scored) == 0:
        raise DataError("heldout has no tokens; use a larger heldout_fraction or longer documents.")
    observed, heldout = observed[scored], heldout[scored]
    theta = _infer(phi, observed, prior, 500, 1e-7)
    total, n_tokens = _loglik(phi, theta, heldout)
    return CompletionScore(total / n_tokens, n_tokens, len(scored), mode)


def document_completion(model_or_topic_word, X, mode: str = "tokens", heldout_fraction: float = 0.5,
                        seed=0, prior=None) -> CompletionScore:
    """Held-out document completion of test documents ``X``: split, infer theta, score.

    The protocol of Hughes 2016, Eq. 5.59 (the document completion of Wallach et al. 2009, as
    used for stochastic VI by Hoffman et al. 2013, §4): each document is split by
    :func:`split_documents`, its topic proportions inferred from the observed part with the
    topics fixed (:func:`infer_doc_topics`), and the held-out part scored:
    ``per_word = sum_d sum_{w in heldout_d} log sum_k theta_dk phi_kw / N_heldout``. Only the
    topics are needed, so any library's topic model is scored the same way.

    Parameters
    ----------
    model_or_topic_word : fitted topic model or array-like of shape (n_topics, n_words)
        A model with ``topic_word_``, or topic-word weights (rows renormalised).
    X : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words)
        The test documents' counts (raw counts for ``mode="tokens"``).
    mode : {"tokens", "types"}, default="tokens"
        Hold out random tokens, or random word types with all their tokens.
    heldout_fraction : float, default=0.5
        The fraction of each document held out, in (0, 1).
    seed : int or numpy.random.Generator, default=0
        The randomness of the split.
    prior : float or array-like of shape (n_topics,), optional
        The Dirichlet parameter of :func:`infer_doc_topics` (default ``1 / n_topics``).

    Returns
    -------
    CompletionScore
        The mean log-likelihood per held-out token (higher is better), with its perplexity.

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> X = datasets.load("ap").X
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X[:200])
    >>> from stickbreak.evaluate import document_completion
    >>> score = document_completion(lda, X[200:250], seed=0)
    >>> score.mode, score.n_documents, bool(score.per_word < 0), bool(score.perplexity > 1)
    ('tokens', 50, True, True)
    """
    phi = checked_topic_word(model_or_topic_word)
    X = checked_counts(X, "X")
    check_vocabulary(phi, X, "X")
    observed, heldout = split_documents(X, mode, heldout_fraction, seed)
    return completion_from_split(phi, observed, heldout, prior, mode=mode)
