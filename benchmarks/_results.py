"""Where a benchmark writes what it measured: ``benchmarks/results/<name>.json`` (everything) and
``<name>.md`` (the summary the docs quote), the summary also printed."""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def write_results(name: str, measured, summary: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(measured, indent=1))
    (RESULTS / f"{name}.md").write_text(summary)
    print(summary)
