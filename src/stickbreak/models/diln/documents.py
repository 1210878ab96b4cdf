"""The documents' Gamma factors kept for DILN's global step (Paisley, Wang & Blei 2012, §4.1; ours).

With a document's ``phi`` (counts ``N_mk``), ``xi_m`` and location ``u_m`` fixed, the ELBO's terms in its
``q(Z_mk) = Gamma(a, b)`` are, with shapes ``s_k = beta p_k``, ``x_mk = l_k'u_m`` and ``B_mk = N_m / xi_m +
exp(-x_mk)`` (digest §2 collected):

    g(a, b) = (N + s - a) psi(a) + lgamma(a) + a - (N + s) log b - a B / b - s x - lgamma(s).

Its maximum over ``(a, b)`` is at ``a = s + N``, ``b = B`` (the derivative in ``a`` along the best ``b``
is ``(N + s - a)(psi'(a) - 1/a)``, and ``psi'(a) > 1/a``), where

    g* = lgamma(s + N) - lgamma(s) - (N + s) log B - s x.

The joint concentration update (:class:`~stickbreak.priors.diln_sticks.ProfiledGammas`) maximises
``sum g*`` over ``(V, beta)``; :func:`profile_gain` is what the ELBO gains when every document's Gamma
factors move to that optimum, so the trace reports the ELBO of a ``q`` that exists.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.special import digamma, gammaln

from ...priors.diln_sticks import ProfiledGammas


@dataclass(frozen=True, eq=False)
class DilnDocuments:
    """Per-document state of a set of documents: Gamma ``a, b`` (M, T), counts ``doc_topic`` (M, T),
    ``xi`` (M,), locations ``u`` (M, d) and ``weight`` (M,): 1, or SVI's ``M / |B|``."""

    a: np.ndarray
    b: np.ndarray
    doc_topic: np.ndarray
    xi: np.ndarray
    u: np.ndarray
    weight: np.ndarray

    @property
    def weighted_mean_z(self) -> np.ndarray:
        """``w_m E[Z_mk]`` (M, T): the weights of the topic-location objective."""
        return self.weight[:, None] * self.a / self.b

    def __add__(self, other: "DilnDocuments") -> "DilnDocuments":
        return DilnDocuments(*(np.concatenate([getattr(self, f), getattr(other, f)])
                               for f in ("a", "b", "doc_topic", "xi", "u", "weight")))

    def scaled(self, factor: float) -> "DilnDocuments":
        return replace(self, weight=self.weight * factor)

    def best_rates(self, locations: np.ndarray, correlated: bool):
        """``x = l'u`` (M, T) and the best Gamma rates ``B = N_m / xi_m + exp(-x)`` (M, T) at ``locations``."""
        x = self.u @ locations.T if correlated else np.zeros_like(self.a)
        return x, (self.doc_topic.sum(axis=1) / self.xi)[:, None] + np.exp(-x)

    def profiled(self, locations: np.ndarray, correlated: bool) -> ProfiledGammas:
        """The documents' ``G(s)`` with their Gamma factors at the optimum: ``cost = log B + x``."""
        x, best_rate = self.best_rates(locations, correlated)
        return ProfiledGammas(self.doc_topic, np.log(best_rate) + x, self.weight)


def profile_gain(docs: DilnDocuments, shapes: np.ndarray, locations: np.ndarray, correlated: bool) -> float:
    """``sum_m w_m sum_k [g*(s) - g(a_mk, b_mk)]`` (module docstring), ``>= 0``."""
    _, best_rate = docs.best_rates(locations, correlated)
    n, a, b = docs.doc_topic, docs.a, docs.b
    total = n + shapes
    best = gammaln(total) - total * np.log(best_rate)
    now = (total - a) * digamma(a) + gammaln(a) + a - total * np.log(b) - a * best_rate / b
    return float(docs.weight @ (best - now).sum(axis=1))
