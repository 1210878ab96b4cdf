"""Document completion by Monte Carlo over the variational posterior (Paisley, Wang & Blei 2012, §5.1).

A test document is split into an observed part ``X'`` and a held-out part ``X''``; the model fits the
document's ``q`` on ``X'`` with its corpus-level parameters fixed, and

    p(X'' | X') = E_q [ prod_n sum_k eta_{k, x_n} Z_k / sum_j Z_j ]                       (Eq. 40)

is estimated with i.i.d. draws ``Z ~ q(Z_d)`` (independent Gammas; a Dirichlet ``q(pi_d)`` is the case
rate = 1) and ``eta ~ q(eta) = prod_k Dir(lam_k)``. ``per_word = sum_d log p_d / sum_d N''_d`` is minus
the log perplexity of Eq. 41, pooled over documents (the digest's reading); the mean of the documents'
own per-word values is reported too. Only the variational distributions are needed, so DILN, the HDP
and LDA are scored by the same code (:func:`model_completion` takes any estimator with
``doc_topic_posterior`` and ``components_``).

Each draw of ``eta`` is shared by all documents (each document's estimate stays unbiased for its own
``p``), and only the held-out word types ``W`` are drawn: ``eta_kv = G_kv / (sum_{v in W} G_kv + R_k)`` with
``G_kv ~ Gamma(lam_kv)`` and one ``R_k ~ Gamma(sum_{v not in W} lam_kv)``, exactly the Dirichlet marginal.
The estimate of ``p`` is unbiased; that of ``log p`` is biased low (Jensen) and rises with ``n_samples``,
so compare models at equal ``n_samples``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..data import DataError
from ..kernels.chunked import thread_budget
from ..kernels.evaluate.completion_mc import sampled_loglik
from ._checks import check_vocabulary, checked_counts
from .splitting import split_documents
from .topics import perplexity


@dataclass(frozen=True)
class MonteCarloCompletion:
    """Monte Carlo document completion score (Paisley et al. 2012, Eqs. 40-41): higher ``per_word`` is better.

    Returned by :func:`completion_monte_carlo` and :func:`model_completion`.

    Parameters
    ----------
    per_word : float
        ``sum_d log p_d / sum_d N''_d``, nats per held-out token (minus the log perplexity of Eq. 41).
    per_word_doc_mean : float
        The mean over documents of their own ``log p_d / N''_d``.
    total : float
        ``sum_d log p_d``.
    n_tokens : int
        The number of held-out tokens scored.
    n_documents : int
        The documents with at least one held-out token (the ones scored).
    n_samples : int
        The Monte Carlo draws per document.
    per_document : ndarray of shape (n_documents,)
        Each scored document's estimate of ``log p(X'' | X')``.

    Attributes
    ----------
    perplexity : float
        ``exp(-per_word)``.

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak.evaluate import MonteCarloCompletion
    >>> score = MonteCarloCompletion(-8.0, -8.1, -800.0, 100, 2, 50, np.array([-500.0, -300.0]))
    >>> round(score.perplexity)
    2981
    """

    per_word: float  # sum_d log p_d / sum_d N''_d
    per_word_doc_mean: float  # mean over documents of log p_d / N''_d
    total: float
    n_tokens: int
    n_documents: int  # documents with at least one held-out token (the ones scored)
    n_samples: int
    per_document: np.ndarray = field(repr=False)
    perplexity: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "perplexity", perplexity(self.per_word))


def _positive(name: str, value, shape) -> np.ndarray:
    arr = np.array(value, dtype=np.float64)
    try:
        arr = np.broadcast_to(arr, shape).copy()
    except ValueError:
        raise DataError(f"{name} has shape {np.shape(value)}; expected {shape} (or broadcastable to it).") from None
    if not np.isfinite(arr).all() or (arr <= 0).any():
        raise DataError(f"{name} must be finite and positive (the parameters of a Gamma or Dirichlet q); "
                        "floor tiny values, e.g. np.maximum(x, 1e-300).")
    return arr


def _check_samples(n_samples) -> int:
    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise DataError(f"n_samples must be an integer >= 1, got {n_samples!r}.")
    return int(n_samples)


def completion_monte_carlo(topic_dirichlet, doc_shape, doc_rate, heldout, n_samples: int = 100,
                           seed=0) -> MonteCarloCompletion:
    """Estimate ``p(X'' | X')`` of each test document by Monte Carlo over ``q`` (Paisley et al. 2012, Eq. 40).

    ``p(X'' | X') = E_q [prod_n sum_k eta_{k, x_n} Z_k / sum_j Z_j]`` with independent draws
    ``Z_d ~ q(Z_d)`` and ``eta ~ q(eta)`` (one ``eta`` draw shared by all documents per sample),
    averaged in probability (``log mean``). Documents without held-out tokens are skipped. The
    estimate of ``p`` is unbiased, that of ``log p`` biased low, rising with ``n_samples``: compare
    models at equal ``n_samples``.

    Parameters
    ----------
    topic_dirichlet : array-like of shape (n_topics, n_words)
        The parameters of ``q(eta_k) = Dir(topic_dirichlet[k])`` (positive), e.g. ``components_``.
    doc_shape : array-like of shape (n_documents, n_topics)
        The shapes of ``q(Z_dk) = Gamma(doc_shape[d, k], doc_rate[d, k])``, fitted on the observed part X'.
    doc_rate : float or array-like of shape (n_documents, n_topics) or (n_documents, 1)
        Their rates (1 for a Dirichlet ``q(pi_d)``).
    heldout : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words)
        The held-out counts X''.
    n_samples : int, default=100
        The Monte Carlo draws, at least 1.
    seed : int or numpy.random.Generator, default=0
        The randomness of the draws.

    Returns
    -------
    MonteCarloCompletion
        The pooled and per-document scores.

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> from stickbreak.evaluate import completion_monte_carlo, split_documents
    >>> X = datasets.load("ap").X
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X[:200])
    >>> observed, heldout = split_documents(X[200:250], seed=0)
    >>> shape, rate = lda.doc_topic_posterior(observed)
    >>> score = completion_monte_carlo(lda.components_, shape, rate, heldout, n_samples=20)
    >>> score.n_documents, score.per_document.shape, bool(score.per_word < 0)
    (50, (50,), True)
    """
    lam = _positive("topic_dirichlet", topic_dirichlet, np.shape(topic_dirichlet))
    if lam.ndim != 2:
        raise DataError(f"topic_dirichlet must be (n_topics, vocabulary_size), got shape {lam.shape}.")
    heldout = checked_counts(heldout, "heldout")
    check_vocabulary(lam, heldout, "heldout")
    shape = _positive("doc_shape", doc_shape, (heldout.shape[0], lam.shape[0]))
    rate = _positive("doc_rate", doc_rate, shape.shape)
    n_samples = _check_samples(n_samples)
    scored = np.flatnonzero(np.diff(heldout.indptr) > 0)
    if len(scored) == 0:
        raise DataError("heldout has no tokens; use a larger heldout_fraction or longer documents.")
    heldout, shape, rate = heldout[scored], shape[scored], rate[scored]
    words, local = np.unique(heldout.indices, return_inverse=True)
    rest = np.maximum(lam.sum(axis=1) - lam[:, words].sum(axis=1), 0.0)
    rng = np.random.default_rng(seed)
    indptr, counts = heldout.indptr.astype(np.int64), heldout.data.astype(np.float64)
    local = local.astype(np.int64)
    chunks = 4 * thread_budget()
    acc = np.full(len(scored), -np.inf)
    for _ in range(n_samples):
        draws = rng.standard_gamma(lam[:, words])
        eta_t = np.ascontiguousarray((draws / (draws.sum(axis=1) + rng.standard_gamma(rest))[:, None]).T)
        seeds = rng.integers(0, 2**63 - 1, size=len(scored), dtype=np.int64)
        np.logaddexp(acc, sampled_loglik(indptr, local, counts, eta_t, shape, rate, seeds, chunks), out=acc)
    per_doc = acc - np.log(n_samples)
    lengths = np.asarray(heldout.sum(axis=1)).ravel()
    return MonteCarloCompletion(float(per_doc.sum() / lengths.sum()), float(np.mean(per_doc / lengths)),
                                float(per_doc.sum()), int(round(lengths.sum())), len(scored), n_samples, per_doc)


def model_completion(estimator, X=None, *, observed=None, heldout=None, heldout_fraction: float = 0.5, seed=0,
                     n_samples: int = 100, mode: str = "tokens") -> MonteCarloCompletion:
    """Monte Carlo document completion of a fitted topic model (Paisley et al. 2012, Eqs. 40-41).

    ``X`` is split by :func:`split_documents` (or a given ``observed``/``heldout`` split is used);
    the documents' ``q`` comes from ``estimator.doc_topic_posterior`` on the observed parts, the
    topics' from ``estimator.components_``, and :func:`completion_monte_carlo` scores the held-out
    parts. The same protocol for DILN, the HDP and LDA.

    Parameters
    ----------
    estimator : fitted topic model
        A model with ``doc_topic_posterior`` and ``components_`` (DILN, HDPTopicModel with the
        direct family, LDA).
    X : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words), optional
        Test documents to split here; pass either ``X`` or both ``observed`` and ``heldout``.
    observed : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words), optional
        The observed parts of a given split.
    heldout : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words), optional
        The held-out parts of a given split.
    heldout_fraction : float, default=0.5
        The fraction held out when splitting ``X``.
    seed : int or numpy.random.Generator, default=0
        The randomness of the split and of the draws.
    n_samples : int, default=100
        The Monte Carlo draws, at least 1.
    mode : {"tokens", "types"}, default="tokens"
        How ``X`` is split: random tokens, or random word types with all their tokens.

    Returns
    -------
    MonteCarloCompletion
        The pooled and per-document scores.

    Examples
    --------
    >>> from stickbreak import LDA, datasets
    >>> from stickbreak.evaluate import model_completion
    >>> X = datasets.load("ap").X
    >>> lda = LDA(n_topics=5, max_laps=3, random_state=0).fit(X[:200])
    >>> score = model_completion(lda, X[200:250], n_samples=20)
    >>> score.n_documents, bool(score.per_word < 0), bool(score.perplexity > 1)
    (50, True, True)
    """
    if X is not None:
        if observed is not None or heldout is not None:
            raise DataError("pass either X (split here) or observed and heldout, not both.")
        observed, heldout = split_documents(X, mode, heldout_fraction, seed)
    elif observed is None or heldout is None:
        raise DataError("model_completion needs X, or both observed and heldout.")
    observed, heldout = sp.csr_matrix(checked_counts(observed, "observed")), checked_counts(heldout, "heldout")
    if observed.shape != heldout.shape:
        raise DataError(f"observed {observed.shape} and heldout {heldout.shape} must have the same shape: the two "
                        "parts of the same documents.")
    scored = np.flatnonzero(np.diff(heldout.indptr) > 0)
    if len(scored) == 0:
        raise DataError("heldout has no tokens; use a larger heldout_fraction or longer documents.")
    doc_shape, doc_rate = estimator.doc_topic_posterior(observed[scored])
    return completion_monte_carlo(estimator.components_, doc_shape, doc_rate, heldout[scored], n_samples, seed)
