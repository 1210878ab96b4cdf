"""Rules of the test suite itself, checked from its source: no test waits on a fixed wall-clock
timeout (``timeout=`` on a subprocess, a future or a cluster), which fails on a busy machine
rather than on a broken program (issue 47); CI's own time limit catches a hang."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_test_has_a_fixed_wall_clock_timeout():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and any(k.arg == "timeout" for k in node.keywords):
                found.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert not found, "drop the timeout (a test waits as long as the machine needs): " + ", ".join(found)
