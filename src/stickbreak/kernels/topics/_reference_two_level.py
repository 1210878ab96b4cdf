"""NumPy twin of :mod:`stickbreak.kernels.topics.two_level`, used only by the tests.

Fig. 9 of Hoffman et al. (2013), lines 5-10, written literally with dense matrices, one document
at a time: no pruning, no shortcuts, every ELBO term evaluated straight from its definition
(digest §3, "Per-document ELBO"). :func:`solve_document` also returns the explicit ``zeta``,
``phi``, ``gamma`` and the per-iteration ELBO so that the tests can check them.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from scipy.special import digamma, gammaln, logsumexp

from .two_level import START_BEST, START_ITERS, START_UNIFORM, START_WORDS


def expected_log_sticks(a, b, concentration, out):
    """Twin of :func:`stickbreak.kernels.topics.two_level.expected_log_sticks`: fills
    ``E log sigma_i = E log v_i + sum_{j<i} E log(1 - v_j)`` (last stick fixed at one) and returns
    the sticks' ``Beta(1, concentration)`` prior minus entropy."""
    total = digamma(a + b)
    log_v, log_rest = digamma(a) - total, digamma(b) - total
    before = np.concatenate([[0.0], np.cumsum(log_rest)])  # sum_{j<i} E log(1 - v_j), i = 0..n
    out[:-1] = log_v + before[:-1]
    out[-1] = before[-1]
    return stick_prior_minus_entropy(a, b, concentration)


def expected_sticks(a, b):
    """``E sigma_i = E v_i prod_{j<i} (1 - E v_j)``, the last stick fixed at one (sums to one)."""
    mean = a / (a + b)
    rest = np.concatenate([[1.0], np.cumprod(1.0 - mean)])
    return np.append(mean, 1.0) * rest


def _log_normalize(x, axis):
    log = x - logsumexp(x, axis=axis, keepdims=True)
    return np.exp(log)


def doc_sticks(phi, counts, alpha):
    """Fig. 9 line 8: ``gamma1_i = 1 + sum_n phi_ni``, ``gamma2_i = alpha + sum_n sum_{j>i} phi_nj`` (i < T)."""
    tokens = phi @ counts
    beyond = np.cumsum(tokens[::-1])[::-1]
    return 1.0 + tokens[:-1], alpha + beyond[1:]


def stick_prior_minus_entropy(g1, g2, alpha):
    """``sum_i E log Beta(pi_i; 1, alpha) - E log q(pi_i)`` over the free sticks."""
    total = digamma(g1 + g2)
    log_v, log_rest = digamma(g1) - total, digamma(g2) - total
    prior = np.log(alpha) + (alpha - 1.0) * log_rest
    log_q = gammaln(g1 + g2) - gammaln(g1) - gammaln(g2) + (g1 - 1.0) * log_v + (g2 - 1.0) * log_rest
    return float(np.sum(prior - log_q))


def _xlogx(p):
    return np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)


def local_elbo(zeta, phi, g1, g2, counts, alpha):
    """The purely local terms: ``H(zeta) + H(phi) + E log p(z|pi) + E log p(pi) - E log q(pi)``."""
    elog_pi = np.empty(phi.shape[0])
    expected_log_sticks(g1, g2, alpha, elog_pi)
    return float(-_xlogx(zeta).sum() - (counts * _xlogx(phi)).sum() + (phi @ counts) @ elog_pi
                 + stick_prior_minus_entropy(g1, g2, alpha))


def doc_elbo(elog_beta, counts, elog_corpus, alpha, zeta, phi, g1, g2):
    """``L_d``: the local terms plus ``E log p(c|V)`` and ``E log p(w|z, c, beta)``."""
    data = float(np.sum(counts * phi * (zeta @ elog_beta)))
    return data + float(np.sum(zeta @ elog_corpus)) + local_elbo(zeta, phi, g1, g2, counts, alpha)


def words_start(elog_beta, counts, elog_corpus, n_atoms, n_steps=START_ITERS):
    """Twin of the kernel's ``_words_start``: ``n_steps`` EM steps for the proportions ``theta`` of a
    mixture of the fixed topics (stick terms ignored), ``r_uk ∝ theta_k exp E log beta_{k, w_u}``,
    ``theta_k ∝ sum_u c_u r_uk`` from ``theta = 1/K``; atom ``i`` takes the topic of ``i``-th largest
    mass (ties: larger ``E log sigma_k(V)`` first), ``phi_ui ∝ theta_{k_i} exp E log beta_{k_i, w_u}``."""
    order = np.argsort(-elog_corpus, kind="mergesort")
    local = elog_beta[order]
    log_theta = np.full(len(order), -np.log(len(order)))
    for _ in range(n_steps):
        mass = _log_normalize(log_theta[:, None] + local, axis=0) @ counts
        with np.errstate(divide="ignore"):
            log_theta = np.log(mass / mass.sum())
    chosen = np.argsort(-mass, kind="mergesort")[:n_atoms]
    logits = np.full((n_atoms, len(counts)), -np.inf)
    logits[:len(chosen)] = log_theta[chosen, None] + local[chosen]
    return _log_normalize(logits, axis=0)


def solve_document(elog_beta, counts, elog_corpus, alpha, n_atoms, max_iter, tol, start=START_UNIFORM):
    """Fig. 9 lines 5-10 for one document; ``elog_beta`` (K, U) is its slice of ``E log beta``.
    ``start``: ``START_UNIFORM`` (lines 5-6), ``START_WORDS`` (:func:`words_start`) or ``START_BEST``
    (both; the one of higher ``L_d`` is returned, ``n_iters`` counting both)."""
    if start == START_BEST:
        runs = [solve_document(elog_beta, counts, elog_corpus, alpha, n_atoms, max_iter, tol, how)
                for how in (START_UNIFORM, START_WORDS)]
        best = runs[1] if runs[1].elbo > runs[0].elbo else runs[0]
        best.n_iters = runs[0].n_iters + runs[1].n_iters
        return best
    zeta = _log_normalize(np.tile(elog_beta @ counts, (n_atoms, 1)), axis=1)  # line 5
    phi = _log_normalize(zeta @ elog_beta, axis=0)  # line 6: (T, U), normalised over atoms
    if start == START_WORDS and len(counts):
        phi = words_start(elog_beta, counts, elog_corpus, n_atoms)
    trace = []
    for _ in range(max_iter):
        g1, g2 = doc_sticks(phi, counts, alpha)  # line 8
        zeta = _log_normalize(elog_corpus[None, :] + (phi * counts) @ elog_beta.T, axis=1)  # line 9
        elog_pi = np.empty(n_atoms)
        expected_log_sticks(g1, g2, alpha, elog_pi)
        phi = _log_normalize(elog_pi[:, None] + zeta @ elog_beta, axis=0)  # line 10
        trace.append(doc_elbo(elog_beta, counts, elog_corpus, alpha, zeta, phi, g1, g2))
        if len(trace) > 1 and abs(trace[-1] - trace[-2]) <= tol * abs(trace[-2]):
            break
    g1, g2 = doc_sticks(phi, counts, alpha)  # gamma refreshed from the final phi
    return SimpleNamespace(zeta=zeta, phi=phi, gamma1=g1, gamma2=g2, elbo_trace=np.array(trace),
                           n_iters=len(trace), local_elbo=local_elbo(zeta, phi, g1, g2, counts, alpha),
                           elbo=doc_elbo(elog_beta, counts, elog_corpus, alpha, zeta, phi, g1, g2))


def hdp_sticks_local_step(indptr, indices, counts, elog_beta_t, elog_corpus, alpha, n_atoms, max_iter, tol,
                          start, n_chunks, doc_topic):
    """Twin of :func:`stickbreak.kernels.topics.two_level.hdp_sticks_local_step` (``n_chunks`` is ignored)."""
    n_words, n_topics = elog_beta_t.shape
    n_docs = len(indptr) - 1
    word_topic, n_pointers, n_tokens = np.zeros((n_words, n_topics)), np.zeros(n_topics), np.zeros(n_topics)
    elbo, n_iters = np.zeros(n_docs), np.zeros(n_docs, dtype=np.int64)
    for d in range(n_docs):
        words, c = indices[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]]
        doc = solve_document(elog_beta_t[words].T, c, elog_corpus, alpha, n_atoms, max_iter, tol, start)
        mass = doc.zeta.T @ (doc.phi * c)  # (K, U): sum_i zeta_ik phi_ui c_u
        word_topic[words] += mass.T
        n_tokens += mass.sum(axis=1)
        n_pointers += doc.zeta.sum(axis=0)
        elbo[d], n_iters[d] = doc.local_elbo, doc.n_iters
        if doc_topic.shape[0]:
            doc_topic[d] = expected_sticks(doc.gamma1, doc.gamma2) @ doc.zeta
    return word_topic, n_pointers, n_tokens, elbo, n_iters
