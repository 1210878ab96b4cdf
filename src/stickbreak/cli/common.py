"""Helpers the subcommands share: ``key=value`` options, CSV output, reading sequence data (HMM
sequences and admixture groups, given the same way), held-out splits."""

from __future__ import annotations

import argparse
import csv
import os
from pathlib import Path

import numpy as np

from .. import datasets
from ..data import DataError, Sequences
from ..data.sequence_io import read_sequences
from ..estimators._checkpoint import EVERY, CheckpointDir
from ..moves import k_over_laps, move_summary
from ..parallel import check_executor
from .outputs import check_room, check_writable, out_directory


#: How each ``stop_reason_`` of a fit reads on the status line.
STOP_WORDS = {"converged": "converged", "max_laps": "stopped (max laps)", "callback": "stopped by a callback",
              "interrupted": "interrupted (Ctrl-C; the model as of the last complete lap)"}
#: The exit status of a fit the user interrupted (its files are still written), as for SIGINT.
INTERRUPTED_EXIT = 130


def stop_status(est) -> str:
    """The status line's opening words for a fitted estimator."""
    return STOP_WORDS.get(est.stop_reason_, est.stop_reason_)


def exit_code(est) -> int:
    """0, or ``INTERRUPTED_EXIT`` when Ctrl-C ended the fit (the files of the kept laps are written)."""
    return INTERRUPTED_EXIT if est.stop_reason_ == "interrupted" else 0


def parse_options(items, flag: str) -> dict:
    """``["covariance=0.5", "mean=0,1"]`` -> ``{"covariance": 0.5, "mean": array([0., 1.])}``;
    integers stay integers, ``true``/``false`` become booleans."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"{flag} expects key=value, got {item!r}")
        key, value = (part.strip() for part in item.split("=", 1))
        if value.lower() in ("true", "false"):
            out[key] = value.lower() == "true"
            continue
        try:
            numbers = [int(v) if v.lstrip("-").isdigit() else float(v) for v in value.split(",")]
        except ValueError:
            raise ValueError(f"{flag} {key}: {value!r} is not a number or a comma-separated list of numbers") from None
        out[key] = numbers[0] if len(numbers) == 1 else np.array(numbers, dtype=float)
    return out


#: ``--moves`` help shared by the commands whose estimators learn K with moves.
MOVES_HELP = ("memoized VI: comma-separated moves (birth,merge,delete) or 'none'; default: all three for the "
              "nonparametric models (they learn K), none otherwise")


def parse_moves(text):
    """``--moves``: None (the estimator's default), ``()`` for 'none', else the named moves."""
    if text is None:
        return None
    return () if text.strip().lower() == "none" else tuple(m.strip() for m in text.split(",") if m.strip())


def moves_run(trace) -> tuple:
    """The moves a fit ran (the kinds counted in its per-lap records)."""
    return tuple((trace[-1].get("moves") or {}) if trace else ())


def print_moves(trace) -> None:
    """Each move's accepted/tried counts and K over the laps, when the fit ran moves."""
    if moves_run(trace):
        print(move_summary(trace, moves_run(trace)))
        print(k_over_laps(trace))


def write_csv(path: Path, header, rows) -> None:
    """Write a CSV table (shared by the fit commands)."""
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)


#: The per-lap columns of ``trace.csv``.
TRACE_COLUMNS = ("lap", "elbo", "n_components", "n_effective", "seconds")


def write_trace(stage: Path, est) -> None:
    """``trace.csv``: ELBO, K, K in use and seconds since the start (at each lap's end) of a fitted estimator."""
    write_csv(stage / "trace.csv", TRACE_COLUMNS, [[r[k] for k in TRACE_COLUMNS] for r in est.trace_])


def check_heldout(fraction: float) -> None:
    """``--heldout``: a fraction in [0, 1)."""
    if not 0 <= fraction < 1:
        raise ValueError(f"--heldout must be in [0, 1), got {fraction}")


def split_heldout(data, fraction: float, seed: int, what: str = "documents"):
    """``(training items, held-out items or None, the training rows, the held-out rows)`` of
    ``data`` (documents or groups: anything with ``n_items`` and ``subset``), ``--heldout fraction``
    of its items drawn at random."""
    check_heldout(fraction)
    if fraction == 0:
        return data, None, np.arange(data.n_items), np.zeros(0, dtype=np.int64)
    n_test = max(1, int(round(fraction * data.n_items)))
    if n_test >= data.n_items:
        raise ValueError(f"--heldout {fraction:g} of {data.n_items} {what} leaves none to fit; lower it or drop it")
    order = np.random.default_rng(seed).permutation(data.n_items)
    train_rows, test_rows = np.sort(order[n_test:]), np.sort(order[:n_test])
    return data.subset(train_rows), data.subset(test_rows), train_rows, test_rows


def _executor(value: str) -> str:
    try:
        check_executor(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return value


def add_output_options(parser, per_lap_table: bool = False) -> None:
    """``--progress`` and ``--quiet``, the same in every fit command: a progress bar (the default
    unless the command prints a per-lap table) or nothing per lap."""
    what = "a progress bar instead of the per-lap table" if per_lap_table else "a progress bar (the default)"
    parser.add_argument("--progress", action="store_true", help=what)
    parser.add_argument("--quiet", action="store_true", help="nothing per lap")


def add_run_options(parser, files: str, run, per_lap_table: bool = False) -> None:
    """The options every fit command has: ``--seed``, ``--out DIR`` (where ``files`` are written, with
    run.json and report.html) and :func:`add_output_options`; ``run`` is the command's function."""
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=out_directory, help=f"directory for {files}, run.json and report.html")
    add_output_options(parser, per_lap_table)
    parser.set_defaults(run=run)


def add_executor_option(parser) -> None:
    """``--executor`` of a fit command: where the local steps run (with ``--n-jobs`` workers)."""
    parser.add_argument("--executor", type=_executor, default=None, metavar="WHERE",
                        help="where the local steps run: threads (default), processes or dask (--n-jobs workers), "
                             "or a Dask scheduler address such as tcp://10.0.0.5:8786")


def add_checkpoint_option(parser) -> None:
    """``--checkpoint DIR`` of a fit command (``stickbreak resume DIR`` sets ``resume``)."""
    parser.add_argument("--checkpoint", type=Path, metavar="DIR",
                        help="save the state after every lap in DIR; `stickbreak resume DIR` continues a killed run")
    parser.add_argument("--checkpoint-every", type=float, default=EVERY, metavar="SECONDS",
                        help=f"memoized and stochastic runs also save within a lap once SECONDS have passed "
                             f"since the last save "
                             f"(default {EVERY:.0f})")
    parser.set_defaults(resume=None)


def checkpoint_target(args, n_bytes: float):
    """What the fit gets as ``checkpoint=``: the checkpoint being resumed, or a directory that keeps
    this command line (to repeat it on resume), or None. Before that, ``--out`` is checked for room
    for the run's files (about ``n_bytes``), and a new ``--checkpoint`` for being writable, outside
    ``--out`` and with room for two checkpoints (the last and the one being written)."""
    check_room(args.out, n_bytes, "--out")
    if args.resume is not None:
        return args.resume
    if args.checkpoint is None:
        return None
    if args.out is not None and args.checkpoint.resolve().is_relative_to(args.out.resolve()):
        raise ValueError(f"--checkpoint {args.checkpoint} is inside --out {args.out}, which the run replaces whole "
                         "when it ends; give the checkpoint a directory of its own")
    check_writable(args.checkpoint, "--checkpoint")
    check_room(args.checkpoint, 2 * n_bytes, "--checkpoint")
    return CheckpointDir(args.checkpoint, {"cli": {"argv": list(args.argv), "cwd": os.getcwd()}}, args.checkpoint_every)


def _column(spec):
    """A CSV column option: a 0-based number when it looks like one, else a header name."""
    return int(spec) if spec is not None and spec.lstrip("-").isdigit() else spec


def add_sequence_file_options(parser, unit: str, label_help: str) -> None:
    """How a sequence file marks its ``unit`` s (HMM sequences, admixture groups): ``--ids`` for .npy
    data, ``--id-column`` and ``--label-column`` for .csv data (what :func:`read_sequence_data` reads)."""
    parser.add_argument("--ids", help=f".npy data: the {unit} id of every row (.npy or one id per line)")
    parser.add_argument("--id-column", help=f".csv data: the {unit}-id column (name or 0-based number)")
    parser.add_argument("--label-column", help=f".csv data: a column of true labels, {label_help}")


def read_sequence_data(args, command: str = "hmm") -> tuple[Sequences, np.ndarray | None, str, tuple | None]:
    """``(sequences with their Xprev if any, per-frame labels or None, name, sequence ids or None)``
    for ``stickbreak fit COMMAND`` (hmm, or admixture: groups are read as sequences)."""
    if args.data in datasets.names():
        ds = datasets.load(args.data)
        if not isinstance(ds.X, Sequences):
            bundled = [name for name, text in datasets.summaries().items() if "HMMs" in text]
            raise DataError(f"{args.data!r} holds {type(ds.X).__name__}, not sequences; `stickbreak fit {command}` "
                            f"needs sequence data: a bundled set ({', '.join(bundled)}) or a sequence file (e.g. an "
                            ".npz with X and lengths).")
        seqs = Sequences.from_arrays(ds.X.X, ds.X.offsets, Xprev=ds.extras.get("Xprev"))
        return seqs, ds.labels, ds.name, ds.extras.get("sequence_names")
    path = Path(args.data)
    if not path.exists():
        raise DataError(f"{args.data!r} is neither a bundled data set ({datasets.names()}) nor an existing file.")
    reader = vars(args)
    found = read_sequences(path, args.ids, id_column=_column(args.id_column),
                           label_column=_column(reader.get("label_column")),
                           time_column=_column(reader.get("time_column")))
    seqs = found.sequences
    if found.xprev is not None:
        seqs = Sequences.from_arrays(seqs.X, seqs.offsets, Xprev=found.xprev)
    return seqs, found.labels, found.name, found.sequence_ids
