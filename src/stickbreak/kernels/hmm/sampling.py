"""Kernels of the weak-limit blocked Gibbs sampler of the sticky HDP-HMM (Fox, Sudderth, Jordan &
Willsky 2011, "A sticky HDP-HMM with application to speaker diarization", Alg. 3): the state
sequences by forward filtering and backward sampling given the sampled ``pi`` and emission
log-likelihoods, the start and transition counts of a state sequence, and the auxiliary table
counts ``m_jk`` (Bernoulli draws of the Chinese-restaurant tables) with the sticky override
variables ``w_j``. The draws use numba's own generator, seeded by the caller. NumPy twins are in
:mod:`stickbreak.kernels.hmm._reference_sampling`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..sampling import sample_index, antoniak_tables


@njit(cache=True, nogil=True)
def _filter_step(prior, row, out):
    """``out_k = prior_k exp(row_k - top)`` normalised, ``top`` the largest ``row_k`` with ``prior_k > 0``
    (so some term is ``prior_k > 0`` times 1: the sum cannot underflow to 0); returns the log of
    the normaliser plus ``top``, the frame's log-evidence given the past."""
    n_states = prior.size
    top = -math.inf
    for k in range(n_states):
        if prior[k] > 0.0 and row[k] > top:
            top = row[k]
    total = 0.0
    for k in range(n_states):
        v = prior[k] * math.exp(row[k] - top) if prior[k] > 0.0 else 0.0
        out[k] = v
        total += v
    for k in range(n_states):
        out[k] /= total
    return math.log(total) + top


@njit(cache=True, nogil=True)
def ffbs(start_probs, trans_probs, loglik, offsets, seed, states):
    """Draw every sequence's states from ``p(z | x, pi, theta)`` (Fox et al. 2011, Alg. 3 step 1 in its
    forward-filtering, backward-sampling form): filter ``f_t(k) = p(z_t = k | x_1..t)``, then draw
    ``z_T ~ f_T`` and ``z_t ~ f_t(k) pi_k,z_(t+1)`` backwards. ``start_probs`` (L,) and
    ``trans_probs`` (L, L) are probabilities (rows summing to 1, zeros allowed), ``loglik`` (T, L)
    the emission log-likelihoods, ``offsets`` where each sequence starts. Writes ``states`` (T,)
    and returns ``log p(x_d | pi, theta)`` per sequence."""
    np.random.seed(seed)
    n_seq, n_states = len(offsets) - 1, start_probs.size
    longest = 0
    for s in range(n_seq):
        longest = max(longest, offsets[s + 1] - offsets[s])
    filtered = np.empty((longest, n_states))
    prior, weights = np.empty(n_states), np.empty(n_states)
    log_evidence = np.zeros(n_seq)
    for s in range(n_seq):
        lo, hi = offsets[s], offsets[s + 1]
        total = _filter_step(start_probs, loglik[lo], filtered[0])
        for t in range(1, hi - lo):
            prior[:] = 0.0
            for j in range(n_states):
                f = filtered[t - 1, j]
                if f > 0.0:
                    for k in range(n_states):
                        prior[k] += f * trans_probs[j, k]
            total += _filter_step(prior, loglik[lo + t], filtered[t])
        log_evidence[s] = total
        z = sample_index(filtered[hi - lo - 1], n_states, 1.0)
        states[hi - 1] = z
        for t in range(hi - lo - 2, -1, -1):
            mass = 0.0
            for k in range(n_states):
                weights[k] = filtered[t, k] * trans_probs[k, z]
                mass += weights[k]
            z = sample_index(weights, n_states, mass)
            states[lo + t] = z
    return log_evidence


@njit(cache=True, nogil=True)
def transition_counts(states, offsets, n_states):
    """``(n_0k, n_jk)``: how many sequences start in state k, how many steps go from j to k."""
    start = np.zeros(n_states)
    trans = np.zeros((n_states, n_states))
    for s in range(len(offsets) - 1):
        lo, hi = offsets[s], offsets[s + 1]
        start[states[lo]] += 1.0
        for t in range(lo + 1, hi):
            trans[states[t - 1], states[t]] += 1.0
    return start, trans


@njit(cache=True, nogil=True)
def sticky_table_counts(start_counts, trans_counts, beta, alpha, kappa, start_alpha, seed):
    """Auxiliary variables of Fox et al. (2011), Alg. 3 step 2: ``m`` (L+1, L), row 0 the tables of
    the start row's ``n_0k`` customers in a CRP of concentration ``alpha_0 beta_k``, row ``j+1`` those
    of ``n_jk`` customers with ``alpha beta_k + kappa delta_jk`` (a customer opens a table with
    probability ``c / (n + c)`` after ``n`` customers, :func:`~stickbreak.kernels.sampling.antoniak_tables`);
    and the overrides ``w_j ~ Binomial(m_jj, rho / (rho + beta_j (1 - rho)))``, ``rho = kappa /
    (alpha + kappa)`` (zero without stickiness). ``mbar_.k = sum_j m_jk - w_k``."""
    np.random.seed(seed)
    n_states = beta.size
    m = np.zeros((n_states + 1, n_states))
    for k in range(n_states):
        m[0, k] = antoniak_tables(int(round(start_counts[k])), start_alpha * beta[k])
    for j in range(n_states):
        for k in range(n_states):
            conc = alpha * beta[k] + (kappa if j == k else 0.0)
            m[j + 1, k] = antoniak_tables(int(round(trans_counts[j, k])), conc)
    overrides = np.zeros(n_states)
    if kappa > 0.0:
        rho = kappa / (alpha + kappa)
        for j in range(n_states):
            p = rho / (rho + beta[j] * (1.0 - rho))
            for _ in range(int(m[j + 1, j])):
                if np.random.random() < p:
                    overrides[j] += 1.0
    return m, overrides
