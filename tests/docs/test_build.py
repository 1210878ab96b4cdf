"""The documentation builds with Sphinx as ``make docs`` builds it, warnings as errors: the guide's
links and images, every docstring's reStructuredText, the API reference's pages, and the gallery,
whose examples all run (about 90 s on two cores), so none of them can rot."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("plot_*.py"))


def test_gallery_has_examples_that_compile():
    assert 10 <= len(EXAMPLES) <= 15, f"the gallery should hold 10-15 examples, found {len(EXAMPLES)}"
    for example in EXAMPLES:
        source = example.read_text(encoding="utf-8")
        compile(source, str(example), "exec")
        assert source.startswith('"""'), f"{example.name}: sphinx-gallery needs a docstring with a title first"


@pytest.mark.slow
def test_sphinx_build_has_no_warnings(tmp_path):
    source = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", source, ignore=shutil.ignore_patterns("_build", "generated", "auto_examples"))
    shutil.copy(ROOT / "ARCHITECTURE.md", tmp_path / "ARCHITECTURE.md")  # docs/design.md includes it
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
               str(source), str(tmp_path / "html")]
    result = subprocess.run(command, capture_output=True,
                            text=True)  # no wall-clock limit: a loaded machine is slow, not wrong
    assert result.returncode == 0, f"sphinx-build failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
    html = tmp_path / "html"
    assert (html / "api.html").exists() and (html / "guide" / "choosing.html").exists()
    figures = sorted((source / "auto_examples" / "images").glob("sphx_glr_plot_*.png"))
    for example in EXAMPLES:  # every example ends in a figure
        drew = any(figure.name.startswith(f"sphx_glr_{example.stem}_") for figure in figures)
        assert drew, f"{example.name} drew no figure"


def test_the_api_reference_lists_every_public_name():
    from .public_api import MODULES, module_names

    listed = (ROOT / "docs" / "api.rst").read_text(encoding="utf-8")
    missing = [f"{module}.{name}" for module in MODULES for name in module_names(module)
               if not any(line.strip() in (name, f".. data:: {name}") for line in listed.splitlines())]
    assert not missing, f"add these to docs/api.rst: {missing}"
