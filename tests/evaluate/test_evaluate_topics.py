"""Document completion and topic coherence (stickbreak.evaluate.topics) and their kernels."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import softmax

from stickbreak import datasets
from stickbreak.data import BagOfWords, DataError, to_gensim_corpus
from stickbreak.evaluate import (CompletionScore, completion_from_split, document_completion, heldout_loglik,
                                 infer_doc_topics, mean_coherence, perplexity, split_documents, topic_coherence)
from stickbreak.kernels.topics import _reference_evaluate as ref
from stickbreak.kernels.topics import evaluate as topics_eval

from conftest import load_shared_bow


def random_counts(rng, n_docs=40, n_words=25, rate=1.5):
    X = rng.poisson(rate, size=(n_docs, n_words)).astype(float)
    X[:, 0] += 1
    return sp.csr_matrix(X)


def lda_corpus(rng, n_docs=200, n_words=40, n_topics=4, length=120):
    """Documents from LDA with sparse, distinct topics: (counts, true topic_word)."""
    phi = rng.dirichlet(np.full(n_words, 0.05), size=n_topics)
    theta = rng.dirichlet(np.full(n_topics, 0.2), size=n_docs)
    X = np.stack([rng.multinomial(length, t @ phi) for t in theta]).astype(float)
    return sp.csr_matrix(X), phi


def rowsums(X):
    return np.asarray(X.sum(axis=1)).ravel()


# ---------------------------------------------------------------------------------------------- split

@pytest.mark.parametrize("mode", ["tokens", "types"])
@pytest.mark.parametrize("fraction", [0.5, 0.2])
def test_split_preserves_counts_and_fraction(mode, fraction):
    X = random_counts(np.random.default_rng(0), n_docs=300)
    observed, heldout = split_documents(BagOfWords.from_counts(X), mode, fraction, seed=3)
    assert observed.shape == heldout.shape == X.shape
    assert abs(observed + heldout - X).sum() == 0
    assert observed.data.min() > 0 and heldout.data.min() > 0
    if mode == "tokens":
        np.testing.assert_array_equal(rowsums(heldout), np.ceil(fraction * rowsums(X) - 1e-9))
    else:
        n_types = np.diff(X.indptr)
        np.testing.assert_array_equal(np.diff(heldout.indptr),
                                      np.clip(np.ceil(fraction * n_types - 1e-9), 1, n_types - 1))
        assert observed.multiply(heldout).nnz == 0  # disjoint by word
    assert heldout.sum() / X.sum() == pytest.approx(fraction, abs=0.03)


def test_split_is_seeded_and_random():
    X = random_counts(np.random.default_rng(1))
    for mode in ("tokens", "types"):
        a, b = split_documents(X, mode, seed=7), split_documents(X, mode, seed=np.random.default_rng(7))
        assert abs(a[1] - b[1]).sum() == 0 and abs(a[0] - b[0]).sum() == 0
        assert abs(split_documents(X, mode, seed=8)[1] - a[1]).sum() > 0


def test_split_permutes_tokens_uniformly():
    # one document, word 0 x 3 and word 1 x 1, half held out: word 1 is held out with probability 1/2
    X = sp.csr_matrix(np.array([[3.0, 1.0]]))
    held = [split_documents(X, seed=s)[1][0, 1] for s in range(400)]
    assert np.mean(held) == pytest.approx(0.5, abs=0.08)


def test_split_edge_documents():
    X = sp.csr_matrix(np.array([[0.0, 0, 0], [1, 0, 0], [0, 4, 0], [2, 0, 1]]))
    observed, heldout = split_documents(X, "tokens")
    np.testing.assert_array_equal(rowsums(observed), [0, 0, 2, 1])
    np.testing.assert_array_equal(rowsums(heldout), [0, 1, 2, 2])
    observed, heldout = split_documents(X, "types")
    np.testing.assert_array_equal(np.diff(observed.indptr), [0, 0, 0, 1])
    np.testing.assert_array_equal(np.diff(heldout.indptr), [0, 1, 1, 1])


# ---------------------------------------------------------------------------------------------- kernels

def kernel_case(name, rng):
    """(counts CSR, phi (K, V) row-normalised, prior (K,))."""
    X = random_counts(rng, n_docs=30, n_words=20)
    phi = rng.dirichlet(np.ones(20), size=5)
    if name == "sparse_phi":
        phi = phi * (rng.random(phi.shape) < 0.15)
        phi[:, 0] += 0.1
        phi[0, :] += 1e-3  # every word possible somewhere
    elif name == "tiny_probabilities":
        phi[:, 1:] = 10.0 ** rng.uniform(-300, -200, size=(5, 19))
    elif name == "single_token_and_empty_docs":
        X = X.tolil()
        X[3, :] = 0
        X[4, :] = 0
        X[4, 7] = 1
        X = X.tocsr()
        X.eliminate_zeros()
    elif name == "impossible_word":
        phi[:, 2] = 0.0
    elif name == "one_topic":
        phi = phi[:1]
    phi = phi / phi.sum(axis=1, keepdims=True)
    return X, phi, rng.uniform(0.05, 2.0, size=len(phi))


KERNEL_CASES = ["ordinary", "sparse_phi", "tiny_probabilities", "single_token_and_empty_docs", "impossible_word",
                "one_topic"]


def triplets(X):
    return X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(float)


@pytest.mark.parametrize("case", KERNEL_CASES)
def test_fixed_point_kernel_matches_twin(case):
    X, phi, prior = kernel_case(case, np.random.default_rng(2))
    args = (*triplets(X), np.ascontiguousarray(phi.T), prior, 300, 1e-9)
    fast, fast_iter = topics_eval.doc_topic_fixed_point(*args)
    slow, slow_iter = ref.doc_topic_fixed_point(*args)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-7)
    assert np.abs(fast_iter - slow_iter).max() <= 1
    np.testing.assert_allclose(fast.sum(axis=1), 1.0, rtol=1e-12)
    empty = np.diff(X.indptr) == 0
    np.testing.assert_allclose(fast[empty], np.broadcast_to(prior / prior.sum(), fast[empty].shape), rtol=1e-12)
    again, _ = topics_eval.doc_topic_fixed_point(*args)
    np.testing.assert_array_equal(fast, again)  # deterministic under prange


@pytest.mark.parametrize("case", KERNEL_CASES)
def test_loglik_kernel_matches_twin_and_dense(case):
    rng = np.random.default_rng(3)
    X, phi, _ = kernel_case(case, rng)
    theta = rng.dirichlet(np.ones(len(phi)), size=X.shape[0])
    args = (*triplets(X), np.ascontiguousarray(phi.T), theta)
    fast = topics_eval.doc_heldout_loglik(*args)
    np.testing.assert_allclose(fast, ref.doc_heldout_loglik(*args), rtol=1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        dense = np.nansum(X.toarray() * np.log(theta @ phi), axis=1)
    np.testing.assert_allclose(fast, dense, rtol=1e-12)


def map_objective(theta, counts, phi, prior):
    return prior @ np.log(theta) + counts @ np.log(theta @ phi)


def test_fixed_point_is_the_map():
    rng = np.random.default_rng(4)
    phi = rng.dirichlet(np.ones(8), size=3)
    counts = rng.integers(0, 5, size=(4, 8)).astype(float)
    prior = np.array([0.3, 1.0, 0.5])
    theta = infer_doc_topics(phi, counts, prior=prior, max_iter=20000, tol=1e-13)
    for d in range(4):
        grad = prior / theta[d] + phi @ (counts[d] / (theta[d] @ phi))
        np.testing.assert_allclose(grad, prior.sum() + counts[d].sum(), rtol=1e-6)  # KKT on the simplex
        best = minimize(lambda z: -map_objective(softmax(z), counts[d], phi, prior), np.zeros(3),
                        method="BFGS", options={"gtol": 1e-10})
        np.testing.assert_allclose(theta[d], softmax(best.x), atol=1e-5)
        assert map_objective(theta[d], counts[d], phi, prior) >= -best.fun - 1e-9


def test_scalar_prior_default_is_one_over_k():
    rng = np.random.default_rng(5)
    X, phi = lda_corpus(rng, n_docs=10)
    np.testing.assert_array_equal(infer_doc_topics(phi, X), infer_doc_topics(phi, X, prior=0.25))


# ---------------------------------------------------------------------------------------------- completion

def test_completion_on_generative_toy():
    X, phi = lda_corpus(np.random.default_rng(6))
    true = document_completion(phi, X, seed=1)
    uniform = document_completion(np.ones_like(phi), X, seed=1)
    assert isinstance(true, CompletionScore) and true.mode == "tokens"
    assert uniform.per_word == pytest.approx(-np.log(phi.shape[1]), abs=1e-12)
    assert true.per_word > uniform.per_word + 0.5
    assert true.perplexity == pytest.approx(np.exp(-true.per_word)) == perplexity(true.per_word)
    assert true.n_heldout_tokens == X.sum() / 2 and true.n_documents == X.shape[0]
    types = document_completion(phi, X, mode="types", heldout_fraction=0.2)
    assert types.mode == "types" and types.per_word > -np.log(phi.shape[1])


def test_completion_from_split_and_model_objects():
    X, phi = lda_corpus(np.random.default_rng(7), n_docs=50)

    class Fitted:
        topic_word_ = phi * 3.0  # weights are renormalised

    observed, heldout = split_documents(X, seed=2)
    direct = completion_from_split(phi, observed, heldout)
    assert document_completion(Fitted(), X, seed=2).per_word == pytest.approx(direct.per_word, rel=1e-12)
    theta = infer_doc_topics(phi, observed)
    total, n_tokens = heldout_loglik(phi, theta, heldout)
    assert direct.per_word == pytest.approx(total / n_tokens, rel=1e-12) and n_tokens == heldout.sum()


def test_completion_handles_empty_parts():
    phi = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    X = sp.csr_matrix(np.array([[1.0, 0, 0], [0, 0, 0], [4, 0, 2]]))
    observed, heldout = split_documents(X, seed=0)  # doc 0: observed empty; doc 1: both empty
    score = completion_from_split(phi, observed, heldout)
    assert score.n_documents == 2 and score.n_heldout_tokens == 4
    theta = infer_doc_topics(phi, observed)
    np.testing.assert_allclose(theta[:2], 0.5)  # the prior mean
    assert np.isfinite(score.per_word)


def test_real_ap_unigram_smoke():
    X = load_shared_bow("ap").counts
    order = np.random.default_rng(0).permutation(X.shape[0])
    n_test = X.shape[0] // 10
    train, test = X[order[n_test:]], X[order[:n_test]]
    unigram = np.asarray(train.sum(axis=0)) + 0.01  # (1, V)
    score = document_completion(unigram, test, seed=1)
    assert np.isfinite(score.per_word) and -10 < score.per_word < -6
    assert score.n_documents == n_test


# ---------------------------------------------------------------------------------------------- coherence

def brute_coherence(ids, X, measure):
    docs = [set(np.flatnonzero(row)) for row in X.toarray()]
    n_docs = len(docs)

    def df(*words):
        return sum(all(w in doc for w in words) for doc in docs)

    out = []
    for top in ids:
        pairs = [(top[i], top[j]) for i in range(len(top)) for j in range(i)]
        if measure == "umass_sum":  # Mimno et al. 2011
            out.append(sum(np.log((df(wi, wj) + 1) / df(wj)) for wi, wj in pairs))
        elif measure == "umass":  # gensim's u_mass
            out.append(np.mean([np.log((df(wi, wj) / n_docs + 1e-12) / (df(wj) / n_docs)) for wi, wj in pairs]))
        else:
            vals = []
            for wi, wj in itertools.combinations(top, 2):
                pij, pi, pj = df(wi, wj) / n_docs, df(wi) / n_docs, df(wj) / n_docs
                if pij == 0:
                    vals.append(-1.0)  # never together
                elif pij == 1:
                    vals.append(0.0)  # both in every document: independent, 0/0 taken as 0
                else:
                    vals.append(np.log(pij / (pi * pj)) / -np.log(pij))
            out.append(np.mean(vals))
    return np.array(out)


@pytest.mark.parametrize("measure", ["umass", "umass_sum", "npmi"])
def test_coherence_matches_brute_force(measure):
    rng = np.random.default_rng(8)
    X = ((rng.random((30, 15)) < 0.3) * rng.integers(1, 4, size=(30, 15))).astype(float)
    X[:, :2] = 1  # words 0, 1 in every document
    X[:, 5:7] = 0  # word 5 only in doc 0, word 6 only in doc 1: a pair that never co-occurs
    X[0, 5] = X[1, 6] = 1
    X = sp.csr_matrix(X)
    weights = rng.random((4, 15))
    ids = np.argsort(-weights, axis=1)[:, :6]
    ids[0] = [5, 6, 0, 1, 2, 3]
    expected = brute_coherence(ids, X, measure)
    np.testing.assert_allclose(topic_coherence(ids, X, measure), expected, rtol=1e-12)
    plain = np.argsort(-weights, axis=1, kind="stable")[:, :6]
    np.testing.assert_allclose(topic_coherence(weights, BagOfWords.from_counts(X), measure, n_top=6),
                               brute_coherence(plain, X, measure), rtol=1e-12)
    assert mean_coherence(ids, X, measure) == pytest.approx(expected.mean())


def test_umass_matches_gensims_coherence_model():
    gensim = pytest.importorskip("gensim")
    from gensim.models.coherencemodel import CoherenceModel

    ap = datasets.load("ap").X[:300]
    corpus = to_gensim_corpus(ap)
    dictionary = gensim.corpora.Dictionary.from_corpus(corpus, id2word=dict(enumerate(ap.vocabulary)))
    rng = np.random.default_rng(0)
    common = np.flatnonzero(np.asarray((ap.counts > 0).sum(axis=0)).ravel() > 5)
    topics = np.array([rng.choice(common, 10, replace=False) for _ in range(6)])
    theirs = CoherenceModel(topics=topics.tolist(), corpus=corpus, dictionary=dictionary,
                            coherence="u_mass").get_coherence_per_topic()
    np.testing.assert_allclose(topic_coherence(topics, ap, "umass"), theirs, rtol=1e-10)


def test_npmi_extremes():
    X = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 1]]))
    scores = topic_coherence(np.array([[0, 1], [2, 3]]), X, "npmi")
    np.testing.assert_allclose(scores, [1.0, -1.0])  # always together / never together


# ---------------------------------------------------------------------------------------------- errors

def test_validation_errors():
    X, phi = lda_corpus(np.random.default_rng(9), n_docs=10)
    with pytest.raises(DataError, match="vocabulary of 40 words but X has 39 columns"):
        document_completion(phi, X[:, :39])
    with pytest.raises(ValueError, match="NaN"):
        document_completion(np.full_like(phi, np.nan), X)
    with pytest.raises(ValueError, match="negative"):
        infer_doc_topics(-phi, X)
    bad = phi.copy()
    bad[2] = 0
    with pytest.raises(ValueError, match=r"rows \[2\] sum to zero"):
        document_completion(bad, X)
    with pytest.raises(ValueError, match="unknown split mode"):
        split_documents(X, mode="words")
    with pytest.raises(ValueError, match="heldout_fraction"):
        split_documents(X, heldout_fraction=1.0)
    with pytest.raises(ValueError, match="prior"):
        infer_doc_topics(phi, X, prior=-1.0)
    with pytest.raises(ValueError, match="theta has shape"):
        heldout_loglik(phi, np.ones((3, 4)), X)
    with pytest.raises(ValueError, match="unknown coherence measure"):
        topic_coherence(phi, X, measure="cv")
    with pytest.raises(ValueError, match="never occur"):
        topic_coherence(np.array([[0, 1]]), sp.csr_matrix(np.array([[1.0, 0]])), "umass")
    with pytest.raises(ValueError, match="same word id twice"):
        topic_coherence(np.array([[0, 0]]), X)
    with pytest.raises(ValueError, match="non-integer"):
        split_documents(X * 0.5)
