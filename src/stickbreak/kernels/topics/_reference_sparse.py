"""NumPy twin of :mod:`stickbreak.kernels.topics.sparse`, one document at a time, in the log domain."""

import numpy as np
from scipy.special import digamma, gammaln

from ._reference_dense import local_step_outputs
from .sparse import ACTIVE_MIN_COUNT, FULL_EVERY, FULL_FIRST

_LOG_P_FLOOR = np.log(1e-280)


def top_l(weights, size):
    """Indices of the ``size`` largest ``weights`` (ties: lower index first) and their softmax."""
    order = np.argsort(-weights, kind="stable")[:size]
    top = weights[order]
    resp = np.exp(top - top.max())
    return order, resp / resp.sum(), top.max() + np.log(np.exp(top - top.max()).sum())


class _Doc:
    def __init__(self, C, c, prior, size):
        self.C, self.c, self.prior, self.size = C, c, prior, size
        K = len(prior)
        self.N, self.log_p = np.zeros(K), np.zeros(K)
        self.active = np.arange(K)
        self.selected_from = K  # active topics at the last full selection
        self.index = [np.zeros(0, dtype=int)] * len(c)
        self.resp = [np.zeros(0)] * len(c)
        self.log_s = np.zeros(len(c))

    def copy(self):
        other = _Doc(self.C, self.c, self.prior, self.size)
        other.N, other.log_p, other.active = self.N.copy(), self.log_p.copy(), self.active.copy()
        other.selected_from = self.selected_from
        other.index, other.resp, other.log_s = list(self.index), list(self.resp), self.log_s.copy()
        return other

    def r_step(self, full):
        N = np.zeros_like(self.N)
        if full:
            self.selected_from = len(self.active)
        for u in range(len(self.c)):
            if full:
                chosen, resp, log_s = top_l(self.C[u, self.active] + self.log_p[self.active], self.size)
                self.index[u] = self.active[chosen]
            else:
                w = self.C[u, self.index[u]] + self.log_p[self.index[u]]
                shifted = np.exp(w - w.max())
                resp, log_s = shifted / shifted.sum(), w.max() + np.log(shifted.sum())
            self.resp[u], self.log_s[u] = resp, log_s
            N[self.index[u]] += self.c[u] * resp
        return N

    def theta_step(self):
        a = self.active
        self.log_p[a] = np.maximum(digamma(self.N[a] + self.prior[a]), _LOG_P_FLOOR)

    def iterate(self, max_iter, tol, always_full, keep_first=False):
        force_full = False
        for it in range(max_iter):
            if not (keep_first and it == 0):
                self.active = self.active[self.N[self.active] > ACTIVE_MIN_COUNT]
            self.theta_step()
            holds_all = self.size >= len(self.active)
            full = (always_full or force_full or it < FULL_FIRST or it % FULL_EVERY == 0 or it == max_iter - 1
                    or (holds_all and len(self.active) != self.selected_from))
            new = self.r_step(full)
            change = np.max(np.abs(new - self.N))
            self.N = new
            if change < tol:
                if full or holds_all:
                    return it + 1
                force_full = True
        return max_iter

    def objective(self, prior_rest):
        theta = self.N + self.prior
        used = self.N > 0
        value = self.c @ self.log_s - np.sum(self.N[used] * self.log_p[used]) + gammaln(theta).sum()
        if prior_rest > 0:
            value += gammaln(prior_rest)
        return value - gammaln(theta.sum() + prior_rest)


def _start(doc, previous, warm):
    doc.active = np.arange(len(doc.prior))
    if warm:
        doc.N = previous.copy()
        return
    doc.log_p = np.log(np.maximum(doc.prior, 1e-280))
    doc.N = doc.r_step(True)


def _solve(C, c, prior, prior_rest, previous, start, size, max_iter, tol, n_restarts):
    doc = _Doc(C, c, prior, size)
    _start(doc, previous, start == 1)
    iters = doc.iterate(max_iter, tol, False, start == 1)
    if start == 2:
        other = _Doc(C, c, prior, size)
        _start(other, previous, True)
        iters += other.iterate(max_iter, tol, False, True)
        if other.objective(prior_rest) > doc.objective(prior_rest):
            doc = other
    accepted = 0
    if n_restarts > 0:
        best, tried = doc.objective(prior_rest), 0
        for j in np.argsort(doc.N, kind="stable"):
            if tried >= n_restarts:
                break
            if doc.N[j] <= 1e-3:
                continue
            if np.sum(doc.N > 1e-3) < 2:
                break
            tried += 1
            trial = doc.copy()
            trial.N[j] = 0.0
            trial.iterate(2, -1.0, True)
            value = trial.objective(prior_rest)
            if value > best:
                best, doc = value, trial
                accepted += 1
        if accepted:
            iters += doc.iterate(max_iter, tol, False)
    return doc, iters, accepted


def sparse_topic_local_step(indptr, indices, counts, exp_loglik, centered_loglik, prior, prior_rest, doc_topic, start,
                            n_active, max_iter, tol, n_restarts, pairs, n_chunks, doc_weight):
    """Twin of :func:`stickbreak.kernels.topics.sparse.sparse_topic_local_step`."""
    word_topic, entropy, pair_entropy, n_iters, n_accepted = local_step_outputs(doc_topic, exp_loglik, pairs)
    for d in range(doc_topic.shape[0]):
        words, c = indices[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]]
        doc, n_iters[d], n_accepted[d] = _solve(centered_loglik[words], c, prior, prior_rest, doc_topic[d].copy(),
                                                start, n_active, max_iter, tol, n_restarts)
        doc_topic[d] = doc.N
        if len(doc_weight):
            doc_weight[d] = 0.0
            doc_weight[d, doc.active] = np.exp(doc.log_p[doc.active])
        resp = np.zeros((len(words), doc_topic.shape[1]))
        for u in range(len(words)):
            resp[u, doc.index[u]] = doc.resp[u]
        mass = c[:, None] * resp
        np.add.at(word_topic, words, mass)
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy -= np.sum(np.where(mass > 0, mass * np.log(resp), 0.0), axis=0)
            for m, (a, b) in enumerate(pairs):
                merged = resp[:, a] + resp[:, b]
                pair_entropy[m] -= np.sum(np.where(merged > 0, c * merged * np.log(merged), 0.0))
    return word_topic, entropy, pair_entropy, n_iters, n_accepted
