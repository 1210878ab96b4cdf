"""NumPy twins of the probability helpers of :mod:`stickbreak.kernels.sampling` and of the plug-in
log-likelihoods of :mod:`stickbreak.kernels.truncation_free.local`, used only by the tests.

Same names and signatures; written directly from the formulas (``gammaln`` differences, explicit
products over sticks), vectorised where it reads more plainly. The samplers themselves are tested
statistically and by invariants.
"""

import numpy as np
from scipy.special import gammaln


def log_rising(x, c):
    """``log Gamma(x + c) - log Gamma(x)``: ``sum_{r<c} log(x + r)`` for a whole count (exact at any ``x``,
    where a difference of ``gammaln`` loses digits), else the ``gammaln`` difference."""
    x, c = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(c, dtype=float))
    out = np.array(gammaln(x + c) - gammaln(x))
    for i in np.ndindex(x.shape):
        if c[i] == np.round(c[i]) and c[i] < 10_000:
            out[i] = np.sum(np.log(x[i] + np.arange(c[i])))
    return out[()] if out.ndim == 0 else out


def doc_log_evidence(post, post_sum, locs, cnts, start, stop, n_tokens, n_comp, out):
    words, c = locs[start:stop], cnts[start:stop, None]
    out[:n_comp] = np.sum(log_rising(post[words, :n_comp], c), axis=0) - log_rising(post_sum[:n_comp], n_tokens)


def dm_log_evidence(lam_words, lam_total, counts):
    """``log Gamma(sum lam)/Gamma(sum lam + |x|) + sum_w log Gamma(lam_w + c_w)/Gamma(lam_w)``."""
    return float(np.sum(log_rising(lam_words, counts)) - log_rising(lam_total, counts.sum()))


def stick_log_probs(u, v, m, n_comp, out):
    u, v, m = u[:n_comp], v[:n_comp], m[:n_comp]
    beyond = np.concatenate([np.cumsum(m[::-1])[::-1][1:], [0.0]])
    mean_stick = (u + m) / (u + v + m + beyond)
    mean_rest = (v + beyond) / (u + v + m + beyond)
    prefix = np.concatenate([[1.0], np.cumprod(mean_rest)])
    out[:n_comp] = np.log(mean_stick * prefix[:-1])
    out[n_comp] = np.log(prefix[-1])


def log_stick_weights(u, v):
    out = np.empty(len(u) + 1)
    stick_log_probs(u, v, np.zeros(len(u)), len(u), out)
    return out[:len(u)], out[len(u)]


def dp_doc_log_probs(post, post_sum, locs, cnts, start, stop, n_tokens, prior_evidence, u, v, m, n_comp, out):
    evidence = np.empty(n_comp)
    doc_log_evidence(post, post_sum, locs, cnts, start, stop, n_tokens, n_comp, evidence)
    stick_log_probs(u, v, m, n_comp, out)
    out[:n_comp] += evidence
    out[n_comp] += prior_evidence


def hdp_token_probs(doc_topic, pi, rest, b, post, post_sum, j, n_comp, n_vocab, out):
    out[:n_comp] = (doc_topic[:n_comp] + b * pi[:n_comp]) * post[j, :n_comp] / post_sum[:n_comp]
    out[n_comp] = b * rest / n_vocab
    return float(out[:n_comp + 1].sum())


def dp_plugin_loglik(post, post_sum, locs, cnts, doc_ptr, u, v, n_comp, n_vocab):
    from scipy.special import logsumexp

    log_w, log_rest = log_stick_weights(u[:n_comp], v[:n_comp])
    log_theta = np.log(post[:, :n_comp] / post_sum[:n_comp])
    out = np.empty(len(doc_ptr) - 1)
    for d in range(len(out)):
        words, c = locs[doc_ptr[d]:doc_ptr[d + 1]], cnts[doc_ptr[d]:doc_ptr[d + 1]]
        joint = np.append(log_w + c @ log_theta[words], log_rest - c.sum() * np.log(n_vocab))
        out[d] = logsumexp(joint)
    return out


def hdp_plugin_token_loglik(phi, log_w, b, tok_loc, tok_doc, z, doc_topic, doc_len, n_comp, n_vocab):
    w = np.exp(log_w)
    out = np.zeros(doc_topic.shape[0])
    for i, (j, d, k) in enumerate(zip(tok_loc, tok_doc, z)):
        own = doc_topic[d].copy()
        own[k] -= 1.0
        p = (own[:n_comp] + b * w[:n_comp]) @ phi[j] + (own[n_comp:].sum() + b * w[n_comp]) / n_vocab
        out[d] += np.log(p / (doc_len[d] - 1.0 + b))
    return out
