"""Every Python block of the README and the user guide runs, as written, in a fresh directory.

A page's blocks run in order in one namespace, as a reader pastes them into one session. A block
preceded by ``<!-- snippet: skip REASON -->`` is not run (it needs what a test machine has not: a
Dask cluster at an address, a file of the user's); ``<!-- snippet: requires MODULE ... -->`` runs it
only where those optional modules import (the ``peers`` extra). Each skip must say why.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot  # noqa: E402
import pytest


ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "index.md", *sorted((ROOT / "docs" / "guide").rglob("*.md"))]
FENCE = re.compile(r"(?:<!-- snippet: (?P<marker>[^\n]*?) -->\n)?```python\n(?P<code>.*?)```", re.S)


def python_blocks(page: Path) -> list[tuple[int, str, str | None]]:
    """``(line, code, marker)`` of each fenced Python block of ``page``."""
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, match.start("code")) + 1, match["code"], match["marker"])
            for match in FENCE.finditer(text)]


def test_pages_have_blocks():
    assert sum(len(python_blocks(page)) for page in PAGES) >= 20, "the snippet extractor found too few blocks"
    assert all(page.exists() for page in PAGES)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_python_blocks_run(page, tmp_path):
    namespace = {"__name__": "__main__"}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        for line, code, marker in python_blocks(page):
            where = f"{page.relative_to(ROOT)}:{line}"
            if marker is not None:
                kind, _, rest = marker.partition(" ")
                assert kind in ("skip", "requires") and rest.strip(), \
                    f"{where}: marker must be 'skip REASON' or 'requires MODULE ...'"
                if kind == "skip" or any(importlib.util.find_spec(name) is None for name in rest.split()):
                    continue
            try:
                exec(compile(code, where, "exec"), namespace)
            except Exception as error:
                raise AssertionError(f"the Python block at {where} failed: {error!r}") from error
    finally:
        os.chdir(cwd)
        matplotlib.pyplot.close("all")


COMMAND = re.compile(r"^(?:\$ )?(stickbreak (?:fit|eval|report|resume|datasets)\b[^#]*)")


def command_lines(page: Path) -> list[str]:
    """The ``stickbreak ...`` command lines of the page's fenced blocks other than Python, comments cut."""
    lines, language = [], None  # language: None outside a fence, else the fence's info string
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            language = line[3:].strip() if language is None else None
        elif language is not None and language != "python" and (match := COMMAND.match(line.strip())):
            lines.append(match[1].strip())
    return lines


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_command_lines_parse(page):
    """Every command line shown parses: its subcommand and every option exist (running them all
    would fit the whole AP corpus many times over; the CLI's own tests run each subcommand)."""
    from stickbreak.cli.main import build_parser

    for line in command_lines(page):
        try:
            build_parser().parse_args(shlex.split(line)[1:])
        except SystemExit as exit_:
            raise AssertionError(f"{page.relative_to(ROOT)}: `{line}` does not parse (exit {exit_.code})") from None
