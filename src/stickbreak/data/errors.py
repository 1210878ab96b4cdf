"""The error raised for bad input: it names the problem and the fix."""

import zipfile
import zlib

#: What numpy, zipfile, gzip and zlib raise on a damaged or foreign file (UnicodeDecodeError is a
#: ValueError): the readers turn these into :class:`DataError`; anything else is a bug to report.
DAMAGED_FILE_ERRORS = (ValueError, OSError, TypeError, AttributeError, KeyError, IndexError, OverflowError, EOFError,
                       NotImplementedError, zipfile.BadZipFile, zlib.error)


#: What numpy says of an array stored by pickle when loading with ``allow_pickle=False``.
_PICKLED = "Object arrays cannot be loaded when allow_pickle=False"


def pickled_arrays(exc: Exception, name: str) -> "DataError | None":
    """The error for a file holding pickled Python objects (refused: unpickling can run any code), or None
    when ``exc`` is about something else."""
    if _PICKLED not in str(exc):
        return None
    return DataError(f"{name} holds Python objects (arrays stored with pickle), which stickbreak never loads: "
                     "unpickling can run any code. Save plain numeric arrays (write_npz, or np.savez of numbers).")


def damaged_file(exc: Exception, name: str, expected: str) -> "DataError":
    """The error for a file a reader could not parse (``exc``, one of :data:`DAMAGED_FILE_ERRORS`):
    pickled objects refused by name, text that is not UTF-8 by its offset, anything else as
    damaged or not ``expected`` (e.g. "a .npz file of numbers")."""
    if isinstance(exc, DataError):
        return exc
    if isinstance(exc, UnicodeDecodeError):
        return DataError(f"{name} is not UTF-8 text (byte {exc.object[exc.start:exc.start + 1]!r} at offset "
                         f"{exc.start}); re-encode it as UTF-8, or check that it is {expected}.")
    return pickled_arrays(exc, name) or DataError(f"cannot read {name} ({type(exc).__name__}: {exc}); the file is "
                                                  f"damaged, or not {expected}.")


class DataError(ValueError):
    """Input data that cannot be fitted as given. The message says what is wrong and how to fix it.

    A subclass of :class:`ValueError`, so code catching scikit-learn's input errors catches it too.

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak import DataError, DPMixture
    >>> try:
    ...     DPMixture().fit(np.array([[0.0, np.nan]]))
    ... except DataError as err:
    ...     print("NaN" in str(err), isinstance(err, ValueError))
    True True
    """


class DataTypeError(DataError, TypeError):
    """Input whose values are not numbers at all (also a TypeError, as numpy raises)."""


def describe_rows(rows, limit: int = 5) -> str:
    """``[3, 17, 42, ... (12 in all)]`` for error messages."""
    rows = [int(r) for r in rows]
    shown = ", ".join(str(r) for r in rows[:limit])
    more = f", ... ({len(rows)} in all)" if len(rows) > limit else ""
    return f"[{shown}{more}]"
