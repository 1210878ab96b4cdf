"""The package's shape, checked from the source (ARCHITECTURE.md): imports go only downward through
the layers, no import cycle, no import hidden inside a function (nor by ``importlib``, outside the
package root's lazy public API and the kernel warmer), no capability probing with
``getattr``/``hasattr`` in the algorithms, and no source file over 500 lines."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "stickbreak"

#: Rank of each top-level module or package: a module may import from a lower rank or from its own
#: package, never upward and never sideways into another package of the same rank.
LAYERS = {
    "_version": 0, "kernels": 0,
    "core": 1,
    "data": 2,
    "obs": 3, "evaluate": 3, "datasets": 3,
    "priors": 4,
    "models": 5,
    "parallel": 6,
    "moves": 7,
    "learn": 8,
    "config": 9, "progress": 9,
    "driver": 10, "persist": 10, "plot": 10, "export": 10,
    "report": 11,
    "estimators": 12,
    "cli": 13,
    "": 14,  # the package root: the public API
}
#: Where a model's capabilities must be declared, not probed.
NO_PROBING = ("learn", "moves", "driver")
MAX_LINES = 500


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_package)
    return out


MODULES = _modules()


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        name = node.module or ""
        if name == "stickbreak" or name.startswith("stickbreak."):
            return name[len("stickbreak."):] if name != "stickbreak" else ""
        return None
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + (node.module.split(".") if node.module else []))


def _edges():
    """(importer, imported module, line, inside a function) for every import of the package."""
    for module, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text())
        in_function = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                       for n in ast.walk(f)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _resolve(module, is_package, node)
                if base is None:
                    continue
                for alias in node.names:
                    full = f"{base}.{alias.name}" if base else alias.name
                    yield module, (full if full in MODULES else base), node.lineno, id(node) in in_function
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("stickbreak"):
                        yield module, alias.name[len("stickbreak."):], node.lineno, id(node) in in_function


EDGES = list(_edges())


def _top(module: str) -> str:
    return module.split(".")[0]


def test_every_top_level_module_has_a_layer():
    assert {_top(m) for m in MODULES} <= set(LAYERS), {_top(m) for m in MODULES} - set(LAYERS)


def test_imports_only_go_down():
    upward = [f"{a}:{line} imports {b}" for a, b, line, _ in EDGES
              if _top(a) != _top(b) and LAYERS[_top(b)] >= LAYERS[_top(a)]]
    assert not upward, "\n".join(upward)


def test_no_import_inside_a_function():
    hidden = [f"{a}:{line} imports {b}" for a, b, line, inside in EDGES if inside]
    assert not hidden, "move the function down a layer instead:\n" + "\n".join(hidden)


#: The modules that may import by name: the root loads its public API on first use; the warmer
#: compiles every kernel module it finds; the command line loads the module of the command it runs.
IMPORTS_BY_NAME = {"", "kernels.warm", "cli.arguments"}


def test_no_import_by_name_outside_the_lazy_root_and_the_warmer():
    by_name = [f"{module}:{node.lineno}" for module, (path, _) in MODULES.items() if module not in IMPORTS_BY_NAME
               for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.Attribute) and node.attr == "import_module"]
    assert not by_name, by_name


def test_no_module_imports_a_lazy_public_name_from_the_root():
    """``from .. import plot`` inside the package asks the root for ``plot``, which its lazy
    ``__getattr__`` answers by loading the whole public API: a circular import when the importer is
    itself part of it (``stickbreak report`` failed so). Import the submodule's names instead."""
    import stickbreak

    lazy = set(stickbreak._PUBLIC)
    found = [f"{module}:{node.lineno} imports {alias.name} from the root"
             for module, (path, is_package) in MODULES.items() if module  # (the root's own type-checking imports)
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.ImportFrom) and _resolve(module, is_package, node) == ""
             for alias in node.names if alias.name in lazy]
    assert not found, found


def test_workers_start_without_the_estimators_layer_and_the_root_loads_all_of_its_api():
    """A worker process imports the executors, learners, moves, models and kernels only (not
    scikit-learn, matplotlib or the estimators: a second of every worker's start); the first public
    name a user touches loads the whole API, so a saved model of any class loads."""
    script = """
import sys, stickbreak, stickbreak.parallel.processes, stickbreak.parallel.dask_backend
import stickbreak.learn.memoized, stickbreak.models.topics.model, stickbreak.models.mixture.model
heavy = sorted(m for m in ("sklearn", "matplotlib", "stickbreak.estimators") if m in sys.modules)
assert not heavy, heavy
assert set(stickbreak.__all__) == set(stickbreak._PUBLIC) | {"__version__"}
assert all(getattr(stickbreak, name) is not None for name in stickbreak.__all__)
assert "DPMixture" in stickbreak.persist.ESTIMATORS and "sklearn" in sys.modules
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_no_import_cycle():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for a, b, _, _ in EDGES:
        if b in graph and a != b:
            graph[a].add(b)
    index, low, stack, on_stack, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, cycles


@pytest.mark.parametrize("where", NO_PROBING)
def test_algorithms_do_not_probe_models(where):
    """Learners and moves state the protocol they need (core/protocols.py); they never ask
    ``getattr(model, ...)`` / ``hasattr(model, ...)`` what a model can do."""
    probes = []
    for module, (path, _) in MODULES.items():
        if _top(module) != where:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func,
                                                         ast.Name) and node.func.id in ("getattr", "hasattr"):
                probes.append(f"{module}:{node.lineno}")
    assert not probes, probes


def test_no_source_file_over_500_lines():
    long = {str(path.relative_to(PACKAGE)): n for path, _ in MODULES.values()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, long
