"""The per-document local step of the two-level stick-breaking HDP (Hoffman et al. 2013, Fig. 9, lines 5-10).

A document has word types ``u = 1..U`` with counts ``c_u``; ``L[k, u] = E log beta_{k, w_u}`` is its
slice of the topics (gathered once, topic-major, so every inner loop runs over the word types).
With ``T`` document atoms and the corpus weights ``E log sigma_k(V)``, Fig. 9 repeats

    gamma1_i = 1 + sum_u c_u phi_ui,   gamma2_i = alpha + sum_u c_u sum_{j>i} phi_uj     (line 8, i < T)
    zeta_ik  ∝ exp{E log sigma_k(V) + sum_u c_u phi_ui L[k, u]}                         (line 9)
    phi_ui   ∝ exp{E log sigma_i(pi_d) + sum_k zeta_ik L[k, u]}                         (line 10)

until the per-document ELBO ``L_d`` (digest §3) changes by less than ``tol`` relatively. Each line is
an exact coordinate update, so ``L_d`` never decreases. Work is per word type weighted by its count,
never per token; normalisation by log-sum-exp. An iteration costs at most two ``T x K x U``
products (lines 9 and 10); the pruning below brings both down to about ``U`` times the number of
nonzero pointer weights.

* Starts. ``START_UNIFORM`` is lines 5-6: ``T`` identical ``zeta`` rows, so ``phi_ui = 1/T`` exactly
  (atoms with identical token weights get identical pointers: one is computed and copied). From it
  every atom tends to stay on the same topic, most of a document on one topic, a poor local optimum
  (issue 24). ``START_WORDS`` starts from the document's own words (:func:`_words_start`); ``START_BEST``
  runs both and keeps the one of higher ``L_d`` (computed exactly for each). Every start is followed by
  the same coordinate ascent, so each is a valid document step, deterministic without any seed.
* Last sticks fixed: ``q(v_K = 1) = q(pi_dT = 1) = 1`` (``E log v_K = E log pi_dT = 0``).
* ``L_d`` comes from the normalisers: the ``zeta`` part is ``sum_i [log Y_i - sum_k zeta_ik M_ik]``
  (``M = (c phi) L^T``, ``Y_i`` the normaliser of row ``i``) and the ``phi`` part ``sum_u c_u log Z_u``.
* Pruning, exact to round-off: pointer weights below ``exp(-PRUNE_LOG)`` (4e-18) of the atom's
  largest are set to zero and skipped in line 10 and in the statistics, and their exponents
  ``r_ik = E log sigma_k(V) + sum_u W_iu L[k, u]`` (``W = c phi``) are not computed when a rigorous
  bound already puts them ``PRUNE_LOG`` below the atom's best. Both bounds follow from
  ``-A_k <= L[k, u] < 0`` (``A_k`` the largest ``|L[k, u]|`` in the document):
  (i) ``r_ik <= E log sigma_k(V)``: an atom visits topics by decreasing prior and stops at the
  first whose prior is too low; (ii) ``r_ik(t) <= r_ik(s) + A_k sum_{s<tau<=t} sum_u (W_iu(tau-1)
  - W_iu(tau))^+`` (only decreases of ``W`` can raise ``r``): an exponent computed at iteration
  ``s`` keeps bounding the current one while the atom's accumulated decrease ("drift") is small.
  Each atom first recomputes its previous nonzero topics, which sets a high best exponent early.
* ``exp`` is :func:`exp_inplace`, a polynomial LLVM vectorises (1 ulp; libm's is 5x slower here).
* After convergence ``gamma`` is refreshed from the final ``phi`` (line 8 once more: ``L_d`` can only rise).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..chunked import even_bounds, over_chunks
from ..special import digamma
from .dense import FAST, longest_row

#: Starts of the document step (module docstring).
START_UNIFORM, START_WORDS, START_BEST = 0, 1, 2
#: EM steps of :func:`_words_start`.
START_ITERS = 3
#: Document-topic pointer weights below ``exp(-PRUNE_LOG)`` of the atom's largest are dropped.
PRUNE_LOG = 40.0
#: Constants of :func:`exp_inplace`: ``log2(e)``, ``log(2)`` split in two (Cody-Waite), the
#: round-to-integer shift ``1.5 * 2^52`` and the Taylor coefficients ``1/k!``, k = 2..13.
LOG2E = 1.4426950408889634
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
ROUND = 6755399441055744.0
C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13 = (1.0 / math.factorial(k) for k in range(2, 14))


@njit(cache=True, nogil=True, fastmath={"contract"}, error_model="numpy")
def exp_inplace(x, scratch):
    """``x = exp(x)`` elementwise, within about 1 ulp, in loops LLVM vectorises (libm's ``exp`` is a
    scalar call, 5x slower); inputs below -708 give 0. ``scratch``: at least ``x.size`` floats.

    ``x = k log 2 + r`` with ``k`` rounded by the ``ROUND`` shift (whose low mantissa bits then
    hold ``k``) and ``|r| <= log(2) / 2``; ``exp(r)`` by its Taylor polynomial to degree 13
    (remainder below 1e-17) and ``2^k`` by writing ``k + 1023`` into the exponent bits."""
    n = x.size
    for u in range(n):
        v = x[u]
        w = min(max(v, -708.0), 709.0)
        t = w * LOG2E + ROUND
        scratch[u] = t
        k = t - ROUND
        r = (w - k * LN2_HI) - k * LN2_LO
        p = ((((((C13 * r + C12) * r + C11) * r + C10) * r + C9) * r + C8) * r + C7) * r + C6
        p = (((((p * r + C5) * r + C4) * r + C3) * r + C2) * r + 1.0) * r + 1.0
        x[u] = p if v >= -708.0 else 0.0
    bits = scratch[:n].view(np.int64)
    for u in range(n):
        bits[u] = (bits[u] + 1023) << 52
    for u in range(n):
        x[u] *= scratch[u]


@njit(cache=True, nogil=True)
def expected_log_sticks(a, b, concentration, out):
    """``out[i] = E log sigma_i = E log v_i + sum_{j<i} E log(1 - v_j)`` for ``q(v_i) = Beta(a_i, b_i)``,
    ``i < n``, and ``out[n] = sum_{j<n} E log(1 - v_j)`` for the last stick fixed at one, where
    ``E log v = psi(a) - psi(a + b)`` and ``E log(1 - v) = psi(b) - psi(a + b)`` (Hoffman et al. 2013,
    Sec. 3.3). Returns ``sum_i E log Beta(v_i; 1, concentration) - E log q(v_i)``."""
    log_concentration = math.log(concentration)
    rest, value = 0.0, 0.0
    for i in range(a.size):
        g1, g2 = a[i], b[i]
        total = digamma(g1 + g2)
        log_v, log_rest = digamma(g1) - total, digamma(g2) - total
        out[i] = log_v + rest
        rest += log_rest
        log_q = (math.lgamma(g1 + g2) - math.lgamma(g1) - math.lgamma(g2)
                 + (g1 - 1.0) * log_v + (g2 - 1.0) * log_rest)
        value += log_concentration + (concentration - 1.0) * log_rest - log_q
    out[a.size] = rest
    return value


@njit(cache=True, nogil=True, fastmath=FAST, error_model="numpy")
def _dot(x, y):
    """``sum_u x_u y_u`` (reassociated: LLVM vectorises and interleaves the sum)."""
    s = 0.0
    for t in range(x.size):
        s += x[t] * y[t]
    return s


@njit(cache=True, nogil=True, fastmath=FAST, error_model="numpy")
def _dot2(x, y, w):
    """``(sum_u x_u w_u, sum_u y_u w_u)`` in one pass over ``w``."""
    s, t = 0.0, 0.0
    for u in range(w.size):
        s += x[u] * w[u]
        t += y[u] * w[u]
    return s, t


@njit(cache=True, nogil=True)
def _same_row(W, i):
    """Whether atom ``i`` has exactly the token weights of atom ``i - 1``."""
    for u in range(W.shape[1]):
        if W[i, u] != W[i - 1, u]:
            return False
    return True


@njit(cache=True, nogil=True)
def _copy_atom(i, r, seen, drift_at, drift, zeta_val, zeta_idx, zeta_n, zeta_norm, zeta_part):
    """Atom ``i`` takes what was just computed for atom ``i - 1`` (same weights, same update)."""
    for j in range(r.shape[1]):
        r[i, j], seen[i, j], drift_at[i, j] = r[i - 1, j], seen[i - 1, j], drift_at[i - 1, j]
    for c in range(zeta_n[i - 1]):
        zeta_val[i, c], zeta_idx[i, c] = zeta_val[i - 1, c], zeta_idx[i - 1, c]
    drift[i], zeta_n[i], zeta_norm[i], zeta_part[i] = drift[i - 1], zeta_n[i - 1], zeta_norm[i - 1], zeta_part[i - 1]


@njit(cache=True, nogil=True)
def _update_zeta(L, W, spread, prior, r, seen, drift_at, drift, zeta_val, zeta_idx, zeta_n, zeta_norm, zeta_part,
                 scratch, it):
    """Line 9 at iteration ``it``, topics in sorted order ``j`` (``prior``: ``E log sigma(V)``
    descending), with the bounds of the module docstring.

    ``r[i, j]`` holds the exponent last computed, at iteration ``seen[i, j]`` and atom drift
    ``drift_at[i, j]``. The nonzero weights go to ``zeta_val[i, :zeta_n[i]]`` at topics
    ``zeta_idx[i]``, the log normaliser to ``zeta_norm[i]`` and the atom's pointer and entropy
    terms ``sum_k zeta_ik (E log sigma_k(V) - log zeta_ik)`` to ``zeta_part[i]``; returns their sum."""
    n_atoms, n_topics = r.shape
    for i in range(n_atoms):
        if i > 0 and _same_row(W, i):  # e.g. the first iteration: T identical atoms
            _copy_atom(i, r, seen, drift_at, drift, zeta_val, zeta_idx, zeta_n, zeta_norm, zeta_part)
            continue
        w, moved, top = W[i], drift[i], -math.inf
        n_prev, c = zeta_n[i], 0
        while c + 2 <= n_prev:  # the atom's previous topics first, two per pass over w
            ja, jb = zeta_idx[i, c], zeta_idx[i, c + 1]
            xa, xb = _dot2(L[ja], L[jb], w)
            r[i, ja], r[i, jb] = prior[ja] + xa, prior[jb] + xb
            seen[i, ja], drift_at[i, ja], seen[i, jb], drift_at[i, jb] = it, moved, it, moved
            top = max(top, max(r[i, ja], r[i, jb]))
            c += 2
        if c < n_prev:
            j = zeta_idx[i, c]
            r[i, j] = prior[j] + _dot(L[j], w)
            seen[i, j], drift_at[i, j] = it, moved
            top = max(top, r[i, j])
        visited = n_topics
        for j in range(n_topics):
            if prior[j] < top - PRUNE_LOG:  # bound (i), for this and every later topic
                visited = j
                break
            if seen[i, j] == it:
                continue
            if seen[i, j] >= 0 and r[i, j] + spread[j] * (moved - drift_at[i, j]) < top - PRUNE_LOG:
                continue  # bound (ii)
            r[i, j] = prior[j] + _dot(L[j], w)
            seen[i, j], drift_at[i, j] = it, moved
            top = max(top, r[i, j])
        n = 0
        for j in range(visited):
            x = r[i, j] - top
            if seen[i, j] == it and x > -PRUNE_LOG:
                zeta_val[i, n] = x
                zeta_idx[i, n] = j
                n += 1
        exp_inplace(zeta_val[i, :n], scratch)
        total = zeta_val[i, :n].sum()
        zeta_n[i] = n
        log_norm = top + math.log(total)
        zeta_norm[i] = log_norm
        inv = 1.0 / total
        for c in range(n):
            z = zeta_val[i, c] * inv
            zeta_val[i, c] = z
            j = zeta_idx[i, c]
            log_norm -= z * (r[i, j] - prior[j])
        zeta_part[i] = log_norm
    return zeta_part.sum()


@njit(cache=True, nogil=True, fastmath=FAST, error_model="numpy")
def _atom_scores(L, elog_pi_i, zeta_val, zeta_idx, n, row):
    """``row[u] = E log sigma_i(pi_d) + sum_k zeta_ik L[k, u]`` over the atom's ``n`` nonzero topics,
    four topics per pass over the row."""
    for u in range(row.size):
        row[u] = elog_pi_i
    c = 0
    while c + 4 <= n:
        z0, z1, z2, z3 = zeta_val[c], zeta_val[c + 1], zeta_val[c + 2], zeta_val[c + 3]
        l0, l1, l2, l3 = L[zeta_idx[c]], L[zeta_idx[c + 1]], L[zeta_idx[c + 2]], L[zeta_idx[c + 3]]
        for u in range(row.size):
            row[u] += z0 * l0[u] + z1 * l1[u] + z2 * l2[u] + z3 * l3[u]
        c += 4
    for c in range(c, n):
        z, source = zeta_val[c], L[zeta_idx[c]]
        for u in range(row.size):
            row[u] += z * source[u]


@njit(cache=True, nogil=True, fastmath=FAST, error_model="numpy")
def _normalize_phi(counts, S, phi, W, drift, top, total, log_norm, scratch):
    """``phi`` = softmax of ``S`` over atoms, ``W = c phi``; adds each atom's decrease of ``W`` to
    ``drift``. Returns ``sum_u c_u log sum_i exp S[i, u]``."""
    n_atoms, n_types = S.shape
    for u in range(n_types):
        top[u] = S[0, u]
    for i in range(1, n_atoms):
        for u in range(n_types):
            top[u] = max(top[u], S[i, u])
    for i in range(n_atoms):
        for u in range(n_types):
            phi[i, u] = S[i, u] - top[u]
    exp_inplace(phi.reshape(phi.size), scratch)
    total[:] = 0.0
    for i in range(n_atoms):
        for u in range(n_types):
            total[u] += phi[i, u]
    value = 0.0
    for u in range(n_types):
        log_norm[u] = top[u] + math.log(total[u])
        value += counts[u] * log_norm[u]
        total[u] = 1.0 / total[u]
    for i in range(n_atoms):
        decrease = 0.0
        for u in range(n_types):
            p = phi[i, u] * total[u]
            phi[i, u] = p
            w = counts[u] * p
            decrease += max(W[i, u] - w, 0.0)
            W[i, u] = w
        drift[i] += decrease
    return value


@njit(cache=True, nogil=True)
def _gather_sorted(words, elog_beta_t, order, buffer, spread):
    """``L[j, u] = E log beta_{order[j], words[u]}``: the document's slice, topics in sorted order;
    ``spread[j] = max_u |L[j, u]|``."""
    n_topics = order.size
    local = buffer[: n_topics * words.size].reshape((n_topics, words.size))
    spread[:] = 0.0
    for u in range(words.size):
        row = elog_beta_t[words[u]]
        for j in range(n_topics):
            x = row[order[j]]
            local[j, u] = x
            spread[j] = max(spread[j], -x)
    return local


@njit(cache=True, nogil=True)
def _update_doc_sticks(W, alpha, tokens, g1, g2, elog_pi):
    """Line 8 from ``W[i, u] = c_u phi_ui``: fills ``tokens``, ``gamma`` and ``E log sigma_i(pi_d)``;
    returns the sticks' prior minus entropy."""
    n_atoms = W.shape[0]
    for i in range(n_atoms):
        tokens[i] = W[i].sum()
    beyond = 0.0
    for i in range(n_atoms - 1, -1, -1):
        if i < n_atoms - 1:
            g1[i] = 1.0 + tokens[i]
            g2[i] = alpha + beyond
        beyond += tokens[i]
    return expected_log_sticks(g1, g2, alpha, elog_pi)


@njit(cache=True, nogil=True)
def _words_start(L, counts, S, phi, W, drift, top, total, log_norm, scratch, work):
    """``phi`` from the document's own words, stick terms ignored (as in the first iterations of Wang et al.
    2011's reference code): ``START_ITERS`` EM steps for the proportions of a mixture of the fixed topics,
    ``r_uk ∝ theta_k exp L[k, u]``, ``theta_k ∝ sum_u c_u r_uk``, from ``theta = 1/K``; atom ``i`` takes the
    topic ``k_i`` of ``i``-th largest mass (ties: higher prior first), ``phi_ui ∝ theta_{k_i} exp L[k_i, u]``."""
    n_topics, n_types = L.shape
    size = n_topics * n_types
    R, P, M = work[0][:size].reshape(L.shape), work[1][:size].reshape(L.shape), work[2][:size].reshape(L.shape)
    log_theta, mass = np.full(n_topics, -math.log(n_topics)), np.zeros(n_topics)
    for _ in range(START_ITERS):
        for j in range(n_topics):
            for u in range(n_types):
                R[j, u] = log_theta[j] + L[j, u]
        _normalize_phi(counts, R, P, M, mass, top, total, log_norm, scratch)  # M = c r (mass: a dummy drift)
        for j in range(n_topics):
            mass[j] = M[j].sum()
        log_sum = math.log(mass.sum())
        for j in range(n_topics):
            log_theta[j] = math.log(mass[j]) - log_sum if mass[j] > 0.0 else -math.inf
    chosen = np.argsort(-mass, kind="mergesort")
    for i in range(S.shape[0]):
        for u in range(n_types):
            S[i, u] = log_theta[chosen[i]] + L[chosen[i], u] if i < n_topics else -math.inf
    _normalize_phi(counts, S, phi, W, drift, top, total, log_norm, scratch)
    drift[:] = 0.0


@njit(cache=True, nogil=True)
def _iterate(start, L, spread, counts, prior, alpha, max_iter, tol, phi, W, S, r, seen, drift_at, drift, zeta_val,
             zeta_idx, zeta_n, zeta_norm, zeta_part, tokens, g1, g2, elog_pi, top, total, phi_norm, scratch, work):
    """Lines 6-10 for one document from ``phi = 1/T`` or :func:`_words_start`; returns the iterations."""
    n_atoms, n_types = W.shape
    drift[:], zeta_n[:], seen[:] = 0.0, 0, -1
    for i in range(n_atoms):
        for u in range(n_types):
            phi[i, u], W[i, u] = 1.0 / n_atoms, counts[u] / n_atoms
    if start != START_UNIFORM and n_types > 0:
        _words_start(L, counts, S, phi, W, drift, top, total, phi_norm, scratch, work)
    old, n_iters = 0.0, 0
    for it in range(max_iter):
        n_iters = it + 1
        value = _update_doc_sticks(W, alpha, tokens, g1, g2, elog_pi)
        value += _update_zeta(L, W, spread, prior, r, seen, drift_at, drift, zeta_val, zeta_idx, zeta_n, zeta_norm,
                              zeta_part, scratch, it)
        for i in range(n_atoms):  # line 10; sum_u c_u log Z_u: the data, E log p(z|pi) and entropy terms of phi
            _atom_scores(L, elog_pi[i], zeta_val[i], zeta_idx[i], zeta_n[i], S[i])
        value += _normalize_phi(counts, S, phi, W, drift, top, total, phi_norm, scratch)
        if it > 0 and abs(value - old) <= tol * abs(old):
            break
        old = value
    return n_iters


@njit(cache=True, nogil=True)
def _doc_elbo(L, prior, W, S, r, zeta_val, zeta_idx, zeta_n, zeta_norm, phi_norm, tokens, elog_pi, sticks):
    """``(local, L_d)``: the purely local ``H(zeta) + H(phi) + sum_i N_i E log sigma_i(pi_d)`` plus the
    sticks' prior minus entropy, and the whole ``L_d``, which adds ``E log p(c_d|V) + E log p(w_d|z_d,
    c_d, beta) = sum_ik zeta_ik (E log sigma_k(V) + sum_u W_iu L[k, u])`` (by ``L_d`` starts are compared)."""
    n_atoms, n_types = W.shape
    value, terms = sticks, 0.0
    for i in range(n_atoms):
        value += tokens[i] * elog_pi[i]
        for c in range(zeta_n[i]):
            j = zeta_idx[i, c]
            value -= zeta_val[i, c] * (r[i, j] - zeta_norm[i])
            terms += zeta_val[i, c] * (prior[j] + _dot(L[j], W[i]))
        for u in range(n_types):
            if W[i, u] > 0.0:
                value -= W[i, u] * (S[i, u] - phi_norm[u])
    return value, value + terms


@njit(cache=True, nogil=True)
def _accumulate(words, order, W, zeta_val, zeta_idx, zeta_n, B, used, word_topic, n_pointers, n_tokens):
    """Add ``sum_i zeta_ik c_u phi_ui`` to ``word_topic[w_u, k]`` and ``n_tokens[k]``, ``sum_i zeta_ik``
    to ``n_pointers[k]`` (``B`` holds one row per topic in use, ``used`` maps topics to rows)."""
    n_atoms, n_types = W.shape
    n_used = 0
    for i in range(n_atoms):
        w = W[i]
        for c in range(zeta_n[i]):
            j, z = zeta_idx[i, c], zeta_val[i, c]
            n_pointers[order[j]] += z
            row = B[used[j]] if used[j] >= 0 else B[n_used]
            if used[j] < 0:
                used[j] = n_used
                n_used += 1
                for u in range(n_types):
                    row[u] = 0.0
            for u in range(n_types):
                row[u] += z * w[u]
    for j in range(order.size):
        if used[j] < 0:
            continue
        k, row = order[j], B[used[j]]
        mass = 0.0
        for u in range(n_types):
            word_topic[words[u], k] += row[u]
            mass += row[u]
        n_tokens[k] += mass
        used[j] = -1


@njit(cache=True, nogil=True)
def _doc_topic(order, zeta_val, zeta_idx, zeta_n, g1, g2, theta):
    """``E theta_k = sum_i E[sigma_i(pi_d)] zeta_ik`` with ``E sigma_i = pibar_i prod_{j<i} (1 - pibar_j)``,
    ``pibar = gamma1 / (gamma1 + gamma2)`` and ``pibar_T = 1`` (digest §4, "HDP proportions")."""
    theta[:] = 0.0
    rest = 1.0
    n_atoms = zeta_n.size
    for i in range(n_atoms):
        mean = g1[i] / (g1[i] + g2[i]) if i < n_atoms - 1 else 1.0
        for c in range(zeta_n[i]):
            theta[order[zeta_idx[i, c]]] += mean * rest * zeta_val[i, c]
        rest *= 1.0 - mean


@njit(cache=True, nogil=True)
def sticks_chunk(indptr, indices, counts, elog_beta_t, order, prior, alpha, n_atoms, max_iter, tol, start, first,
                 last, word_topic, n_pointers, n_tokens, elbo, n_iters, doc_topic):
    """Documents ``first..last-1`` with this chunk's own scratch buffers and accumulators. With
    ``START_BEST`` each document is solved from both starts (into slots 0 and 1 of ``W``, ``zeta``,
    ``gamma``) and the slot of the higher ``L_d`` is kept; ``n_iters`` counts both runs."""
    n_topics = order.size
    longest = longest_row(indptr, first, last)
    local_buffer, spread = np.empty(n_topics * longest), np.empty(n_topics)
    phi_buf, W_buf, S_buf = np.empty(n_atoms * longest), np.empty((2, n_atoms * longest)), np.empty(n_atoms * longest)
    r, drift_at = np.empty((n_atoms, n_topics)), np.empty((n_atoms, n_topics))
    zeta_val, zeta_idx = np.empty((2, n_atoms, n_topics)), np.empty((2, n_atoms, n_topics), dtype=np.int64)
    seen, zeta_n = np.empty((n_atoms, n_topics), dtype=np.int64), np.empty((2, n_atoms), dtype=np.int64)
    drift, zeta_norm, zeta_part, tokens, elog_pi = np.empty((5, n_atoms))
    g1, g2, work = np.empty((2, n_atoms - 1)), np.empty((2, n_atoms - 1)), np.empty((3, n_topics * longest))
    top, total, phi_norm = np.empty(longest), np.empty(longest), np.empty(longest)
    scratch = np.empty(max(n_atoms, n_topics) * longest)
    B, used = np.empty((n_topics, longest)), np.full(n_topics, -1, dtype=np.int64)
    for d in range(first, last):
        words, cnts = indices[indptr[d]:indptr[d + 1]], counts[indptr[d]:indptr[d + 1]]
        size = words.size
        L = _gather_sorted(words, elog_beta_t, order, local_buffer, spread)
        phi = phi_buf[: n_atoms * size].reshape((n_atoms, size))
        S = S_buf[: n_atoms * size].reshape((n_atoms, size))
        best, kept = -math.inf, 0
        for s in range(2 if start == START_BEST else 1):
            how = START_WORDS if start == START_WORDS or s == 1 else START_UNIFORM
            W = W_buf[s][: n_atoms * size].reshape((n_atoms, size))
            n_iters[d] += _iterate(how, L, spread, cnts, prior, alpha, max_iter, tol, phi, W, S, r, seen, drift_at,
                                   drift, zeta_val[s], zeta_idx[s], zeta_n[s], zeta_norm, zeta_part, tokens, g1[s],
                                   g2[s], elog_pi, top[:size], total[:size], phi_norm[:size], scratch, work)
            sticks = _update_doc_sticks(W, alpha, tokens, g1[s], g2[s], elog_pi)  # gamma from the final phi
            local, value = _doc_elbo(L, prior, W, S, r, zeta_val[s], zeta_idx[s], zeta_n[s], zeta_norm, phi_norm[:size],
                                     tokens, elog_pi, sticks)
            if value > best:
                best, kept, elbo[d] = value, s, local
        W = W_buf[kept][: n_atoms * size].reshape((n_atoms, size))
        _accumulate(words, order, W, zeta_val[kept], zeta_idx[kept], zeta_n[kept], B, used, word_topic, n_pointers,
                    n_tokens)
        if doc_topic.shape[0] > 0:
            _doc_topic(order, zeta_val[kept], zeta_idx[kept], zeta_n[kept], g1[kept], g2[kept], doc_topic[d])


def hdp_sticks_local_step(indptr, indices, counts, elog_beta_t, elog_corpus, alpha, n_atoms, max_iter, tol,
                          start, n_chunks, doc_topic):
    """Fig. 9 lines 5-10 for every document, over ``n_chunks`` threads (chunks of documents, each
    with its own scratch buffers and accumulators, summed at the end).

    ``elog_beta_t`` (V, K): ``E log beta`` transposed; ``elog_corpus`` (K,): ``E log sigma_k(V)``;
    ``alpha`` the document concentration; ``n_atoms`` the document truncation ``T``; at most
    ``max_iter`` iterations, stopping when ``|Delta L_d| <= tol |L_d|``, from ``start`` (``START_UNIFORM``,
    ``START_WORDS`` or ``START_BEST``: module docstring). ``doc_topic`` (D, K), or
    (0, K) to skip, receives ``E theta_dk = sum_i E[sigma_i(pi_d)] zeta_dik``.

    Returns ``word_topic`` (V, K) ``= sum_d sum_i zeta_dik sum_u c_du phi_dui [w_du = v]``,
    ``n_pointers`` (K,) ``= sum_d sum_i zeta_dik``, ``n_tokens`` (K,) (the column sums of
    ``word_topic``), each document's purely local ELBO terms (D,) (entropies of ``zeta`` and ``phi``,
    ``E log p(z_d|pi_d)`` and ``E log p(pi_d) - E log q(pi_d)``) and its iterations (D,).
    """
    (n_words, n_topics), n_docs = elog_beta_t.shape, indptr.size - 1
    order = np.argsort(-elog_corpus, kind="mergesort")
    prior = np.ascontiguousarray(elog_corpus[order])
    bounds = even_bounds(n_docs, n_chunks)
    n_chunks = len(bounds) - 1
    word_topic, totals = np.zeros((n_chunks, n_words, n_topics)), np.zeros((2, n_chunks, n_topics))  # pointers, tokens
    elbo, n_iters = np.zeros(n_docs), np.zeros(n_docs, dtype=np.int64)

    def run(c, first, last):
        sticks_chunk(indptr, indices, counts, elog_beta_t, order, prior, float(alpha), int(n_atoms), int(max_iter),
                     float(tol), int(start), first, last, word_topic[c], totals[0, c], totals[1, c], elbo, n_iters,
                     doc_topic)

    over_chunks(run, bounds)
    for c in range(1, n_chunks):
        word_topic[0] += word_topic[c]
        totals[:, 0] += totals[:, c]
    return word_topic[0], totals[0, 0], totals[1, 0], elbo, n_iters
