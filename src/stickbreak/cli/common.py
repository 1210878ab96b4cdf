"""Helpers the subcommands share: ``key=value`` options, CSV output, reading sequence data (HMM
sequences and admixture groups, given the same way) and documents (raw text or counts), held-out splits."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np

from ..datasets import load as load_dataset, names as dataset_names, read_data, summaries as dataset_summaries
from ..data import BagOfWords, DataError, Sequences
from ..data.documents import as_bag_of_words
from ..data.raw_text import is_text_file, read_lines, read_text_column
from ..data.sequence_io import read_sequences
from ..estimators._checkpoint import CheckpointDir
from ..moves import k_over_laps, move_summary
from .outputs import check_room, check_writable
from .vocabulary import INTERRUPTED_EXIT


#: How each ``stop_reason_`` of a fit reads on the status line.
STOP_WORDS = {"converged": "converged", "max_laps": "stopped (max laps)", "callback": "stopped by a callback",
              "interrupted": "interrupted (Ctrl-C; the model as of the last complete lap)"}


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


def parse_moves(text):
    """``--moves``: None (the estimator's default), ``()`` for 'none', else the named moves."""
    if text is None:
        return None
    return () if text.strip().lower() == "none" else tuple(m.strip() for m in text.split(",") if m.strip())


def moves_run(trace) -> tuple:
    """The moves a fit ran (the kinds counted in its per-lap records)."""
    return tuple((trace[-1].get("moves") or {}) if trace else ())


def print_fitted(status: str, est, documents) -> None:
    """A fitted topic model's status line, its moves, and a note when ``documents`` (a BagOfWords)
    came without a vocabulary (the topics then show word ids)."""
    print(status)
    print_moves(est.trace_)
    if documents.vocabulary is None:
        print("  (no vocabulary found for this corpus, e.g. vocab.txt[.gz] beside it: topics show word ids)")


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


def read_sequence_data(args, command: str = "hmm") -> tuple[Sequences, np.ndarray | None, str, tuple | None]:
    """``(sequences with their Xprev if any, per-frame labels or None, name, sequence ids or None)``
    for ``stickbreak fit COMMAND`` (hmm, or admixture: groups are read as sequences)."""
    if args.data in dataset_names():
        ds = load_dataset(args.data)
        if not isinstance(ds.X, Sequences):
            bundled = [name for name, text in dataset_summaries().items() if "HMMs" in text]
            raise DataError(f"{args.data!r} holds {type(ds.X).__name__}, not sequences; `stickbreak fit {command}` "
                            f"needs sequence data: a bundled set ({', '.join(bundled)}) or a sequence file (e.g. an "
                            ".npz with X and lengths).")
        seqs = Sequences.from_arrays(ds.X.X, ds.X.offsets, Xprev=ds.extras.get("Xprev"))
        return seqs, ds.labels, ds.name, ds.extras.get("sequence_names")
    path = Path(args.data)
    if not path.exists():
        raise DataError(f"{args.data!r} is neither a bundled data set ({dataset_names()}) nor an existing file.")
    reader = vars(args)
    found = read_sequences(path, args.ids, id_column=_column(args.id_column),
                           label_column=_column(reader.get("label_column")),
                           time_column=_column(reader.get("time_column")))
    seqs = found.sequences
    if found.xprev is not None:
        seqs = Sequences.from_arrays(seqs.X, seqs.offsets, Xprev=found.xprev)
    return seqs, found.labels, found.name, found.sequence_ids


def corpus(spec: str, text_column: str | None = None, vocabulary=None, min_df: int = 1) -> BagOfWords:
    """The documents of ``spec``: raw text (a .txt file, one document per line, or a CSV column)
    counted as ``fit`` counts text (over ``vocabulary``, a fitted model's, when given, else over
    the words of at least ``min_df`` documents; empty documents kept, so row ``i`` is line or row
    ``i``), else any corpus ``read_data`` reads."""
    if min_df < 1:
        raise DataError(f"--min-df must be at least 1, got {min_df}.")
    if text_column is not None or is_text_file(spec):
        texts = read_lines(spec) if text_column is None else read_text_column(spec, text_column)
        bow = as_bag_of_words(texts, empty="keep", tokens_over=vocabulary)
        return bow if vocabulary is not None or min_df <= 1 else frequent_words(bow, min_df)
    if min_df > 1:
        raise DataError(f"--min-df applies to raw text (a .txt file or --text-column); {spec} holds word counts "
                        "already.")
    X, _, _ = read_data(spec)
    if not isinstance(X, BagOfWords):
        X = as_bag_of_words(X)
    return X


def frequent_words(bow: BagOfWords, min_df: int) -> BagOfWords:
    """The counts of the words that occur in at least ``min_df`` documents (CountVectorizer's min_df)."""
    in_documents = np.bincount(bow.counts.indices, minlength=bow.n_features)  # CSR: one entry per document
    keep = np.flatnonzero(in_documents >= min_df)
    if not len(keep):
        raise DataError(f"no word occurs in {min_df} or more documents; lower --min-df.")
    words = None if bow.vocabulary is None else [bow.vocabulary[i] for i in keep]
    return as_bag_of_words(bow.counts[:, keep], words, empty="keep")
