"""Tiny fitted models of every family, shared by the plot, report and export tests."""

from __future__ import annotations

from functools import cache

import numpy as np

from stickbreak import DILN, HDPHMM, LDA, DPMixture, HDPAdmixture, HDPTopicModel, datasets
from stickbreak.data import BagOfWords, Sequences
from stickbreak.datasets.synthetic import make_lda_corpus, make_sticky_hmm_toy

#: Vocabulary words are user data: one of them would break the page if it were not escaped.
VOCABULARY = ["<script>alert(1)</script>", "a&b"] + [f"word{i}" for i in range(2, 40)]


def digits(n_items: int = 200) -> np.ndarray:
    return datasets.load("digits").X[:n_items]


def corpus() -> BagOfWords:
    counts, _, _ = make_lda_corpus(n_docs=60, n_words=40, seed=0)
    return BagOfWords.from_counts(counts, VOCABULARY)


def sequences() -> tuple[Sequences, np.ndarray]:
    X, offsets, labels = make_sticky_hmm_toy(n_sequences=3, length=120, n_states=3, seed=0)
    return Sequences.from_arrays(X, offsets), labels


@cache
def fit(kind: str):
    """``(estimator, data keywords of report())`` for one kind of model, fitted once per test process
    (tol=0: no convergence warning); kinds: mixture, lda, hdp, diln, hmm, admixture."""
    if kind == "mixture":
        X = digits()
        return DPMixture(random_state=0, max_laps=6, tol=0).fit(X), {"X": X}
    if kind in ("lda", "hdp", "diln"):
        cls = {"lda": LDA(n_topics=4), "hdp": HDPTopicModel(n_topics=6), "diln": DILN(n_topics=6, latent_dim=3)}[kind]
        X = corpus()
        return cls.set_params(max_laps=4, tol=0, random_state=0).fit(X), {"X": X}
    if kind == "admixture":
        X = digits(240)
        return HDPAdmixture(n_topics=5, obs_model="diag_gauss", max_laps=4, tol=0, random_state=0).fit(
            X, lengths=[20] * 12), {"X": X, "lengths": [20] * 12}
    seqs, labels = sequences()
    return HDPHMM(n_states=4, max_laps=5, tol=0, random_state=0).fit(seqs), {"X": seqs, "labels": labels}
