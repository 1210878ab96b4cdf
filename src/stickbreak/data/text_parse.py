"""Parsing helpers for the text-corpus formats of :mod:`stickbreak.data.text_io`.

Well-formed files go through a fast path with no Python loop over lines or tokens: pandas' C
reader for ``row column value`` lines (UCI docword, Matrix Market; 4.8x faster than our own byte
scanner on AP, ``benchmarks/reader_speed.py``), and a vectorised byte scanner for LDA-C's
``N id:count`` lines (1.7x faster than scikit-learn's ``load_svmlight_file``, which also accepts
negative counts and lines with fewer pairs than their N). Anything else (letters, wrong field
counts, blank lines) falls back to a per-line parser whose only job is to name the offending line,
or to accept unusual but valid spellings such as ``3:2.0``.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

from .errors import DataError
from .memory import check_memory

_INT = re.compile(r"[+-]?\d+\Z")
MAX_DIGITS = 18  # every integer of 18 digits fits an int64
MAX_TRIPLE_LINE = 200  # bytes: a longer "row column value" line is damaged; the line parser names it
_STRING = np.dtypes.StringDType()


class Entries(NamedTuple):
    """(document, word, count) triples as parsed (ids as in the file), with the file line of each."""

    docs: np.ndarray
    words: np.ndarray
    counts: np.ndarray
    lines: np.ndarray


# ---------------------------------------------------------------------------------------- files
def read_bytes(path) -> bytes:
    """The file's bytes, gunzipped when it starts with the gzip magic number (whatever its name)."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            gzipped = fh.read(2) == b"\x1f\x8b"
        with (gzip.open if gzipped else open)(path, "rb") as fh:
            return fh.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise DataError(f"cannot read {path}: {exc}; check the path (and that a .gz file is complete and "
                        "not damaged).") from exc


def write_bytes(path, payload: bytes) -> None:
    """Write ``payload``, gzip-compressed when the name ends in ``.gz``."""
    path = Path(path)
    with (gzip.open(path, "wb", compresslevel=6) if path.name.endswith(".gz") else open(path, "wb")) as fh:
        fh.write(payload)


def read_vocabulary(path) -> tuple[str, ...]:
    """One word per line (UTF-8, optionally gzipped); line ``i`` is the word with id ``i``."""
    try:
        text = read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"vocabulary file {path} is not UTF-8 (bad byte at offset {exc.start}); "
                        "re-encode it as UTF-8.") from exc
    words = text.split("\n")
    if words[-1] == "":
        words.pop()
    return tuple(w[:-1] if w.endswith("\r") else w for w in words)


def write_vocabulary(path, words) -> None:
    bad = [i for i, w in enumerate(words) if "\n" in w or "\r" in w]
    if bad:
        raise DataError(f"vocabulary words {bad[:5]} contain line breaks; a vocabulary file holds one word per line, "
                        "so replace them (e.g. with spaces) before writing.")
    write_bytes(path, "".join(w + "\n" for w in words).encode("utf-8"))


def join_columns(columns, seps) -> np.ndarray:
    """Element-wise ``column0 + sep0 + column1 + sep1 + ...`` as strings (vectorised; ints or strings)."""
    out = np.strings.add(np.asarray(columns[0]).astype(_STRING), seps[0])
    for column, sep in zip(columns[1:], seps[1:]):
        out = np.strings.add(np.strings.add(out, np.asarray(column).astype(_STRING)), sep)
    return out


# ---------------------------------------------------------------------------------- fast scan
class _Scan(NamedTuple):
    values: np.ndarray  # int64, one per run of digits
    line: np.ndarray  # 0-based line of each run
    colon_before: np.ndarray | None  # (None: colons not scanned)
    colon_after: np.ndarray | None


def _scan(raw: bytes, colons: bool) -> _Scan | None:
    """Every run of ASCII digits as an integer, or None unless the text is only digits, blanks (and colons)."""
    buf = np.frombuffer(raw, np.uint8)
    allowed = np.zeros(256, bool)
    allowed[list(b" \t\r\n0123456789" + (b":" if colons else b""))] = True
    if not allowed[buf].all():
        return None
    digit = (buf >= 48) & (buf <= 57)
    boundary = np.empty(len(buf) + 1, bool)  # boundary[i]: digit[i] differs from digit[i - 1]
    boundary[0], boundary[-1] = digit[:1].any(), digit[-1:].any()
    np.not_equal(digit[1:], digit[:-1], out=boundary[1:-1])
    edges = np.flatnonzero(boundary)
    starts, ends = edges[::2], edges[1::2]
    lengths = ends - starts
    if len(starts) and lengths.max() > MAX_DIGITS:
        return None
    values = np.zeros(len(starts), np.int64)
    for k in range(int(lengths.max()) if len(starts) else 0):  # at most 18 passes, each over all runs
        live = np.flatnonzero(lengths > k)
        values[live] = values[live] * 10 + (buf[starts[live] + k] - 48)
    newlines = np.flatnonzero(buf == 10)
    runs_per_line = np.diff(np.searchsorted(starts, newlines), prepend=0, append=len(starts))
    line = np.repeat(np.arange(len(newlines) + 1), runs_per_line)
    if not colons:
        return _Scan(values, line, None, None)
    colon = np.flatnonzero(buf == 58)
    if len(colon) and (colon[0] == 0 or colon[-1] == len(buf) - 1 or not (digit[colon - 1] & digit[colon + 1]).all()):
        return None  # a colon not between two numbers
    padded = np.append(buf, np.uint8(10))
    return _Scan(values, line, padded[starts - 1] == 58, padded[ends] == 58)


def _longest_line(raw: bytes) -> int:
    newlines = np.flatnonzero(np.frombuffer(raw, np.uint8) == 10)
    return int(np.diff(newlines, prepend=-1, append=len(raw)).max())


def triple_entries(body: bytes, first_line: int) -> Entries | None:
    """Fast path for ``row column value`` lines (UCI docword, Matrix Market coordinate) by pandas'
    C reader; ``first_line`` is the file line number of the body's start. None when pandas refuses a
    line, a value is missing, or blank lines make row and line numbers differ: the line parser then
    names the line."""
    import pandas as pd  # imported here: only these two readers need it, and it takes ~0.3 s

    n_lines = body.count(b"\n") + (not body.endswith(b"\n"))
    if not body.strip() or _longest_line(body) > MAX_TRIPLE_LINE:  # pandas takes minutes over a line of 10^6 fields
        return None
    try:
        table = pd.read_csv(io.BytesIO(body), sep=r"\s+", header=None, names=["row", "col", "value"],
                            dtype={"row": np.int64, "col": np.int64, "value": np.float64}, na_filter=False,
                            engine="c")
    except (ValueError, TypeError, OverflowError, pd.errors.ParserError):  # ParserError is a ValueError too
        return None
    values = table["value"].to_numpy()
    if len(table) != n_lines or np.isnan(values).any():
        return None
    return Entries(table["row"].to_numpy(), table["col"].to_numpy(), values,
                   np.arange(first_line, first_line + len(table)))


def ldac_entries(raw: bytes) -> tuple[Entries, int] | None:
    """Fast path for ``N id:count id:count ...`` lines: (entries, number of documents)."""
    scan = _scan(raw, colons=True)
    if scan is None:
        return None
    assert scan.colon_before is not None and scan.colon_after is not None  # (colons were scanned)
    if (scan.colon_before & scan.colon_after).any():
        return None
    heads = np.flatnonzero(~scan.colon_before & ~scan.colon_after)
    n_runs = len(scan.values)
    if n_runs and (len(heads) == 0 or heads[0] != 0):
        return None
    head_line = scan.line[heads]
    sizes = np.diff(np.append(heads, n_runs))
    if (np.diff(head_line) <= 0).any() or (scan.line != np.repeat(head_line, sizes)).any():
        return None  # two heads on a line, or a line of pairs without its head
    n_pairs = (sizes - 1) // 2
    if (scan.values[heads] != n_pairs).any():
        return None
    docs = np.repeat(np.arange(len(heads)), n_pairs)
    ids = np.flatnonzero(scan.colon_after)
    return Entries(docs, scan.values[ids], scan.values[ids + 1].astype(np.float64), head_line[docs] + 1), len(heads)


# ----------------------------------------------------------------------- slow, precise parsers
def _number(token: str, where: str, what: str, integer: bool):
    if integer and _INT.match(token):
        return _int(token, where)
    try:
        if integer:
            raise ValueError
        return float(token)
    except ValueError:
        raise DataError(f"{where}: {token!r} is not {what}; fix or remove that line.") from None


def _int(digits: str, where: str) -> int:
    """An integer of at most 18 digits (it fits an int64); longer ones are refused by name."""
    if len(digits.lstrip("+-")) > MAX_DIGITS:
        raise DataError(f"{where}: the integer {digits[:24]}{'...' if len(digits) > 24 else ''} has {len(digits)} "
                        f"digits, more than the {MAX_DIGITS} an id, count or size can have here; the file is "
                        "damaged or not a corpus file, fix that line.")
    return int(digits)


def split_uci_header(raw: bytes, name: str) -> tuple[list[int], bytes, int]:
    """The header (D, W, NNZ), the body and the number of lines before it."""
    values: list[int] = []
    pos, line_no = 0, 0
    while len(values) < 3:
        if pos >= len(raw):
            raise DataError(f"{name} ends after {len(values)} header line(s); a UCI docword file starts with "
                            "three lines D (documents), W (vocabulary size) and NNZ (number of entries).")
        end = raw.find(b"\n", pos)
        end = len(raw) if end < 0 else end
        text, pos, line_no = raw[pos:end].strip(), end + 1, line_no + 1
        if text:
            if not text.isdigit():
                raise DataError(f"line {line_no} of {name} is {text[:40].decode(errors='replace')!r}, but the first "
                                "three lines of a UCI docword file must be single integers D, W and NNZ.")
            values.append(_int(text.decode(), f"line {line_no} of {name}"))
    return values, raw[pos:], line_no


def check_declared_size(n_docs: int, name: str) -> None:
    """A header's document count, checked before anything is allocated for it (row pointers and
    their copies, 8 bytes each)."""
    check_memory(32.0 * (n_docs + 1), f"{name}, whose header declares {n_docs:,} documents,",
                 "check the header (a damaged file declares absurd sizes), or split the corpus.")


def split_mm_header(raw: bytes, name: str) -> tuple[list[int], bytes, int]:
    """A Matrix Market coordinate file's size line (rows, columns, entries), its body and the number
    of lines before the body. Only what a word-count matrix can be is accepted: ``matrix coordinate``
    with a ``real`` or ``integer`` field and ``general`` symmetry; the rest is refused by name."""
    end = raw.find(b"\n")
    banner = raw[: len(raw) if end < 0 else end].decode("utf-8", "replace").lower().split()
    if len(banner) != 5 or banner[0] != "%%matrixmarket" or banner[1] != "matrix":
        raise DataError(f"{name} does not start with a Matrix Market banner (%%MatrixMarket matrix coordinate real "
                        "general); write one with write_matrix_market or scipy.io.mmwrite.")
    layout, field, symmetry = banner[2:]
    if field == "complex":
        raise DataError(f"Complex data not supported: {name} holds complex values; word counts are real numbers.")
    if layout != "coordinate" or field not in ("real", "integer", "double") or symmetry != "general":
        raise DataError(f"{name} is a Matrix Market '{layout} {field} {symmetry}' matrix; word counts are read from "
                        "'coordinate real general' or 'coordinate integer general' files (gensim's MmCorpus and "
                        "write_matrix_market write those).")
    pos, line_no = (len(raw) if end < 0 else end + 1), 1
    while pos < len(raw):
        end = raw.find(b"\n", pos)
        end = len(raw) if end < 0 else end
        text, pos, line_no = raw[pos:end].strip(), end + 1, line_no + 1
        if not text or text.startswith(b"%"):
            continue
        fields = text.split()
        if len(fields) != 3 or not all(f.isdigit() for f in fields):
            raise DataError(f"line {line_no} of {name} is {text[:40].decode(errors='replace')!r}, but after its "
                            "comments a Matrix Market coordinate file gives 'rows columns entries'.")
        return [_int(f.decode(), f"line {line_no} of {name}") for f in fields], raw[pos:], line_no
    raise DataError(f"{name} ends before its size line 'rows columns entries'; the file is truncated.")


def parse_uci_lines(body: bytes, name: str, first_line: int) -> Entries:
    rows = []
    for no, line in enumerate(body.decode("utf-8", "replace").split("\n"), first_line + 1):
        fields = line.split()
        if not fields:
            continue
        where = f"line {no} of {name}"
        if len(fields) != 3:
            raise DataError(f"{where} has {len(fields)} fields ({line.strip()[:60]!r}); UCI docword lines hold "
                            "exactly three: docID wordID count.")
        rows.append((_number(fields[0], where, "an integer document id", True),
                     _number(fields[1], where, "an integer word id", True),
                     _number(fields[2], where, "a count", False), no))
    return _entries(rows)


def parse_ldac_lines(raw: bytes, name: str) -> tuple[Entries, int]:
    rows, n_docs = [], 0
    for no, line in enumerate(raw.decode("utf-8", "replace").split("\n"), 1):
        fields = line.split()
        if not fields:
            continue
        where = f"line {no} of {name}"
        declared = _number(fields[0], where, "the integer term count N that starts an LDA-C line", True)
        for token in fields[1:]:
            word, sep, count = token.partition(":")
            if not sep or not _INT.match(word) or not count:
                raise DataError(f"{where}: malformed term {token!r}; LDA-C terms are written id:count "
                                "(0-based integer word id, colon, count), e.g. 12:3.")
            rows.append((n_docs, _int(word, where), _number(count, where, "a count", False), no))
        if declared != len(fields) - 1:
            raise DataError(f"{where} declares N={declared} terms but lists {len(fields) - 1} id:count pairs; "
                            "the first number of a line must equal its number of pairs.")
        n_docs += 1
    return _entries(rows), n_docs


def _entries(rows) -> Entries:
    cols = list(zip(*rows)) or [(), (), (), ()]
    return Entries(np.array(cols[0], np.int64), np.array(cols[1], np.int64),
                   np.array(cols[2], np.float64), np.array(cols[3], np.int64))


# ---------------------------------------------------------------------------------- validation
def check_entries(docs, words, counts, shape, locate: Callable[[int], str], id_base: int = 0,
                  fix: str = "fix the file") -> None:
    """Raise on ids outside ``shape`` and on counts that are not finite non-negative integers.

    ``docs``/``words`` are 0-based; ``id_base`` is how the file numbers them (1 for UCI), for messages.
    """
    ones = " (ids in this file are 1-based)" if id_base else ""
    for ids, size, what in ((docs, shape[0], "document"), (words, shape[1], "word")):
        bad = np.flatnonzero((ids < 0) | (ids >= size))
        if len(bad):
            raise DataError(f"{what} id {ids[bad[0]] + id_base} at {locate(bad[0])} is out of range "
                            f"{id_base}..{size - 1 + id_base}{ones}{_more(bad)}; fix the id, or give the "
                            f"matching vocabulary / number of {what}s.")
    checks = ((~np.isfinite(counts), "is not a finite number"),
              (counts < 0, "is negative; counts must be >= 0"),
              (counts != np.round(counts),
               "is fractional; topic models need raw word counts, not tf-idf or frequencies"))
    for mask, problem in checks:
        bad = np.flatnonzero(mask)
        if len(bad):
            raise DataError(f"count {counts[bad[0]]:g} at {locate(bad[0])} {problem}{_more(bad)}; {fix}.")


def _more(bad) -> str:
    return f" (and {len(bad) - 1} more such entries)" if len(bad) > 1 else ""
