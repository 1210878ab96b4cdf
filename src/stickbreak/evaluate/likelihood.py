"""Held-out per-word log-likelihood of whole test documents (Wang & Blei 2012, §3 and supplement S.3).

``per_word = sum_d log p(x_d | theta_hat, pi_hat) / sum_d N_d`` (nats, higher is better), with the
posterior means of the T used components plugged in (digest tfsvi.md §5):

* DP mixture of multinomials, exact: ``log sum_k pi_k prod_w theta_kw^{c_dw}``
  (:func:`dp_heldout_loglik`);
* HDP topic model, by importance sampling: ``log int Dir(phi | b pi) prod_j sum_k phi_k theta_{k,x_dj}``
  (:func:`hdp_importance_loglik`).

Neither includes the multinomial coefficient. Empty documents are skipped (they hold no tokens).
The IS estimate of log p is biased low (Jensen) and tends to underestimate, though it ranks models
correctly (Wallach et al. 2009), so DP and HDP numbers are not comparable with each other.

``pi_hat`` of the used components sums to less than one (the rest of the stick belongs to the unused
ones). ``renormalize=False`` (default) plugs the weights in as given, as the paper states literally;
``renormalize=True`` divides them by their sum first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from ..data import DataError
from ..data.bow import is_integral
from ..kernels.chunked import thread_budget
from ..kernels.evaluate.hdp_importance import hdp_importance_loglik as _hdp_kernel
from ._checks import check_vocabulary, checked_counts, checked_topic_word
from ..core.docstrings import composed
from .topics import perplexity

#: Gibbs sweeps after the sequential initialisation, and proposal draws per document (S.3 leaves both
#: open). Measured on 246 AP test documents (~190 tokens) with a 100-topic HDP fitted on the other
#: 2,000 (b = 1): the seed-to-seed sd of per_word is 0.0013 nats; the estimate still rises with the
#: burn-in (50 sweeps: -8.174, 100: -8.154, 200: -8.144, 1000: -8.141) and, more slowly, with the
#: samples (1000 draws: -8.139), as IS of log p is biased low. 200 sweeps is where the burn-in bias
#: falls below ~0.003 nats/word; 0.9 s for those documents on 2 cores.
DEFAULT_N_SWEEPS = 200
DEFAULT_N_SAMPLES = 100
#: numpydoc text of the plug-in model and the test documents both scores take, their ``$plug_in``
#: (:func:`._docstrings.composed`).
PLUG_IN = """topic_word : array-like of shape (n_components, n_words) or fitted model
        The plug-in word probabilities of the used components (rows renormalised), or a model
        with ``topic_word_``.
    weights : array-like of shape (n_components,)
        The components' plug-in weights E[pi_k]: non-negative, summing to at most one (zeros allowed).
    X : array-like, sparse matrix or BagOfWords of shape (n_documents, n_words)
        The test documents' raw word counts (whole numbers)."""


@dataclass(frozen=True)
class HeldoutScore:
    """Held-out log-likelihood of whole test documents: higher ``per_word`` is better.

    Returned by :func:`dp_heldout_loglik` and :func:`hdp_importance_loglik`.

    Parameters
    ----------
    per_word : float
        ``total / n_tokens``, in nats.
    total : float
        The sum over scored documents of ``log p(x_d | theta_hat, pi_hat)``.
    n_tokens : int
        The number of tokens of the scored documents.
    n_documents : int
        The documents with at least one token (the ones scored).

    Attributes
    ----------
    perplexity : float
        ``exp(-per_word)``.

    Examples
    --------
    >>> from stickbreak.evaluate import HeldoutScore
    >>> score = HeldoutScore(per_word=-8.0, total=-8000.0, n_tokens=1000, n_documents=10)
    >>> round(score.perplexity)
    2981
    """

    per_word: float  # total / n_tokens, nats
    total: float  # sum over scored documents of log p(x_d | theta_hat, pi_hat)
    n_tokens: int
    n_documents: int  # documents with at least one token (the ones scored)
    perplexity: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "perplexity", perplexity(self.per_word))


def _weights(weights, n_topics: int, renormalize: bool) -> np.ndarray:
    """Validated plug-in component weights pi_hat (K,), divided by their sum when ``renormalize``."""
    pi = np.array(weights, dtype=np.float64)
    if pi.shape != (n_topics,):
        raise DataError(f"weights has shape {pi.shape}; pass one weight per row of topic_word, shape ({n_topics},).")
    if not np.isfinite(pi).all() or (pi < 0).any():
        raise DataError("weights must be finite and non-negative (the posterior means E[pi_k] of the used components).")
    total = pi.sum()
    if total <= 0:
        raise DataError("weights are all zero; at least one component needs positive weight.")
    if renormalize:
        return pi / total
    if total > 1.0 + 1e-9:
        raise DataError(f"weights sum to {total:.6g} > 1, so they are not stick-breaking means E[pi_k]; "
                        "pass probabilities, or set renormalize=True to divide them by their sum.")
    return pi


def _prepare(topic_word, weights, X, renormalize: bool):
    """(theta (K, V), pi (K,), scored documents as CSR) after validating everything."""
    theta = checked_topic_word(topic_word)
    pi = _weights(weights, theta.shape[0], renormalize)
    X = checked_counts(X, "X")
    if not is_integral(X.data):
        raise DataError("X has non-integer counts (weights such as tf-idf); the likelihood is over word tokens, so "
                        "pass raw word counts.")
    check_vocabulary(theta, X, "X")
    scored = np.flatnonzero(np.diff(X.indptr) > 0)
    if len(scored) == 0:
        raise DataError("X has no tokens (every document is empty); pass test documents with words in them.")
    return theta, pi, X[scored]


def _score(per_doc: np.ndarray, X: sp.csr_matrix) -> HeldoutScore:
    n_tokens = int(round(X.data.sum()))
    total = float(per_doc.sum())
    return HeldoutScore(total / n_tokens, total, n_tokens, X.shape[0])


@composed(plug_in=PLUG_IN)
def dp_heldout_loglik(topic_word, weights, X, renormalize: bool = False) -> HeldoutScore:
    """Exact held-out log-likelihood of a DP mixture of multinomials with plug-in means (S.3).

    Wang & Blei 2012, supplement S.3: ``log p(x_d) = logsumexp_k [log pi_k + sum_w c_dw log
    theta_kw]`` for each non-empty row of X, without the multinomial coefficient. One sparse
    product, no loop over documents.

    Parameters
    ----------
    $plug_in
    renormalize : bool, default=False
        Divide ``weights`` by their sum first (any positive weights are then accepted).

    Returns
    -------
    HeldoutScore
        The log-likelihood per token (higher is better) and in total, over the non-empty documents.

    Examples
    --------
    >>> from stickbreak import DPMixture, datasets
    >>> from stickbreak.evaluate import dp_heldout_loglik
    >>> X = datasets.load("ap").X
    >>> dp = DPMixture(n_components=5, obs_model="mult", max_laps=3, random_state=0).fit(X[:200])
    >>> score = dp_heldout_loglik(dp.word_probs_, dp.weights_, X[200:250])
    >>> score.n_documents, bool(score.per_word < 0)
    (50, True)
    """
    theta, pi, X = _prepare(topic_word, weights, X, renormalize)
    with np.errstate(divide="ignore"):
        log_theta, log_pi = np.log(theta), np.log(pi)
        per_doc = logsumexp(np.asarray(X @ log_theta.T) + log_pi[None, :], axis=1)
    return _score(per_doc, X)


def _check_count(name: str, value, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise DataError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


@composed(plug_in=PLUG_IN)
def hdp_importance_loglik(topic_word, weights, X, doc_concentration, n_samples: int = DEFAULT_N_SAMPLES,
                          n_sweeps: int = DEFAULT_N_SWEEPS, seed=0, renormalize: bool = False) -> HeldoutScore:
    """Held-out log-likelihood of the HDP topic model by the importance sampler of Wang & Blei 2012, S.3.

    For each document, ``p(x_d) = int Dir(phi | b pi) prod_j sum_k phi_k theta_{k,x_dj} dphi`` over the
    K plugged-in topics: collapsed Gibbs on the token topics with theta fixed (``n_sweeps`` sweeps after
    a sequential initialisation), proposal ``Dir(b pi + n_d)`` from the final counts, ``n_samples``
    draws, ``log mean w`` (kernel: :mod:`stickbreak.kernels.evaluate.hdp_importance`). Unbiased for p, but the
    weights have infinite variance once a topic holds ``n_dk >= b pi_k`` tokens, so the estimate of
    log p is biased low and rises slowly with ``n_samples`` and with ``n_sweeps`` (Wallach et al. 2009);
    compare models only at equal settings. Defaults: see ``DEFAULT_N_SWEEPS``.

    ``doc_concentration`` is b of ``phi_d ~ Dir(b pi)``. Leftover stick mass: as in the paper, the unused
    components are ignored, i.e. ``phi`` lives on the K used topics with ``Dir(b pi_1, ..., b pi_K)``;
    its mean is ``pi / sum(pi)`` either way, and ``renormalize`` only changes the concentration from
    ``b sum(pi)`` to ``b``. (Giving the leftover mass its own coordinate with a uniform 1/V topic would
    be the prior predictive of the unused topics, but it is not what S.3 describes.) Components with
    zero weight are dropped. ``seed``: an int or a ``numpy.random.Generator``; each document gets its
    own stream, so the result does not depend on the number of threads.

    Parameters
    ----------
    $plug_in
    doc_concentration : float
        b of ``phi_d ~ Dir(b pi)``, positive (e.g. an HDP's ``doc_topic_prior``).
    n_samples : int, default=100
        Importance samples per document, at least 1.
    n_sweeps : int, default=200
        Gibbs sweeps after the sequential initialisation, at least 0.
    seed : int or numpy.random.Generator, default=0
        The randomness of the sampler.
    renormalize : bool, default=False
        Divide ``weights`` by their sum first (any positive weights are then accepted).

    Returns
    -------
    HeldoutScore
        The estimated log-likelihood per token (higher is better) and in total, over the
        non-empty documents.

    Examples
    --------
    >>> from stickbreak import HDPTopicModel, datasets
    >>> from stickbreak.evaluate import hdp_importance_loglik
    >>> X = datasets.load("ap").X
    >>> hdp = HDPTopicModel(n_topics=10, n_batches=1, max_laps=3, random_state=0).fit(X[:200])
    >>> score = hdp_importance_loglik(hdp.topic_word_, hdp.topic_weights_, X[200:220], hdp.doc_topic_prior,
    ...                               n_samples=20, n_sweeps=20)
    >>> score.n_documents, bool(score.per_word < 0)
    (20, True)
    """
    theta, pi, X = _prepare(topic_word, weights, X, renormalize)
    try:
        b = float(doc_concentration)
    except (TypeError, ValueError):
        b = float("nan")
    if not (np.isfinite(b) and b > 0):
        raise DataError(f"doc_concentration must be a positive finite number (b of phi_d ~ Dir(b pi)), "
                        f"got {doc_concentration!r}.")
    n_samples = _check_count("n_samples", n_samples, 1)
    n_sweeps = _check_count("n_sweeps", n_sweeps, 0)
    keep = pi > 0
    theta_t = np.ascontiguousarray(theta[keep].T)
    doc_seeds = np.random.default_rng(seed).integers(0, 2**32, size=X.shape[0], dtype=np.int64)
    per_doc = _hdp_kernel(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64),
                          theta_t, b * pi[keep], n_sweeps, n_samples, doc_seeds, 4 * thread_budget())
    return _score(per_doc, X)
