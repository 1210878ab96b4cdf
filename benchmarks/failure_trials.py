"""Failures caught before the fit, never half-way (issue 50), tried as a user would, from the shell:

1. Under ``prlimit --as=2G`` (an address-space limit of 2 GiB) every oversized request is refused
   before it allocates, with a message naming the sizes, the limit and the fix (no MemoryError,
   no traceback; the command line exits with status 2 and one line).
2. An unwritable ``--out`` is refused before the fit: seconds from the command to the error.
3. Two concurrent runs on one ``--checkpoint`` directory: one runs, the other is refused by
   name; the checkpoint then resumes.
4. SIGKILL at 20 random moments of ``stickbreak fit mixture old_faithful --out DIR`` over a
   previous complete run in DIR: 10 moments drawn over the whole command, 10 within its final
   write (after the fit's summary line); after each kill DIR must hold the previous complete run
   or the new one (every file its run.json lists, with the SHA-256 it records).

Run:  .venv/bin/python benchmarks/failure_trials.py     (about 3 minutes on 2 cores)
Writes benchmarks/results/failure_trials.{json,md}.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import write_results

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 2 * 2**30
STICKBREAK = [sys.executable, "-m", "stickbreak.cli.main"]
SCRIPT_CASES = {
    "DPMixture(n_components=30000) on old_faithful":
        "stickbreak.DPMixture(n_components=30000).fit(datasets.load('old_faithful').X)",
    "LDA(n_topics=100000) on ap":
        "stickbreak.LDA(n_topics=100000).fit(datasets.load('ap').X)",
    "HDPHMM(n_states=20000) on mocap6":
        "stickbreak.HDPHMM(n_states=20000).fit(datasets.load('mocap6').X)",
    "LDA.score with one count of 1e10":
        "import numpy as np, scipy.sparse as sp; X = datasets.load('ap').X.counts[:50].copy(); X.data[0] = 1e10; "
        "stickbreak.LDA(n_topics=3, max_laps=2).fit(datasets.load('ap').X.counts[:50]).score(X)",
    "LDA(algorithm='gibbs') on a count of 1e10":
        "import numpy as np, scipy.sparse as sp; "
        "stickbreak.LDA(n_topics=2, algorithm='gibbs').fit(sp.csr_matrix(np.array([[1e10, 1.0], [2.0, 3.0]])))",
    "read_corpus of a Matrix Market header of 10^12 documents":
        "from stickbreak.data import read_corpus; import pathlib; p = pathlib.Path(TMP) / 'h.mtx'; "
        "p.write_text('%%MatrixMarket matrix coordinate integer general\\n1000000000000 5 1\\n1 1 1\\n'); "
        "read_corpus(p)",
}
CLI_CASES = {
    "stickbreak fit mixture old_faithful -K 30000": ["fit", "mixture", "old_faithful", "-K", "30000"],
    "stickbreak fit topics ap --model lda -K 100000": ["fit", "topics", "ap", "--model", "lda", "-K", "100000"],
    "stickbreak fit hmm mocap6 -K 20000": ["fit", "hmm", "mocap6", "-K", "20000"],
}


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}


def verdict(run: subprocess.CompletedProcess) -> dict:
    err = run.stderr.strip()
    last = err.splitlines()[-1] if err else ""
    return {"exit": run.returncode, "message": last[:400], "traceback": "Traceback" in err,
            "memory_error": "MemoryError" in err, "refused_by_name": "needs about" in last and "GiB" in last}


def memory_trials(tmp: Path) -> list[dict]:
    rows = []
    for name, code in SCRIPT_CASES.items():
        program = (f"TMP = {str(tmp)!r}\nimport stickbreak\nfrom stickbreak import datasets\n"
                   f"try:\n    {code}\nexcept stickbreak.DataError as exc:\n"
                   "    import sys; print(f'DataError: {exc}', file=sys.stderr); sys.exit(2)\n")
        run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env(),
                             preexec_fn=limited)
        rows.append({"case": name, **verdict(run)})
    for name, argv in CLI_CASES.items():
        run = subprocess.run(STICKBREAK + argv, capture_output=True, text=True, env=env(), preexec_fn=limited)
        rows.append({"case": name, **verdict(run), "stderr_lines": len(run.stderr.strip().splitlines())})
    return rows


def unwritable_out() -> dict:
    """Seconds to the refusal, beside those of ``stickbreak --version`` (starting Python and
    importing the package, which every command pays before its arguments are read)."""
    start = time.perf_counter()
    run = subprocess.run(STICKBREAK + ["fit", "topics", "ap", "--out", "/proc/stickbreak-run"], capture_output=True,
                         text=True, env=env())
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    subprocess.run(STICKBREAK + ["--version"], capture_output=True, env=env(), check=True)
    return {"seconds": seconds, "version_seconds": time.perf_counter() - start, "exit": run.returncode,
            "message": run.stderr.strip()[-300:], "fit_started": "on ap" in run.stdout}


def concurrent_runs(tmp: Path) -> dict:
    argv = STICKBREAK + ["fit", "mixture", "old_faithful", "--max-laps", "200", "--tol", "0", "--quiet",
                         "--checkpoint", str(tmp / "ck")]
    runs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
            for _ in range(2)]
    outcomes = [(p.wait(), p.stderr.read().strip()[-300:]) for p in runs]
    resumed = subprocess.run(STICKBREAK + ["resume", str(tmp / "ck"), "--max-laps", "201"], capture_output=True,
                             text=True, env=env())
    return {"exits": sorted(code for code, _ in outcomes), "refusal": next((m for c, m in outcomes if c), ""),
            "resume_exit": resumed.returncode, "resume_said": resumed.stdout.strip().splitlines()[-1:]}


def complete_run(out: Path) -> str | None:
    """The seed of the complete run ``out`` holds, or None when it is not one complete run."""
    try:
        run = json.loads((out / "run.json").read_text())
        if sorted(p.name for p in out.iterdir()) != sorted(run["files"]):
            return None
        for name, digest in run["sha256"].items():
            if hashlib.sha256((out / name).read_bytes()).hexdigest() != digest:
                return None
    except (OSError, ValueError, KeyError):
        return None
    return run.get("seed") or "?"


def _timed_run(argv) -> tuple[float, float]:
    """Seconds of the whole command, and of its final write (after the fit's summary line)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env())
    summary_at = start
    for line in proc.stdout:
        if "clusters used of" in line:
            summary_at = time.perf_counter()
    proc.wait()
    end = time.perf_counter()
    return end - start, end - summary_at


def kill_trials(tmp: Path, n_each: int = 10) -> list[dict]:
    out = tmp / "run"
    base = STICKBREAK + ["fit", "mixture", "old_faithful", "--max-laps", "30", "--out", str(out), "--quiet"]
    subprocess.run(base + ["--seed", "1"], check=True, capture_output=True, env=env())
    whole, writing = _timed_run(base + ["--seed", "2"])
    rng = random.Random(50)
    rows = []
    for trial in range(2 * n_each):
        previous = json.loads((out / "run.json").read_text())["sha256"]
        in_write = trial >= n_each
        proc = subprocess.Popen(base + ["--seed", str(3 + trial)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, env=env())
        began = time.perf_counter()
        if in_write:  # the fit's summary line is printed just before the files are written
            for line in proc.stdout:
                if "clusters used of" in line:
                    break
            delay = rng.uniform(0.0, 0.9 * writing)
        else:
            delay = rng.uniform(0.0, whole)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        elapsed = time.perf_counter() - began
        now = json.loads((out / "run.json").read_text())["sha256"] if (out / "run.json").exists() else None
        state = ("previous" if now == previous else "new" if now is not None else "none")
        rows.append({"trial": trial, "within_write": in_write, "killed_after_s": round(elapsed, 3),
                     "killed": proc.returncode == -signal.SIGKILL,
                     "command_s": round(whole, 3), "write_window_s": round(writing, 3),
                     "complete": complete_run(out) is not None, "holds": state,
                     "strays": sorted(p.name for p in tmp.iterdir() if p.name != "run")})
        for stray in tmp.iterdir():  # what the next run would clear first
            if stray.name != "run":
                shutil.rmtree(stray, ignore_errors=True)
    return rows


def summary(found: dict) -> str:
    lines = ["# Failures caught before the fit (`benchmarks/failure_trials.py`)", "",
             f"2 cores; load average {found['load_start']} at the start, {found['load_end']} at the end.", "",
             "## Oversized requests under an address-space limit of 2 GiB (`prlimit --as=2G`)", "",
             "| request | exit | refused by name | MemoryError | traceback | message |", "|---|---|---|---|---|---|"]
    for row in found["memory"]:
        lines.append(f"| {row['case']} | {row['exit']} | {row['refused_by_name']} | {row['memory_error']} | "
                     f"{row['traceback']} | {row['message'][:160]} |")
    u = found["unwritable"]
    lines += ["", "## An unwritable --out", "",
              f"`stickbreak fit topics ap --out /proc/stickbreak-run`: exit {u['exit']} after {u['seconds']:.2f} s "
              f"(`stickbreak --version` takes {u['version_seconds']:.2f} s: starting Python and importing the "
              f"package; the fit started: {u['fit_started']}): {u['message'][-200:]}", "",
              "## Two concurrent runs on one --checkpoint directory", ""]
    c = found["concurrent"]
    lines += [f"exit statuses {c['exits']}; the refused run said: {c['refusal'][-220:]}", "",
              f"`stickbreak resume` afterwards: exit {c['resume_exit']}, {c['resume_said']}", "",
              "## SIGKILL at 20 moments of `fit mixture old_faithful --out DIR` over a previous run", "",
              "| trial | within the final write | signal sent after s | killed (not yet ended) | DIR complete "
              "| DIR holds | left beside DIR |", "|---|---|---|---|---|---|---|"]
    for row in found["kills"]:
        lines.append(f"| {row['trial']} | {row['within_write']} | {row['killed_after_s']} | {row['killed']} | "
                     f"{row['complete']} | "
                     f"{row['holds']} | {', '.join(row['strays']) or '-'} |")
    complete = sum(row["complete"] for row in found["kills"])
    first = found["kills"][0]
    lines += ["", f"The uninterrupted command took {first['command_s']:.2f} s, its final write the last "
                  f"{first['write_window_s']:.2f} s; the first 10 kills fall anywhere in the command, the last 10 "
                  "within the write.",
              "", f"{complete} of {len(found['kills'])} signals left DIR one complete run "
                  f"({sum(r['holds'] == 'new' for r in found['kills'])} the new one); "
                  f"{sum(r['killed'] for r in found['kills'])} of them killed a command still running."]
    return "\n".join(lines) + "\n"


def main() -> None:
    load_start = "/".join(f"{v:.2f}" for v in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        found = {"memory": memory_trials(tmp), "unwritable": unwritable_out(),
                 "concurrent": concurrent_runs(tmp / "concurrent"), "kills": kill_trials(tmp / "kills")}
    found.update(load_start=load_start, load_end="/".join(f"{v:.2f}" for v in os.getloadavg()))
    write_results("failure_trials", found, summary(found))


if __name__ == "__main__":
    main()
