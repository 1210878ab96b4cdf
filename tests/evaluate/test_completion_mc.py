"""Monte Carlo document completion (Paisley et al. 2012, Eq. 40): kernel twin, exact limits, unbiasedness,
the held-out-types shortcut for eta, reproducibility and errors."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import digamma

from stickbreak import LDA, datasets
from stickbreak.data import DataError
from stickbreak.evaluate import completion_monte_carlo, heldout_loglik, model_completion
from stickbreak.kernels.evaluate import _reference_completion_mc as ref
from stickbreak.kernels.evaluate.completion_mc import log_gamma_draws, loglik_given_draws


def case(seed=0, n_docs=6, n_topics=4, n_words=12):
    rng = np.random.default_rng(seed)
    lam = rng.gamma(0.5, 1.0, (n_topics, n_words)) + 0.05
    shape = rng.gamma(1.0, 2.0, (n_docs, n_topics)) + 0.1
    rate = rng.gamma(4.0, 0.5, (n_docs, n_topics))
    heldout = sp.random(n_docs, n_words, density=0.4, random_state=seed, format="csr")
    heldout.data = np.ceil(3 * heldout.data)
    return lam, shape, rate, heldout


def test_kernel_matches_numpy_twin_on_extreme_draws():
    rng = np.random.default_rng(1)
    _, _, _, heldout = case(1)
    eta_t = rng.dirichlet(np.full(4, 0.05), heldout.shape[1]) + 1e-300  # (W, K): tiny entries
    log_z = rng.normal(0, 1, (heldout.shape[0], 4))
    log_z[0] = [-1e3, 0.0, -2e3, 5.0]  # a topic far below the others
    log_z[1] = [700.0, 699.0, -700.0, 0.0]
    got = loglik_given_draws(heldout.indptr.astype(np.int64), heldout.indices.astype(np.int64), heldout.data,
                             eta_t, log_z)
    np.testing.assert_allclose(got, ref.loglik_given_draws(heldout, eta_t, log_z), rtol=1e-12)


@pytest.mark.parametrize("shape", [1e-3, 0.5, 3.0, 40.0])
def test_log_gamma_draws_have_the_right_law(shape):
    draws = log_gamma_draws(np.array([shape]), np.array([2.5]), 7, 200_000)[:, 0]
    want = digamma(shape) - np.log(2.5)  # E log Z
    assert abs(draws.mean() - want) < 5 * draws.std() / np.sqrt(len(draws))
    assert np.isfinite(draws).all()


def test_point_mass_posterior_gives_the_plug_in_score():
    lam, shape, rate, heldout = case(2)
    big = 1e12
    mc = completion_monte_carlo(lam * big, shape * big, rate * big, heldout, n_samples=3, seed=0)
    total, n = heldout_loglik(lam, shape / rate, heldout)
    assert mc.per_word == pytest.approx(total / n, abs=1e-6)
    assert mc.n_tokens == n and mc.n_documents == heldout.shape[0]


@pytest.mark.slow
@pytest.mark.montecarlo
def test_single_token_is_unbiased():
    """One held-out token, a common rate: E[sum_k eta_kx pi_k] = sum_k E[eta_kx] a_k / sum_j a_j."""
    lam, shape, _, _ = case(3, n_docs=3)
    heldout = sp.csr_matrix((np.ones(3), ([0, 1, 2], [0, 5, 7])), shape=(3, lam.shape[1]))
    mc = completion_monte_carlo(lam, shape, 2.0, heldout, n_samples=20_000, seed=3)
    mean_eta = lam / lam.sum(axis=1, keepdims=True)
    exact = np.array([mean_eta[:, w] @ (shape[d] / shape[d].sum()) for d, w in enumerate([0, 5, 7])])
    np.testing.assert_allclose(np.exp(mc.per_document), exact, rtol=0.03)


@pytest.mark.slow
@pytest.mark.montecarlo
def test_heldout_types_shortcut_equals_full_dirichlet_draws():
    """Drawing eta only on the held-out types (plus one Gamma for the rest) has the Dirichlet's law."""
    lam, shape, rate, _ = case(4, n_docs=2)
    heldout = sp.csr_matrix(([1.0, 1.0, 2.0], ([0, 0, 1], [1, 3, 3])), shape=(2, lam.shape[1]))
    n = 20_000
    mc = completion_monte_carlo(lam, shape, rate, heldout, n_samples=n, seed=4)
    rng = np.random.default_rng(5)
    eta = np.stack([rng.dirichlet(row, n) for row in lam], axis=1)  # (n, K, V)
    z = rng.gamma(shape[None], 1.0 / rate[None], (n,) + shape.shape)
    pi = z / z.sum(axis=2, keepdims=True)  # (n, D, K)
    p0 = np.einsum("nk,nk->n", pi[:, 0], eta[:, :, 1]) * np.einsum("nk,nk->n", pi[:, 0], eta[:, :, 3])
    p1 = np.einsum("nk,nk->n", pi[:, 1], eta[:, :, 3]) ** 2
    np.testing.assert_allclose(np.exp(mc.per_document), [p0.mean(), p1.mean()], rtol=0.05)


def test_reproducible_and_independent_of_threads():
    lam, shape, rate, heldout = case(6, n_docs=30)
    first = completion_monte_carlo(lam, shape, rate, heldout, n_samples=20, seed=11)
    again = completion_monte_carlo(lam, shape, rate, heldout, n_samples=20, seed=np.random.default_rng(11))
    np.testing.assert_array_equal(first.per_document, again.per_document)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = completion_monte_carlo(lam, shape, rate, heldout, n_samples=20, seed=11)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(first.per_document, single.per_document)
    other = completion_monte_carlo(lam, shape, rate, heldout, n_samples=20, seed=12)
    assert not np.array_equal(first.per_document, other.per_document)


def test_documents_without_heldout_tokens_are_skipped():
    lam, shape, rate, heldout = case(7)
    heldout = heldout.tolil()
    heldout[2, :] = 0
    heldout = heldout.tocsr()
    mc = completion_monte_carlo(lam, shape, rate, heldout, n_samples=5)
    assert mc.n_documents == heldout.shape[0] - 1 == len(mc.per_document)
    assert mc.per_word == pytest.approx(mc.total / mc.n_tokens) and mc.perplexity == pytest.approx(np.exp(-mc.per_word))


@pytest.mark.parametrize("change, message", [
    (dict(topic_dirichlet=-1.0), "topic_dirichlet must be finite and positive"),
    (dict(doc_shape=np.nan), "doc_shape must be finite and positive"),
    (dict(doc_rate=np.ones((3, 2))), "doc_rate has shape"),
    (dict(heldout=np.ones((6, 5))), "vocabulary"),
    (dict(heldout=np.zeros((6, 12))), "no tokens"),
    (dict(n_samples=0), "n_samples"),
])
def test_bad_input_names_the_problem(change, message):
    lam, shape, rate, heldout = case(8)
    args = dict(topic_dirichlet=lam, doc_shape=shape, doc_rate=rate, heldout=heldout, n_samples=2)
    for name, value in change.items():
        args[name] = lam * value if name == "topic_dirichlet" else (shape * value if name == "doc_shape" else value)
    with pytest.raises(DataError, match=message):
        completion_monte_carlo(**args)


def test_model_completion_scores_any_topic_model_the_same_way():
    X = datasets.load("ap").X
    train, test = X.subset(np.arange(200)), X.subset(np.arange(200, 230))
    lda = LDA(5, max_laps=5, tol=0.0, random_state=0).fit(train)
    score = model_completion(lda, test, n_samples=50, seed=0)
    shape, rate = lda.doc_topic_posterior(test)
    assert np.all(rate == 1.0) and np.all(shape > 0)
    assert np.isfinite(score.per_word) and score.per_word < 0 and score.n_documents == 30
    from stickbreak.evaluate import split_documents

    observed, heldout = split_documents(test.counts, "tokens", 0.5, seed=0)
    same = model_completion(lda, observed=observed, heldout=heldout, n_samples=50, seed=0)
    assert same.per_word == score.per_word
    with pytest.raises(DataError, match="either X"):
        model_completion(lda, test, observed=observed, heldout=heldout)
