"""Initial topics (the Dirichlet parameters ``lam``, K x V) for LDA and the HDP.

``"random"`` draws ``lam_kv = lam_bar + Gamma(100, 1/100)``: nearly uniform topics whose small
differences the first local step amplifies (scikit-learn's and gensim's start; on Wikipedia it
ends 0.25 nats/word better held out than starting from documents). ``"documents"`` sets each
topic to the prior plus the word counts of ``docs_per_topic`` random documents (bnpy
``randexamples``). ``"exponential"`` is the SVI paper's start (Hoffman et al. 2013, footnote 6,
with the digest's erratum: the number is the mean): ``lam_kv = lam_bar + Exponential(mean 100 D /
(K V))``, as if the words of D documents of 100 tokens had been assigned at random.
"""

from __future__ import annotations

import numpy as np

TOPIC_INIT_METHODS = ("random", "documents", "exponential")


def exponential_topics(prior_lam, n_topics: int, n_docs: int, rng: np.random.Generator) -> np.ndarray:
    """Hoffman et al. (2013), footnote 6 (the number is the mean): ``lam = prior + Exponential(100 D / (K V))``."""
    prior_lam = np.broadcast_to(np.asarray(prior_lam, dtype=float), (np.size(prior_lam),))
    mean = 100.0 * n_docs / (n_topics * prior_lam.shape[0])
    return prior_lam[None, :] + rng.exponential(mean, (n_topics, prior_lam.shape[0]))


def initial_topics(data, prior_lam: np.ndarray, n_topics: int, method: str, rng: np.random.Generator,
                   docs_per_topic: int = 1) -> np.ndarray:
    if method == "random":
        return prior_lam[None, :] + rng.gamma(100.0, 0.01, (n_topics, data.n_features))
    if method == "exponential":
        return exponential_topics(prior_lam, n_topics, data.n_items, rng)
    if method == "documents":
        n_docs = n_topics * docs_per_topic
        picks = rng.choice(data.n_items, size=n_docs, replace=n_docs > data.n_items)
        owner = np.repeat(np.arange(n_topics), docs_per_topic)
        counts = data.counts[picks]
        lam = np.zeros((n_topics, data.n_features))
        rows = np.repeat(owner, np.diff(counts.indptr))
        np.add.at(lam, (rows, counts.indices), counts.data)
        return prior_lam[None, :] + lam
    raise ValueError(f"init={method!r} is not valid; choose one of {list(TOPIC_INIT_METHODS)}")
