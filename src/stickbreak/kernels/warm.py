"""Compile the kernels into numba's on-disk cache ahead of use: ``python -m stickbreak.kernels.warm``.

A cold cache costs about a minute of compilation, paid by whoever calls a kernel first; parallel
test workers on a cold cache each pay it again. Running this once first (``make test`` does) leaves
every later process only cache loads.

Each kernel package (and this package, for its top-level modules) has an ``_examples.py`` whose
``examples()`` lists ``(kernel, example arguments)``: one entry per argument-type combination the
library passes (CSR index arrays int32 as scipy builds them, token arrays int64, float64 values,
C-ordered arrays unless the library hands over another layout, Python ints as int64). Only the
types matter: the kernel is compiled for them, never run, so the arrays may be empty or zero.
Kernels called only from other kernels compile with their callers. ``--check`` fails when a public
kernel is neither an example nor called by one (a new kernel without an example).

``-j N`` compiles in N processes (modules heaviest first, by their count of jitted functions);
``--report N`` prints the N kernels that took longest to compile (exclusive of their callees).
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import pkgutil
import sys
import time
from collections import defaultdict
from types import ModuleType

from numba import typeof
from numba.core import event
from numba.core.registry import CPUDispatcher

PACKAGE = "stickbreak.kernels"


def kernel_modules() -> list[ModuleType]:
    """Every module of the kernels package (twins included: they import their kernels' constants)."""
    package = importlib.import_module(PACKAGE)
    names = [info.name for info in pkgutil.walk_packages(package.__path__, PACKAGE + ".")]
    return [package] + [importlib.import_module(name) for name in sorted(names)]


def examples() -> list[tuple[CPUDispatcher, tuple]]:
    """All ``(kernel, arguments)`` of the ``_examples`` modules."""
    out = []
    for module in kernel_modules():
        if module.__name__.rpartition(".")[2] == "_examples":
            out.extend(module.examples())
    return out


def dispatchers() -> dict[str, CPUDispatcher]:
    """Every jitted function of the kernels, by qualified name (where it is defined, not re-exported)."""
    found = {}
    for module in kernel_modules():
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                found[f"{module.__name__}.{value.py_func.__name__}"] = value
    return found


def _name(kernel: CPUDispatcher) -> str:
    return f"{kernel.py_func.__module__}.{kernel.py_func.__qualname__}"


def _signature(arguments: tuple) -> tuple:
    return tuple(typeof(a) for a in arguments)


class _Timer(event.Listener):
    """Seconds spent compiling each dispatcher, exclusive of the callees it compiled on the way."""

    def __init__(self):
        self.stack: list[list[float]] = []
        self.seconds: dict[str, float] = defaultdict(float)
        self.count: dict[str, int] = defaultdict(int)

    def on_start(self, ev):
        self.stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev):
        start, callees = self.stack.pop()
        spent = time.perf_counter() - start
        if self.stack:
            self.stack[-1][1] += spent
        name = _name(ev.data["dispatcher"])
        self.seconds[name] += spent - callees
        self.count[name] += 1


def _compile_module(module: str) -> tuple[dict, dict]:
    """Compile the examples of the kernels defined in ``module``; returns the compile timings."""
    timer = _Timer()
    event.register("numba:compile", timer)
    try:
        for kernel, arguments in examples():
            if kernel.py_func.__module__ == module:
                try:
                    kernel.compile(_signature(arguments))
                except Exception as error:
                    raise RuntimeError(f"example of {_name(kernel)} does not compile: {error}") from error
    finally:
        event.unregister("numba:compile", timer)
    return dict(timer.seconds), dict(timer.count)


def _heaviest_first(modules: set[str]) -> list[str]:
    """Modules by their number of jitted functions, most first: a rough proxy for compile time, so
    that the longest compilations start early and the processes finish together."""
    size: defaultdict[str, int] = defaultdict(int)
    for name in dispatchers():
        size[name.rpartition(".")[0]] += 1
    return sorted(modules, key=lambda m: (-size[m], m))


def warm(jobs: int = 1, only: tuple[str, ...] = ()) -> tuple[dict, dict]:
    """Compile every example (of the kernel modules named by ``only``, relative to this package,
    e.g. ``"topics.dense"``, if given), in ``jobs`` processes; returns (seconds, compilations) per dispatcher."""
    modules = {kernel.py_func.__module__ for kernel, _ in examples()}
    if only:
        unknown = [name for name in only if f"{PACKAGE}.{name}" not in modules]
        if unknown:
            raise ValueError(f"no kernel examples in {unknown}; choose from "
                             f"{sorted(m.removeprefix(PACKAGE + '.') for m in modules)}")
        modules = {f"{PACKAGE}.{name}" for name in only}
    ordered = _heaviest_first(modules)
    seconds: defaultdict[str, float] = defaultdict(float)
    count: defaultdict[str, int] = defaultdict(int)
    if jobs <= 1:
        results = map(_compile_module, ordered)
        return _merge(results, seconds, count)
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        return _merge(pool.imap_unordered(_compile_module, ordered), seconds, count)


def _merge(results, seconds, count):
    for part_seconds, part_count in results:
        for name, value in part_seconds.items():
            seconds[name] += value
            count[name] += part_count[name]
    return dict(seconds), dict(count)


def _called(kernel: CPUDispatcher) -> list[CPUDispatcher]:
    """The kernels ``kernel``'s body refers to by name (its callees)."""
    codes, names = [kernel.py_func.__code__], set[str]()
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    found = (kernel.py_func.__globals__.get(name) for name in names)
    return [value for value in found if isinstance(value, CPUDispatcher)]


def uncovered() -> list[str]:
    """Public kernels that no example compiles, directly or as a callee: a new kernel with no example."""
    reached, todo = set(), [kernel for kernel, _ in examples()]
    while todo:
        kernel = todo.pop()
        if _name(kernel) not in reached:
            reached.add(_name(kernel))
            todo.extend(_called(kernel))
    return sorted(name for name in dispatchers() if not name.rpartition(".")[2].startswith("_") and name not in reached)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stickbreak.kernels.warm", description=__doc__.split("\n")[0])
    parser.add_argument("-j", "--jobs", type=int, default=1, help="compile in this many processes (default 1)")
    parser.add_argument("--report", type=int, default=0, metavar="N", help="print the N slowest compilations")
    parser.add_argument("--check", action="store_true", help="only check that every public kernel has an example")
    parser.add_argument("--only", default="", metavar="MODULES",
                        help="comma-separated kernel modules to compile (e.g. topics.dense,topics.evaluate); default "
                             "all")
    args = parser.parse_args(argv)
    if args.check:
        if missing := uncovered():
            print("kernels with no example (add one to their package's _examples.py):\n  " + "\n  ".join(missing))
            return 1
        return 0
    began = time.perf_counter()
    try:
        seconds, count = warm(args.jobs, tuple(m for m in args.only.split(",") if m))
    except ValueError as error:
        parser.error(str(error))
    total = time.perf_counter() - began
    print(f"numba kernels warm: {sum(count.values())} compiled, {total:.1f} s wall"
          f" ({sum(seconds.values()):.1f} s compiling)", flush=True)
    for name, value in sorted(seconds.items(), key=lambda kv: -kv[1])[:args.report]:
        print(f"  {value:7.2f} s  {count[name]:2d} sig  {name.removeprefix(PACKAGE + '.')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
