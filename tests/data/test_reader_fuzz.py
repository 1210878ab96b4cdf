"""Mutation fuzzing of every corpus reader (``reader_fuzz.py`` beside this file), in a subprocess so
that a crash by a signal fails the test instead of the run: every damaged file is read into a
valid corpus or refused with the library's DataError, nothing else."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reader_fuzz import FORMATS

HERE = Path(__file__).parent


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_damaged_files_are_read_or_refused_with_a_data_error(fmt):
    run = subprocess.run([sys.executable, str(HERE / "reader_fuzz.py"), fmt, "--n", "200", "--seed", "3"],
                         capture_output=True, text=True)
    assert run.returncode == 0, f"the reader process died (return code {run.returncode}): {run.stderr[-2000:]}"
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["other"] == 0 and result["invalid"] == 0, result
    assert result["refused"] > 0 and result["read"] + result["refused"] == 200
