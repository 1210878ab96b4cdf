"""Initial topics (the Dirichlet parameters ``lam``, K x V) for LDA and the HDP.

``"random"`` draws ``lam_kv = lam_bar + Gamma(100, 1/100)``: nearly uniform topics whose small
differences the first local step amplifies (scikit-learn's and gensim's start; on Wikipedia it
ends 0.25 nats/word better held out than starting from documents). ``"documents"`` sets each
topic to the prior plus the word counts of ``docs_per_topic`` random documents (bnpy
``randexamples``). ``"exponential"`` is the SVI paper's start (Hoffman et al. 2013, footnote 6,
with the digest's erratum: the number is the mean): ``lam_kv = lam_bar + Exponential(mean 100 D /
(K V))``, as if the words of D documents of 100 tokens had been assigned at random. ``"kmeans_l1"`` is
the DILN paper's start (Paisley, Wang & Blei 2012, §5.2): k-means with the L1 distance on the
documents' word distributions (:func:`kmeans_l1_topics`). ``"gibbs"`` (the HDP's default) runs the
direct-assignment collapsed Gibbs sampler of the same HDP on a sample of the corpus and starts from
the topics it found, as many as it found (:func:`gibbs_topics`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ...core.protocols import total_elbo
from ...data.bow import BagOfWords, is_integral
from ...kernels.chunked import thread_budget
from ...kernels.topics.kmeans_l1 import assign_l1
from .collapsed_hdp import TokenCorpus, resample_weights, start_params, sweep_tokens

TOPIC_INIT_METHODS = ("random", "documents", "exponential", "kmeans_l1")
#: Starts that learn their own number of topics (the HDP's): ``n_topics`` is where they begin.
LEARNED_INIT_METHODS = ("gibbs",)
#: Sweeps of the sampler behind ``init="gibbs"`` and the most tokens it samples (a random subset
#: of the documents beyond that); ``algorithm_options`` ``init_sweeps`` and ``init_tokens``. The
#: longer the sampler runs, the better the fit that follows, and a sample of the documents fits the
#: others poorly (the ``init_*`` rows of ``benchmarks/results/k_learning.md`` as of commit 38ea4ad,
#: one chain from no topics; 20newsgroups, 2.1M tokens: ``init_tokens=1000000``).
GIBBS_INIT_SWEEPS = 200
GIBBS_INIT_TOKENS = 5_000_000
#: The learned start runs chains from no topics and seeded with ``SEEDED_CHAIN_TOPICS`` documents
#: (and with ``n_topics`` documents when the user gives another number) for ``JUDGED_SHARE`` of the
#: sweeps, and runs on the one whose topics the model rates higher (:func:`gibbs_topics`): which
#: fits better depends on the corpus, and judging every start alongside the same two keeps the
#: final K from following an explicit one (the ``start`` rows of ``benchmarks/results/k_learning.md``).
SEEDED_CHAIN_TOPICS = 100
JUDGED_SHARE = 0.5


@dataclass(frozen=True)
class GibbsStart:
    """What ``init="gibbs"`` samples with: the HDP's document and top-level concentrations
    (``alpha``, ``gamma``) and the sampler's budget."""

    doc_concentration: float
    concentration: float
    n_sweeps: int = GIBBS_INIT_SWEEPS
    max_tokens: int = GIBBS_INIT_TOKENS

    def memory_floats(self, n_topics: int, n_docs: int, n_tokens: float) -> float:
        """About how many float64 values the chains of a start from ``n_topics`` (0: the default) on
        ``n_docs`` documents of ``n_tokens`` tokens (``inf``: not known) hold: each the sampled
        tokens' topics and word ids and the counts per document over twice its topics."""
        tokens = min(float(n_tokens), self.max_tokens)
        return sum(4.0 * tokens + 2.0 * max(start, SEEDED_CHAIN_TOPICS) * n_docs for start in judged_starts(n_topics))


def exponential_topics(prior_lam, n_topics: int, n_docs: int, rng: np.random.Generator) -> np.ndarray:
    """Hoffman et al. (2013), footnote 6 (the number is the mean): ``lam = prior + Exponential(100 D / (K V))``."""
    prior_lam = np.broadcast_to(np.asarray(prior_lam, dtype=float), (np.size(prior_lam),))
    mean = 100.0 * n_docs / (n_topics * prior_lam.shape[0])
    return prior_lam[None, :] + rng.exponential(mean, (n_topics, prior_lam.shape[0]))


def _l1_centroids(X: sp.csr_matrix, labels: np.ndarray, previous: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean of each cluster's rows (an empty cluster keeps ``previous``) and the cluster sizes."""
    n_clusters = previous.shape[0]
    member = sp.csr_matrix((np.ones(len(labels)), (labels, np.arange(len(labels)))), shape=(n_clusters, len(labels)))
    sizes = np.bincount(labels, minlength=n_clusters)
    sums = np.asarray((member @ X).todense())
    return np.where(sizes[:, None] > 0, sums / np.maximum(sizes, 1)[:, None], previous), sizes


def _assign(X: sp.csr_matrix, centroids: np.ndarray):
    return assign_l1(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, np.ascontiguousarray(centroids.T),
                     centroids.sum(axis=1), 4 * thread_budget())


def _seed_l1(X: sp.csr_matrix, n_clusters: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding in the L1 distance: each next centre is a document drawn with probability
    proportional to its distance to the nearest centre so far (uniformly once all distances are 0)."""
    nearest = np.full(X.shape[0], np.inf)
    picks = np.empty(n_clusters, dtype=np.int64)
    for k in range(n_clusters):
        spread = k > 0 and nearest.sum() > 0
        picks[k] = rng.choice(X.shape[0], p=nearest / nearest.sum()) if spread else rng.integers(X.shape[0])
        nearest = np.minimum(nearest, np.maximum(_assign(X, X[picks[k]].toarray())[1], 0.0))
    return X[picks].toarray()


def kmeans_l1_topics(data, prior_lam, n_topics: int, rng: np.random.Generator, n_iters: int = 3,
                     smoothing: float = 0.1) -> np.ndarray:
    """Paisley, Wang & Blei (2012, §5.2): ``n_iters`` iterations of k-means with the L1 distance on the
    documents' word distributions ``x_d = n_d / N_d``, seeded k-means++-style in the L1 distance
    (the paper does not say how; from uniformly drawn documents, three iterations left word-disjoint
    groups merged); each centroid is the mean of its documents (an empty cluster keeps its
    centroid). Clusters are ordered by usage (documents in the last assignment, most first), then
    ``lam_k = prior + scale normalise(c_k + smoothing (1 + U_k) / V)``, ``U_k ~ Uniform(0, 1)^V``,
    ``scale`` = corpus tokens / K: the paper "scales the centroids and adds a
    small constant plus noise"; these constants are ours."""
    counts = data.counts
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    X = sp.csr_matrix(counts[lengths > 0].multiply(1.0 / lengths[lengths > 0][:, None]))
    n_docs, n_words = X.shape
    if n_docs == 0:
        raise ValueError("kmeans_l1 initialisation needs at least one non-empty document")
    centroids = _seed_l1(X, n_topics, rng)
    sizes = np.zeros(n_topics, dtype=np.int64)
    for _ in range(max(1, n_iters)):
        centroids, sizes = _l1_centroids(X, _assign(X, centroids)[0], centroids)
    centroids = centroids[np.argsort(-sizes, kind="stable")]
    smooth = centroids + smoothing * (1.0 + rng.random(centroids.shape)) / n_words
    scale = lengths.sum() / n_topics
    return np.asarray(prior_lam, dtype=float)[None, :] + scale * smooth / smooth.sum(axis=1, keepdims=True)


def _document_sample(counts: sp.csr_matrix, max_tokens: int, rng: np.random.Generator) -> sp.csr_matrix:
    """All documents, or a random subset of them holding at most ``max_tokens`` tokens (at least one document)."""
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    if lengths.sum() <= max_tokens:
        return counts
    order = rng.permutation(counts.shape[0])
    n_docs = max(1, int(np.searchsorted(np.cumsum(lengths[order]), max_tokens, side="right")))
    return counts[np.sort(order[:n_docs])]


def gibbs_topics(data, eta: float, n_topics: int, doc_concentration: float, concentration: float,
                 rng: np.random.Generator, n_sweeps: int = GIBBS_INIT_SWEEPS,
                 max_tokens: int = GIBBS_INIT_TOKENS, judge=None) -> np.ndarray:
    """Topics found by ``n_sweeps`` sweeps of the HDP's direct-assignment collapsed Gibbs sampler
    (Teh et al. 2006, §5.3; the same ``alpha``, ``gamma`` and ``eta``) on at most ``max_tokens``
    tokens of the corpus, started with ``n_topics`` topics (0: from none). The sampler creates and
    empties topics as the data ask, so the number returned is its own; mean-field VI started from
    them reaches a far higher ELBO than from random topics (``benchmarks/k_learning.py``).

    With a ``judge`` (``judge(lam, docs)``: the model's ELBO of topics ``lam`` after one local step
    on the documents ``docs``, :func:`start_elbo`), the chains of :func:`judged_starts` (from no
    topics, from :data:`SEEDED_CHAIN_TOPICS` seed documents and from ``n_topics`` when it is
    another number) run ``JUDGED_SHARE`` of the sweeps on the same documents, and the one whose
    topics the judge rates higher runs the rest: the sampler grows topics slowly from none, which
    suits short reviews (we8there) and not news (ap, 20newsgroups), and seeded topics survive its
    sweeps, so a start the ELBO does not support is dropped rather than kept.

    Returns ``lam`` (K, V), largest topic first: ``eta + N_wk`` scaled to the whole corpus's total count.
    Weights that are not whole numbers (tf-idf) are rounded up to tokens for the sampler."""
    counts = sp.csr_matrix(data.counts, dtype=np.float64)
    total = counts.data.sum()
    if not is_integral(counts.data):
        counts.data = np.ceil(counts.data)
    sample = _document_sample(counts, max_tokens, rng)
    corpus = TokenCorpus.of(sample)

    def run(state, sweeps: int):
        for _ in range(sweeps):
            sweep_tokens(state, corpus, rng)
            resample_weights(state, rng)
        return state

    def chain(start: int, sweeps: int):
        return run(start_params(corpus, counts.shape[1], start, eta, doc_concentration, concentration, rng), sweeps)

    def topics(state) -> np.ndarray:
        return eta + state.Nwk[:, state.used].T

    if judge is None:
        state = chain(n_topics, n_sweeps)
    else:  # every chain judged early, the best one run on
        docs, early = BagOfWords(sample), max(1, round(JUDGED_SHARE * n_sweeps))
        chains = [chain(start, early) for start in judged_starts(n_topics)]
        state = run(max(chains, key=lambda state: judge(topics(state), docs)), n_sweeps - early)
    return eta + total / max(corpus.n_tokens, 1) * (topics(state) - eta)


def judged_starts(n_topics: int) -> tuple[int, ...]:
    """The seed documents of the chains a judged start runs: none, :data:`SEEDED_CHAIN_TOPICS` and,
    when given and different, ``n_topics`` (:func:`gibbs_topics`)."""
    return (0, SEEDED_CHAIN_TOPICS) + ((n_topics,) if n_topics not in (0, SEEDED_CHAIN_TOPICS) else ())


def start_elbo(model, lam: np.ndarray, docs) -> float:
    """The ELBO of ``model`` with topics ``lam`` after one local step on the documents ``docs`` (what
    memoized VI's first full lap computes from a start): :func:`gibbs_topics`'s judge."""
    params = model.initial_params(lam, docs.n_items)
    stats = model.summarize(docs, model.local_step(params, docs), params.uids)
    return total_elbo(model.score(stats, params)[1])


def with_n_topics(lam: np.ndarray, n_topics: int, prior_lam: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A learned start ``lam`` (largest topic first) held to exactly ``n_topics`` topics, for fits
    whose truncation is fixed: its largest ``n_topics``, or all of them and ``"random"`` topics after."""
    if lam.shape[0] >= n_topics:
        return lam[:n_topics]
    return np.vstack([lam, initial_topics(None, prior_lam, n_topics - lam.shape[0], "random", rng)])


def initial_topics(data, prior_lam: np.ndarray, n_topics: int, method: str, rng: np.random.Generator,
                   docs_per_topic: int = 1, gibbs: GibbsStart | None = None, judge=None) -> np.ndarray:
    """``lam`` (K, V) of ``method`` (see the module docstring); K is ``n_topics`` except for a
    learned start (``"gibbs"``, which needs the HDP's sampler settings ``gibbs``; ``judge`` picks
    among its chains, see :func:`gibbs_topics`)."""
    if method == "gibbs":
        if gibbs is None:
            raise ValueError("init='gibbs' learns the number of topics with the HDP's sampler; it is for "
                             "HDPTopicModel. Choose one of " + str(list(TOPIC_INIT_METHODS)))
        eta = np.unique(np.asarray(prior_lam, dtype=float))
        if eta.size != 1:
            raise ValueError("init='gibbs' samples under a symmetric topic-word prior; pass one number as "
                             "topic_word_prior or choose another init")
        return gibbs_topics(data, float(eta[0]), n_topics, gibbs.doc_concentration, gibbs.concentration, rng,
                            gibbs.n_sweeps, gibbs.max_tokens, judge)
    if method == "random":
        return prior_lam[None, :] + rng.gamma(100.0, 0.01, (n_topics, np.size(prior_lam)))
    if method == "exponential":
        return exponential_topics(prior_lam, n_topics, data.n_items, rng)
    if method == "kmeans_l1":
        return kmeans_l1_topics(data, prior_lam, n_topics, rng)
    if method == "documents":
        n_docs = n_topics * docs_per_topic
        picks = rng.choice(data.n_items, size=n_docs, replace=n_docs > data.n_items)
        owner = np.repeat(np.arange(n_topics), docs_per_topic)
        counts = data.counts[picks]
        lam = np.zeros((n_topics, data.n_features))
        rows = np.repeat(owner, np.diff(counts.indptr))
        np.add.at(lam, (rows, counts.indices), counts.data)
        return prior_lam[None, :] + lam
    choices = list(TOPIC_INIT_METHODS) + (list(LEARNED_INIT_METHODS) if gibbs is not None else [])
    raise ValueError(f"init={method!r} is not valid; choose one of {choices}")
