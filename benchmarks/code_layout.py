"""The package's layout in numbers (issue 46): what a restructuring is measured by, before and after.

Read from ``src/stickbreak`` by the standard library's ``ast`` (nothing is imported):

* lines per package (first-level directory or module);
* source files over ``FILE_LINES`` lines and functions over ``FUNCTION_LINES`` lines (from ``def``
  to the last line of its body), each with its lines of code (the docstring left out);
* each public class's constructor (a class exported by ``stickbreak/__init__.py``; its own
  ``__init__`` or an inherited one): its number of arguments besides ``self`` and whether it
  takes ``**kwargs``;
* imports of underscored names from another module of the package (``from .x import _y``);
* lines longer than ``LINE_CHARS`` characters;
* modules that hold docstrings apart from their classes (``_*_docs.py``).

Run:

    .venv/bin/python benchmarks/code_layout.py

Writes ``benchmarks/results/code_layout.{json,md}``.
"""

from __future__ import annotations

import ast
import json
import subprocess
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "stickbreak"
RESULTS = ROOT / "benchmarks" / "results"
FILE_LINES = 400
FUNCTION_LINES = 60
LINE_CHARS = 120


def sources() -> dict[str, str]:
    """Path relative to the package -> source text, every ``.py`` file."""
    return {str(p.relative_to(PACKAGE)): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}


def long_functions(tree: ast.AST) -> list[tuple[str, int, int]]:
    """``(name, code lines, all lines)`` of each function over ``FUNCTION_LINES`` lines (from ``def`` to
    its last line); the code lines leave the docstring out (documentation with examples is not logic
    to follow)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            first = node.body[0]
            is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                first.value.value, str)
            code = length - (first.end_lineno - first.lineno + 1 if is_doc else 0)
            if length > FUNCTION_LINES:
                out.append((node.name, code, length))
    return out


def underscored_imports(tree: ast.AST) -> list[str]:
    """``module: name`` of each ``from <package module> import _name`` (relative imports)."""
    return [f"{'.' * node.level}{node.module or ''}: {alias.name}" for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level > 0
            for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]


def exported_classes(init_source: str) -> set[str]:
    """Names ``stickbreak/__init__.py`` imports (its public API), capitalised: the estimators and other classes."""
    names = set()
    for node in ast.walk(ast.parse(init_source)):
        if isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
    return {name for name in names if name[:1].isupper()}


def constructors(files: dict[str, str], public: set[str]) -> dict[str, dict]:
    """Each public class's ``__init__`` (its own, or the first base class in the package that has
    one): arguments besides ``self`` and whether it takes ``**kwargs``."""
    classes = {node.name: (path, node) for path, text in files.items() for node in ast.walk(ast.parse(text))
               if isinstance(node, ast.ClassDef)}

    def init_of(name: str):
        path, node = classes[name]
        init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is not None:
            return path, init
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id in classes and (found := init_of(base.id)):
                return found
        return None

    out = {}
    for name in sorted(public & set(classes)):
        found = init_of(name)
        if found is not None:
            path, init = found
            a = init.args
            out[name] = {"file": path, "arguments": len(a.posonlyargs) + len(a.args) - 1 + len(a.kwonlyargs),
                         "kwargs": a.kwarg is not None}
    return out


def measure() -> dict:
    files = sources()
    lines = {path: text.count("\n") + (not text.endswith("\n")) for path, text in files.items()}
    per_package = Counter()
    for path, n in lines.items():
        per_package[path.split("/")[0] if "/" in path else path] += n
    trees = {path: ast.parse(text) for path, text in files.items()}
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=ROOT).stdout.strip()
    return {
        "git": git,
        "total_lines": sum(lines.values()),
        "lines_per_package": dict(per_package.most_common()),
        "files_over": {p: n for p, n in sorted(lines.items(), key=lambda kv: -kv[1]) if n > FILE_LINES},
        "functions_over": {p: fs for p in sorted(trees) if (fs := long_functions(trees[p]))},
        "constructors": constructors(files, exported_classes(files["__init__.py"])),
        "underscored_imports": {p: imps for p in sorted(trees) if (imps := underscored_imports(trees[p]))},
        "long_lines": sum(len(line) > LINE_CHARS for text in files.values() for line in text.splitlines()),
        "docstring_modules": sorted(p for p in files if Path(p).name.endswith("_docs.py")),
    }


def markdown(m: dict) -> str:
    n_functions = sum(len(v) for v in m["functions_over"].values())
    n_code = sum(code > FUNCTION_LINES for v in m["functions_over"].values() for _, code, _ in v)
    n_imports = sum(len(v) for v in m["underscored_imports"].values())
    lines = ["# The package's layout (issue 46)", "",
             f"git {m['git']}; `python benchmarks/code_layout.py` (protocol in its docstring).", "",
             f"- {m['total_lines']:,} lines in `src/stickbreak`; {len(m['files_over'])} files over {FILE_LINES} "
             f"lines; {n_functions} functions over {FUNCTION_LINES} lines ({n_code} over {FUNCTION_LINES} lines of "
             f"code, docstrings left out); {m['long_lines']} lines over "
             f"{LINE_CHARS} characters; {n_imports} imports of underscored names across modules; "
             f"{len(m['docstring_modules'])} docstring modules apart from their classes "
             f"({', '.join(m['docstring_modules']) or 'none'}).", "",
             "| package | lines |", "|---|---:|"]
    lines += [f"| `{p}` | {n:,} |" for p, n in m["lines_per_package"].items()]
    lines += ["", f"Files over {FILE_LINES} lines:", "", "| file | lines |", "|---|---:|"]
    lines += [f"| `{p}` | {n} |" for p, n in m["files_over"].items()]
    lines += ["", "Public constructors:", "", "| class | arguments | `**kwargs` | file |", "|---|---:|---|---|"]
    lines += [f"| `{c}` | {v['arguments']} | {'yes' if v['kwargs'] else 'no'} | `{v['file']}` |"
              for c, v in sorted(m["constructors"].items(), key=lambda kv: -kv[1]["arguments"])]
    lines += ["", f"Functions over {FUNCTION_LINES} lines (lines of code, then with the docstring):", ""]
    lines += [f"- `{p}`: " + ", ".join(f"`{name}` ({code}, {n})" for name, code, n in fs)
              for p, fs in m["functions_over"].items()]
    lines += ["", "Underscored names imported from another module:", ""]
    lines += [f"- `{p}`: " + ", ".join(f"`{i}`" for i in imps) for p, imps in m["underscored_imports"].items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    m = measure()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "code_layout.json").write_text(json.dumps(m, indent=1))
    (RESULTS / "code_layout.md").write_text(markdown(m))
    print(markdown(m))


if __name__ == "__main__":
    main()
