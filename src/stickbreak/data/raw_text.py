"""Raw documents from files: one per line of a text file, or one per row of a CSV file's text column
(what ``stickbreak fit topics docs.txt`` and ``--text-column`` read; counted afterwards as
:func:`~stickbreak.data.as_bag_of_words` counts raw text)."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from .csv_table import opener
from .errors import DataError

#: A CSV cell may hold a whole document; the csv module's default limit is 131,072 characters.
CELL_LIMIT = min(sys.maxsize, 2**31 - 1)


def is_text_file(path) -> bool:
    """A ``.txt`` (or ``.txt.gz``) file: one raw document per line."""
    return Path(path).name.lower().endswith((".txt", ".txt.gz"))


def read_lines(path) -> list[str]:
    """Each line of a UTF-8 text file (gzipped when its name ends in .gz) as one document; an empty
    line is an empty document, kept so that row ``i`` of any output is line ``i + 1``."""
    path = Path(path)
    _exists(path)
    try:
        with opener(path)(path, "rt", encoding="utf-8", newline=None) as fh:
            return [line.rstrip("\n") for line in fh]
    except UnicodeDecodeError as exc:
        raise DataError(f"{path} is not UTF-8 text (byte {exc.start} of a line cannot be decoded); save it as "
                        "UTF-8 with one document per line.") from None
    except (OSError, EOFError) as exc:
        raise DataError(f"cannot read {path}: {exc}.") from None


def read_text_column(path, column: str) -> list[str]:
    """The column named ``column`` of a CSV file with a header line (gzipped when its name ends in
    .gz), one document per row; quoted cells may span lines."""
    path = Path(path)
    _exists(path)
    csv.field_size_limit(CELL_LIMIT)
    try:
        with opener(path)(path, "rt", encoding="utf-8", newline="") as fh:
            rows = csv.reader(fh)
            header = next(rows, None)
            if header is None:
                raise DataError(f"{path} is empty; expected a header line naming the columns, then one row per "
                                "document.")
            if column not in header:
                raise DataError(f"{path} has no column {column!r}; its header names {header[:20]}. Pass one of them "
                                "to --text-column.")
            at = header.index(column)
            texts = []
            for row in rows:
                if len(row) <= at:
                    if not row:
                        continue  # a blank line between rows
                    raise DataError(f"{path}, line {rows.line_num}: the row has {len(row)} cells, so no {column!r} "
                                    f"(column {at + 1}); every row needs as many cells as the header.")
                texts.append(row[at])
            return texts
    except UnicodeDecodeError as exc:
        raise DataError(f"{path} is not UTF-8 text (byte {exc.start} cannot be decoded); save the CSV as "
                        "UTF-8.") from None
    except csv.Error as exc:
        raise DataError(f"{path} is not a valid CSV file ({exc}).") from None
    except (OSError, EOFError) as exc:
        raise DataError(f"cannot read {path}: {exc}.") from None


def _exists(path: Path) -> None:
    if not path.is_file():
        raise DataError(f"no file {path}; give a text file with one document per line, or a CSV file with "
                        "--text-column.")
