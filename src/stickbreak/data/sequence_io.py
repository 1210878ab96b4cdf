"""Reading sequence data (frames grouped into sequences, e.g. for hidden Markov models) from files.

Formats:

* ``.npz`` with ``X`` (frames x features) and one of ``lengths`` (frames per sequence),
  ``offsets`` (``[0, end_1, ..., n_frames]``) or per-frame ``seq_ids`` / ``sequence_ids``;
  optional per-frame labels ``Z`` or ``labels``, ``Xprev`` (each frame's previous frame, for
  autoregressive models) and ``seq_names`` (one name per sequence).
* ``.npy`` holding the frames, with the sequence id of every frame passed as ``ids``.
* ``.csv`` / ``.csv.gz`` with one frame per row and a sequence-id column (by default the first
  column whose header is ``sequence``, ``seq``, ``sequence_id`` or ``id``), an optional label
  column and an optional time column; every other column is a feature.

The frames of one sequence must be contiguous and in time order.
"""

from __future__ import annotations

import csv
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .csv_table import Table, fast_table, is_number, opener
from .dense import as_float_matrix
from .errors import DAMAGED_FILE_ERRORS, DataError, damaged_file, describe_rows
from .sequences import Sequences

ID_COLUMN_NAMES = ("sequence", "seq", "sequence_id", "id")
_SORT_FIX = "sort the rows by sequence id, then time (a stable sort by sequence id keeps each sequence's time order)"


@dataclass(frozen=True, eq=False)
class SequenceFile:
    """What :func:`read_sequences` found: the frames as :class:`Sequences`, optional per-frame
    ``labels`` and ``xprev`` (previous frames, same shape as ``sequences.X``), the data set
    ``name`` and, when the file names them, ``sequence_ids`` (one per sequence, in order)."""

    sequences: Sequences
    labels: np.ndarray | None
    xprev: np.ndarray | None
    name: str
    sequence_ids: tuple | None = None


def _integers_if_possible(values: np.ndarray) -> np.ndarray:
    """String cells as int64 when they all are integers, else kept as strings."""
    try:
        return values.astype(np.int64)
    except (TypeError, ValueError, OverflowError):  # (an id of 20 digits is a name)
        return values


def offsets_from_ids(ids, n_frames: int, first_line: int | None = None) -> tuple[np.ndarray, tuple]:
    """``(offsets, sequence ids in order)`` from one sequence id per frame, whose runs must be contiguous.

    ``first_line`` is the file line of frame 0, to name lines rather than frame numbers in errors.
    """
    ids = np.asarray(ids)
    if ids.ndim != 1 or len(ids) != n_frames:
        raise DataError(f"sequence ids have shape {ids.shape}; pass one id per frame ({n_frames} frames).")
    starts = np.concatenate([[0], np.flatnonzero(ids[1:] != ids[:-1]) + 1])
    run_ids = ids[starts]
    values, first, counts = np.unique(run_ids, return_index=True, return_counts=True)
    if (counts > 1).any():
        repeated = values[counts > 1][np.argmin(first[counts > 1])]
        rows = starts[run_ids == repeated][1:]
        where = (f"lines {describe_rows(rows + first_line)}" if first_line is not None
                 else f"frames {describe_rows(rows)}")
        raise DataError(f"the frames of sequence {repeated.item()!r} are not contiguous: it starts again at {where}; "
                        f"frames of one sequence must be contiguous: {_SORT_FIX}.")
    offsets = np.concatenate([starts, [n_frames]]).astype(np.int64)
    return offsets, tuple(v.item() for v in run_ids)


def _check_time_order(times: np.ndarray, offsets: np.ndarray, first_line: int) -> None:
    steps = np.diff(times)
    steps[offsets[1:-1] - 1] = 1.0  # no order between the last frame of one sequence and the next's first
    bad = np.flatnonzero(steps <= 0) + 1
    if len(bad):
        raise DataError(f"time does not increase within a sequence at lines {describe_rows(bad + first_line)}; "
                        f"frames must be in time order: {_SORT_FIX}.")


def _per_frame(values, n_frames: int, what: str) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 1 or len(values) != n_frames:
        raise DataError(f"{what} has shape {values.shape}; it must hold one value per frame ({n_frames} frames).")
    return values


def _load_ids(ids) -> np.ndarray:
    if isinstance(ids, (str, os.PathLike)):
        path = Path(ids)
        if path.suffix == ".npy":
            return np.load(path, allow_pickle=False)
        with open(path) as fh:
            return _integers_if_possible(np.array([line.strip() for line in fh if line.strip()]))
    return np.asarray(ids)


def _read_npz(path: Path, ids) -> tuple[Sequences, np.ndarray | None, np.ndarray | None, tuple | None]:
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    if "X" not in arrays:
        raise DataError(f"{path} holds arrays {sorted(arrays)} but no 'X'; save the frames (n_frames x n_features) as "
                        "X.")
    X = as_float_matrix(arrays["X"], f"{path.name}: X")
    n = X.shape[0]
    structure = [k for k in ("lengths", "offsets", "seq_ids", "sequence_ids") if k in arrays]
    if len(structure) > 1 or (structure and ids is not None):
        given = structure + (["the ids argument"] if ids is not None else [])
        raise DataError(f"{path.name} gives the sequences twice ({', '.join(given)}); keep only one of them.")
    names = None
    if not structure:
        if ids is None:
            raise DataError(f"{path.name} holds frames X but not where each sequence starts; add 'lengths' (frames per "
                            "sequence), 'offsets' or per-frame 'seq_ids' to the file, or pass ids= (one id per frame).")
        offsets, names = offsets_from_ids(_load_ids(ids), n)
    elif structure[0] == "lengths":
        lengths = arrays["lengths"]
        if lengths.ndim != 1 or lengths.dtype.kind not in "iu" or len(lengths) == 0 or (lengths <= 0).any():
            raise DataError(f"{path.name}: lengths must be a 1-D array of positive integers (frames per sequence); "
                            f"got {lengths!r}.")
        if lengths.sum() != n:
            raise DataError(f"{path.name}: lengths add up to {lengths.sum()} frames but X has {n}; "
                            "lengths must count every frame of X, sequences in order.")
        offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    elif structure[0] == "offsets":
        offsets = arrays["offsets"]
    else:
        offsets, names = offsets_from_ids(arrays[structure[0]], n)
    sequences = Sequences.from_arrays(X, offsets, what=f"{path.name}: X")
    if "seq_names" in arrays:
        if arrays["seq_names"].shape != (sequences.n_items,):
            raise DataError(f"{path.name}: seq_names has shape {arrays['seq_names'].shape}; "
                            f"it must name each of the {sequences.n_items} sequences once.")
        names = tuple(v.item() for v in arrays["seq_names"])
    label_key = next((k for k in ("Z", "labels") if k in arrays), None)
    labels = _per_frame(arrays[label_key], n, f"{path.name}: {label_key}") if label_key else None
    xprev = None
    if "Xprev" in arrays:
        xprev = as_float_matrix(arrays["Xprev"], f"{path.name}: Xprev")
        if xprev.shape != X.shape:
            raise DataError(f"{path.name}: Xprev has shape {xprev.shape} but X has {X.shape}; "
                            "Xprev must hold the previous frame of every frame of X.")
    return sequences, labels, xprev, names


def _column_index(spec, header: list[str] | None, width: int, option: str) -> int:
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if not -width <= spec < width:
            raise DataError(f"{option}={spec} is out of range: the file has {width} columns (0 to {width - 1}).")
        return int(spec) % width
    if header is None:
        raise DataError(f"{option}={spec!r} names a column but the file has no header line; "
                        "pass the column's number (0-based) instead, or add a header line.")
    if spec not in header:
        raise DataError(f"{option}={spec!r} is not a column of the file; its columns are {header}.")
    return header.index(spec)


def _slow_table(path: Path) -> Table:
    """The table by the csv module, naming the empty file and the ragged lines."""
    with opener(path)(path, "rt", newline="") as fh:
        rows = [(i, [c.strip() for c in row]) for i, row in enumerate(csv.reader(fh), start=1) if row]
    if not rows:
        raise DataError(f"{path.name} is empty; write one frame per row with a sequence-id column.")
    header = rows[0][1] if not any(is_number(c) for c in rows[0][1]) else None
    data = rows[1:] if header is not None else rows
    width = len(rows[0][1])
    ragged = [line for line, row in data if len(row) != width]
    if ragged:
        raise DataError(f"{path.name}: lines {describe_rows(ragged)} do not have {width} columns like the first; "
                        "every row must have the same columns.")
    if not data:
        raise DataError(f"{path.name} has a header but no frames; write one frame per row under it.")
    cells = np.array([row for _, row in data], dtype=str)
    return Table(header, [cells[:, j] for j in range(width)], data[0][0])


def _numbers(table: Table, columns: list[int], name: str) -> np.ndarray:
    """The given columns as a float64 matrix, or the first cell that is not a number, by line."""
    try:
        return np.column_stack([table.columns[j] for j in columns]).astype(np.float64)
    except ValueError:
        i, j = next((i, j) for i in range(len(table.columns[0])) for j in columns
                    if not is_number(str(table.columns[j][i])))
        column = table.header[j] if table.header is not None else j
        raise DataError(f"{name}: line {i + table.first_line}, column {column!r} holds {str(table.columns[j][i])!r}, "
                        "not a number; feature (and time) columns must be numeric.") from None


def _read_csv(path: Path, id_column, label_column, time_column) -> tuple[Sequences, np.ndarray | None, tuple]:
    table = fast_table(path) or _slow_table(path)
    header, width, first_line = table.header, table.width, table.first_line
    if len(table.columns[0]) == 0:
        raise DataError(f"{path.name} has a header but no frames; write one frame per row under it.")
    if id_column is None:
        found = [name for name in ID_COLUMN_NAMES if header is not None and name in header]
        if not found:
            raise DataError(f"{path.name} has no sequence-id column ({' / '.join(ID_COLUMN_NAMES)}) in "
                            f"{'its header ' + str(header) if header is not None else 'a header line'}; "
                            "pass id_column= (a column name or 0-based number).")
        assert header is not None  # (the names found are the header's)
        id_column = min(found, key=header.index)
    used = {"id_column": _column_index(id_column, header, width, "id_column")}
    for option, spec in (("label_column", label_column), ("time_column", time_column)):
        if spec is not None:
            used[option] = _column_index(spec, header, width, option)
    if len(set(used.values())) < len(used):
        raise DataError(f"{', '.join(f'{k}={v}' for k, v in used.items())} pick the same column twice; "
                        "give each role its own column.")
    features = [j for j in range(width) if j not in used.values()]
    if not features:
        raise DataError(f"{path.name} has no feature columns besides {sorted(used)}; add the frame's "
                        "values as columns.")
    X = _numbers(table, features, path.name)
    times = _numbers(table, [used["time_column"]], path.name)[:, 0] if "time_column" in used else None
    ids = _integers_if_possible(_as_text(table.columns[used["id_column"]]))
    offsets, names = offsets_from_ids(ids, len(X), first_line)
    if times is not None:
        _check_time_order(times, offsets, first_line)
    labels = (_integers_if_possible(_as_text(table.columns[used["label_column"]])) if "label_column" in used
              else None)
    return Sequences.from_arrays(X, offsets, what=path.name), labels, names


def _as_text(column: np.ndarray) -> np.ndarray:
    """An id or label column as the csv module reads it: integers stay integers, other numbers
    become their text (a float id "1.5" is a name, as in the file)."""
    return column if column.dtype.kind in "iuU" else column.astype(str)


def read_sequences(path, ids=None, *, id_column=None, label_column=None, time_column=None) -> SequenceFile:
    """Read frames grouped into sequences from an .npz, .npy or .csv(.gz) file (see the module doc).

    ``ids``: for a .npy file (or an .npz holding only ``X``), the sequence id of every frame, as an
    array or the path of a .npy / one-id-per-line text file. ``id_column``, ``label_column`` and
    ``time_column`` (.csv only) pick columns by header name or 0-based number; the time column,
    if given, is checked to increase within each sequence and is not a feature.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist.")
    suffix = "".join(path.suffixes[-2:]) if path.suffix == ".gz" else path.suffix
    name = path.name.split(".")[0]
    is_csv = suffix in (".csv", ".csv.gz")
    if not is_csv and any(v is not None for v in (id_column, label_column, time_column)):
        raise DataError(f"id_column, label_column and time_column apply to .csv files only, not {path.name}.")
    if is_csv and ids is not None:
        raise DataError(f"{path.name} is a .csv file: give the sequence ids as a column (id_column=), not as ids=.")
    if suffix not in (".npz", ".npy") and not is_csv:
        raise DataError(f"cannot read sequences from {path.name}: use an .npz (X with lengths, offsets or seq_ids), "
                        "a .npy with ids=, or a .csv / .csv.gz with a sequence-id column.")
    if suffix == ".npy" and ids is None:
        raise DataError(f"{path.name} holds only frames; pass ids= (the sequence id of every frame), "
                        "or save an .npz with X and lengths.")
    if suffix == ".npz" and not zipfile.is_zipfile(path):
        raise DataError(f"{path.name} is not an npz (zip) archive; save the frames with np.savez(path, X=..., "
                        "lengths=...).")
    try:
        if suffix == ".npz":
            sequences, labels, xprev, names = _read_npz(path, ids)
            return SequenceFile(sequences, labels, xprev, name, names)
        if suffix == ".npy":
            X = as_float_matrix(np.load(path, allow_pickle=False), path.name)
            offsets, names = offsets_from_ids(_load_ids(ids), X.shape[0])
            return SequenceFile(Sequences.from_arrays(X, offsets, what=path.name), None, None, name, names)
        sequences, labels, names = _read_csv(path, id_column, label_column, time_column)
        return SequenceFile(sequences, labels, None, name, names)
    except DAMAGED_FILE_ERRORS as exc:
        raise damaged_file(exc, path.name, f"a {suffix} file of sequences (see stickbreak.data.sequence_io for the "
                                           "formats)") from exc
