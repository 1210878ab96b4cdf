"""The benchmarks' baselines that the tests check: they run on the library's learners, so they must
keep its contracts, but they are not library models (``benchmarks/mean_field_dp.py``)."""

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _benchmark_module(name: str):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # (dataclasses resolve their annotations through it)
        spec.loader.exec_module(module)
    return sys.modules[name]


StochasticMeanFieldDP = _benchmark_module("mean_field_dp").StochasticMeanFieldDP
