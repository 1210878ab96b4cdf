"""NumPy twin of :mod:`stickbreak.kernels.diln.local`, used only by the tests.

Written the textbook way: the full responsibility matrix ``phi`` (types x topics) from the uncentred
``E log eta``, its entropy as ``-sum c phi log phi``, ``numpy.linalg.solve`` for the Newton step.
"""

import numpy as np
from scipy.special import digamma, gammaln

from .local import ARMIJO, BEST, HESSIAN_WEIGHT_FLOOR, MAX_EXPONENT, MAX_HALVINGS, SCRATCH, WARM


def _objective(shape, mean_z, locations, u):
    x = locations @ u
    return float(-(shape * x).sum() - (mean_z * np.exp(-x)).sum() - 0.5 * u @ u)


def _newton(shape, mean_z, locations, u):
    x = locations @ u
    weight = mean_z * np.exp(-x)
    grad = locations.T @ (weight - shape) - u
    used = weight > HESSIAN_WEIGHT_FLOOR * weight.max()
    hess = (locations[used].T * weight[used]) @ locations[used] + np.eye(len(u))
    step = np.linalg.solve(hess, grad)
    slope = grad @ step
    if slope <= 0:
        return u, 0.0
    current = _objective(shape, mean_z, locations, u)
    scale = 1.0
    for _ in range(MAX_HALVINGS):
        trial = u + scale * step
        if np.all(np.abs(locations @ trial) <= MAX_EXPONENT):
            if _objective(shape, mean_z, locations, trial) >= current + ARMIJO * scale * slope:
                return trial, float(np.max(np.abs(trial - u)))
        scale *= 0.5
    return u, 0.0


def _responsibilities(log_eta, log_weight):
    logits = log_eta + log_weight[None, :]
    logits -= logits.max(axis=1, keepdims=True)
    phi = np.exp(logits)
    return phi / phi.sum(axis=1, keepdims=True)


def doc_objective(words, cnts, log_eta_t, shape, locations, correlated, result):
    """The document's ELBO with the globals fixed, up to constants: data + local + ``sum_k [s_k (E log Z_k
    - l_k'u) - E[Z_k] e^{-l_k'u}]`` from first principles."""
    N, phi, a, b, xi, u, _ = result
    x = locations @ u if correlated else np.zeros(len(shape))
    data = float(cnts @ (phi * log_eta_t[words]).sum(axis=1))
    prior = float((shape * (digamma(a) - np.log(b) - x) - a / b * np.exp(-x)).sum())
    return data + prior + local_elbo(cnts, phi, shape, N, a, b, xi, u, correlated)


def solve_doc(words, cnts, log_eta_t, shape, locations, correlated, start, a, b, xi, u, max_iter, tol, location_tol,
              newton_steps, doc_topic=None):
    """One document; ``log_eta_t`` (V, T) = ``E log eta``; ``doc_topic`` the previous counts of a warm
    start. Returns ``(N, phi, a, b, xi, u, iterations)``."""
    if start == BEST:
        args = (words, cnts, log_eta_t, shape, locations, correlated)
        fresh = solve_doc(*args, SCRATCH, a, b, xi, u, max_iter, tol, location_tol, newton_steps)
        warm = solve_doc(*args, WARM, a, b, xi, u, max_iter, tol, location_tol, newton_steps, doc_topic)
        best = warm if doc_objective(*args, warm) > doc_objective(*args, fresh) else fresh
        return best[:-1] + (fresh[-1] + warm[-1],)
    log_eta = log_eta_t[words]
    n_tokens = cnts.sum()
    if start == WARM:
        x = locations @ u if correlated else np.zeros(len(shape))
        a = shape + doc_topic
        b = (np.exp(-x) if correlated else 1.0) + n_tokens / xi
        xi = float((a / b).sum())
        log_weight = digamma(a) - np.log(b)
    else:
        u = np.zeros(locations.shape[1])
        x = np.zeros(len(shape))
        log_weight = np.log(shape)
        xi = shape.sum()
        doc_topic = np.zeros(len(shape))
    iters = max_iter
    for it in range(max_iter):
        if it > 0:
            log_weight = digamma(a) - np.log(b)
        phi = _responsibilities(log_eta, log_weight)
        new = cnts @ phi
        change = np.max(np.abs(new - doc_topic))
        doc_topic = new
        a = shape + doc_topic
        b = (np.exp(-x) if correlated else 1.0) + n_tokens / xi
        xi = float((a / b).sum())
        moved = 0.0
        if correlated:
            for _ in range(newton_steps):
                u, step = _newton(shape, a / b, locations, u)
                moved = max(moved, step)
            x = locations @ u
        if change < tol and moved < location_tol and it > 0:
            iters = it + 1
            break
    return doc_topic, phi, a, b, xi, u, iters


def local_elbo(cnts, phi, shape, doc_topic, a, b, xi, u, correlated):
    """The purely local ELBO of one document (kernel module docstring), from first principles:
    ``H[phi] + sum_k [(N_k - 1) E log Z_k + H[Gamma(a_k, b_k)]] - N [log xi + (sum E Z - xi)/xi] + log N(u; 0, I)``."""
    entropy = -float(cnts @ (phi * np.log(np.maximum(phi, 1e-300))).sum(axis=1))
    log_z = digamma(a) - np.log(b)
    gamma_entropy = a - np.log(b) + gammaln(a) + (1 - a) * digamma(a)
    value = entropy + float(((doc_topic - 1) * log_z + gamma_entropy).sum())
    value -= cnts.sum() * (np.log(xi) + ((a / b).sum() - xi) / xi)
    if correlated:
        value += -0.5 * u @ u - 0.5 * len(u) * np.log(2 * np.pi)
    return value


def diln_local_step(counts, log_eta_t, shape, locations, correlated, start, a, b, xi, u, doc_topic, max_iter, tol,
                    location_tol, newton_steps):
    """All documents of the CSR ``counts``; same outputs as the kernel, ``a, b, xi, u, doc_topic`` updated in place."""
    n_docs, n_topics = a.shape
    word_topic = np.zeros((log_eta_t.shape[0], n_topics))
    elbo, iters = np.zeros(n_docs), np.zeros(n_docs, dtype=np.int64)
    for d in range(n_docs):
        words = counts.indices[counts.indptr[d]:counts.indptr[d + 1]]
        cnts = counts.data[counts.indptr[d]:counts.indptr[d + 1]]
        N, phi, a[d], b[d], xi[d], u[d], iters[d] = solve_doc(words, cnts, log_eta_t, shape, locations, correlated,
                                                              start, a[d].copy(), b[d].copy(), xi[d], u[d].copy(),
                                                              max_iter, tol, location_tol, newton_steps,
                                                              doc_topic[d].copy())
        doc_topic[d] = N
        word_topic[words] += cnts[:, None] * phi
        elbo[d] = local_elbo(cnts, phi, shape, N, a[d], b[d], xi[d], u[d], correlated)
    return doc_topic, word_topic, elbo, iters
