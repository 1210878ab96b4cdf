"""The DILN document-level coordinate ascent over CSR triplets (Paisley, Wang & Blei 2012, §4.1, Eqs. 22-24).

For one document with word types ``v_u``, counts ``c_u`` (``N`` tokens), word likelihoods
``E[v, k] = exp(E log eta_kv - max_j E log eta_jv)``, prior Gamma shapes ``s_k = beta p_k`` and topic
locations ``l_k`` (T, d), each iteration updates, every step a coordinate maximiser (or, for ``u``,
a damped Newton ascent step), so the document's ELBO never decreases:

1. ``phi_uk ∝ E[v_u, k] exp(E log Z_k)`` (Eq. 22), giving the counts ``N_k = sum_u c_u phi_uk``;
2. ``a_k = s_k + N_k``, ``b_k = exp(-l_k' u) + N / xi`` (Eq. 23), then ``xi = sum_k a_k / b_k``;
3. ``u``: Newton steps with backtracking on the concave
   ``f(u) = sum_k [-s_k l_k'u - E[Z_k] exp(-l_k'u)] - |u|^2 / 2`` (the objective of Eq. 24;
   negative Hessian ``sum_k E[Z_k] e^{-l_k'u} l_k l_k' + I``, topics with negligible weight left out
   of the Hessian only, which keeps the step an ascent direction).

``correlated=False`` is the HDP special case of §4.3: ``exp(-l'u) := 1`` and no ``u``. A scratch start
takes the first ``phi`` from the prior means ``s_k exp(l_k'u)`` (as the topic kernel starts from the
prior weights: ``exp psi(s)`` vanishes for small shapes); a warm start resumes from the previous counts
``N``, ``xi`` and ``u`` and begins with step 2 under the current shapes and locations (the optimum of
``q(Z)`` given the previous ``phi``), then continues from step 1.

The purely local ELBO of each document (everything that does not involve the global parameters,
with ``a = s + N``, digest §2) is returned per document:

    H[phi] + sum_k [lgamma(a_k) - s_k psi(a_k) - N_k log b_k + a_k] - N [log xi + (sum_k a_k/b_k - xi)/xi]
    - |u|^2 / 2 - (d/2) log(2 pi)

NumPy twin: :mod:`stickbreak.kernels.diln._reference`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..chunked import even_bounds, over_chunks
from ..special import digamma
from ..topics.dense import LOG_P_FLOOR, topic_major_slice, r_step, copy_into, longest_row
from ..topics.doc_statistics import accumulate_document

SCRATCH, WARM, BEST = 0, 1, 2
#: Armijo constant and maximal halvings of the Newton step on ``u``.
ARMIJO, MAX_HALVINGS = 1e-4, 30
#: A topic enters the Newton Hessian of ``u`` when its weight ``E[Z_k] exp(-l_k'u)`` exceeds this
#: fraction of the largest one.
HESSIAN_WEIGHT_FLOOR = 1e-10
#: ``|l'u|`` beyond this makes ``exp`` overflow-prone: such a candidate ``u`` is rejected.
MAX_EXPONENT = 600.0
LOG_2PI = math.log(2.0 * math.pi)


@njit(cache=True, nogil=True)
def _project(locations, u, x):
    """``x_k = l_k' u``; returns False if some ``|x_k|`` exceeds ``MAX_EXPONENT``."""
    ok = True
    for k in range(locations.shape[0]):
        total = 0.0
        for j in range(u.size):
            total += locations[k, j] * u[j]
        x[k] = total
        if abs(total) > MAX_EXPONENT:
            ok = False
    return ok


@njit(cache=True, nogil=True)
def _location_objective(shape, mean_z, x, u):
    """``f(u) = sum_k [-s_k x_k - E[Z_k] exp(-x_k)] - |u|^2 / 2`` at ``x = L u``."""
    value = 0.0
    for k in range(shape.size):
        value -= shape[k] * x[k] + mean_z[k] * math.exp(-x[k])
    for j in range(u.size):
        value -= 0.5 * u[j] * u[j]
    return value


@njit(cache=True, nogil=True)
def cholesky_solve(matrix, rhs, out):
    """Solve ``matrix out = rhs`` for a symmetric positive definite ``matrix`` (overwritten by its
    Cholesky factor); returns False if it is not numerically positive definite."""
    n = rhs.size
    for j in range(n):
        total = matrix[j, j]
        for i in range(j):
            total -= matrix[j, i] * matrix[j, i]
        if total <= 0.0:
            return False
        matrix[j, j] = math.sqrt(total)
        for r in range(j + 1, n):
            total = matrix[r, j]
            for i in range(j):
                total -= matrix[r, i] * matrix[j, i]
            matrix[r, j] = total / matrix[j, j]
    for r in range(n):  # forward: L y = rhs
        total = rhs[r]
        for i in range(r):
            total -= matrix[r, i] * out[i]
        out[r] = total / matrix[r, r]
    for r in range(n - 1, -1, -1):  # backward: L' out = y
        total = out[r]
        for i in range(r + 1, n):
            total -= matrix[i, r] * out[i]
        out[r] = total / matrix[r, r]
    return True


@njit(cache=True, nogil=True)
def _newton_location(locations, shape, mean_z, u, x, work_t, grad, hess, step, trial_u, trial_x):
    """One damped Newton ascent step on ``u`` (in place, with ``x = L u``); returns ``max |Delta u|``."""
    n_topics, dim = locations.shape
    top = 0.0
    for k in range(n_topics):
        work_t[k] = mean_z[k] * math.exp(-x[k])
        top = max(top, work_t[k])
    for j in range(dim):
        grad[j] = -u[j]
        for i in range(dim):
            hess[j, i] = 1.0 if i == j else 0.0
    for k in range(n_topics):
        coef = work_t[k] - shape[k]
        for j in range(dim):
            grad[j] += coef * locations[k, j]
        if work_t[k] > HESSIAN_WEIGHT_FLOOR * top:
            for j in range(dim):
                lj = work_t[k] * locations[k, j]
                for i in range(j + 1):
                    hess[j, i] += lj * locations[k, i]
    for j in range(dim):
        for i in range(j):
            hess[i, j] = hess[j, i]
    if not cholesky_solve(hess, grad, step):
        copy_into(step, grad)
    slope = 0.0
    for j in range(dim):
        slope += grad[j] * step[j]
    if slope <= 0.0:
        return 0.0
    current = _location_objective(shape, mean_z, x, u)
    scale = 1.0
    for _ in range(MAX_HALVINGS):
        for j in range(dim):
            trial_u[j] = u[j] + scale * step[j]
        if _project(locations, trial_u, trial_x):
            if _location_objective(shape, mean_z, trial_x, trial_u) >= current + ARMIJO * scale * slope:
                change = 0.0
                for j in range(dim):
                    change = max(change, abs(trial_u[j] - u[j]))
                copy_into(u, trial_u)
                copy_into(x, trial_x)
                return change
        scale *= 0.5
    return 0.0


@njit(cache=True, nogil=True)
def _gamma_step(shape, doc_topic, x, n_tokens, a, b, xi, correlated):
    """Eq. 23: ``a = s + N``, ``b = exp(-x) + N / xi``, then ``xi = sum a / b``; returns the new ``xi``."""
    total = 0.0
    for k in range(shape.size):
        a[k] = shape[k] + doc_topic[k]
        tilt = math.exp(-x[k]) if correlated else 1.0
        b[k] = tilt + n_tokens / xi
        total += a[k] / b[k]
    return total


@njit(cache=True, nogil=True)
def _weights(a, b, p, log_p):
    """``p_k ∝ exp(E log Z_k)``, ``E log Z = psi(a) - log b``, shifted by the largest and floored."""
    top = -math.inf
    for k in range(a.size):
        log_p[k] = digamma(a[k]) - math.log(b[k])
        top = max(top, log_p[k])
    for k in range(a.size):
        log_p[k] = max(log_p[k] - top, LOG_P_FLOOR)
        p[k] = math.exp(log_p[k])


@njit(cache=True, nogil=True)
def _prior_weights(shape, x, p, log_p, correlated):
    """The scratch start: ``p_k ∝ s_k exp(x_k)``, the prior mean of ``Z_k``."""
    top = -math.inf
    for k in range(shape.size):
        log_p[k] = math.log(shape[k]) + (x[k] if correlated else 0.0)
        top = max(top, log_p[k])
    for k in range(shape.size):
        log_p[k] = max(log_p[k] - top, LOG_P_FLOOR)
        p[k] = math.exp(log_p[k])


@njit(cache=True, nogil=True)
def _local_terms(shape, doc_topic, a, b, xi, n_tokens, u, correlated):
    """The document's purely local ELBO terms except ``H[phi]`` (module docstring)."""
    value, mean_total = 0.0, 0.0
    for k in range(shape.size):
        value += math.lgamma(a[k]) - shape[k] * digamma(a[k]) - doc_topic[k] * math.log(b[k]) + a[k]
        mean_total += a[k] / b[k]
    value -= n_tokens * (math.log(xi) + (mean_total - xi) / xi)
    if correlated:
        for j in range(u.size):
            value -= 0.5 * u[j] * u[j]
        value -= 0.5 * u.size * LOG_2PI
    return value


@njit(cache=True, nogil=True)
def _iterate_doc(local, cnts, shape, locations, correlated, start, a, b, xi, u, doc_topic, p, log_p, s, weight,
                 x, work, max_iter, tol, location_tol, newton_steps):
    """The fixed point of one document from ``start`` (SCRATCH or WARM); returns ``(iterations, xi)``;
    ``a, b, u, doc_topic, p, log_p, s`` hold the final state (``p``, ``s`` the weights and normalisers
    that produced ``doc_topic``)."""
    n_topics = shape.size
    work_t, scratch, mean_z, grad, step, trial_u, trial_x, hess = work
    n_tokens = cnts.sum()
    if start == WARM:
        if correlated:
            _project(locations, u, x)
        xi = _gamma_step(shape, doc_topic, x, n_tokens, a, b, xi, correlated)
        _weights(a, b, p, log_p)
    else:
        doc_topic[:] = 0.0
        u[:] = 0.0
        x[:] = 0.0
        _prior_weights(shape, x, p, log_p, correlated)
        xi = 0.0
        for k in range(n_topics):
            xi += shape[k]
    if not correlated:
        x[:] = 0.0
    iters = max_iter
    for it in range(max_iter):
        if it > 0:
            _weights(a, b, p, log_p)
        r_step(local, cnts, p, s, weight, scratch)
        change = 0.0
        for k in range(n_topics):
            change = max(change, abs(scratch[k] - doc_topic[k]))
            doc_topic[k] = scratch[k]
        xi = _gamma_step(shape, doc_topic, x, n_tokens, a, b, xi, correlated)
        moved = 0.0
        if correlated:
            for k in range(n_topics):
                mean_z[k] = a[k] / b[k]
            for _ in range(newton_steps):
                moved = max(moved, _newton_location(locations, shape, mean_z, u, x, work_t, grad, hess, step,
                                                    trial_u, trial_x))
        if change < tol and moved < location_tol and it > 0:
            iters = it + 1
            break
    return iters, xi


@njit(cache=True, nogil=True)
def _doc_objective(cnts, s, doc_topic, log_p, shape, a, b, xi, u, x, correlated):
    """The document's ELBO with the global parameters fixed, up to terms that do not depend on its
    ``q``: ``sum_u c_u log s_u - sum_k N_k log p_k`` (data and ``H[phi]``) + the local terms + ``sum_k
    [s_k (E log Z_k - x_k) - E[Z_k] e^{-x_k}]``, with ``x = L u``."""
    value = _local_terms(shape, doc_topic, a, b, xi, cnts.sum(), u, correlated)
    for i in range(s.size):
        value += cnts[i] * math.log(s[i])
    for k in range(shape.size):
        tilt = x[k] if correlated else 0.0
        value += shape[k] * (digamma(a[k]) - math.log(b[k]) - tilt) - a[k] / b[k] * math.exp(-tilt)
        value -= doc_topic[k] * log_p[k]
    return value


@njit(cache=True, nogil=True)
def _solve_doc(local, cnts, shape, locations, correlated, start, a, b, xi, u, doc_topic, p, log_p, s, weight,
               x, work, spare, max_iter, tol, location_tol, newton_steps):
    """One document from ``start``: SCRATCH, WARM (never lowers the document's ELBO) or BEST (both,
    keeping the higher ELBO: monotone too, and free to leave the previous lap's assignments).
    ``spare`` holds the second solve's buffers. Returns ``(iterations, xi)``."""
    if start != BEST:
        return _iterate_doc(local, cnts, shape, locations, correlated, start, a, b, xi, u, doc_topic, p, log_p, s,
                            weight, x, work, max_iter, tol, location_tol, newton_steps)
    a2, b2, u2, doc_topic2, p2, log_p2, s2, x2 = spare
    copy_into(a2, a)
    copy_into(b2, b)
    copy_into(u2, u)
    copy_into(doc_topic2, doc_topic)
    s2 = s2[: s.size]
    iters, xi_scratch = _iterate_doc(local, cnts, shape, locations, correlated, np.int64(SCRATCH), a, b, xi, u,
                                     doc_topic, p, log_p, s, weight, x, work, max_iter, tol, location_tol, newton_steps)
    more, xi_warm = _iterate_doc(local, cnts, shape, locations, correlated, np.int64(WARM), a2, b2, xi, u2, doc_topic2,
                                 p2, log_p2, s2, weight, x2, work, max_iter, tol, location_tol, newton_steps)
    if correlated:
        _project(locations, u, x)
        _project(locations, u2, x2)
    if (_doc_objective(cnts, s2, doc_topic2, log_p2, shape, a2, b2, xi_warm, u2, x2, correlated)
            > _doc_objective(cnts, s, doc_topic, log_p, shape, a, b, xi_scratch, u, x, correlated)):
        copy_into(a, a2)
        copy_into(b, b2)
        copy_into(u, u2)
        copy_into(doc_topic, doc_topic2)
        copy_into(p, p2)
        copy_into(log_p, log_p2)
        copy_into(s, s2)
        return iters + more, xi_warm
    return iters + more, xi_scratch


@njit(cache=True, nogil=True)
def diln_chunk(indptr, indices, counts, exp_loglik, centered_loglik, shape, locations, correlated, start, a, b, xi, u,
               doc_topic, max_iter, tol, location_tol, newton_steps, first, last, word_topic, entropy, local_elbo,
               n_iters):
    """:func:`diln_local_step` for documents ``first:last``, accumulating into this chunk's
    ``word_topic`` (V, T) and ``entropy`` (T,)."""
    n_topics, dim = locations.shape
    longest = longest_row(indptr, first, last)
    p, log_p, doc_entropy, x = np.empty(n_topics), np.empty(n_topics), np.empty(n_topics), np.zeros(n_topics)
    s, weight = np.empty(longest), np.empty(longest)
    work = (np.empty(n_topics), np.empty(n_topics), np.empty(n_topics), np.empty(dim), np.empty(dim),
            np.empty(dim), np.empty(n_topics), np.empty((dim, dim)))
    spare = (np.empty(n_topics), np.empty(n_topics), np.empty(dim), np.empty(n_topics), np.empty(n_topics),
             np.empty(n_topics), np.empty(longest), np.empty(n_topics))
    for d in range(first, last):
        words, cnts = indices[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]]
        local = topic_major_slice(words, exp_loglik)
        s_doc, weight_doc = s[: words.size], weight[: words.size]
        n_iters[d], xi[d] = _solve_doc(local, cnts, shape, locations, correlated, start, a[d], b[d], xi[d], u[d],
                                       doc_topic[d], p, log_p, s_doc, weight_doc, x, work, spare, max_iter, tol,
                                       location_tol,
                                       newton_steps)
        accumulate_document(words, cnts, local, centered_loglik, p, log_p, s_doc, word_topic, entropy, doc_entropy)
        n_tokens = 0.0
        for i in range(cnts.size):
            n_tokens += cnts[i]
        local_elbo[d] = doc_entropy.sum() + _local_terms(shape, doc_topic[d], a[d], b[d], xi[d], n_tokens, u[d],
                                                         correlated)


def diln_local_step(indptr, indices, counts, exp_loglik, centered_loglik, shape, locations, correlated, start,
                    a, b, xi, u, doc_topic, max_iter, tol, location_tol, newton_steps, n_chunks):
    """Run the document-level coordinate ascent for every document (``n_chunks`` chunks of documents on threads).

    ``a, b, doc_topic`` (D, T), ``xi`` (D,), ``u`` (D, d) hold the warm state when ``start`` is WARM
    or BEST and receive the final one. Stops a document when ``max_k |Delta N_k| < tol`` and ``max
    |Delta u| < location_tol`` (at least two iterations). Returns ``doc_topic`` (D, T) = ``N_dk``,
    ``word_topic`` (V, T) = ``sum_d sum_u c_u phi_duk [v_u = v]``, the per-document local ELBO (D,)
    and the iterations (D,).
    """
    n_docs, n_topics = a.shape
    bounds = even_bounds(n_docs, n_chunks)
    word_topic = np.zeros((len(bounds) - 1, exp_loglik.shape[0], n_topics))
    entropy = np.zeros((len(bounds) - 1, n_topics))
    local_elbo = np.zeros(n_docs)
    n_iters = np.zeros(n_docs, dtype=np.int64)

    def run(c, first, last):
        diln_chunk(indptr, indices, counts, exp_loglik, centered_loglik, shape, locations, bool(correlated), int(start),
                   a, b, xi, u, doc_topic, int(max_iter), float(tol), float(location_tol), int(newton_steps), first,
                   last, word_topic[c], entropy[c], local_elbo, n_iters)

    over_chunks(run, bounds)
    total_word_topic = word_topic[0]
    for c in range(1, len(bounds) - 1):
        total_word_topic += word_topic[c]
    return doc_topic, total_word_topic, local_elbo, n_iters
