"""Shared data protocol of the SVI / truncation-free SVI benchmarks (``svi_*.py``).

Each corpus of ``../shared/data`` is read in the common bag-of-words format, empty documents are
dropped, the documents are permuted with ``RandomState(0)`` and the last ``n_test`` are held out
(never seen in training). The vocabulary is restricted to words seen in training. Test documents
are split for document completion by disjoint word types (Hoffman et al. 2013, §4: every token of a
type goes to one side; 10 % of each document's types held out, seed 1), and kept whole for the
held-out likelihood of Wang & Blei (2012, §3, S.3).
"""

from __future__ import annotations

import os
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy loads BLAS
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"
CORPORA = ("20newsgroups", "debian_descriptions", "gcide_definitions", "wiki")
#: Held-out documents per corpus (the papers use 10,000 on corpora of 350K+ documents).
N_TEST = 2000
HELDOUT_TYPES = 0.1


def load_corpus(corpus: str, n_test: int = N_TEST) -> dict:
    from stickbreak.evaluate import split_documents

    z = np.load(SHARED / corpus / "bow.npz")
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"])).astype(np.float64)
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    order = np.random.RandomState(0).permutation(X.shape[0])
    train, test = X[order[:-n_test]], X[order[-n_test:]]
    keep = np.asarray(train.sum(axis=0)).ravel() > 0
    train, test = sp.csr_matrix(train[:, keep]), sp.csr_matrix(test[:, keep])
    test = test[np.asarray(test.sum(axis=1)).ravel() > 0]
    observed, heldout = split_documents(test, mode="types", heldout_fraction=HELDOUT_TYPES, seed=1)
    return {"train": train, "test": test, "observed": sp.csr_matrix(observed), "heldout": sp.csr_matrix(heldout),
            "describe": {"corpus": corpus, "train_docs": train.shape[0], "train_tokens": int(train.sum()),
                         "V": train.shape[1], "test_docs": test.shape[0], "test_tokens": int(test.sum()),
                         "heldout_tokens": int(heldout.sum())}}


def completion(data: dict, topic_word: np.ndarray, prior) -> float:
    """Per-word held-out log-likelihood by document completion (the one protocol of every model)."""
    from stickbreak.evaluate import completion_from_split

    return float(completion_from_split(topic_word, data["observed"], data["heldout"], prior).per_word)
