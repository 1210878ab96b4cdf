"""The error raised for bad input: it names the problem and the fix."""

import zipfile
import zlib

#: What numpy, zipfile, gzip and zlib raise on a damaged or foreign file (UnicodeDecodeError is a
#: ValueError): the readers turn these into :class:`DataError`; anything else is a bug to report.
DAMAGED_FILE_ERRORS = (ValueError, OSError, TypeError, AttributeError, KeyError, IndexError, OverflowError, EOFError,
                       NotImplementedError, zipfile.BadZipFile, zlib.error)


class DataError(ValueError):
    """Input data that cannot be fitted as given. The message says what is wrong and how to fix it."""


class DataTypeError(DataError, TypeError):
    """Input whose values are not numbers at all (also a TypeError, as numpy raises)."""


def describe_rows(rows, limit: int = 5) -> str:
    """``[3, 17, 42, ... (12 in all)]`` for error messages."""
    rows = [int(r) for r in rows]
    shown = ", ".join(str(r) for r in rows[:limit])
    more = f", ... ({len(rows)} in all)" if len(rows) > limit else ""
    return f"[{shown}{more}]"
