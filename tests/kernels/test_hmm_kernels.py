"""HMM kernels (forward-backward, Viterbi) against their NumPy twins and against brute-force
enumeration of every path (DESIGN layer 1; digest thesis_ch5-7 §3.5, §8)."""

import itertools

import numba
import numpy as np
import pytest
from scipy.special import logsumexp

from stickbreak.kernels.hmm import _reference as ref
from stickbreak.kernels.hmm import forward_backward as hmm


def _offsets(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _all_pairs(n_states):
    return np.array(list(itertools.combinations(range(n_states), 2)), dtype=np.int64).reshape(-1, 2)


def _model(rng, n_states, lengths, spread=1.0):
    """(log_start, log_trans, loglik, offsets) with Dirichlet-drawn probabilities and normal log-likelihoods."""
    log_start = np.log(rng.dirichlet(np.ones(n_states)))
    log_trans = np.log(rng.dirichlet(np.ones(n_states), size=n_states))
    return log_start, log_trans, rng.normal(size=(sum(lengths), n_states)) * spread, _offsets(lengths)


def _tiny_transitions(rng):
    log_start, log_trans, loglik, offsets = _model(rng, 4, [8, 3, 10])
    log_trans[rng.random((4, 4)) < 0.4] = -700.0
    log_start[1] = -700.0
    return log_start, log_trans, loglik, offsets


def _zero_transitions(rng, n_states=4, lengths=(6, 2, 9)):
    """Some transitions and one start state impossible (``-inf``); the diagonal keeps every path alive."""
    log_start, log_trans, loglik, offsets = _model(rng, n_states, list(lengths))
    mask = rng.random((n_states, n_states)) < 0.4
    np.fill_diagonal(mask, False)
    log_trans[mask] = -np.inf
    log_start[-1] = -np.inf
    return log_start, log_trans, loglik, offsets


def _unreachable_favoured(rng):
    """State 2 cannot be entered, yet the data favour it by ~700 nats in every frame: the textbook
    backward message (divided by the forward normaliser) overflows to inf here and gives NaN."""
    log_start, log_trans, loglik, offsets = _model(rng, 3, [12, 1, 5])
    log_start[2] = -np.inf
    log_trans[:2, 2] = -np.inf
    loglik[:, 2] += 700.0
    return log_start, log_trans, loglik, offsets


def _long_sequence(rng):
    """One sequence of 20000 frames whose unscaled forward message would underflow to 0."""
    log_start, log_trans, loglik, offsets = _model(rng, 3, [20000, 5, 1])
    return log_start, log_trans, loglik - 3.0, offsets


CASES = {
    "ordinary": lambda rng: _model(rng, 4, [5, 1, 9, 3]),
    "one_state": lambda rng: _model(rng, 1, [3, 1, 4]),
    "single_frames": lambda rng: _model(rng, 3, [1, 1, 1, 1]),
    "many_sequences": lambda rng: _model(rng, 3, list(rng.integers(1, 12, size=45))),
    "huge_spread": lambda rng: _model(rng, 5, [7, 1, 12], spread=1e4),
    "tiny_transitions": _tiny_transitions,
    "zero_transitions": _zero_transitions,
    "unreachable_favoured": _unreachable_favoured,
    "long_sequence": _long_sequence,
    "ties": lambda rng: (np.zeros(3), np.zeros((3, 3)), np.zeros((8, 3)), _offsets([4, 1, 3])),
}


def _case(name, seed=0):
    log_start, log_trans, loglik, offsets = CASES[name](np.random.default_rng(seed))
    return log_start, log_trans, loglik, offsets, _all_pairs(log_start.size)


def _elbo_terms(resp, start_counts, trans_counts, entropy, log_start, log_trans, loglik):
    """``sum r loglik + H + sum M log_trans + sum start log_start``, with 0 * (-inf) = 0."""
    def dot(weights, logs):
        return np.sum(weights * np.where(weights > 0, logs, 0.0))
    return dot(resp, loglik) + entropy.sum() + dot(trans_counts, log_trans) + dot(start_counts, log_start)


@pytest.mark.parametrize("case", sorted(CASES))
def test_forward_backward_matches_twin(case):
    log_start, log_trans, loglik, offsets, pairs = _case(case)
    fast = hmm.forward_backward(log_start, log_trans, loglik, offsets, pairs)
    with np.errstate(over="ignore", invalid="ignore"):
        slow = ref.forward_backward(log_start, log_trans, loglik, offsets, pairs)
    resp, start_counts, trans_counts, entropy, log_norm, pair_gain = fast
    for name, a, b in zip(["resp", "start", "trans", "entropy", "log_norm", "pair_gain"], fast, slow):
        assert np.isfinite(a).all(), name
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-11, err_msg=name)
    np.testing.assert_allclose(resp.sum(axis=1), 1.0, rtol=1e-12)
    assert (entropy >= 0).all() and (resp >= 0).all() and (trans_counts >= 0).all()
    np.testing.assert_allclose(start_counts.sum(), len(offsets) - 1, rtol=1e-12)
    np.testing.assert_allclose(trans_counts.sum(), len(loglik) - (len(offsets) - 1), rtol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_viterbi_matches_twin(case):
    log_start, log_trans, loglik, offsets, _ = _case(case)
    np.testing.assert_array_equal(hmm.viterbi(log_start, log_trans, loglik, offsets),
                                  ref.viterbi(log_start, log_trans, loglik, offsets))


def test_long_sequence_would_underflow_unscaled():
    log_start, log_trans, loglik, offsets, pairs = _case("long_sequence")
    log_norm = hmm.forward_backward(log_start, log_trans, loglik, offsets, pairs)[4]
    assert log_norm[0] < -2 * 745  # exp(log_norm) is far below the smallest double


def test_unreachable_state_gets_no_mass():
    log_start, log_trans, loglik, offsets, pairs = _case("unreachable_favoured")
    resp = hmm.forward_backward(log_start, log_trans, loglik, offsets, pairs)[0]
    np.testing.assert_array_equal(resp[:, 2], 0.0)


@pytest.mark.parametrize("case", ["ordinary", "huge_spread", "tiny_transitions", "zero_transitions",
                                  "unreachable_favoured", "long_sequence", "one_state"])
def test_elbo_identity(case):
    """At the exact posterior, L_data + H + sum M log A + sum start log a0 equals the log normaliser."""
    log_start, log_trans, loglik, offsets, pairs = _case(case)
    resp, start_counts, trans_counts, entropy, log_norm, _ = hmm.forward_backward(log_start, log_trans, loglik,
                                                                                  offsets, pairs)
    lhs = _elbo_terms(resp, start_counts, trans_counts, entropy, log_start, log_trans, loglik)
    scale = np.abs(loglik).max(axis=1).sum() + np.abs(log_trans[np.isfinite(log_trans)]).max() * len(loglik)
    np.testing.assert_allclose(lhs, log_norm.sum(), rtol=0, atol=1e-12 * scale)


def _brute_force(log_start, log_trans, loglik):
    """Posterior over all K^T paths: marginals, pairwise marginals, log normaliser, entropy, MAP path
    (the smallest read backwards among exact ties)."""
    n_frames, n_states = loglik.shape
    paths = np.array(list(itertools.product(range(n_states), repeat=n_frames)))
    with np.errstate(invalid="ignore"):
        log_w = (log_start[paths[:, 0]] + loglik[np.arange(n_frames), paths].sum(axis=1)
                 + log_trans[paths[:, :-1], paths[:, 1:]].sum(axis=1))
    log_norm = logsumexp(log_w)
    prob = np.exp(log_w - log_norm)
    resp, pairwise = np.zeros((n_frames, n_states)), np.zeros((max(n_frames - 1, 0), n_states, n_states))
    for t in range(n_frames):
        np.add.at(resp[t], paths[:, t], prob)
        if t < n_frames - 1:
            np.add.at(pairwise[t], (paths[:, t], paths[:, t + 1]), prob)
    entropy = -np.sum(prob[prob > 0] * np.log(prob[prob > 0]))
    best = paths[log_w == log_w.max()]
    map_path = min(best.tolist(), key=lambda path: path[::-1])
    return resp, pairwise, log_norm, entropy, np.array(map_path)


def _markov_entropy(resp, pairwise):
    """Entropy of the Markov chain with these marginals, ``H(z_1) + sum_t [H(z_t, z_t+1) - H(z_t)]``
    (the joint-minus-marginal form, not the twin's table)."""
    def neg_xlogx(x):
        x = x[x > 0]
        return -np.sum(x * np.log(x))
    return neg_xlogx(resp[0]) + sum(neg_xlogx(s) - neg_xlogx(r) for s, r in zip(pairwise, resp[:-1]))


def _merge_brute(resp, pairwise, a, b):
    """Fold state b into a by relabelling b -> a and adding up (``np.add.at``)."""
    label = np.arange(resp.shape[1])
    label[b] = a
    merged_resp = np.zeros_like(resp)
    np.add.at(merged_resp.T, label, resp.T)
    merged_pairs = np.zeros_like(pairwise)
    for s_t, out in zip(pairwise, merged_pairs):
        np.add.at(out, (label[:, None], label[None, :]), s_t)
    return merged_resp, merged_pairs


BRUTE_CASES = {
    "ordinary": lambda rng: _model(rng, 3, [6, 1, 4, 5]),
    "spread_3": lambda rng: _model(rng, 3, [5, 6, 2], spread=3.0),
    "zero_transitions": lambda rng: _zero_transitions(rng, 3, (6, 1, 5)),
    "integer_ties": lambda rng: (rng.integers(-2, 1, size=3).astype(float), rng.integers(-2, 1, size=(3, 3)) * 1.0,
                                 rng.integers(-1, 1, size=(13, 3)) * 1.0, _offsets([6, 3, 4])),
}


@pytest.mark.parametrize("case", sorted(BRUTE_CASES))
def test_matches_brute_force(case):
    log_start, log_trans, loglik, offsets = BRUTE_CASES[case](np.random.default_rng(5))
    pairs = _all_pairs(3)
    resp, start_counts, trans_counts, entropy, log_norm, pair_gain = hmm.forward_backward(
        log_start, log_trans, loglik, offsets, pairs)
    labels = hmm.viterbi(log_start, log_trans, loglik, offsets)
    want_start, want_trans, want_entropy, want_gain = np.zeros(3), np.zeros((3, 3)), 0.0, np.zeros(len(pairs))
    for s in range(len(offsets) - 1):
        lo, hi = offsets[s], offsets[s + 1]
        r, pairwise, z_norm, h, map_path = _brute_force(log_start, log_trans, loglik[lo:hi])
        np.testing.assert_allclose(resp[lo:hi], r, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(log_norm[s], z_norm, rtol=1e-12)
        np.testing.assert_allclose(pairwise.sum(axis=2), r[:-1], atol=1e-13)  # sum_l s_tkl = r_tk
        np.testing.assert_allclose(pairwise.sum(axis=1), r[1:], atol=1e-13)
        np.testing.assert_allclose(_markov_entropy(r, pairwise), h, atol=1e-12)  # the posterior is Markov
        np.testing.assert_array_equal(labels[lo:hi], map_path)
        want_start += r[0]
        want_trans += pairwise.sum(axis=0)
        want_entropy += h
        for p, (a, b) in enumerate(pairs):
            want_gain[p] += _markov_entropy(*_merge_brute(r, pairwise, a, b)) - _markov_entropy(r, pairwise)
    np.testing.assert_allclose(start_counts, want_start, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(trans_counts, want_trans, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(entropy.sum(), want_entropy, rtol=1e-10)
    np.testing.assert_allclose(pair_gain, want_gain, rtol=1e-9, atol=1e-12)
    # kernel-only consistency: M's row sums are the non-final marginals, its column sums the non-first ones
    heads, tails = np.ones(len(loglik), bool), np.ones(len(loglik), bool)
    heads[offsets[1:] - 1], tails[offsets[:-1]] = False, False
    np.testing.assert_allclose(trans_counts.sum(axis=1), resp[heads].sum(axis=0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(trans_counts.sum(axis=0), resp[tails].sum(axis=0), rtol=1e-12, atol=1e-14)


def test_pair_gain_can_be_positive():
    """Two equally likely deterministic paths 0->2->0->2->0 and 1->3->1->3->1 have entropy log 2. After
    merging 0 and 1 the Markov chain forgets which path it is on and picks again at every visit, so
    its table entropy is 2 log 2: the gain is +log 2, not <= 0."""
    log_start = np.array([np.log(0.5), np.log(0.5), -np.inf, -np.inf])
    log_trans = np.full((4, 4), -np.inf)
    log_trans[0, 2] = log_trans[1, 3] = log_trans[2, 0] = log_trans[3, 1] = 0.0
    out = hmm.forward_backward(log_start, log_trans, np.zeros((5, 4)), _offsets([5]), np.array([[0, 1], [2, 3]]))
    np.testing.assert_allclose(out[3].sum(), np.log(2), rtol=1e-14)
    # merging 2 and 3 likewise forgets at each of its two visits: +2 log 2
    np.testing.assert_allclose(out[5], [np.log(2), 2 * np.log(2)], rtol=1e-14)


def test_zero_probability_sequence_stays_finite():
    """A sequence that no path can explain gives finite (floored) outputs and leaves the others intact."""
    log_start = np.array([0.0, -np.inf])
    log_trans = np.array([[0.0, -np.inf], [-np.inf, 0.0]])
    with np.errstate(divide="ignore"):
        loglik = np.log(np.array([[0.6, 0.4], [0.0, 1.0], [0.5, 0.5], [0.3, 0.7], [0.2, 0.8]]))
    offsets, pairs = _offsets([2, 3]), _all_pairs(2)
    resp, start_counts, trans_counts, entropy, log_norm, pair_gain = hmm.forward_backward(
        log_start, log_trans, loglik, offsets, pairs)
    for a in (resp, start_counts, trans_counts, entropy, log_norm, pair_gain):
        assert np.isfinite(a).all()
    assert log_norm[0] < -600 and (entropy >= 0).all()
    np.testing.assert_array_equal(resp[0], 0.0)
    alone = hmm.forward_backward(log_start, log_trans, loglik[2:], _offsets([3]), pairs)
    np.testing.assert_array_equal(resp[2:], alone[0])
    np.testing.assert_array_equal(log_norm[1], alone[4][0])


def test_results_do_not_depend_on_thread_count():
    log_start, log_trans, loglik, offsets, pairs = _case("many_sequences")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        serial = hmm.forward_backward(log_start, log_trans, loglik, offsets, pairs)
    finally:
        numba.set_num_threads(before)
    parallel = hmm.forward_backward(log_start, log_trans, loglik, offsets, pairs)
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)


def test_empty_pairs_and_no_sequences():
    log_start, log_trans, loglik, offsets, _ = _case("ordinary")
    out = hmm.forward_backward(log_start, log_trans, loglik, offsets, np.zeros((0, 2), dtype=np.int64))
    assert out[5].shape == (0,)
    empty = hmm.forward_backward(log_start, log_trans, np.zeros((0, 4)), np.zeros(1, dtype=np.int64),
                                 _all_pairs(4))
    assert empty[0].shape == (0, 4) and empty[4].shape == (0,) and not empty[3].any()
    assert hmm.viterbi(log_start, log_trans, np.zeros((0, 4)), np.zeros(1, dtype=np.int64)).shape == (0,)
