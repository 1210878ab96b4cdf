"""Command line for hidden Markov models: ``stickbreak fit hmm DATA ...``."""

from __future__ import annotations

import json
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..data import DataError, Sequences
from ..estimators import HDPHMM, FiniteHMM
from ..evaluate import hamming_distance
from ..moves import k_over_laps, move_summary
from .common import (checkpoint_target, exit_code, parse_moves, parse_options, read_sequence_data, stop_status,
                    write_csv, write_trace)
from .outputs import output_bytes, staged_output
from .report import save_run


def _estimator(args):

    moves = parse_moves(args.moves)
    options = dict(obs_model=args.obs, obs_prior=parse_options(args.prior, "--prior"),
                   transition_concentration=args.transition_concentration,
                   start_concentration=args.start_concentration, stickiness=args.stickiness, algorithm=args.algorithm,
                   n_batches=args.n_batches, moves=moves, move_options=parse_options(args.move_option, "--move-option"),
                   init=args.init, max_laps=args.max_laps, tol=args.tol, n_jobs=args.n_jobs,
                   executor=args.executor, random_state=args.seed,
                   verbose=1 if args.progress and not args.quiet else 0)
    if args.n_states is not None:  # else the estimator's default
        options["n_states"] = args.n_states
    if args.finite:
        if args.concentration is not None:
            raise ValueError("--concentration is the HDP-HMM's top-level gamma; a finite HMM (--finite) has none")
        return FiniteHMM(**options)
    return HDPHMM(concentration=10.0 if args.concentration is None else args.concentration, **options)


class _LapTable:
    """A callback printing one line per lap: ELBO, states, states used, accepted moves, seconds."""

    def __init__(self):
        self.started = False

    def __call__(self, record, params) -> None:
        if not self.started:
            print(f"{'lap':>4}  {'ELBO':>14}  {'K':>4}  {'used':>4}  {'seconds':>7}  accepted moves")
            self.started = True
        moves = ", ".join(f"{kind} {c['accepted']}" for kind, c in (record.moves or {}).items() if c.get("accepted"))
        print(f"{record.lap:4d}  {record.elbo:14.6g}  {record.n_components:4d}  {record.n_effective:4d}  "
              f"{record.seconds:7.1f}  {moves}", flush=True)


def _scores(labels, states, foreground_only: bool) -> dict:
    if labels is None:
        return {}
    scores = {"hamming": hamming_distance(labels, states)}
    if foreground_only:
        scores["hamming_foreground"] = hamming_distance(labels, states, foreground_only=True)
    return scores


def _states_rows(seqs: Sequences, states: np.ndarray, sequence_ids) -> list:
    ids = list(sequence_ids) if sequence_ids is not None else list(range(seqs.n_items))
    which = seqs.frame_sequence()
    frame = np.arange(seqs.n_frames) - seqs.offsets[which]
    return [[ids[s], int(t), int(k)] for s, t, k in zip(which, frame, states)]


def _status(est, seconds: float, n_frames: int) -> str:
    how = stop_status(est)
    return (f"{how} after {est.n_iter_} laps in {seconds:.1f} s; ELBO {est.elbo_:.6g} nats ({est.elbo_ / n_frames:.4f} "
            f"per frame); {est.n_states_} states, {est.n_active_states_} used")


def run_fit_hmm(args) -> int:
    est = _estimator(args)
    est._configs()  # every setting checked before the data are read
    seqs, labels, name, sequence_ids = read_sequence_data(args)
    if args.foreground_only and (labels is None or np.asarray(labels).dtype.kind not in "iuf"):
        raise DataError(f"--foreground-only scores frames by their true labels (negative = background), but {name} "
                        "has no numeric labels; add a Z/labels array or --label-column, or drop --foreground-only.")
    moves = est._configs()[1].moves
    how = est.algorithm + (f" + {','.join(moves)}" if moves else "")
    print(f"{type(est).__name__}({est.obs_model}, K={est.n_states}, stickiness={est.stickiness:g}, {how}) on {name} "
          f"({seqs.n_items} sequences, {seqs.n_frames} frames x {seqs.n_features} features)")
    if not (args.quiet or args.progress):
        est.set_params(callbacks=[_LapTable()])
    start = time.perf_counter()
    with warnings.catch_warnings():  # the status line says whether it converged
        warnings.simplefilter("ignore", ConvergenceWarning)
        n_states, n_features = est.n_states, seqs.n_features
        est.fit(seqs, checkpoint=checkpoint_target(args, output_bytes(seqs.n_frames, 2, n_states * (
            n_states + n_features * n_features + 2 * n_features))))
    seconds = time.perf_counter() - start
    states = est.predict(seqs)
    scores = _scores(labels, states, args.foreground_only)
    lines = [_status(est, seconds, seqs.n_frames)] + ([move_summary(est.trace_, moves),
                                                       k_over_laps(est.trace_)] if moves else [])
    lines += [f"Hamming distance to the true labels after alignment ({text}): {scores[key]:.4f}"
              for key, text in (("hamming", "all frames"), ("hamming_foreground",
                                                            "foreground frames")) if key in scores]
    print("\n".join(lines))
    if args.out:
        with staged_output(args.out, est) as stage:
            est.set_params(callbacks=None)
            est.save(stage / "model.npz")
            write_csv(stage / "states.csv", ["sequence", "frame", "state"], _states_rows(seqs, states, sequence_ids))
            write_trace(stage, est)
            params = {k: v for k, v in est.get_params().items() if k != "callbacks"}
            summary = {"data": name, "model": type(est).__name__, "params": params, "n_sequences": seqs.n_items,
                       "n_frames": seqs.n_frames, "n_features": seqs.n_features, "n_states": est.n_states_,
                       "n_active_states": est.n_active_states_, "elbo": est.elbo_, "n_laps": est.n_iter_,
                       "converged": est.converged_, "stop_reason": est.stop_reason_, "seconds": seconds,
                       "moves_accepted": {kind: sum(m["kind"] == kind for m in est.moves_) for kind in moves},
                       "state_counts": est.state_counts_, **scores}
            with open(stage / "summary.json", "w") as fh:
                json.dump(summary, fh, indent=2, default=lambda value: value.tolist())  # numpy arrays and scalars
            print(f"wrote {args.out}/model.npz, states.csv, trace.csv, summary.json")
            save_run(args, stage, "hmm", est, seconds, seqs, labels, scores)
    return exit_code(est)
