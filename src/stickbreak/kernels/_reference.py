"""NumPy twins of the numba kernels, used only by the tests."""

import numpy as np


def normalize_log_resp(log_weights, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.dense.normalize_log_resp` (also in place)."""
    top = log_weights.max(axis=1, keepdims=True)
    unnormalized = np.exp(log_weights - top)
    total = unnormalized.sum(axis=1, keepdims=True)
    resp = np.maximum(unnormalized / total, floor)
    log_weights[...] = resp
    return (top + np.log(total)).ravel(), -(resp * np.log(resp)).sum(axis=0)


def sparse_lgamma_ratio(indptr, indices, values, lam_t):
    """NumPy twin of :func:`stickbreak.kernels.counts.sparse_lgamma_ratio`."""
    from scipy.special import gammaln

    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    terms = gammaln(lam_t[indices] + values[:, None]) - gammaln(lam_t[indices])
    out = np.zeros((len(indptr) - 1, lam_t.shape[1]))
    np.add.at(out, rows, terms)
    return out


def column_entropy(resp, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.dense.column_entropy`."""
    r = np.maximum(resp, floor)
    return -(r * np.log(r)).sum(axis=0)


def pair_merge_entropy(resp, first, second, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.dense.pair_merge_entropy`."""
    r = np.maximum(resp[:, first] + resp[:, second], floor)
    return -(r * np.log(r)).sum(axis=0)


def blockwise_squared_norms(whitened, shift, out, start):
    """NumPy twin of :func:`stickbreak.kernels.gauss.blockwise_squared_norms`."""
    n_comp, dim = shift.shape
    blocks = whitened.reshape(len(whitened), n_comp, dim) - shift[None]
    out[start:start + len(whitened)] = (blocks**2).sum(axis=2)


def _doc_iterate(E, c, prior, N, n_iters, tol):
    from scipy.special import digamma

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


def _doc_objective(N, prior, prior_rest, p, sum_log_s):
    from scipy.special import gammaln

    theta = N + prior
    value = sum_log_s - np.sum(N[N > 0] * np.log(p[N > 0])) + gammaln(theta).sum()
    if prior_rest > 0:
        value += gammaln(prior_rest)
    return value - gammaln(theta.sum() + prior_rest)


def _doc_solve(E, c, prior, prior_rest, previous, start, max_iter, tol, n_restarts):
    N = previous.copy()
    if start != 1:
        p0 = np.maximum(prior, 1e-280)
        N = p0 * (E.T @ (c / (E @ p0)))
    iters, p, s, sum_log_s = _doc_iterate(E, c, prior, N, max_iter, tol)
    if start == 2:
        warm = previous.copy()
        more, wp, ws, wsum = _doc_iterate(E, c, prior, warm, max_iter, tol)
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
            more, p, s, _ = _doc_iterate(E, c, prior, N, max_iter, tol)
            iters += more
    return N, p, s, iters, accepted


def topic_local_step(indptr, indices, counts, exp_loglik, centered_loglik, prior, prior_rest, doc_topic, start,
                     max_iter, tol, n_restarts, pairs, n_chunks, doc_weight):
    """Twin of :func:`stickbreak.kernels.topics.dense.topic_local_step`, one document at a time."""
    n_docs, n_topics = doc_topic.shape
    word_topic = np.zeros((exp_loglik.shape[0], n_topics))
    entropy = np.zeros(n_topics)
    pair_entropy = np.zeros(len(pairs))
    n_iters, n_accepted = np.zeros(n_docs, dtype=np.int64), np.zeros(n_docs, dtype=np.int64)
    for d in range(n_docs):
        words, c = indices[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]]
        E = exp_loglik[words]
        N, p, s, n_iters[d], n_accepted[d] = _doc_solve(E, c, prior, prior_rest, doc_topic[d], start, max_iter, tol,
                                                        n_restarts)
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


def top_l_resp(log_weights, n_active, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.sparse.top_l_resp` (a full stable sort per row)."""
    n_items, n_comp = log_weights.shape
    order = np.argsort(-log_weights, axis=1, kind="stable")[:, :n_active]  # ties: lower index first
    indices = np.sort(order, axis=1).astype(np.int64)
    chosen = np.take_along_axis(log_weights, indices, axis=1)
    top = chosen.max(axis=1, keepdims=True)
    unnormalized = np.exp(chosen - top)
    total = unnormalized.sum(axis=1, keepdims=True)
    values = np.maximum(unnormalized / total, floor)
    entropy = np.bincount(indices.ravel(), -(values * np.log(values)).ravel(), minlength=n_comp)
    return values, indices, (top + np.log(total)).ravel(), entropy


def _dense_from_top_l(values, indices, n_comp):
    dense = np.zeros((len(values), n_comp))
    np.add.at(dense, (np.repeat(np.arange(len(values)), values.shape[1]), indices.ravel()), values.ravel())
    return dense


def sparse_column_entropy(values, indices, n_comp, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.sparse.sparse_column_entropy`."""
    r = np.maximum(values, floor)
    terms = np.where(values == 0, 0.0, -r * np.log(r))
    return np.bincount(indices.ravel(), terms.ravel(), minlength=n_comp)


def sparse_weighted_outer_sums(X, values, indices, n_comp):
    """NumPy twin of :func:`stickbreak.kernels.mixture.sparse.sparse_weighted_outer_sums` (via the dense resp)."""
    resp = _dense_from_top_l(values, indices, n_comp)
    return np.einsum("nk,nd,ne->kde", resp, X, X)


def sparse_pair_merge_entropy(values, indices, n_comp, first, second, floor):
    """NumPy twin of :func:`stickbreak.kernels.mixture.sparse.sparse_pair_merge_entropy`."""
    resp = _dense_from_top_l(values, indices, n_comp)
    merged = resp[:, first] + resp[:, second]
    r = np.maximum(merged, floor)
    return np.where(merged == 0, 0.0, -r * np.log(r)).sum(axis=0)
