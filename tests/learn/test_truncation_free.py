"""Truncation-free SVI (Wang & Blei 2012): the Fig. 2 toy example, kernel helpers against their NumPy
twins, the samplers by statistics and invariants, the global store's identities, and recovery of
known components from T = 0 through the shared driver."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score

from stickbreak.config import LearnConfig
from stickbreak.data import BagOfWords
from stickbreak.datasets.synthetic import make_bars_corpus
from stickbreak.driver import fit
from stickbreak.kernels.truncation_free import _reference as ref
from stickbreak.kernels.truncation_free import local as kern
from stickbreak.kernels import sampling as kmath
from stickbreak.kernels.special import digamma
from stickbreak.learn.base import ELBODecreaseWarning
from stickbreak.learn.schedules import RobbinsMonro
from stickbreak.learn.stochastic import InMemoryMinibatches
from stickbreak.models.sampled import (ComponentStore, LocalSample, TruncationFreeDPMixture, TruncationFreeHDP,
                                      stick_tail)
from stickbreak.learn.truncation_free import TruncationFreeSVI, minibatch_rows


def cluster_corpus(n_docs=500, n_clusters=5, n_words=100, doc_length=30, seed=0):
    """Documents each drawn from one of ``n_clusters`` multinomials over disjoint word blocks."""
    rng = np.random.default_rng(seed)
    block = n_words // n_clusters
    topics = np.full((n_clusters, n_words), 0.01 / n_words)
    for k in range(n_clusters):
        topics[k, k * block:(k + 1) * block] += rng.dirichlet(np.ones(block))
    topics /= topics.sum(axis=1, keepdims=True)
    labels = rng.integers(0, n_clusters, n_docs)
    X = np.stack([rng.multinomial(doc_length, topics[k]) for k in labels])
    return BagOfWords.from_counts(X), labels


# ---------------------------------------------------------------------------------------------------- Fig. 2
FIG2 = {  # w_1: (A mean-field, A locally collapsed, B mean-field, B locally collapsed), digest §1
    1: (-2.730, -2.208, 7.018, 0.000),
    2: (-5.459, -3.828, 14.035, -1.107),
    5: (-13.648, -7.206, 35.088, -3.891),
    10: (-27.295, -10.764, 70.176, -7.104),
    50: (-136.477, -21.566, 350.879, -17.480),
}


@pytest.mark.parametrize("w1", sorted(FIG2))
def test_fig2_toy_log_odds(w1):
    """V = 10, q(theta_2) = Dir(0.1); case A q(theta_1) = Dir(0.1, 1, ..., 1), case B Dir(1, ..., 1); the
    document is word 1 repeated w_1 times. Mean-field prefers component 1 in case B; ours does not."""
    lam2 = np.full(10, 0.1)
    cases = {"A": np.array([0.1] + [1.0] * 9), "B": np.ones(10)}
    counts = np.array([float(w1)])
    values = []
    for lam1 in cases.values():
        mean_field = w1 * ((digamma(lam1[0]) - digamma(lam1.sum())) - (digamma(lam2[0]) - digamma(lam2.sum())))
        collapsed = (kmath.dm_log_evidence(lam1[:1], lam1.sum(), counts)
                     - kmath.dm_log_evidence(lam2[:1], lam2.sum(), counts))
        values += [mean_field, collapsed]
    np.testing.assert_allclose(values, FIG2[w1], atol=5e-4)
    _, _, b_mean_field, b_collapsed = values
    assert b_mean_field > 0
    assert b_collapsed < 0 if w1 >= 2 else b_collapsed == pytest.approx(0.0, abs=1e-12)


# ---------------------------------------------------------------------------------------------------- kernels vs twins
def _batch_state(seed=0, n_docs=6, n_vocab=30, n_comp=7):
    rng = np.random.default_rng(seed)
    X = BagOfWords.from_counts(rng.poisson(0.8, size=(n_docs, n_vocab)) + np.eye(n_docs, n_vocab, dtype=int)).counts
    word_ids, doc_ptr, locs, cnts = kern.batch_vocabulary(X.indptr, X.indices, X.data, np.arange(n_docs))
    post = rng.gamma(0.5, 3.0, size=(len(word_ids), n_comp + 2)) + 1e-3
    post_sum = post.sum(axis=0) + rng.gamma(2.0, 10.0, size=n_comp + 2)
    u, v = 1.0 + rng.gamma(1.0, 50.0, n_comp), 1.0 + rng.gamma(1.0, 200.0, n_comp)
    m = rng.integers(0, 4, n_comp).astype(float)
    return X, word_ids, doc_ptr, locs, cnts, post, post_sum, u, v, m


def test_batch_vocabulary_maps_each_nonzero_to_its_word():
    X, word_ids, doc_ptr, locs, cnts, *_ = _batch_state()
    rows = np.array([4, 1, 3])
    word_ids, doc_ptr, locs, cnts = kern.batch_vocabulary(X.indptr, X.indices, X.data, rows)
    sub = X[rows]
    np.testing.assert_array_equal(doc_ptr, sub.indptr)
    np.testing.assert_array_equal(word_ids[locs], sub.indices)
    np.testing.assert_array_equal(cnts, sub.data)
    np.testing.assert_array_equal(word_ids, np.unique(sub.indices))


@pytest.mark.parametrize("x", [1e-3, 0.5, 7.25, 3e4, 2e9, 5e15])
@pytest.mark.parametrize("c", [0.0, 1.0, 2.0, 16.0, 17.0, 250.0])
def test_log_rising_matches_twin(x, c):
    assert kmath.log_rising(x, c) == pytest.approx(ref.log_rising(x, c), rel=1e-12, abs=1e-12)
    if c not in (0.0, 1.0):  # the non-integer branch: a gammaln difference on both sides
        from scipy.special import gammaln

        cancellation = 8 * np.finfo(float).eps * (abs(gammaln(x)) + abs(gammaln(x + c + 0.5)))
        assert kmath.log_rising(x, c + 0.5) == pytest.approx(gammaln(x + c + 0.5) - gammaln(x), abs=cancellation)


@pytest.mark.parametrize("extreme", [False, True])
def test_probability_helpers_match_twins(extreme):
    X, word_ids, doc_ptr, locs, cnts, post, post_sum, u, v, m = _batch_state()
    if extreme:  # parameters beyond the multiplied-out range, counts beyond SMALL_COUNT
        post[::3] *= 1e13
        post[1::3] *= 1e-13
        post_sum = post.sum(axis=0) + 1.0
        cnts = cnts * 9.0
    K = len(u)
    for d in range(len(doc_ptr) - 1):
        start, stop = doc_ptr[d], doc_ptr[d + 1]
        n_tok = cnts[start:stop].sum()
        got, want = np.empty(K + 2), np.empty(K + 2)
        kmath.doc_log_evidence(post, post_sum, locs, cnts, start, stop, n_tok, K + 2, got)
        ref.doc_log_evidence(post, post_sum, locs, cnts, start, stop, n_tok, K + 2, want)
        np.testing.assert_allclose(got, want, rtol=1e-9)
        got, want = np.empty(K + 1), np.empty(K + 1)
        kmath.dp_doc_log_probs(post, post_sum, locs, cnts, start, stop, n_tok, -3.5, u, v, m, K, got)
        ref.dp_doc_log_probs(post, post_sum, locs, cnts, start, stop, n_tok, -3.5, u, v, m, K, want)
        np.testing.assert_allclose(got, want, rtol=1e-9)
    lam = post[:5, 0]
    assert kmath.dm_log_evidence(lam, 40.0, cnts[:5]) == pytest.approx(ref.dm_log_evidence(lam, 40.0, cnts[:5]),
                                                                       rel=1e-9)
    got, want = kern.dp_plugin_loglik(post, post_sum, locs, cnts, doc_ptr, u, v, K, 30), \
        ref.dp_plugin_loglik(post, post_sum, locs, cnts, doc_ptr, u, v, K, 30)
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_stick_probabilities_match_twin_and_sum_to_one():
    rng = np.random.default_rng(3)
    for n_comp, scale in [(1, 1.0), (8, 10.0), (300, 1e5)]:  # long, lopsided sticks: log-space accumulation
        u, v = 1.0 + rng.gamma(0.3, scale, n_comp), 1.0 + rng.gamma(0.3, scale, n_comp)
        for m in (np.zeros(n_comp), rng.integers(0, 5, n_comp).astype(float)):
            got, want = np.empty(n_comp + 1), np.empty(n_comp + 1)
            kmath.stick_log_probs(u, v, m, n_comp, got)
            with np.errstate(divide="ignore"):
                ref.stick_log_probs(u, v, m, n_comp, want)
            finite = np.isfinite(want)
            np.testing.assert_allclose(got[finite], want[finite], rtol=1e-9)
            assert np.logaddexp.reduce(got) == pytest.approx(0.0, abs=1e-9)
        log_w, log_rest = kmath.log_stick_weights(u, v)
        want_w, want_rest = ref.log_stick_weights(u, v)
        np.testing.assert_allclose(log_w, want_w, rtol=1e-9)
        assert log_rest == pytest.approx(want_rest, rel=1e-9)
        if n_comp <= 8:  # E[pi_k] = u_k / (u_k + v_k) prod_{l<k} v_l / (u_l + v_l), directly
            mean = u / (u + v)
            np.testing.assert_allclose(np.exp(log_w), mean * np.cumprod(np.append(1.0, 1.0 - mean[:-1])), rtol=1e-12)


def test_hdp_helpers_match_twins():
    rng = np.random.default_rng(5)
    K, W, V, D = 6, 9, 50, 3
    post = rng.gamma(0.5, 2.0, size=(W, K + 3)) + 0.01
    post_sum = post.sum(axis=0) + 5.0
    doc_topic = rng.integers(0, 4, size=(D, K + 3)).astype(float)
    pi = rng.dirichlet(np.ones(K + 1))[:K]
    for j in range(W):
        got, want = np.empty(K + 1), np.empty(K + 1)
        total = kmath.hdp_token_probs(doc_topic[1], pi, 1 - pi.sum(), 0.7, post, post_sum, j, K, V, got)
        assert total == pytest.approx(ref.hdp_token_probs(doc_topic[1], pi, 1 - pi.sum(), 0.7, post, post_sum, j, K,
                                                          V, want), rel=1e-12)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    # leave-one-out plug-in: tokens consistent with the document counts
    z = np.concatenate([np.repeat(np.arange(K + 3), doc_topic[d].astype(int)) for d in range(D)])
    tok_doc = np.concatenate([np.full(int(doc_topic[d].sum()), d) for d in range(D)])
    tok_loc = rng.integers(0, W, len(z))
    phi = post[:, :K] / post_sum[:K]
    log_w = np.empty(K + 1)
    kmath.stick_log_probs(1 + rng.gamma(1, 9, K), 1 + rng.gamma(1, 9, K), np.zeros(K), K, log_w)
    doc_len = doc_topic.sum(axis=1)
    np.testing.assert_allclose(
        kern.hdp_plugin_token_loglik(phi, log_w, 0.7, tok_loc, tok_doc, z, doc_topic, doc_len, K, V),
        ref.hdp_plugin_token_loglik(phi, log_w, 0.7, tok_loc, tok_doc, z, doc_topic, doc_len, K, V), rtol=1e-12)


# ---------------------------------------------------------------------------------------------------- samplers
def test_antoniak_mean_matches_expected_tables():
    n, alpha, n_draws = 25, 0.7, 20_000
    draws = kmath.antoniak_draws(n, alpha, n_draws, 123)
    expected = np.sum(alpha / (alpha + np.arange(n)))
    assert draws.min() >= 1 and draws.max() <= n
    assert abs(draws.mean() - expected) < 4 * draws.std() / np.sqrt(n_draws)
    assert kmath.antoniak_draws(0, alpha, 3, 1).tolist() == [0, 0, 0]
    assert kmath.antoniak_draws(6, 0.0, 3, 1).tolist() == [1, 1, 1]  # n > 0 customers sit at >= 1 table


def _store_with_components(seed=0, n_vocab=40, n_comp=4, a=1.0, eta=0.5):
    rng = np.random.default_rng(seed)
    store = ComponentStore.empty(n_vocab, eta, a, capacity=n_comp + 2)
    store.M_t[:, :n_comp] = rng.gamma(0.3, 20.0, size=(n_vocab, n_comp))
    store.M_sum[:n_comp] = store.M_t[:, :n_comp].sum(axis=0)
    store.scale = 0.37
    store.u[:n_comp] = 1.0 + rng.gamma(2.0, 30.0, n_comp)
    store.v[:n_comp] = a + stick_tail(store.u[:n_comp] - 1.0)
    store.uids[:n_comp] = np.arange(n_comp)
    store.n_components, store.next_uid = n_comp, n_comp
    return store


def test_dp_sampler_draws_a_single_document_from_its_conditional():
    """With one document the sampler's label is one draw from the locally collapsed q(z) (§2.3)."""
    store = _store_with_components(1, n_vocab=12, n_comp=3)
    store.M_t[:, :3] = np.random.default_rng(2).gamma(1.0, 0.5, size=(12, 3))
    store.M_sum[:3] = store.M_t[:, :3].sum(axis=0)
    store.u[:3] = [4.0, 3.0, 2.0]
    store.v[:3] = store.a + stick_tail(store.u[:3] - 1.0)
    X = BagOfWords.from_counts(np.array([[2, 0, 1, 0, 0, 0, 0, 0, 3, 0, 0, 1]])).counts
    rows = np.array([0])
    word_ids, doc_ptr, locs, cnts = kern.batch_vocabulary(X.indptr, X.indices, X.data, rows)
    lam_t = store.eta + store.scale * store.M_t[word_ids, :3]
    post = np.hstack([lam_t, np.full((len(word_ids), 1), store.eta)])
    post_sum = np.append(12 * store.eta + store.scale * store.M_sum[:3], 12 * store.eta)
    prior = ref.dm_log_evidence(np.full(len(cnts), store.eta), 12 * store.eta, cnts)
    log_p = np.empty(4)
    ref.dp_doc_log_probs(post, post_sum, locs, cnts, 0, len(cnts), cnts.sum(), prior, store.u, store.v, np.zeros(3), 3,
                         log_p)
    p = np.exp(log_p - np.logaddexp.reduce(log_p))
    n_draws = 4000
    labels = [kern.dp_minibatch_gibbs(X.indptr, X.indices, X.data, rows, store.M_t, store.M_sum, store.scale,
                                      store.eta, store.u, store.v, store.a, 3, 2,
                                      seed)[0][0] for seed in range(n_draws)]
    freq = np.bincount(labels, minlength=4) / n_draws
    assert np.all(np.abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / n_draws) + 1e-3), (freq, p)
    assert p.min() > 0.01  # every option, the new component included, is exercised


@pytest.mark.parametrize("which", ["dp", "hdp"])
def test_sampler_statistics_account_for_every_document_and_token(which):
    data, _ = cluster_corpus(n_docs=40, doc_length=12, seed=2)
    store = _store_with_components(2, n_vocab=data.n_features, n_comp=3)
    counts, rows = data.counts, np.arange(3, 40, 2)
    model = TruncationFreeDPMixture() if which == "dp" else TruncationFreeHDP()
    sample = model.sample_local(store, counts, rows, seed=7)
    again = model.sample_local(store, counts, rows, seed=7)
    for x, y in zip(sample, again):
        np.testing.assert_array_equal(x, y)  # seeded: reproducible
    sub = counts[rows]
    np.testing.assert_array_equal(sample.word_ids, np.unique(sub.indices))
    np.testing.assert_array_equal(sample.word_stats.sum(axis=1), np.asarray(sub.sum(axis=0)).ravel()[sample.word_ids])
    used = sample.word_stats.sum(axis=0) > 0
    assert used[3:].all()  # components opened in the batch and left empty are dropped
    if which == "dp":
        assert sample.item_stats.sum() == len(rows)
        assert np.array_equal(used, sample.item_stats > 0)
    else:  # tables: at least one per used topic, at most one per token
        assert np.all(sample.item_stats[used] >= 1) and np.all(sample.item_stats[~used] == 0)
        assert np.all(sample.item_stats <= sample.word_stats.sum(axis=0))
    assert sample.loglik.shape == (len(rows),) and np.all(np.isfinite(sample.loglik)) and np.all(sample.loglik < 0)


# ---------------------------------------------------------------------------------------------------- global store
def test_a_component_without_assignments_stays_exactly_at_the_prior():
    store = _store_with_components(4, n_comp=3, a=1.7, eta=0.3)
    rng = np.random.default_rng(0)
    word_ids = np.array([2, 5, 11, 30])
    stats = rng.integers(1, 5, size=(4, 6)).astype(float)
    stats[:, 5] = 0.0  # a new component that receives nothing (the last: nothing beyond it either)
    items = np.array([2.0, 0.0, 1.0, 3.0, 1.0, 0.0])
    for rho in (0.3, 1.0):
        s = store.copy()
        s.update(LocalSample(word_ids, stats, items, np.zeros(1)), rho, factor=25.0)
        assert s.n_components == 6 and s.uids[:6].tolist() == [0, 1, 2, 3, 4, 5]
        assert np.all(s.lam()[5] == 0.3) and s.u[5] == 1.0 and s.v[5] == 1.7 and s.word_mass()[5] == 0.0
        assert np.all(s.lam()[3][np.setdiff1d(np.arange(40), word_ids)] == 0.3)  # untouched words of a new one


def test_running_average_identity_and_floor():
    """With rho = S / n_t and scale n / S, lam = eta + (n / n_t) * sum of all statistics while n_t <= n
    (digest §4); afterwards rho = S / n and lam - eta shrinks by (1 - S / n) per step."""
    data, _ = cluster_corpus(n_docs=60, n_clusters=3, n_words=30, doc_length=10, seed=1)
    model = TruncationFreeDPMixture(topic_word_prior=0.4, concentration=2.0, n_sweeps=1)
    n, S = 40, 10
    learner = TruncationFreeSVI(np.random.default_rng(0), n_items=n, prune_every=10**9)
    store = model.empty_store(data.n_features)
    total_words, total_items = {}, {}
    for step in range(1, 7):
        rows = np.arange((step - 1) * S, step * S)
        previous = store.copy()
        sample = learner.step(model, store, data.counts, rows, n, step * S, step, seed=step)
        rho = learner.learning_rate(step, step * S, S, n)
        assert rho == (S / (step * S) if step * S <= n else S / n)
        dense = np.zeros((sample.word_stats.shape[1], data.n_features))
        dense[:, sample.word_ids] = sample.word_stats.T
        uids = store.uids[:store.n_components]
        if step * S <= n:
            for k, uid in enumerate(uids):
                total_words[uid] = total_words.get(uid, 0.0) + dense[k]
                total_items[uid] = total_items.get(uid, 0.0) + sample.item_stats[k]
            want = np.stack([total_words[u] for u in uids]) * n / (step * S) + model.topic_word_prior
            np.testing.assert_allclose(store.lam(), want, rtol=1e-12)
            np.testing.assert_allclose(store.u[:len(uids)] - 1.0,
                                       np.array([total_items[u] for u in uids]) * n / (step * S),
                                       rtol=1e-12)
        else:
            old = np.zeros((len(uids), data.n_features))
            old[:previous.n_components] = previous.lam() - model.topic_word_prior
            want = model.topic_word_prior + (1 - rho) * old + rho * (n / S) * dense
            np.testing.assert_allclose(store.lam(), want, rtol=1e-12)


def test_robbins_monro_schedule_is_floored_at_batch_over_corpus():
    learner = TruncationFreeSVI(np.random.default_rng(0), schedule=RobbinsMonro(delay=1.0, decay=0.6))
    assert learner.learning_rate(1, 10, 10, 1000) == pytest.approx(2 ** -0.6)
    assert learner.learning_rate(10**9, 10**10, 10, 1000) == 10 / 1000


def test_stick_invariant_after_updates_pruning_and_reordering():
    """v_k = a + sum_{l>k} (u_l - 1) (digest §2) holds through steps, prunes and the reordering by size."""
    data, _ = cluster_corpus(n_docs=300, n_clusters=20, doc_length=6, seed=3)
    model = TruncationFreeDPMixture(concentration=1.5)
    learner = TruncationFreeSVI(np.random.default_rng(0))
    store = model.empty_store(data.n_features)
    rng = np.random.default_rng(1)
    n, pruned = 60, 0  # a small assumed corpus: components left unused decay below one document
    for step in range(1, 61):
        rows = np.sort(rng.choice(data.n_items, 5, replace=False))
        learner.step(model, store, data.counts, rows, n, 5 * step, step, seed=step)
        T = store.n_components
        np.testing.assert_allclose(store.v[:T], 1.5 + stick_tail(store.u[:T] - 1.0), rtol=1e-10)
        if step % 10 == 0:
            uids = set(store.uids[:T][store.u[:T] - 1.0 >= 1.0].tolist())
            store.keep(model.keep_mask(store))
            pruned += T - store.n_components
            T = store.n_components
            assert T == len(uids) and set(store.uids[:T].tolist()) == uids
            assert np.all(np.diff(store.u[:T]) <= 0)  # largest stick first
            np.testing.assert_allclose(store.v[:T], 1.5 + stick_tail(store.u[:T] - 1.0), rtol=1e-14)
            assert np.all(store.M_t[:, T:] == 0) and np.all(store.M_sum[T:] == 0)
    assert pruned > 0


def test_minibatch_rows_are_the_minibatches_of_the_source():
    data, _ = cluster_corpus(n_docs=50, seed=4)
    for sampling in ("without_replacement", "with_replacement"):
        source = InMemoryMinibatches(data, 7, sampling)
        fast = list(minibatch_rows(source, np.random.default_rng(9)))
        slow = list(source.lap(np.random.default_rng(9)))
        assert len(fast) == len(slow)
        for (counts, rows), batch in zip(fast, slow):
            assert (counts[rows] != batch.counts).nnz == 0


def test_bad_settings_and_mismatched_vocabulary_are_refused():
    with pytest.raises(ValueError, match="topic_word_prior must be a positive"):
        TruncationFreeDPMixture(topic_word_prior=0.0)
    with pytest.raises(ValueError, match="doc_concentration must be a positive"):
        TruncationFreeHDP(doc_concentration=-1.0)
    with pytest.raises(ValueError, match="n_sweeps must be a non-negative integer"):
        TruncationFreeHDP(n_sweeps=1.5)
    with pytest.raises(ValueError, match="n_items"):
        TruncationFreeSVI(np.random.default_rng(0), n_items=0)
    data, _ = cluster_corpus(n_docs=20, seed=5)
    model, learner = TruncationFreeDPMixture(), TruncationFreeSVI(np.random.default_rng(0))
    state = learner.start(model, InMemoryMinibatches(data, 2), None)
    other = BagOfWords.from_counts(sp.hstack([data.counts, sp.csr_matrix((20, 1))]))
    with pytest.raises(ValueError, match="same vocabulary"):
        learner.lap(model, InMemoryMinibatches(other, 2), state)


# ---------------------------------------------------------------------------------------------------- recovery
def _fit(model, data, n_batches, laps, prune_every, seed=0):
    learner = TruncationFreeSVI(np.random.default_rng(seed), prune_every=prune_every)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ELBODecreaseWarning)  # no bound: the driver must not warn
        return fit(model, InMemoryMinibatches(data, n_batches), None, learner, LearnConfig(max_laps=laps))


def test_dp_grows_from_nothing_and_recovers_clusters():
    data, labels = cluster_corpus(n_docs=500, n_clusters=5, seed=0)
    model = TruncationFreeDPMixture()
    result = _fit(model, data, n_batches=50, laps=4, prune_every=250)
    assert result.trace[0].n_components >= 5 and len(result.trace) == 4
    assert 5 <= result.trace[-1].n_effective <= 6
    assert all(np.isfinite(r.elbo) for r in result.trace) and not result.trace[-1].exact
    predicted = np.argmax(model.local_step(result.params, data).resp, axis=1)
    assert adjusted_rand_score(labels, predicted) > 0.95
    params = result.params
    assert params.weights.sum() + params.tail_weight == pytest.approx(1.0)
    np.testing.assert_allclose(params.topic_word.sum(axis=1), 1.0)
    assert len(np.unique(params.uids)) == params.n_components
    # reproducible from the seed
    again = _fit(model, data, n_batches=50, laps=4, prune_every=250)
    np.testing.assert_array_equal(again.params.lam, params.lam)
    # a warm start from fitted parameters holds exactly the same components
    learner = TruncationFreeSVI(np.random.default_rng(0))
    state = learner.start(model, InMemoryMinibatches(data, 5), params)
    np.testing.assert_allclose(state.params.lam, params.lam, rtol=1e-12)
    np.testing.assert_array_equal(state.params.uids, params.uids)
    np.testing.assert_array_equal(state.stats.counts, params.u - 1.0)
    assert state.store.next_uid > params.uids.max()


@pytest.mark.slow
def test_hdp_grows_from_nothing_and_recovers_bars():
    X, bars = make_bars_corpus(n_docs=500, doc_length=100, side=10, n_bars=10, seed=0)
    data = BagOfWords.from_counts(X)
    model = TruncationFreeHDP(topic_word_prior=0.1, n_sweeps=10)
    result = _fit(model, data, n_batches=50, laps=30, prune_every=250, seed=1)
    assert result.trace[0].n_components < 10 <= result.trace[-1].n_components
    assert result.trace[-1].elbo > result.trace[0].elbo
    tw = result.params.topic_word
    cosine = (tw @ bars.T) / np.outer(np.linalg.norm(tw, axis=1), np.linalg.norm(bars, axis=1))
    best = np.sort(cosine.max(axis=0))
    assert best[1] > 0.95 and best[0] > 0.75  # every bar found, all but at most one cleanly
    big = result.params.weights > 0.02
    assert 10 <= big.sum() <= 13
