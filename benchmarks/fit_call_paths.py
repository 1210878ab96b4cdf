"""The call path of ``X`` from each estimator's ``fit`` to its learner, and how often it climbs back
up to the estimator (issue 46: "one trip down").

Each public estimator is fitted on a small real or bundled data set with its defaults (one or two
laps) while :func:`sys.setprofile` records every call into ``stickbreak`` until the driver's loop
starts (``stickbreak.driver.fit``). A *climb* is a call into a method of the estimator being fitted
(its ``self``) made from code that is not itself one of the estimator's methods: a helper, a plan
or a model builder that calls back up for a setting. The path lists, in order, the estimator's
methods and the helpers' functions called from ``fit`` itself (depth one below ``fit``) and every
climb (marked ``^``).

Run:

    .venv/bin/python benchmarks/fit_call_paths.py

Writes ``benchmarks/results/fit_call_paths.{json,md}``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def cases():
    """(name, estimator, fit arguments) of every public estimator, on bundled data, few laps."""
    from stickbreak import DILN, HDPHMM, LDA, DPMixture, FiniteHMM, FiniteMixture, HDPAdmixture, HDPTopicModel
    from stickbreak import datasets

    ap = datasets.load("ap").X[:150]
    faithful = datasets.load("old_faithful").X
    mocap = datasets.load("mocap6").X
    rng = np.random.default_rng(0)
    groups = rng.normal(size=(200, 3))
    laps = dict(max_laps=2, random_state=0)
    return [
        ("LDA", LDA(n_topics=5, **laps), (ap,), {}),
        ("HDPTopicModel", HDPTopicModel(algorithm_options={"init_sweeps": 4}, **laps), (ap,), {}),
        ("DILN", DILN(n_topics=5, latent_dim=2, **laps), (ap,), {}),
        ("DPMixture", DPMixture(**laps), (faithful,), {}),
        ("FiniteMixture", FiniteMixture(n_components=3, **laps), (faithful,), {}),
        ("HDPHMM", HDPHMM(n_states=4, **laps), (mocap,), {}),
        ("FiniteHMM", FiniteHMM(n_states=4, **laps), (mocap,), {}),
        ("HDPAdmixture", HDPAdmixture(n_topics=4, obs_model="gauss", **laps), (groups,), {"lengths": [20] * 10}),
    ]


def trace_fit(est, args, kwargs) -> dict:
    """The calls from ``est.fit`` to the driver's loop: the path and the climbs back to ``est``."""
    path, climbs, state = [], 0, {"done": False, "fit_depth": None, "depth": 0}

    def name_of(frame) -> str:
        module = frame.f_globals.get("__name__", "?").removeprefix("stickbreak.")
        return f"{module}.{frame.f_code.co_qualname}"

    def profile(frame, event, _arg):
        nonlocal climbs
        if state["done"] or event not in ("call", "return"):
            return
        if event == "return":
            state["depth"] -= 1
            return
        state["depth"] += 1
        if not frame.f_globals.get("__name__", "").startswith("stickbreak"):
            return
        if name_of(frame) == "driver.fit":
            state["done"] = True
            path.append("driver.fit")
            return
        own = frame.f_locals.get("self") is est
        if frame.f_code.co_name == "fit" and own and state["fit_depth"] is None:
            state["fit_depth"] = state["depth"]
            return
        caller = frame.f_back
        caller_own = caller is not None and caller.f_locals.get("self") is est
        if own and not caller_own and caller is not None and caller.f_globals.get("__name__",
                                                                                  "").startswith("stickbreak"):
            climbs += 1
            path.append(f"^ {name_of(frame)} (from {name_of(caller)})")
        elif state["fit_depth"] is not None and state["depth"] == state["fit_depth"] + 1:
            path.append(name_of(frame))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.setprofile(profile)
        try:
            est.fit(*args, **kwargs)
        finally:
            sys.setprofile(None)
    return {"climbs": climbs, "path": path}


def git_commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()


def markdown(results: dict, commit: str) -> str:
    lines = ["# The call path of X from fit to the learner (issue 46)", "",
             f"git {commit}; `python benchmarks/fit_call_paths.py` (protocol in its docstring). A climb (`^`) is a "
             "call back into the estimator from a helper, plan or model builder.", "",
             "| estimator | climbs back to the estimator |", "|---|---:|"]
    lines += [f"| `{name}` | {r['climbs']} |" for name, r in results.items()]
    for name, r in results.items():
        lines += ["", f"## {name}", ""] + [f"{i + 1}. `{step}`" for i, step in enumerate(r["path"])]
    return "\n".join(lines) + "\n"


def main() -> None:
    results = {name: trace_fit(est, args, kwargs) for name, est, args, kwargs in cases()}
    commit = git_commit()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "fit_call_paths.json").write_text(json.dumps({"commit": commit, "estimators": results}, indent=1))
    (RESULTS / "fit_call_paths.md").write_text(markdown(results, commit))
    for name, r in results.items():
        print(f"{name}: {r['climbs']} climbs, {len(r['path'])} steps")


if __name__ == "__main__":
    main()
