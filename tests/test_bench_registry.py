"""``make bench`` regenerates every result file the README and the docs quote
(``benchmarks/bench.py``): each quoted file has an entry whose script exists, and a stamp replaces
an earlier one and a stale note rather than piling up."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bench", ROOT / "benchmarks" / "bench.py")
bench = sys.modules["bench"] = importlib.util.module_from_spec(_spec)  # (dataclasses look it up there)
_spec.loader.exec_module(bench)


def test_every_quoted_result_file_has_an_entry_that_writes_it():
    names = bench.quoted()
    assert "cold_start" in names and "k_learning" in names, "the quote finder lost the README's and docs' files"
    missing = sorted(name for name in names if bench.entry_for(name) is None)
    assert not missing, f"add an Entry to benchmarks/bench.py for: {missing}"


def test_every_entry_runs_a_script_that_exists_with_a_declared_extra():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for entry in bench.ENTRIES:
        for command in (entry.command, entry.prepare):
            assert not command or (ROOT / command[0]).exists(), f"{entry.name}: no {command[0]}"
        assert entry.tier in ("hour", "long") and (not entry.extra or entry.extra in extras), entry
    assert len({e.name for e in bench.ENTRIES}) == len(bench.ENTRIES), "entry names must be unique"


def test_a_stamp_replaces_the_previous_stamp_and_a_stale_note(tmp_path):
    path = tmp_path / "result.md"
    path.write_text("> **Stale, do not cite** (noted): measured long ago.\n\n# Result\n\n| a |\n")
    facts = {"command": ["benchmarks/x.py", "--k", "2"], "commit": "abc1234", "date": "2026-11-29 14:00 UTC",
             "seconds": 12.3, "load_start": "0.10/0.20/0.30", "load_end": "1.00/0.50/0.40"}
    bench.stamp(path, facts)
    bench.stamp(path, {**facts, "commit": "def5678"})
    lines = path.read_text().splitlines()
    assert lines[0].startswith(bench.STAMP_PREFIX) and "def5678" in lines[0] and "12 s" in lines[0]
    assert lines[1:] == ["", "# Result", "", "| a |"]
