"""LDA for collapsed inference (Welling, Teh & Kappen 2008): the algorithms' kernel codes, the
model's priors and log joint, and the count-array parameters. The sweeps are
:mod:`stickbreak.learn.collapsed`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from ...core.protocols import LDASweeps
from ...kernels.counts import lgamma_gain
from ...kernels.gibbs.lda import CVB, CVB0, SVB

#: algorithm -> (variational update, whether pairs are sampled: "all", "none" or "small").
ALGORITHMS = {"gibbs": (SVB, "all"), "svb": (SVB, "none"), "cvb": (CVB, "none"), "cvb0": (CVB0, "none"),
              "hybrid_vb_gibbs": (SVB, "small"), "hybrid_cvb_gibbs": (CVB, "small")}


@dataclass(frozen=True)
class CollapsedLDA(LDASweeps):
    """LDA with ``theta`` and ``phi`` integrated out (Welling et al. 2008, Eq. 1): Dirichlet
    ``alpha`` (K,) over topics per document and symmetric ``beta`` over the ``n_words`` words;
    ``algorithm`` one of :data:`ALGORITHMS`; pairs with count ``<= sample_threshold`` are sampled
    in the hybrids (the paper's r, default 1)."""

    alpha: np.ndarray
    beta: float
    n_words: int
    algorithm: str = "gibbs"
    sample_threshold: float = 1.0
    monotone = False  # a sampler's log joint goes up and down

    @property
    def n_topics(self) -> int:
        return len(self.alpha)

    @property
    def threshold(self) -> float:
        _, which = ALGORITHMS[self.algorithm]
        return {"all": math.inf, "none": -1.0, "small": self.sample_threshold}[which]

    @property
    def samples(self) -> bool:
        """Whether any pair can be sampled (then held-out scores average over sweeps, Eq. 31)."""
        return self.threshold >= 1

    @property
    def vb_kind(self) -> int:
        return ALGORITHMS[self.algorithm][0]

    def log_joint(self, Nwk: np.ndarray, Njk: np.ndarray, Nk: np.ndarray) -> dict[str, float]:
        """``log p(z, x | d)`` of Eq. 1 at the counts (expected counts for variational pairs), split
        into its topic-word and document-topic parts."""
        W, beta, alpha = self.n_words, self.beta, np.asarray(self.alpha, dtype=np.float64)
        word_sums, doc_sums = np.empty(Nwk.shape[0]), np.empty(Njk.shape[0])
        words = (self.n_topics * gammaln(W * beta) - gammaln(np.maximum(Nk, 0) + W * beta).sum()
                 + lgamma_gain(Nwk, np.full(Nwk.shape[1], float(beta)), word_sums))
        docs = (Njk.shape[0] * gammaln(alpha.sum()) + lgamma_gain(Njk, alpha, doc_sums)
                - gammaln(doc_sums + alpha.sum()).sum())
        return {"log_p_words": float(words), "log_p_topics": float(docs)}


@dataclass(eq=False)
class CollapsedParams:
    """The sampler's state: token topics ``z``, pair distributions ``Q`` and the count arrays."""

    z: np.ndarray
    Q: np.ndarray
    counts: tuple  # (N_wk, N_jk, N_k, V_wk, V_jk, V_k)
    beta: float

    @property
    def topic_word(self) -> np.ndarray:
        """``E[phi_k] = (N_wk + beta) / (N_k + W beta)``, (K, W)."""
        Nwk = np.maximum(self.counts[0], 0) + self.beta
        return (Nwk / Nwk.sum(axis=0)).T
