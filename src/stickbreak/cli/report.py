"""``stickbreak report RUN_DIR``: the HTML report of a run written by ``stickbreak fit ... --out RUN_DIR``,
and what ``fit --out`` saves for it (``run.json``: the command, where the data came from, wall time)."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from .. import persist
from ..data import DataError, ShardStore
from ..datasets import read_data
from ..report import data_facts, write_report
from .common import read_sequence_data

#: ``fit hmm`` / ``fit admixture`` options that say how its data file is read, saved so the report
#: reads it the same way.
SEQUENCE_READER = ("ids", "id_column", "label_column", "time_column")


def source_of(spec: str) -> str:
    """A data file as an absolute path (the report may run elsewhere), a bundled name as is."""
    path = Path(spec)
    return str(path.resolve()) if path.exists() else spec


def save_run(args, stage, command: str, est, seconds: float, X, labels=None, scores=None,
             heldout_documents=None) -> None:
    """The ``--out`` hook of ``fit COMMAND`` ("mixture", "topics", "hmm", "admixture"): ``run.json`` and
    ``report.html`` in ``stage`` (the staging directory of ``args.out``, where they go with the run's other files);
    ``scores``: ``{name: value}`` the command printed (held-out, Hamming); ``heldout_documents``: the
    rows of the data the fit held out (``stickbreak eval`` scores those)."""
    X = None if isinstance(X, ShardStore) else X
    run = run_record(args, command, seconds, X, scores, heldout_documents)
    write_report(est, stage / "report.html", X, labels=labels, run=_run_facts(run))
    written = sorted(p.name for p in stage.iterdir())
    run["files"] = written + ["run.json"]
    run["sha256"] = {name: file_digest(stage / name) for name in written}  # what a complete run holds
    (stage / "run.json").write_text(json.dumps(run, indent=2, default=str))
    print(f"wrote {args.out}/report.html; open {(args.out / 'report.html').resolve().as_uri()} in a browser")


def file_digest(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def run_record(args, command: str, seconds: float, X, scores, heldout_documents=None) -> dict:
    """What ``run.json`` holds: the command, its data, time, scores, held-out rows (and, once
    written, the files of the run)."""
    return {"command": command, "data": source_of(args.data), "seconds": seconds,
           "heldout_documents": list(heldout_documents or []),
           "scores": {name: float(value) for name, value in (scores or {}).items()},
           "reader": {key: vars(args).get(key) for key in SEQUENCE_READER},
           "data_facts": data_facts(X) if X is not None else {}}


def _run_facts(run: dict) -> dict:
    return {"data": {"source": run["data"], **run["data_facts"]}, "command": f"stickbreak fit {run['command']}",
            "wall time (s)": f"{run['seconds']:.2f}", **{name: f"{value:.4f}" for name, value in run["scores"].items()}}


def _data(run: dict) -> dict:
    """The keyword arguments of ``write_report`` that need the run's data, read again from its source."""
    if run["command"] in ("topics", "short-texts"):  # the topic figures need only the model
        return {}
    if run["command"] == "mixture":
        X, _, _ = read_data(run["data"])
        return {"X": None if isinstance(X, ShardStore) else X}
    seqs, labels, _, _ = read_sequence_data(argparse.Namespace(data=run["data"], **run["reader"]), run["command"])
    if run["command"] == "admixture":  # the groups it was fitted on, without those `--heldout` kept out
        return {"X": seqs.subset(np.setdiff1d(np.arange(seqs.n_items), run["heldout_documents"]))}
    return {"X": seqs, "labels": labels}


def _image_shape(text):
    if text is None:
        return None
    try:
        return tuple(int(v) for v in text.lower().replace(",", "x").split("x"))
    except ValueError:
        raise ValueError(f"--image-shape expects sizes like 8x8 or 28x28, got {text!r}") from None


def run_report(args) -> int:
    est = persist.load(args.run_dir / "model.npz")
    run_file = args.run_dir / "run.json"
    if not run_file.exists():
        raise DataError(f"{run_file} is missing: rerun `stickbreak fit ... --out {args.run_dir}` with this version")
    run = json.loads(run_file.read_text())
    data = _data(run)
    if args.image_shape is not None:
        data["image_shape"] = _image_shape(args.image_shape)
    path = write_report(est, args.output or args.run_dir / "report.html", run=_run_facts(run), **data)
    print(f"wrote {path}")
    return 0
