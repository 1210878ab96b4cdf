"""Held-out document completion and topic coherence: one protocol for every topic model.

Document completion (Hughes 2016, Eq. 5.59; peers.md §3.2; Hoffman et al./Wang et al. SVI §4):

1. split each test document into an observed and a held-out part (:func:`split_documents`),
2. estimate theta_d from the observed part with the topics Phi fixed (:func:`infer_doc_topics`),
3. score ``sum log sum_k theta_dk phi_kw`` over the held-out tokens / their number (nats per word).

Only Phi (K x V) is needed, so our estimators and any peer library are scored identically.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..data import BagOfWords, DataError
from ..data.bow import is_integral
from ..data.errors import describe_rows
from ..kernels.topics.evaluate import doc_heldout_loglik, doc_topic_fixed_point

SPLIT_MODES = ("tokens", "types")
COHERENCE_MEASURES = ("umass", "umass_sum", "npmi")


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------

def _counts(X, what: str) -> sp.csr_matrix:
    """Validated CSR float64 counts or non-negative weights (empty documents allowed)."""
    if isinstance(X, BagOfWords):
        return X.counts
    return BagOfWords.from_counts(X, what=what, allow_empty=True, integer=False).counts


def _topic_word(model_or_topic_word) -> np.ndarray:
    """Row-normalised (K, V) topic-word matrix from an array or an object with ``topic_word_``."""
    source = getattr(model_or_topic_word, "topic_word_", model_or_topic_word)
    phi = np.array(source, dtype=np.float64)
    if phi.ndim != 2 or phi.shape[0] == 0 or phi.shape[1] == 0:
        raise DataError(f"topic_word must be a (n_topics, vocabulary_size) matrix, got shape {phi.shape}.")
    if not np.isfinite(phi).all():
        raise DataError("topic_word contains NaN or infinite values; pass finite topic-word weights.")
    if (phi < 0).any():
        raise DataError("topic_word has negative entries; pass probabilities or non-negative weights.")
    totals = phi.sum(axis=1)
    if (totals <= 0).any():
        raise DataError(
            f"topic_word rows {describe_rows(np.flatnonzero(totals <= 0))} sum to zero; "
            "every topic needs some weight (drop empty topics or add a pseudocount)."
        )
    return phi / totals[:, None]


def _check_vocabulary(phi: np.ndarray, X: sp.csr_matrix, what: str) -> None:
    if X.shape[1] != phi.shape[1]:
        raise DataError(
            f"topic_word has a vocabulary of {phi.shape[1]} words but {what} has {X.shape[1]} columns; "
            "score documents over the model's training vocabulary (the same word ids, e.g. X[:, train_ids])."
        )


def _prior(prior, n_topics: int) -> np.ndarray:
    a = np.full(n_topics, 1.0 / n_topics) if prior is None else np.asarray(prior, dtype=np.float64)
    if a.ndim == 0:
        a = np.full(n_topics, float(a))
    if a.shape != (n_topics,) or not np.isfinite(a).all() or (a <= 0).any():
        raise DataError(f"prior must be a positive number or {n_topics} positive numbers (one per topic); got {prior!r}.")
    return a


# ---------------------------------------------------------------------------------------------
# splitting
# ---------------------------------------------------------------------------------------------

def _ranks_within_rows(rows: np.ndarray, n_per_row: np.ndarray, rng: np.random.Generator):
    """Random permutation within each row: ``rank[i]`` is item i's position inside its row.

    One sort on the int64 key ``row << 32 | random 32-bit`` (a lexsort on (row, random key), ~10x
    faster than ``np.lexsort``; rows < 2**31).
    """
    key = (rows.astype(np.int64) << 32) | rng.integers(0, 2**32, size=len(rows), dtype=np.int64)
    order = np.argsort(key, kind="stable")
    starts = np.concatenate(([0], np.cumsum(n_per_row)[:-1]))
    ranks = np.empty(len(rows), dtype=np.int64)
    ranks[order] = np.arange(len(rows)) - starts[rows[order]]
    return ranks


def _n_observed(n: np.ndarray, heldout_fraction: float) -> np.ndarray:
    """``floor((1 - f) n)`` observed; the rest (``ceil(f n)``) held out, as the peers' "cut in half"."""
    return np.floor((1.0 - heldout_fraction) * n + 1e-9).astype(np.int64)


def split_documents(X, mode: str = "tokens", heldout_fraction: float = 0.5, seed=0):
    """Split every document into ``(observed, heldout)`` count matrices with ``observed + heldout == X``.

    ``mode="tokens"`` (Hughes 2016, Eq. 5.59; peers.md §3.2): each document's tokens are randomly
    permuted; the first ``floor((1 - f) N_d)`` are observed and the other ``ceil(f N_d)`` held out.
    ``mode="types"`` (Hoffman/Wang SVI §4; Hughes 2016, Ch. 7): the distinct word types are split
    instead, ``ceil(f T_d)`` types held out with all their tokens (at least one type on each side when
    ``T_d >= 2``), so the two parts share no word. Documents whose observed or held-out part is empty
    stay as rows of zeros. ``seed``: an int or a ``numpy.random.Generator``. Vectorised, no loop per document.
    """
    if mode not in SPLIT_MODES:
        raise DataError(f"unknown split mode {mode!r}; use one of {SPLIT_MODES}.")
    if not 0.0 < float(heldout_fraction) < 1.0:
        raise DataError(f"heldout_fraction must lie strictly between 0 and 1, got {heldout_fraction}.")
    X = _counts(X, "X")
    if mode == "tokens" and not is_integral(X.data):
        raise DataError("X has non-integer counts (weights such as tf-idf), which have no tokens to split; "
                        "use mode='types' (split word types) or pass raw word counts.")
    rng = np.random.default_rng(seed)
    n_docs = X.shape[0]
    entry_rows = np.repeat(np.arange(n_docs), np.diff(X.indptr))
    if mode == "tokens":
        multiplicity = X.data.astype(np.int64)
        tokens_per_doc = np.bincount(entry_rows, weights=multiplicity, minlength=n_docs).astype(np.int64)
        token_entry = np.repeat(np.arange(X.nnz), multiplicity)
        token_rows = entry_rows[token_entry]
        ranks = _ranks_within_rows(token_rows, tokens_per_doc, rng)
        held = ranks >= _n_observed(tokens_per_doc, heldout_fraction)[token_rows]
        heldout_data = np.bincount(token_entry[held], minlength=X.nnz).astype(np.float64)
    else:
        types_per_doc = np.diff(X.indptr).astype(np.int64)
        n_obs = _n_observed(types_per_doc, heldout_fraction)
        n_obs = np.where(types_per_doc >= 2, np.clip(n_obs, 1, types_per_doc - 1), n_obs)
        ranks = _ranks_within_rows(entry_rows, types_per_doc, rng)
        heldout_data = np.where(ranks >= n_obs[entry_rows], X.data, 0.0)
    return _with_data(X, X.data - heldout_data), _with_data(X, heldout_data)


def _with_data(X: sp.csr_matrix, data: np.ndarray) -> sp.csr_matrix:
    out = sp.csr_matrix((data, X.indices.copy(), X.indptr.copy()), shape=X.shape)
    out.eliminate_zeros()
    return out


# ---------------------------------------------------------------------------------------------
# inference and scoring
# ---------------------------------------------------------------------------------------------

def _triplets(X: sp.csr_matrix):
    return X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64)


def _infer(phi: np.ndarray, observed: sp.csr_matrix, prior, max_iter: int, tol: float) -> np.ndarray:
    if int(max_iter) < 1 or not tol >= 0:
        raise DataError(f"need max_iter >= 1 and tol >= 0, got max_iter={max_iter}, tol={tol}.")
    a = _prior(prior, phi.shape[0])
    theta, _ = doc_topic_fixed_point(*_triplets(observed), np.ascontiguousarray(phi.T), a, int(max_iter), float(tol))
    return theta


def infer_doc_topics(topic_word, observed, prior=None, max_iter: int = 500, tol: float = 1e-7) -> np.ndarray:
    """theta (D, K) from the observed counts with Phi fixed, by the EM fixed point of peers.md §3.2.

    ``theta_dk <- (a_k + theta_dk sum_w n_dw phi_kw / sum_j theta_dj phi_jw) / (sum_k a_k + N_d)``,
    started uniform, until ``max |delta theta| < tol`` or ``max_iter``: the MAP of theta_d under a
    Dirichlet(1 + a) prior. ``prior`` a is a scalar or (K,) array, default 1/K (total mass 1, so unused
    truncation levels of an HDP cost almost nothing). Rows of ``topic_word`` are renormalised; a
    document with no observed words gets the prior mean ``a / sum(a)``.
    """
    phi = _topic_word(topic_word)
    observed = _counts(observed, "observed")
    _check_vocabulary(phi, observed, "observed")
    return _infer(phi, observed, prior, max_iter, tol)


def _loglik(phi: np.ndarray, theta: np.ndarray, heldout: sp.csr_matrix) -> tuple[float, int]:
    per_doc = doc_heldout_loglik(*_triplets(heldout), np.ascontiguousarray(phi.T), np.ascontiguousarray(theta))
    return float(per_doc.sum()), int(round(heldout.data.sum()))


def heldout_loglik(topic_word, theta, heldout) -> tuple[float, int]:
    """``(sum over held-out tokens of log sum_k theta_dk phi_kw, number of held-out tokens)``.

    Rows of ``topic_word`` and ``theta`` are renormalised. ``-inf`` if a held-out word has probability
    zero under every topic (smooth Phi to avoid it). Hughes 2016, Eq. 5.59 numerator.
    """
    phi = _topic_word(topic_word)
    heldout = _counts(heldout, "heldout")
    _check_vocabulary(phi, heldout, "heldout")
    theta = np.array(theta, dtype=np.float64)
    if theta.shape != (heldout.shape[0], phi.shape[0]):
        raise DataError(f"theta has shape {theta.shape}; expected (n_documents, n_topics) = "
                        f"{(heldout.shape[0], phi.shape[0])} to match heldout and topic_word.")
    totals = theta.sum(axis=1)
    if not np.isfinite(theta).all() or (theta < 0).any() or (totals <= 0).any():
        raise DataError("theta must be finite and non-negative with a positive sum in every row.")
    return _loglik(phi, theta / totals[:, None], heldout)


def perplexity(per_word: float) -> float:
    """Perplexity ``exp(-per_word)`` from a mean log-likelihood per token in nats."""
    return float(np.exp(-per_word))


@dataclass(frozen=True)
class CompletionScore:
    """Held-out document completion score (Hughes 2016, Eq. 5.59): higher ``per_word`` is better."""

    per_word: float  # mean log-likelihood per held-out token, nats
    n_heldout_tokens: int
    n_documents: int  # documents with at least one held-out token (the ones scored)
    mode: str
    perplexity: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "perplexity", perplexity(self.per_word))


def completion_from_split(topic_word, observed, heldout, prior=None, *, mode: str = "given") -> CompletionScore:
    """Score ``topic_word`` (array or model with ``topic_word_``) on an existing split.

    Split once with :func:`split_documents` and score many models on it (the benchmark does this).
    Documents with no held-out tokens are ignored; those with an empty observed part use the prior mean.
    """
    phi = _topic_word(topic_word)
    observed, heldout = _counts(observed, "observed"), _counts(heldout, "heldout")
    _check_vocabulary(phi, observed, "observed")
    _check_vocabulary(phi, heldout, "heldout")
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
    """Held-out document completion of test documents X (split, infer theta, score; see module doc)."""
    phi = _topic_word(model_or_topic_word)
    X = _counts(X, "X")
    _check_vocabulary(phi, X, "X")
    observed, heldout = split_documents(X, mode, heldout_fraction, seed)
    return completion_from_split(phi, observed, heldout, prior, mode=mode)


# ---------------------------------------------------------------------------------------------
# coherence
# ---------------------------------------------------------------------------------------------

def _top_word_ids(top_words_or_topic_word, n_words: int, n_top: int) -> np.ndarray:
    arr = np.asarray(top_words_or_topic_word)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.size == 0:
        raise DataError(f"expected a (n_topics, vocabulary_size) weight matrix or (n_topics, n) word ids, got shape {arr.shape}.")
    if arr.dtype.kind in "iu":
        ids = arr.astype(np.int64)
    else:
        weights = np.asarray(_topic_word(arr))
        if weights.shape[1] != n_words:
            raise DataError(f"topic_word has a vocabulary of {weights.shape[1]} words but the reference has "
                            f"{n_words}; use reference counts over the model's vocabulary.")
        if not 2 <= n_top <= n_words:
            raise DataError(f"n_top must lie between 2 and the vocabulary size {n_words}, got {n_top}.")
        ids = np.argsort(-weights, axis=1, kind="stable")[:, :n_top]
    if ids.shape[1] < 2 or ids.min() < 0 or ids.max() >= n_words:
        raise DataError(f"top word ids must be at least 2 per topic and lie in [0, {n_words}).")
    if (np.diff(np.sort(ids, axis=1), axis=1) == 0).any():
        raise DataError("a topic lists the same word id twice; pass distinct top words per topic.")
    return ids


def _cooccurrence(reference: sp.csr_matrix, ids: np.ndarray):
    """Document counts D(w_i, w_j) per topic as (K, n, n) (diagonal = D(w_i)), via one sparse product."""
    union, pos = np.unique(ids, return_inverse=True)
    present = (reference[:, union] > 0).astype(np.float64)
    co = (present.T @ present).toarray()
    pos = pos.reshape(ids.shape)
    return co[pos[:, :, None], pos[:, None, :]]


def topic_coherence(top_words_or_topic_word, reference, measure: str = "umass", n_top: int = 10,
                    eps: float = 1e-12) -> np.ndarray:
    """Coherence of each topic's top words on a reference corpus (document co-occurrence, presence only).

    ``top_words_or_topic_word``: a (K, V) weight matrix (its ``n_top`` heaviest words per row, most
    probable first) or a (K, n) integer array of word ids in rank order (``n_top`` is then unused).

    * ``"umass"``, gensim's ``CoherenceModel(coherence="u_mass")`` convention: the **mean** over
      ordered pairs ``i > j`` of ``log((D(w_i, w_j) / D + eps) / (D(w_j) / D))``, with D(...) the
      number of reference documents containing the words and D their count (``eps`` = 1e-12, as
      gensim). Every top word must occur in the reference (use the training corpus, as Mimno does).
    * ``"umass_sum"`` (Mimno et al. 2011 as published): the **sum** over the same pairs of
      ``log((D(w_i, w_j) + 1) / D(w_j))``.
    * ``"npmi"`` (Bouma 2009; Aletras & Stevenson 2013): **mean** over pairs of
      ``log(P(w_i, w_j) / (P(w_i) P(w_j))) / -log P(w_i, w_j)``, P = document frequency / D; a pair
      that never co-occurs scores -1; ``eps`` floors the denominator (a pair in every document scores 0).
    """
    if measure not in COHERENCE_MEASURES:
        raise DataError(f"unknown coherence measure {measure!r}; use one of {COHERENCE_MEASURES}.")
    reference = _counts(reference, "reference")
    ids = _top_word_ids(top_words_or_topic_word, reference.shape[1], n_top)
    co = _cooccurrence(reference, ids)
    doc_freq = np.diagonal(co, axis1=1, axis2=2)  # (K, n)
    n = ids.shape[1]
    lower = np.tril(np.ones((n, n), dtype=bool), k=-1)  # pairs i > j
    if measure == "umass":
        _check_every_word_occurs(doc_freq, ids)
        return np.where(lower, np.log((co / reference.shape[0] + eps) / (doc_freq[:, None, :] / reference.shape[0])),
                        0.0).sum(axis=(1, 2)) / lower.sum()
    if measure == "umass_sum":
        _check_every_word_occurs(doc_freq, ids)
        return np.where(lower, np.log((co + 1.0) / doc_freq[:, None, :]), 0.0).sum(axis=(1, 2))
    p_joint = co / reference.shape[0]
    p_word = doc_freq / reference.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(p_joint / (p_word[:, :, None] * p_word[:, None, :]))
        npmi = np.where(co > 0, pmi / np.maximum(-np.log(p_joint), eps), -1.0)
    return np.where(lower, npmi, 0.0).sum(axis=(1, 2)) / lower.sum()


def _check_every_word_occurs(doc_freq: np.ndarray, ids: np.ndarray) -> None:
    if (doc_freq == 0).any():
        missing = np.unique(ids[doc_freq == 0])
        raise DataError(f"UMass coherence needs every top word in the reference; word ids {describe_rows(missing)} "
                        "never occur. Use the training counts as reference, or measure='npmi'.")


def mean_coherence(top_words_or_topic_word, reference, measure: str = "umass", n_top: int = 10,
                   eps: float = 1e-12) -> float:
    """Mean of :func:`topic_coherence` over topics."""
    return float(np.mean(topic_coherence(top_words_or_topic_word, reference, measure, n_top, eps)))
