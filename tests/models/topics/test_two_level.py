"""The two-level stick-breaking HDP (Hoffman et al. 2013, Fig. 9): kernel vs twin, expectations by
Monte Carlo, the local fixed point's invariants, the exact ELBO, the global step and the algorithms."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats as st
from scipy.optimize import linear_sum_assignment
from scipy.special import digamma, gammaln

from stickbreak.models.topics.two_level import TwoLevelHDP
from stickbreak.priors.beta_sticks import expected_log_sticks, expected_sticks
from stickbreak.config import LearnConfig
from stickbreak.core.protocols import total_elbo
from stickbreak.data import BagOfWords
from stickbreak.datasets.synthetic import make_bars_corpus
from stickbreak.driver import fit
from stickbreak.kernels.topics import _reference_two_level as ref
from stickbreak.kernels.topics import two_level as kern
from stickbreak.learn import BatchVB, InMemoryMinibatches, StochasticVI
from stickbreak.learn.schedules import RobbinsMonro
from conftest import load_shared_bow


def random_counts(rng, n_docs, n_words, density=0.3, high=6):
    X = sp.random(n_docs, n_words, density=density, random_state=rng, format="csr",
                  data_rvs=lambda n: rng.integers(1, high + 1, n).astype(float))
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    return sp.csr_matrix(X)


def random_globals(rng, n_topics, n_words, scale=3.0):
    lam = rng.gamma(0.5, scale, (n_topics, n_words)) + 0.01
    elog_beta_t = np.ascontiguousarray((digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))).T)
    a, b = rng.uniform(0.3, 5.0, n_topics - 1), rng.uniform(0.3, 5.0, n_topics - 1)
    return lam, elog_beta_t, expected_log_sticks(a, b), (a, b)


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(11)
    X = random_counts(rng, 40, 30, density=0.3, high=5)
    return BagOfWords.from_counts(X)


def make_model(n_words, **options):
    defaults = dict(corpus_concentration=1.3, doc_concentration=0.8, doc_truncation=4, max_iter=200, tol=1e-10)
    defaults.update(options)
    return TwoLevelHDP({"lam": np.full(n_words, 0.05)}, **defaults)


# ------------------------------------------------------------------ kernel vs twin
def _case(name, rng):
    """(counts CSR, n_topics, n_atoms, alpha)."""
    if name == "ordinary":
        return random_counts(rng, 25, 40), 7, 5, 0.7
    if name == "one_topic":
        return random_counts(rng, 10, 20), 1, 4, 1.0
    if name == "one_atom":
        return random_counts(rng, 10, 20), 6, 1, 1.0
    if name == "single_word_type":
        X = random_counts(rng, 8, 20).tolil()
        X[0, :] = 0
        X[0, 3] = 7.0
        X[1, :] = 0
        X[1, 19] = 1.0
        return sp.csr_matrix(X), 5, 3, 1.5
    if name == "empty_document":  # e.g. a test document whose words all went to the held-out part
        X = random_counts(rng, 6, 15).tolil()
        X[2, :] = 0
        return sp.csr_matrix(X), 4, 3, 1.0
    if name == "large_counts":
        X = random_counts(rng, 10, 25, high=3)
        X.data = X.data * 1000.0
        return X, 6, 4, 0.5
    raise KeyError(name)


STARTS = {"uniform": kern.START_UNIFORM, "words": kern.START_WORDS, "best": kern.START_BEST}


@pytest.mark.parametrize("start", list(STARTS))
@pytest.mark.parametrize("case", ["ordinary", "one_topic", "one_atom", "single_word_type", "empty_document",
                                  "large_counts"])
def test_kernel_matches_numpy_twin(case, start):
    rng = np.random.default_rng(5)
    X, n_topics, n_atoms, alpha = _case(case, rng)
    _, elog_beta_t, elog_corpus, _ = random_globals(rng, n_topics, X.shape[1])
    args = (X.indptr, X.indices, X.data, elog_beta_t, elog_corpus, alpha, n_atoms, 100, 1e-7, STARTS[start])
    theta_fast, theta_slow = np.zeros((X.shape[0], n_topics)), np.zeros((X.shape[0], n_topics))
    fast = kern.hdp_sticks_local_step(*args, 2, theta_fast)
    slow = ref.hdp_sticks_local_step(*args, 2, theta_slow)
    names = ["word_topic", "n_pointers", "n_tokens", "local_elbo"]
    for name, x, y in zip(names, fast[:4], slow[:4]):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(y).max()), err_msg=name)
    np.testing.assert_array_equal(fast[4], slow[4])
    np.testing.assert_allclose(theta_fast, theta_slow, rtol=1e-9, atol=1e-9)
    # every token and every pointer is accounted for; proportions sum to one
    np.testing.assert_allclose(fast[0].sum(axis=0), fast[2], rtol=1e-12)
    np.testing.assert_allclose(fast[2].sum(), X.sum(), rtol=1e-12)
    np.testing.assert_allclose(fast[1].sum(), n_atoms * X.shape[0], rtol=1e-12)
    np.testing.assert_allclose(theta_fast.sum(axis=1), 1.0, rtol=1e-12)
    # without the proportions the same statistics come out
    again = kern.hdp_sticks_local_step(*args, 1, np.zeros((0, n_topics)))
    np.testing.assert_allclose(again[0], fast[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(again[3], fast[3])  # deterministic: no random numbers in any start


def test_vectorised_exp_is_accurate():
    x = np.concatenate([-np.linspace(0, 707.9, 5001), np.linspace(0, 700, 501), [-1e-300, 0.0]])
    out = x.copy()
    kern.exp_inplace(out, np.empty_like(x))
    np.testing.assert_allclose(out, np.exp(x), rtol=4e-16, atol=0)
    tiny = np.array([-708.5, -1e4, -np.inf])
    kern.exp_inplace(tiny, np.empty(3))
    assert np.all(tiny == 0.0)


# ------------------------------------------------------------------ expectations by Monte Carlo
def _mc_log_sticks(draws):
    """log sigma_k of stick draws (n, K-1) with the last stick fixed at one."""
    rest = np.cumsum(np.log1p(-draws), axis=1)
    head = np.log(draws) + np.column_stack([np.zeros(len(draws)), rest[:, :-1]])
    return np.column_stack([head, rest[:, -1]])


@pytest.mark.parametrize("concentration", [1.0, 0.3])
def test_expected_log_sticks_and_weights_against_monte_carlo(concentration):
    rng = np.random.default_rng(7)
    a, b = np.array([2.0, 0.7, 5.0, 1.2]), np.array([3.0, 1.5, 0.9, 4.0])
    draws = rng.beta(a, b, size=(200_000, len(a)))
    log_sigma = _mc_log_sticks(draws)
    se = log_sigma.std(axis=0) / np.sqrt(len(draws))
    expected = expected_log_sticks(a, b)
    assert np.all(np.abs(log_sigma.mean(axis=0) - expected) < 5 * se)
    numba_out = np.empty(len(a) + 1)
    prior_minus_entropy = kern.expected_log_sticks(a, b, concentration, numba_out)
    np.testing.assert_allclose(numba_out, expected, rtol=1e-10, atol=1e-10)  # numba's digamma: 1e-13 each
    # the returned E log Beta(v; 1, c) - E log q(v) is minus the KL, also by Monte Carlo
    terms = (st.beta.logpdf(draws, 1.0, concentration) - st.beta.logpdf(draws, a, b)).sum(axis=1)
    assert abs(terms.mean() - prior_minus_entropy) < 5 * terms.std() / np.sqrt(len(draws))
    twin_out = np.empty(len(a) + 1)
    assert ref.expected_log_sticks(a, b, concentration, twin_out) == pytest.approx(prior_minus_entropy, rel=1e-10)
    np.testing.assert_allclose(twin_out, expected, rtol=1e-12)
    # E sigma_k: a distribution over K topics (the last stick fixed at one)
    sigma = np.exp(log_sigma)
    weights = expected_sticks(a, b)
    assert weights.sum() == pytest.approx(1.0, rel=1e-12)
    assert np.all(np.abs(sigma.mean(axis=0) - weights) < 5 * sigma.std(axis=0) / np.sqrt(len(draws)))


def test_expected_log_sticks_with_no_free_stick():
    assert expected_log_sticks(np.zeros(0), np.zeros(0)).tolist() == [0.0]
    assert expected_sticks(np.zeros(0), np.zeros(0)).tolist() == [1.0]


# ------------------------------------------------------------------ the local fixed point
def _twin_documents(X, elog_beta_t, elog_corpus, alpha, n_atoms, max_iter=100, tol=1e-6, start=kern.START_UNIFORM):
    for d in range(X.shape[0]):
        words, c = X.indices[X.indptr[d]:X.indptr[d + 1]], X.data[X.indptr[d]:X.indptr[d + 1]]
        yield words, c, ref.solve_document(elog_beta_t[words].T, c, elog_corpus, alpha, n_atoms, max_iter, tol, start)


def test_local_parameters_are_normalised_and_positive():
    rng = np.random.default_rng(8)
    X = random_counts(rng, 15, 30)
    _, elog_beta_t, elog_corpus, _ = random_globals(rng, 6, 30)
    for _, _, doc in _twin_documents(X, elog_beta_t, elog_corpus, 0.9, 5):
        np.testing.assert_allclose(doc.zeta.sum(axis=1), 1.0, rtol=1e-12)  # each atom over topics
        np.testing.assert_allclose(doc.phi.sum(axis=0), 1.0, rtol=1e-12)  # each word over atoms
        assert np.all(doc.zeta >= 0) and np.all(doc.phi >= 0)
        assert np.all(doc.gamma1 >= 1.0) and np.all(doc.gamma2 >= 0.9) and np.isfinite(doc.local_elbo)


@pytest.mark.parametrize("start", [kern.START_UNIFORM, kern.START_WORDS])
def test_per_document_elbo_never_decreases(start):
    rng = np.random.default_rng(9)
    X = random_counts(rng, 20, 30, high=8)
    _, elog_beta_t, elog_corpus, _ = random_globals(rng, 8, 30)
    n_checked = 0
    for words, c, doc in _twin_documents(X, elog_beta_t, elog_corpus, 1.0, 6, tol=1e-12, start=start):
        trace = doc.elbo_trace
        assert np.all(np.diff(trace) >= -1e-10 * np.abs(trace[1:])), trace
        n_checked += len(trace) > 2
        # refreshing gamma from the final phi (line 8 once more) can only raise L_d
        final = ref.doc_elbo(elog_beta_t[words].T, c, elog_corpus, 1.0, doc.zeta, doc.phi, doc.gamma1, doc.gamma2)
        assert final >= trace[-1] - 1e-10 * abs(trace[-1])
    assert n_checked > 10


def test_words_start_points_atoms_at_the_documents_leading_topics():
    """Twin: atom i starts on the topic of i-th largest EM mass; phi sums to one over the atoms."""
    rng = np.random.default_rng(12)
    _, elog_beta_t, elog_corpus, _ = random_globals(rng, 6, 20)
    words, c = np.array([1, 4, 7, 9, 15]), np.array([3.0, 1.0, 5.0, 2.0, 4.0])
    phi = ref.words_start(elog_beta_t[words].T, c, elog_corpus, 4)
    np.testing.assert_allclose(phi.sum(axis=0), 1.0, rtol=1e-12)
    order = np.argsort(-elog_corpus, kind="mergesort")
    log_theta = np.full(6, -np.log(6))
    for _ in range(kern.START_ITERS):  # EM for the mixture proportions, by hand
        r = np.exp(log_theta[:, None] + elog_beta_t[words][:, order].T)
        mass = (r / r.sum(axis=0)) @ c
        log_theta = np.log(mass / mass.sum())
    top = np.argsort(-mass, kind="mergesort")[:4]
    logits = log_theta[top, None] + elog_beta_t[words][:, order[top]].T
    np.testing.assert_allclose(phi, np.exp(logits) / np.exp(logits).sum(axis=0), rtol=1e-10)
    one_word = ref.words_start(elog_beta_t[[3]].T, np.array([2.0]), elog_corpus,
                               8)  # T > K: the extra atoms start empty
    assert one_word.shape == (8, 1) and np.all(one_word[6:] == 0) and one_word.sum() == pytest.approx(1.0)


@pytest.fixture(scope="module")
def reuters_fit():
    """Topics fitted by batch VB (from Fig. 9's start) on 300 Reuters documents; the other 95 to score."""
    data = load_shared_bow("reuters_lda")
    model = TwoLevelHDP({"lam": np.full(data.n_features, 0.05)}, doc_truncation=10, tol=1e-3, start="uniform")
    train, test = data.subset(np.arange(300)), data.subset(np.arange(300, data.n_items))
    params = model.initial_params(20, train.n_items, np.random.default_rng(0))
    result = fit(model, [train], params, BatchVB(), LearnConfig(max_laps=15, tol=1e-6))
    return model, result.params, test


def _per_document_elbo(model, params, X, start):
    """Each document's whole L_d from the kernel (one document per call): its local terms plus
    sum_kv S_kv E log beta_kv + sum_k P_k E log sigma_k(V)."""
    elog_beta_t = np.ascontiguousarray(params.expected_log_phi["lam"].T)
    out = np.empty(X.shape[0])
    for d in range(X.shape[0]):
        a, b = X.indptr[d], X.indptr[d + 1]
        word_topic, pointers, _, local, _ = kern.hdp_sticks_local_step(
            np.array([0, b - a], dtype=X.indptr.dtype), X.indices[a:b], X.data[a:b], elog_beta_t,
            params.expected_log_sticks, model.doc_concentration, model.doc_truncation, model.max_iter, model.tol,
            STARTS[start], 1, np.zeros((0, params.n_components)))
        out[d] = local[0] + np.sum(word_topic * elog_beta_t) + pointers @ params.expected_log_sticks
    return out


def test_words_start_beats_figure_nine_start_on_real_documents(reuters_fit):
    """Issue 24: from phi = 1/T most of a document stays on one topic; the start from its own words
    reaches a higher per-document ELBO on average (real corpus, seeded fit), and "best" keeps the
    higher of the two for every document."""
    model, params, test = reuters_fit
    X = test.counts
    elbo = {start: _per_document_elbo(model, params, X, start) for start in STARTS}
    gain = elbo["words"] - elbo["uniform"]
    assert gain.mean() > 1.0 and np.mean(gain > 0) > 0.5, (gain.mean(), np.mean(gain > 0))
    np.testing.assert_allclose(elbo["best"], np.maximum(elbo["uniform"], elbo["words"]), rtol=1e-12)
    # the batch statistics' local terms are those of the start kept, document by document
    for start in STARTS:
        local = dataclasses.replace(model, start=start).local_step(params, test)
        assert local.local_elbo.shape == (X.shape[0],) and np.isfinite(local.local_elbo).all()
    theta = {s: dataclasses.replace(model, start=s).expected_doc_topic(params, test) for s in ("uniform", "words")}
    effective = {s: np.mean(1.0 / (t ** 2).sum(axis=1)) for s, t in theta.items()}
    assert effective["words"] > effective["uniform"]


# ------------------------------------------------------------------ the ELBO and the global step
def brute_force_elbo(model, params, data, local_params):
    """The ELBO from explicit zeta, phi and gamma (the twin, under ``local_params``), every term from
    its definition (Hoffman et al. 2013, Sec. 3.3; digest §3)."""
    lam, eta = params.obs["lam"], model.obs_prior["lam"]
    a, b = params.weights["a"], params.weights["b"]
    elog_beta = digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))
    elog_sigma = expected_log_sticks(a, b)
    X = data.counts
    total = 0.0
    local_elog_beta_t = np.ascontiguousarray(local_params.expected_log_phi["lam"].T)
    for words, c, doc in _twin_documents(X, local_elog_beta_t, local_params.expected_log_sticks,
                                         model.doc_concentration, model.doc_truncation, model.max_iter, model.tol,
                                         STARTS[model.start]):
        total += np.sum(c * doc.phi * (doc.zeta @ elog_beta[:, words]))  # E log p(w | z, c, beta)
        total += np.sum(doc.zeta @ elog_sigma)  # E log p(c | V)
        total += doc.local_elbo  # H(c) + H(z) + E log p(z | pi) + E log p(pi) - E log q(pi)
    # E log Dir(beta_k; eta) - E log Dir(beta_k; lam_k)
    log_prior = gammaln(eta.sum()) - gammaln(eta).sum() + ((eta - 1) * elog_beta).sum(axis=1)
    log_q = gammaln(lam.sum(axis=1)) - gammaln(lam).sum(axis=1) + ((lam - 1) * elog_beta).sum(axis=1)
    total += np.sum(log_prior - log_q)
    # E log Beta(v_k; 1, omega) - E log q(v_k) over the K - 1 free sticks
    omega = model.corpus_concentration
    log_v, log_rest = digamma(a) - digamma(a + b), digamma(b) - digamma(a + b)
    total += np.sum(np.log(omega) + (omega - 1) * log_rest
                    - (gammaln(a + b) - gammaln(a) - gammaln(b) + (a - 1) * log_v + (b - 1) * log_rest))
    return total


@pytest.mark.slow
def test_elbo_terms_equal_brute_force_before_and_after_the_global_step(corpus):
    model = make_model(corpus.n_features)
    params = model.initial_params(6, corpus.n_items, np.random.default_rng(2))
    stats = model.summarize(corpus, model.local_step(params, corpus), params.uids)
    new = model.global_step(stats, params)
    for p in (params, new):
        expected = brute_force_elbo(model, p, corpus, params)
        assert total_elbo(model.elbo_terms(p, stats)) == pytest.approx(expected, rel=1e-9)
    assert set(model.elbo_terms(new, stats)) == {"data", "pointers", "sticks", "local"}


def test_global_step_is_the_coordinate_optimum(corpus):
    model = make_model(corpus.n_features)
    rng = np.random.default_rng(3)
    params = model.initial_params(6, corpus.n_items, rng)
    stats = model.summarize(corpus, model.local_step(params, corpus), params.uids)
    best = model.global_step(stats, params)
    top = total_elbo(model.elbo_terms(best, stats))
    assert top >= total_elbo(model.elbo_terms(params, stats))
    for scale in (1e-3, 0.1, 1.0):
        for _ in range(5):
            jitter = lambda x: x * np.exp(scale * rng.normal(size=x.shape))
            other = model.make_params(best.uids, jitter(best.obs["lam"]),
                                      {"a": jitter(best.weights["a"]), "b": jitter(best.weights["b"])})
            assert total_elbo(model.elbo_terms(other, stats)) <= top + 1e-9 * abs(top)
    # Fig. 9 lines 11-12 by hand
    pointers = stats.fields["n_pointers"]
    np.testing.assert_allclose(best.weights["a"], 1.0 + pointers[:-1])
    np.testing.assert_allclose(best.weights["b"], 1.3 + np.cumsum(pointers[::-1])[::-1][1:])
    np.testing.assert_allclose(best.obs["lam"], 0.05 + stats.fields["word_counts"])


def test_statistics_add_up_over_batches(corpus):
    model = make_model(corpus.n_features, tol=1e-4, max_iter=50)
    params = model.initial_params(5, corpus.n_items, np.random.default_rng(4))
    first, second = corpus.subset(np.arange(0, 17)), corpus.subset(np.arange(17, corpus.n_items))
    parts = sum(model.summarize(b, model.local_step(params, b), params.uids) for b in (second, first))
    whole = model.summarize(corpus, model.local_step(params, corpus), params.uids)
    for key, value in whole.fields.items():
        np.testing.assert_allclose(parts.fields[key], value, rtol=1e-10, atol=1e-10)
    for key, value in whole.scalars.items():
        assert parts.scalars[key] == pytest.approx(value, rel=1e-10)


# ------------------------------------------------------------------ algorithms
def test_full_data_stochastic_step_of_one_is_a_batch_step(corpus):
    model = make_model(corpus.n_features, tol=1e-4, max_iter=100)
    params = model.initial_params(6, corpus.n_items, np.random.default_rng(5))
    svi = StochasticVI(lambda step: 1.0, np.random.default_rng(0))
    stepped, _, terms = svi.step(model, params, corpus, corpus.n_items, 1)
    batch = model.global_step(model.summarize(corpus, model.local_step(params, corpus), params.uids), params)
    np.testing.assert_allclose(stepped.obs["lam"], batch.obs["lam"], rtol=1e-12)
    for key in ("a", "b"):
        np.testing.assert_allclose(stepped.weights[key], batch.weights[key], rtol=1e-12)
    assert np.isfinite(total_elbo(terms))


def test_blend_is_the_natural_gradient_step(corpus):
    model = make_model(corpus.n_features)
    old = model.initial_params(4, corpus.n_items, np.random.default_rng(6))
    target = model.initial_params(4, corpus.n_items, np.random.default_rng(7))
    mid = model.blend(old, target, 0.3)
    np.testing.assert_allclose(mid.obs["lam"], 0.7 * old.obs["lam"] + 0.3 * target.obs["lam"])
    np.testing.assert_allclose(mid.weights["b"], 0.7 * old.weights["b"] + 0.3 * target.weights["b"])


def test_initial_params_follow_footnote_six():
    model = TwoLevelHDP({"lam": np.full(50, 0.01)}, corpus_concentration=2.0)
    params = model.initial_params(20, 400, np.random.default_rng(0))
    noise = params.obs["lam"] - 0.01
    assert noise.min() > 0 and noise.mean() == pytest.approx(100 * 400 / (20 * 50), rel=0.05)
    assert np.all(params.weights["a"] == 1.0) and np.all(params.weights["b"] == 2.0)
    assert params.n_components == 20 and params.weights["a"].shape == (19,)
    given = model.initial_params(params.obs["lam"], 400)  # topics drawn elsewhere (the estimators' path)
    np.testing.assert_array_equal(given.obs["lam"], params.obs["lam"])
    np.testing.assert_array_equal(given.weights["b"], params.weights["b"])


@pytest.fixture(scope="module")
def bars():
    counts, truth = make_bars_corpus(n_docs=300, doc_length=80, side=6, n_bars=6, max_topics_per_doc=2, seed=3)
    return BagOfWords.from_counts(counts), truth


@pytest.mark.slow
def test_batch_vb_recovers_bar_topics(bars):
    data, truth = bars
    model = TwoLevelHDP({"lam": np.full(data.n_features, 0.1)}, doc_truncation=6, tol=1e-4)
    params = model.initial_params(12, data.n_items, np.random.default_rng(1))
    result = fit(model, [data], params, BatchVB(), LearnConfig(max_laps=40, tol=1e-6))
    found = result.params.topic_word
    unit = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)
    cosine = unit(truth) @ unit(found).T
    rows, cols = linear_sum_assignment(-cosine)
    assert cosine[rows, cols].min() > 0.9
    assert result.stats.counts[cols].sum() > 0.5 * data.counts.sum()  # most tokens sit on the bars
    assert model.topic_weights(result.params).sum() == pytest.approx(1.0, rel=1e-12)
    theta = model.expected_doc_topic(result.params, data.subset(np.arange(20)))
    assert theta.shape == (20, 12) and np.allclose(theta.sum(axis=1), 1.0)


def test_driver_runs_stochastic_vi(bars):
    data, _ = bars
    model = TwoLevelHDP({"lam": np.full(data.n_features, 0.1)}, doc_truncation=5, n_chunks=2)
    params = model.initial_params(10, data.n_items, np.random.default_rng(2))
    rng = np.random.default_rng(0)
    config = LearnConfig(algorithm="stochastic", max_laps=3, n_batches=5)
    result = fit(model, InMemoryMinibatches(data, config.n_batches), params, StochasticVI(RobbinsMonro(1.0, 0.9), rng),
                 config)
    assert result.n_laps == 3 and all(np.isfinite(r.elbo) and not r.exact for r in result.trace)
    assert result.params.obs["lam"].shape == (10, data.n_features)
    assert result.stats.scalars["n_items"] == pytest.approx(data.n_items)


# ------------------------------------------------------------------ bad input
def test_bad_options_and_vocabulary_are_rejected(corpus):
    with pytest.raises(ValueError, match="doc_truncation"):
        TwoLevelHDP({"lam": np.full(5, 0.1)}, doc_truncation=0)
    with pytest.raises(ValueError, match="corpus_concentration"):
        TwoLevelHDP({"lam": np.full(5, 0.1)}, corpus_concentration=-1.0)
    with pytest.raises(ValueError, match="obs_prior"):
        TwoLevelHDP({"lam": np.zeros(5)})
    with pytest.raises(ValueError, match="start"):
        TwoLevelHDP({"lam": np.full(5, 0.1)}, start="random")
    assert TwoLevelHDP({"lam": np.full(5, 0.1)}).start == "words"
    model = make_model(corpus.n_features + 1)
    params = model.initial_params(3, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="vocabulary"):
        model.local_step(params, corpus)
