"""Small fits to interrupt and resume: a mixture, a topic model and an HMM under each learner.

Run as a script, ``python resume_cases.py CASE ALGORITHM LAP DIR [EXECUTOR]`` fits with
``checkpoint=DIR`` (and ``executor=EXECUTOR``, 2 workers) and kills its own process (SIGKILL: no
cleanup, no flushing) right after lap ``LAP``. ``LAP`` of the form ``wN`` checkpoints within laps
too, after every batch, and kills the process right after the ``N``-th checkpoint written.
"""

from __future__ import annotations

import os
import signal
import sys

import numpy as np

from stickbreak import CheckpointDir, DPMixture, FiniteHMM, FiniteMixture, HDPHMM, HDPTopicModel, LDA
from stickbreak.parallel import make_executor
from stickbreak.persist import checkpoint
from stickbreak.datasets.synthetic import make_bars_corpus, make_sticky_hmm_toy

MAX_LAPS = 8
TOL = 1e-12


def _blobs():
    rng = np.random.default_rng(3)
    centers = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0], [6.0, 6.0], [3.0, 3.0]])
    return centers[rng.integers(0, 5, 400)] + rng.normal(size=(400, 2))


def make(case: str, algorithm: str):
    """``(estimator, X, fit keywords)`` of a case: "mixture", "topics", "hmm" (nonparametric, the
    defaults' moves under memoized VI), "topics_deletes" (started with too many topics: deletes
    are accepted in laps 2 and 4, merges in laps 2 and 3) or "finite_mixture", "lda", "finite_hmm"."""
    common = dict(algorithm=algorithm, max_laps=MAX_LAPS, tol=TOL, random_state=0, n_batches=3)
    if case in ("mixture", "finite_mixture"):
        cls = DPMixture if case == "mixture" else FiniteMixture
        return cls(n_components=3, **common), _blobs(), {}
    if case in ("topics", "lda", "topics_deletes"):
        counts, _ = make_bars_corpus(n_docs=120, doc_length=40, side=6, n_bars=6, seed=1)
        if case == "topics_deletes":
            return HDPTopicModel(n_topics=12, **{**common, "random_state": 1}), counts, {}
        if case == "topics":  # seed 1: with seed 0, round-off between 1 thread and 2 processes decides a birth
            return HDPTopicModel(n_topics=3, **{**common, "random_state": 1}), counts, {}
        return LDA(n_topics=4, **common), counts, {}
    X, offsets, _ = make_sticky_hmm_toy(n_sequences=6, length=60, n_states=4, seed=0)
    cls = HDPHMM if case == "hmm" else FiniteHMM
    return cls(n_states=2, **common), X, {"lengths": np.diff(offsets)}


def _killer(after: int):
    def callback(record, params):
        if record.lap == after:
            os.kill(os.getpid(), signal.SIGKILL)
    return callback


def _kill_after_writes(n: int) -> None:
    write, written = checkpoint.write, []

    def killing(*args, **kwargs):
        write(*args, **kwargs)
        written.append(1)
        if len(written) == n:
            os.kill(os.getpid(), signal.SIGKILL)

    checkpoint.write = killing


if __name__ == "__main__":
    case, algorithm, lap, directory, *executor = sys.argv[1:]
    est, X, inputs = make(case, algorithm)
    if lap.startswith("w"):
        _kill_after_writes(int(lap[1:]))
        target = CheckpointDir(directory, every=1e-9)  # within every lap, after every batch
    else:
        est.set_params(callbacks=[_killer(int(lap))])
        target = directory
    if executor:  # "processes-batchwise": worker processes with memoized laps batch by batch (checkpoints within them)
        where = make_executor("processes", 2, synchronous_laps=False) if executor[0] == "processes-batchwise" \
            else executor[0]
        est.set_params(executor=where, n_jobs=2)
    est.fit(X, checkpoint=target, **inputs)
    sys.exit(3)  # the run was meant to be killed before its end
