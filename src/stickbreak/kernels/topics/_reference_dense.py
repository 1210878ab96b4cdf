"""NumPy twin of :mod:`stickbreak.kernels.topics.dense`, one document at a time, used only by the tests."""

import numpy as np
from scipy.special import digamma, gammaln

from .dense import EXTRAPOLATION_FLOOR


def _doc_iterate(E, c, prior, N, n_iters, tol):
    sum_log_s, p = 0.0, None
    for it in range(n_iters):
        p = np.maximum(np.exp(digamma(N + prior)), 1e-280)
        s = E @ p
        new = p * (E.T @ (c / s))
        change = np.max(np.abs(new - N))
        N[:] = new
        sum_log_s = float(c @ np.log(s))
        if change < tol:
            return it + 1, p, s, sum_log_s
    return n_iters, p, s, sum_log_s


def _doc_accelerate(E, c, prior, prior_rest, N, max_evals, tol):
    """Twin of ``dense._accelerated``: SQUAREM over the theta/r map; returns (evaluations, p, s, sum c log s)."""
    evals = 0
    while evals < max_evals:
        start = N.copy()
        _, _, _, _ = _doc_iterate(E, c, prior, N, 1, -1.0)
        first = N.copy()
        _, p, s, sum_log_s = _doc_iterate(E, c, prior, N, 1, -1.0)
        second = N.copy()
        evals += 2
        change = np.max(np.abs(second - first))
        r, v = first - start, second - 2.0 * first + start
        vv = float(v @ v)
        if change < tol or evals >= max_evals or vv == 0.0:
            return evals, p, s, sum_log_s
        alpha = min(-np.sqrt(float(r @ r) / vv), -1.0)
        plain = _doc_objective(second, prior, prior_rest, p, sum_log_s)
        N[:] = np.maximum(start - 2.0 * alpha * r + alpha * alpha * v, EXTRAPOLATION_FLOOR * np.minimum(first, second))
        extrapolated = N.copy()
        _, tp, ts, tsum = _doc_iterate(E, c, prior, N, 1, -1.0)
        evals += 1
        if _doc_objective(N, prior, prior_rest, tp, tsum) >= plain:
            p, s, sum_log_s = tp, ts, tsum
            if np.max(np.abs(N - extrapolated)) < tol:
                return evals, p, s, sum_log_s
        else:
            N[:] = second
    return evals, p, s, sum_log_s


def _doc_fixed_point(E, c, prior, prior_rest, N, max_iter, tol, accelerate):
    if accelerate:
        return _doc_accelerate(E, c, prior, prior_rest, N, max_iter, tol)
    return _doc_iterate(E, c, prior, N, max_iter, tol)


def _doc_objective(N, prior, prior_rest, p, sum_log_s):
    theta = N + prior
    value = sum_log_s - np.sum(N[N > 0] * np.log(p[N > 0])) + gammaln(theta).sum()
    if prior_rest > 0:
        value += gammaln(prior_rest)
    return value - gammaln(theta.sum() + prior_rest)


def _doc_solve(E, c, prior, prior_rest, previous, start, max_iter, tol, n_restarts, accelerate=False):
    N = previous.copy()
    if start != 1:
        p0 = np.maximum(prior, 1e-280)
        N = p0 * (E.T @ (c / (E @ p0)))
    iters, p, s, sum_log_s = _doc_fixed_point(E, c, prior, prior_rest, N, max_iter, tol, accelerate)
    if start == 2:
        warm = previous.copy()
        more, wp, ws, wsum = _doc_fixed_point(E, c, prior, prior_rest, warm, max_iter, tol, accelerate)
        iters += more
        if _doc_objective(warm, prior, prior_rest, wp, wsum) > _doc_objective(N, prior, prior_rest, p, sum_log_s):
            N, p, s, sum_log_s = warm, wp, ws, wsum
    accepted = 0
    if n_restarts > 0:
        best = _doc_objective(N, prior, prior_rest, p, sum_log_s)
        tried = 0
        for j in np.argsort(N, kind="quicksort"):
            if tried >= n_restarts:
                break
            if N[j] <= 1e-3:
                continue
            if np.sum(N > 1e-3) < 2:
                break
            tried += 1
            trial = N.copy()
            trial[j] = 0.0
            _, tp, ts, tsum = _doc_iterate(E, c, prior, trial, 2, -1.0)
            value = _doc_objective(trial, prior, prior_rest, tp, tsum)
            if value > best:
                best, N, p, s = value, trial, tp, ts
                accepted += 1
        if accepted:
            more, p, s, _ = _doc_fixed_point(E, c, prior, prior_rest, N, max_iter, tol, accelerate)
            iters += more
    return N, p, s, iters, accepted


def local_step_outputs(doc_topic, exp_loglik, pairs):
    """A local step's zeroed outputs: ``word_topic`` (V, K), ``entropy`` (K,), ``pair_entropy`` (M,),
    the iterations and the accepted restarts (D,)."""
    n_docs, n_topics = doc_topic.shape
    return (np.zeros((exp_loglik.shape[0], n_topics)), np.zeros(n_topics), np.zeros(len(pairs)),
            np.zeros(n_docs, dtype=np.int64), np.zeros(n_docs, dtype=np.int64))


def topic_local_step(indptr, indices, counts, exp_loglik, centered_loglik, prior, prior_rest, doc_topic, start,
                     max_iter, tol, n_restarts, pairs, n_chunks, doc_weight, accelerate=False):
    """Twin of :func:`stickbreak.kernels.topics.dense.topic_local_step`, one document at a time."""
    word_topic, entropy, pair_entropy, n_iters, n_accepted = local_step_outputs(doc_topic, exp_loglik, pairs)
    for d in range(doc_topic.shape[0]):
        words, c = indices[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]]
        E = exp_loglik[words]
        N, p, s, n_iters[d], n_accepted[d] = _doc_solve(E, c, prior, prior_rest, doc_topic[d], start, max_iter, tol,
                                                        n_restarts, accelerate)
        doc_topic[d] = N
        if len(doc_weight):
            doc_weight[d] = p
        mass = c[:, None] * E * p[None, :] / s[:, None]
        np.add.at(word_topic, words, mass)
        logs = np.log(s)[:, None] - np.log(p)[None, :] - centered_loglik[words]
        entropy += np.sum(np.where(mass > 0, mass * logs, 0.0), axis=0)
        for m, (a, b) in enumerate(pairs):
            merged = mass[:, a] + mass[:, b]
            resp = merged / c
            pair_entropy[m] -= np.sum(np.where(merged > 0, merged * np.log(np.where(resp > 0, resp, 1.0)), 0.0))
    return word_topic, entropy, pair_entropy, n_iters, n_accepted


def dense_token_share(indptr, indices, exp_loglik, doc_weight, column):
    """Twin of :func:`stickbreak.kernels.topics.dense.dense_token_share`."""
    doc_of = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    norm = np.einsum("uk,uk->u", exp_loglik[indices], doc_weight[doc_of])
    return exp_loglik[indices, column] * doc_weight[doc_of, column] / norm
