"""Reading an ``.npz`` archive of arrays safely: never as a pickle, with the caller's errors."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Callable

import numpy as np


def read_arrays(path: Path, error: type[Exception], not_zip: str,
                unreadable: Callable[[Exception], str]) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive at ``path``, by name (``allow_pickle=False``).

    Parameters
    ----------
    path : pathlib.Path
        The archive.
    error : type of Exception
        The error raised for a file that is not a readable archive.
    not_zip : str
        Its message when the file is not a zip archive at all.
    unreadable : callable
        Its message, from numpy's exception, when numpy cannot read the archive.

    Returns
    -------
    dict of str to ndarray
        The arrays, read into memory.
    """
    if not zipfile.is_zipfile(path):  # np.load would read it as a pickle and advise loading it unsafely
        raise error(not_zip)
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    except Exception as exc:
        raise error(unreadable(exc)) from exc
