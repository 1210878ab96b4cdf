"""What a first use waits for (issue 26): each algorithm's first fit in a fresh process with an
empty numba cache (``NUMBA_CACHE_DIR`` set to a new folder), then the same fit again with the
cache it left, and the seconds numba spent compiling in the first (a compile-event listener).

Each fit is small (AP news, mocap6, digits), so the cold time is mostly compilation: the cold
minus the warm wall time is what a first use waits for, and the compile seconds say how much of
it numba's compiler took. Each fit's process reports its peak RSS (imports, compilation and fit).

Run:  .venv/bin/python benchmarks/cold_start.py [--only hdp_memoized,lda_gibbs]
Writes benchmarks/results/cold_start.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _rss import rss_cell

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

#: name -> Python statements that fit one algorithm on a bundled data set (kept small: 2-3 laps)
FITS = {
    "hdp_default": "HDPTopicModel(max_laps=3, random_state=0).fit(load('ap').X)",
    "hdp_memoized": "HDPTopicModel(n_topics=50, max_laps=3, random_state=0).fit(load('ap').X)",
    "lda_vb": "LDA(n_topics=20, algorithm='vb', max_laps=3, random_state=0).fit(load('ap').X)",
    "hdp_stochastic": "HDPTopicModel(n_topics=50, algorithm='stochastic', max_laps=2, "
                      "random_state=0).fit(load('ap').X)",
    "hdp_truncation_free": ("HDPTopicModel(n_topics=20, algorithm='truncation_free', max_laps=2, random_state=0)"
                            ".fit(load('ap').X)"),
    "lda_gibbs": "LDA(n_topics=20, algorithm='gibbs', max_laps=3, random_state=0).fit(load('ap').X)",
    "hdp_gibbs": "HDPTopicModel(n_topics=20, algorithm='gibbs', max_laps=3, random_state=0).fit(load('ap').X)",
    "diln_vb": "DILN(n_topics=20, algorithm='vb', max_laps=2, random_state=0).fit(load('ap').X)",
    "dp_mixture_memoized": "DPMixture(max_laps=3, random_state=0).fit(load('digits').X)",
    "hdp_hmm_memoized": "HDPHMM(max_laps=3, random_state=0).fit(load('mocap6').X)",
}

PROGRAM = """
import sys, time, warnings
sys.path.insert(0, {here!r})
from _rss import peak_rss_mib
from numba.core import event
t0 = time.perf_counter()
from stickbreak import DILN, LDA, DPMixture, HDPHMM, HDPTopicModel
from stickbreak.datasets import load
from stickbreak.kernels.warm import _Timer
timer = _Timer()
event.register("numba:compile", timer)
t1 = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    {fit}
t2 = time.perf_counter()
print(t1 - t0, t2 - t1, sum(timer.seconds.values()), peak_rss_mib())
"""


def one(statement: str, cache: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    program = PROGRAM.format(fit=statement, here=str(Path(__file__).resolve().parent))
    out = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    imported, fitted, compiling, peak = (float(x) for x in out[-4:])
    return {"import": imported, "fit": fitted, "compiling": compiling, "peak_rss_mib": peak}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=",".join(FITS))
    args = parser.parse_args(argv)
    rows = []
    for name in args.only.split(","):
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
            cold, warm = one(FITS[name], cache), one(FITS[name], cache)
        row = {"name": name, "statement": FITS[name], "cold": cold, "warm": warm, "load": os.getloadavg()[0]}
        rows.append(row)
        print(f"{name}: cold fit {cold['fit']:.1f} s ({cold['compiling']:.1f} s compiling), warm fit "
              f"{warm['fit']:.1f} s; import {cold['import']:.1f} s cold, {warm['import']:.1f} s warm", flush=True)
    RESULTS.mkdir(exist_ok=True)
    suffix = "" if args.only == ",".join(FITS) else "_" + args.only.replace(",", "_")
    (RESULTS / f"cold_start{suffix}.json").write_text(json.dumps(rows, indent=1))
    (RESULTS / f"cold_start{suffix}.md").write_text(markdown(rows, " ".join(sys.argv)))


def markdown(rows: list[dict], command: str) -> str:
    lines = [f"# First use on an empty numba cache, {os.cpu_count()} cores (`{command}`)\n",
             "| algorithm | fit | cold fit s | of which compiling s | warm fit s | import s (cold/warm) "
             "| peak RSS MiB (cold/warm) | load |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | `{r['statement']}` | {r['cold']['fit']:.1f} | {r['cold']['compiling']:.1f} | "
                     f"{r['warm']['fit']:.1f} | {r['cold']['import']:.1f}/{r['warm']['import']:.1f} | "
                     f"{rss_cell(r['cold'])} / {rss_cell(r['warm'])} | {r['load']:.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
