"""One HMM per class on short multichannel sequences, side by side with hmmlearn: the mocap6 action
segments (Fox et al.'s CMU exercise routines, 12 channels at 10 fps).

Protocol:

* Data: each of the 6 mocap6 sequences is cut at its annotation changes into action segments
  (17-108 frames). The classes with at least 4 segments are kept (JumpJack, Jog, Squat, KneeRaise,
  ArmCircle, Twist: 31 segments). Per class, in sequence order, even-numbered segments train and
  odd-numbered ones test.
* Models: ours ``HDPHMM()`` with every default (memoized VI with moves, K learned from 10 at the
  start); hmmlearn ``GaussianHMM(n_components=--hmmlearn-states, covariance_type=..., n_iter=100)``
  (its other defaults), each with ``random_state`` = seed.
* Scores: a test segment goes to the class whose model gives it the highest total log-likelihood
  (accuracy); and the held-out log-likelihood per frame of the test segments under their own
  class's model. Both libraries' ``score`` run the forward algorithm: hmmlearn's with its point
  estimates, ours (``total=True``) with the posterior-mean start and transition probabilities and
  each state's posterior predictive density (a plug-in predictive).
* Timing: process CPU of each class's ``fit`` (numba compiled beforehand by an untimed fit), summed
  over classes; one thread (BLAS and numba).

Run:  .venv/bin/python benchmarks/hmm_classes.py [--seeds 0,1,2] [--hmmlearn-states 3]
Writes benchmarks/results/hmm_classes.{json,md}. Needs hmmlearn (the ``peers`` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from _rss import in_fresh_process  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "mocap6" / "mocap6.npz"
RESULTS = ROOT / "benchmarks" / "results"
ACTIONS = ("JumpJack", "Jog", "Squat", "KneeRaise", "ArmCircle", "Twist", "SideReach", "Box", "UpDown",
           "ToeTouchOneHand", "SideBend", "ToeTouchTwoHands")
MIN_SEGMENTS = 4


def segments() -> dict[int, list[np.ndarray]]:
    """Action segments of mocap6 by class (1-based action code), in sequence order."""
    m = np.load(DATA)
    cuts = np.cumsum(m["lengths"])[:-1]
    by_class: dict[int, list[np.ndarray]] = {}
    for x, z in zip(np.split(m["X"], cuts), np.split(m["Z"].ravel(), cuts)):
        edges = np.flatnonzero(np.diff(z)) + 1
        for start, end in zip(np.r_[0, edges], np.r_[edges, len(z)]):
            by_class.setdefault(int(z[start]), []).append(np.ascontiguousarray(x[start:end]))
    return {c: s for c, s in sorted(by_class.items()) if len(s) >= MIN_SEGMENTS}


def stacked(parts: list[np.ndarray]) -> tuple[np.ndarray, list[int]]:
    return np.concatenate(parts), [len(p) for p in parts]


def make(library: str, seed: int, args):
    if library == "ours":
        from stickbreak import HDPHMM

        return HDPHMM(random_state=seed)
    from hmmlearn.hmm import GaussianHMM

    return GaussianHMM(n_components=args.hmmlearn_states, covariance_type=args.hmmlearn_covariance, n_iter=100,
                       random_state=seed)


def run(library: str, seed: int, data: dict, args) -> dict:
    warnings.simplefilter("ignore")
    first = next(iter(data.values()))
    x, lengths = stacked(first[::2])
    make(library, seed, args).fit(x, lengths=lengths)  # untimed: numba compilation, imports
    models, cpu, states = {}, 0.0, []
    for c, parts in data.items():
        model = make(library, seed, args)
        x, lengths = stacked(parts[::2])
        start = time.process_time()
        model.fit(x, lengths=lengths)
        cpu += time.process_time() - start
        models[c] = model
        states.append(int(model.n_states_ if library == "ours" else model.n_components))
    correct, total, frames, loglik = 0, 0, 0, 0.0
    for c, parts in data.items():
        for x in parts[1::2]:
            scores = {k: float(m.score(x, total=True) if library == "ours" else m.score(x)) for k, m in models.items()}
            correct += max(scores, key=scores.get) == c
            total += 1
            frames += len(x)
            loglik += scores[c]
    return {"library": library, "seed": seed, "cpu_s": cpu, "cpu_per_class": cpu / len(data),
            "accuracy": correct / total, "heldout_per_frame": loglik / frames, "states": states}


def markdown(payload: dict) -> str:
    rows = payload["rows"]
    lines = ["# One HMM per class on mocap6 action segments: ours vs hmmlearn", "",
             f"Generated {payload['generated']} by `{payload['command']}`; load average {payload['load']} at the "
             "start.", "", payload["describe"], "",
             "| library | seed | CPU s (all classes) | CPU s per class | vs hmmlearn | accuracy | held-out log-lik "
             "per frame | states per class | peak RSS MiB |", "|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    reference = {r["seed"]: r["cpu_s"] for r in rows if r["library"] == "hmmlearn"}
    for r in rows:
        ratio = r["cpu_s"] / reference[r["seed"]] if r["seed"] in reference else float("nan")
        lines.append(f"| {r['library']} | {r['seed']} | {r['cpu_s']:.2f} | {r['cpu_per_class']:.3f} | {ratio:.2f}x | "
                     f"{r['accuracy']:.3f} | {r['heldout_per_frame']:.3f} | {r['states']} | {r['peak_rss_mib']:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--hmmlearn-states", type=int, default=3)
    ap.add_argument("--hmmlearn-covariance", default="full")
    args = ap.parse_args(argv)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    data = segments()
    # one fresh process per row: its peak RSS is the row's own
    rows = [in_fresh_process(run, lib, int(s), data,
                             args) for s in args.seeds.split(",") for lib in ("hmmlearn", "ours")]
    for r in rows:
        print(json.dumps(r), flush=True)
    n_train = sum(len(p[::2]) for p in data.values())
    describe = (f"{len(data)} classes ({', '.join(ACTIONS[c - 1] for c in data)}), {n_train} training and "
                f"{sum(len(p[1::2]) for p in data.values())} test segments of "
                f"{min(len(x) for p in data.values() for x in p)}-{max(len(x) for p in data.values() for x in p)} "
                f"frames, 12 channels. Ours: `HDPHMM()` defaults; hmmlearn: `GaussianHMM(n_components="
                f"{args.hmmlearn_states}, covariance_type='{args.hmmlearn_covariance}', n_iter=100)`. One thread; CPU "
                "of the fits only (compilation excluded by an untimed first fit).")
    payload = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": "python benchmarks/hmm_classes.py " + " ".join(argv or sys.argv[1:]), "load": load,
               "describe": describe, "rows": rows}
    (RESULTS / "hmm_classes.json").write_text(json.dumps(payload, indent=1))
    (RESULTS / "hmm_classes.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
