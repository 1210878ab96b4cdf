"""``init="gibbs"`` of the DP mixture of multinomials: a start whose number of clusters is learned.

The documents are dealt at random among ``n_start`` clusters, many more than a corpus of short
texts holds, and the collapsed Gibbs sampler of the same model (:mod:`stickbreak.kernels.gibbs.dmm`:
Neal 2000, Alg. 3; Yin & Wang 2016's GSDPMM) empties the clusters the data do not support and opens
new ones where a document fits none, for ``n_sweeps`` sweeps; its last partition is the start of
variational inference. Dealt at random over many clusters, as GSDMM starts (Yin & Wang 2014, §3.2),
the chain reaches partitions that a start from few clusters or from none does not: on STTM's
GoogleNews (152 stories) this start keeps about 160 after 10 sweeps, and memoized VI from it ends
about 37,000 nats of ELBO higher than truncation-free SVI from no clusters, which keeps 15
(``benchmarks/results/short_texts_googlenews.md``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ...data.bow import BagOfWords, is_integral
from ...data.memory import check_memory
from ...kernels.gibbs.dmm import prior_evidences, sweep

#: The random start deals the documents among one cluster per ``GIBBS_START_ITEMS`` documents, at
#: most ``GIBBS_START_MAX`` (``n_components`` given: that many).
GIBBS_START_ITEMS = 10
GIBBS_START_MAX = 1000
#: Sweeps of the sampler before variational inference takes over.
GIBBS_START_SWEEPS = 10
#: Sweeps of the sampler that re-partitions a stream's chunk among the components learned so far and
#: new ones (:meth:`~stickbreak.models.mixture.model.MixtureModel.resampled_labels`).
RESAMPLE_SWEEPS = 10


def one_pseudo_count(obs, obs_prior) -> float | None:
    """The Dirichlet pseudo-count of a family of multinomials (``obs``, a module of :mod:`stickbreak.obs`)
    whose prior gives every word the same one (what the collapsed sampler takes), else None."""
    pseudo_counts = np.unique(obs_prior["lam"]) if obs.name == "mult" else ()
    return float(pseudo_counts[0]) if len(pseudo_counts) == 1 else None


def start_clusters(n_items: int) -> int:
    """How many clusters the random start deals ``n_items`` documents among."""
    return int(min(GIBBS_START_MAX, max(1, n_items // GIBBS_START_ITEMS)))


def gibbs_labels(bow: BagOfWords, pseudo_count: float, concentration: float, n_start: int, n_sweeps: int,
                 rng: np.random.Generator) -> np.ndarray:
    """Each document's cluster (``0..K-1``, K learned) after ``n_sweeps`` collapsed Gibbs sweeps of
    the DP mixture of multinomials (symmetric topic prior ``pseudo_count``, DP ``concentration``) from
    the documents dealt at random among ``n_start`` clusters."""
    if not is_integral(bow.counts.data):
        raise ValueError("init='gibbs' samples whole documents of word counts; these counts are not whole numbers "
                         "(weights such as tf-idf): use init='kmeans++'")
    n_words = bow.counts.shape[1]
    check_memory(8.0 * n_words * 2 * n_start, f"init='gibbs' over {n_start} clusters of {n_words} words",
                 "pass fewer documents, a smaller vocabulary or n_components (the start's clusters)")
    labels = rng.integers(n_start, size=bow.counts.shape[0])
    return gibbs_sweeps(bow, labels, pseudo_count, concentration, n_sweeps, rng)


def gibbs_sweeps(bow: BagOfWords, labels: np.ndarray, pseudo_count: float, concentration: float, n_sweeps: int,
                 rng: np.random.Generator, held: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The clusters (``0..K-1``, occupied ones only) after ``n_sweeps`` collapsed Gibbs sweeps of the
    DP mixture of multinomials from the partition ``labels`` (``0..n-1``, whole counts).

    ``held``: ``(word_counts, sizes)``, shapes (K0, V) and (K0,), of documents that are not resampled
    but belong to clusters ``0..K0-1`` (a stream's earlier items, as expected counts): those clusters
    keep their labels whether or not a resampled document stays in them, new ones follow from K0."""
    counts = bow.counts
    n_docs, n_words = counts.shape
    n_fixed = 0 if held is None else len(held[1])
    n_start = max(int(labels.max()) + 1 if len(labels) else 1, n_fixed)
    labels = np.array(labels, dtype=np.int64)
    n_tokens = np.asarray(counts.sum(axis=1)).ravel()
    evidence = prior_evidences(counts.indptr, counts.data, n_tokens, pseudo_count, n_words)
    post, post_sum, sizes = _state(counts, labels, n_start, pseudo_count, capacity=2 * n_start, held=held)
    n_used = n_start
    for _ in range(n_sweeps):
        first = 0
        while first < n_docs:
            n_used, first = sweep(counts.indptr, counts.indices, counts.data, n_tokens, evidence, labels, post,
                                  post_sum, sizes, n_used, concentration, first, int(rng.integers(2 ** 31)))
            if first < n_docs:  # every column in use: widen
                post, post_sum, sizes = _widened(post, post_sum, sizes, pseudo_count, n_words)
        labels, n_used = _compacted(labels, post, post_sum, sizes, n_used, pseudo_count, n_words, n_fixed)
    return labels


def _compacted(labels: np.ndarray, post, post_sum, sizes, n_used: int, pseudo_count: float, n_words: int,
               n_fixed: int = 0):
    """``(labels, n_used)`` with the first ``n_fixed`` columns left where they are and the other
    occupied clusters moved after them (in place), every column after those reset to an empty
    cluster (the prior alone), ready for the next sweep."""
    occupied = np.concatenate([np.arange(n_fixed), n_fixed + np.flatnonzero(sizes[n_fixed:n_used] > 0)])
    relabel = np.full(n_used, -1)
    relabel[occupied] = np.arange(len(occupied))
    n_kept = len(occupied)
    post[:, :n_kept], post_sum[:n_kept], sizes[:n_kept] = post[:, occupied], post_sum[occupied], sizes[occupied]
    post[:, n_kept:], post_sum[n_kept:], sizes[n_kept:] = pseudo_count, n_words * pseudo_count, 0.0
    return relabel[labels], n_kept


def _state(counts: sp.csr_matrix, labels: np.ndarray, n_clusters: int, pseudo_count: float, capacity: int,
           held: tuple[np.ndarray, np.ndarray] | None = None):
    """``(post, post_sum, sizes)`` of the kernel for ``labels`` (plus the ``held`` documents'
    counts in the first columns), in arrays of ``capacity`` columns."""
    n_docs, n_words = counts.shape
    members = sp.csr_matrix((np.ones(n_docs), (labels, np.arange(n_docs))), shape=(n_clusters, n_docs))
    post = np.full((n_words, capacity), pseudo_count)
    post[:, :n_clusters] += (members @ counts).T.toarray()
    sizes = np.zeros(capacity)
    sizes[:n_clusters] = np.bincount(labels, minlength=n_clusters)
    if held is not None:
        held_words, held_sizes = held
        post[:, :len(held_sizes)] += np.asarray(held_words).T
        sizes[:len(held_sizes)] += held_sizes
    post_sum = np.full(capacity, n_words * pseudo_count)
    post_sum[:n_clusters] = post[:, :n_clusters].sum(axis=0)
    return post, post_sum, sizes


def _widened(post, post_sum, sizes, pseudo_count: float, n_words: int):
    """The state with twice the columns, the new ones empty."""
    capacity = post.shape[1]
    check_memory(8.0 * n_words * 2 * capacity, f"init='gibbs' over {2 * capacity} clusters of {n_words} words",
                 "pass fewer documents or a smaller vocabulary")
    wider = np.full((n_words, 2 * capacity), pseudo_count)
    wider[:, :capacity] = post
    return (wider, np.concatenate([post_sum, np.full(capacity, n_words * pseudo_count)]),
            np.concatenate([sizes, np.zeros(capacity)]))
