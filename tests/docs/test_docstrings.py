"""Every public name has a numpydoc docstring (numpydoc's own validator), and its examples run.

The rules: every public name has a docstring with a one-line summary; every parameter is documented
with a type and a description, and no parameter is documented that the signature lacks; whatever
returns something has a Returns section; every public class and function has an Examples section,
and those examples run as doctests (so they cannot rot). Style codes (See Also, extended summary,
punctuation) are left to review.
"""

from __future__ import annotations

import doctest
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot  # noqa: E402
import pytest
from numpydoc.validate import validate

from .public_api import public_objects


REQUIRED = {"GL08", "SS01", "PR01", "PR02", "PR04", "PR07", "RT01", "RT03"}
REQUIRED_WITH_EXAMPLE = REQUIRED | {"EX01"}
OBJECTS = [(name, obj, kind) for name, obj, kind in public_objects() if kind != "data"]


@pytest.mark.parametrize("name,kind", [(name, kind) for name, _, kind in OBJECTS], ids=[n for n, _, _ in OBJECTS])
def test_numpydoc_docstring(name, kind):
    required = REQUIRED_WITH_EXAMPLE if kind in ("class", "function") else REQUIRED
    if kind == "property":
        required = {"GL08", "SS01"}
    errors = [f"{code}: {message}" for code, message in validate(name)["errors"] if code in required]
    assert not errors, f"{name}:\n  " + "\n  ".join(errors)


EXAMPLES = [(name, obj) for name, obj, kind in OBJECTS if kind in ("class", "function")]
#: Examples that need an optional extra (``pip install stickbreak[peers]``) run where it is installed.
NEEDS = {"stickbreak.export.to_gensim": "gensim"}


@pytest.mark.parametrize("name,obj", EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_docstring_examples_run(name, obj, tmp_path):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name], reason=f"{NEEDS[name]} is an optional extra (pip install stickbreak[peers])")
    tests = doctest.DocTestFinder(recurse=False).find(obj, name, globs={})
    examples = [test for test in tests if test.examples]
    if not examples:
        pytest.skip("no examples (test_numpydoc_docstring reports it)")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    cwd = os.getcwd()
    os.chdir(tmp_path)  # examples that save files write them here
    try:
        for test in examples:
            runner.run(test)
    finally:
        os.chdir(cwd)
        matplotlib.pyplot.close("all")
    assert runner.failures == 0, \
        f"{name}: {runner.failures} of {runner.tries} example lines failed (see the output above)"
