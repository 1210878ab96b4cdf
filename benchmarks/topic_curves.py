"""Topic curves (issue 24): K over laps and held-out score over CPU of ``HDPTopicModel()`` against LDA.

Corpora ``ap``, ``wiki``, ``20newsgroups`` (``--corpus``), on the split and evaluator of
``benchmarks/defaults.py`` (``topic_moves.load_corpus``: documents permuted by ``RandomState(0)``,
10 % held out, each held-out document's tokens halved; document completion by
``stickbreak.evaluate.completion_from_split``, the same for every row). Rows, all with
``random_state=0``, at most ``defaults.TOPIC_LAPS`` (50) laps and the estimators' default tol 1e-4,
as in ``defaults.py``:

* ``HDPTopicModel()`` defaults (memoized VI with birth, merge and delete from 100 topics);
* ``HDPTopicModel(moves=())``: the fixed truncation of 100 topics, no moves;
* LDA by batch VB at K = 100 and K = 50.

Every lap a callback (the estimators' ``callbacks``) records the lap, K (topics explaining at least
one expected token, ``LapRecord.n_effective``; ``K_total``: topics held), the ELBO, the accepted moves
and the process CPU spent fitting so far, the callback's own CPU excluded; at lap 1, every
``--every`` laps and at the last lap it also records the held-out per-word log-likelihood of the
callback's topics. The last lap is scored after ``fit`` returns, from the fitted ``topic_word_``
(the callback cannot know a lap is the last); the JSON records whether the callback's last topics
are the fitted ones (same array, same score). Every row runs in a fresh process, after an untimed
warm-up fit of its kind there (numba); each point records that process's peak RSS so far (its
scoring included; the last point: after the final scoring). One thread (BLAS and numba); CPU is
process time. Run:

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/topic_curves.py \
        [--corpus ap wiki 20newsgroups] [--every 5]

Writes benchmarks/results/topic_curves.{json,md,png}; corpora not run keep their rows from an earlier
run of the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rss import in_fresh_process, peak_rss_mib, rss_cell
from defaults import RESULTS, ROOT, TOPIC_LAPS  # defaults.py's protocol and paths
from topic_moves import load_corpus  # the topic benchmarks' split

import stickbreak
from stickbreak import LDA, HDPTopicModel
from stickbreak.evaluate import completion_from_split

CORPORA = ("ap", "wiki", "20newsgroups")
ROWS = {"HDPTopicModel() defaults": lambda: HDPTopicModel(random_state=0),
        "HDP fixed K=100 (no moves)": lambda: HDPTopicModel(random_state=0, moves=()),
        "LDA vb K=100": lambda: LDA(n_topics=100, random_state=0),
        "LDA vb K=50": lambda: LDA(n_topics=50, random_state=0)}
REFERENCE = "LDA vb K=100"  # "best at the CPU of this row's end"
NEAR = 0.005  # nats per word: "within NEAR of its own final score"
STEM = RESULTS / "topic_curves"


def _scorer(split):
    def score(topic_word) -> float:
        return float(completion_from_split(topic_word, split["observed"], split["heldout"]).per_word)
    return score


def warm_up(split, score, names=tuple(ROWS)) -> None:
    """Untimed: compile (or load) the numba kernels of the row kinds ``names`` and of the evaluator."""
    few = split["train"][:500]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for name in names:
            ROWS[name]().set_params(max_laps=3).fit(few)
    score(np.full((2, few.shape[1]), 1.0 / few.shape[1]))


def run_row(make, split, score, every: int) -> dict:
    """One fit with the per-lap callback; the points and the checks of the last one."""
    laps, excluded, last = [], [0.0], {}

    def callback(record, params):
        entered = time.process_time()
        point = {"lap": int(record.lap), "K": int(record.n_effective), "K_total": int(params.n_components),
                 "elbo": float(record.elbo), "cpu": entered - start - excluded[0],
                 "moves": {kind: {"accepted": int(m["accepted"]), "tried": int(m["tried"])} for kind,
                           m in record.moves.items()},
                 "heldout": None}
        if record.lap == 1 or record.lap % every == 0:
            point["heldout"] = score(params.topic_word)
        point["peak_rss_mib"] = peak_rss_mib()
        laps.append(point)
        last["params"] = params
        excluded[0] += time.process_time() - entered

    est = make().set_params(max_laps=TOPIC_LAPS, callbacks=[callback])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.process_time()
        est.fit(split["train"])
        fit_cpu = time.process_time() - start - excluded[0]
    final = score(est.topic_word_)
    callback_tw = last["params"].topic_word
    same_array = callback_tw.shape == est.topic_word_.shape and bool(np.array_equal(callback_tw, est.topic_word_))
    callback_final = laps[-1]["heldout"] if laps[-1]["heldout"] is not None else score(callback_tw)
    check = {"same_topic_word": same_array, "callback_score": callback_final, "estimator_score": final,
             "same_score": callback_final == final}
    if not check["same_score"]:
        print(f"  ! the callback's last topics score {callback_final:.6f}, the fitted ones {final:.6f}; "
              "using the fitted estimator's score for the last point", flush=True)
    laps[-1]["heldout"] = final  # the last point is the fitted estimator's score (equal when the check holds)
    laps[-1]["peak_rss_mib"] = peak_rss_mib()
    return {"laps": laps, "fit_cpu": fit_cpu, "final": final, "K_final": int(est.n_topics_),
            "n_laps": int(est.n_iter_), "stop_reason": est.stop_reason_, "final_check": check}


def curve_row(corpus: str, name: str, every: int) -> dict:
    """One row in a fresh process (:func:`run_corpus`): the split, the warm-up of its kind, :func:`run_row`."""
    split = load_corpus(corpus)
    score = _scorer(split)
    with threadpool_limits(limits=1):
        warm_up(split, score, [name])
        return run_row(ROWS[name], split, score, every)


def run_corpus(corpus: str, every: int) -> dict:
    split = load_corpus(corpus)
    rows = {}
    for name in ROWS:
        print(f"{corpus}: {name} ...", flush=True)
        rows[name] = in_fresh_process(curve_row, corpus, name, every)
        r = rows[name]
        for p in r["laps"]:
            if p["heldout"] is not None:
                print(f"  lap {p['lap']:3d}  K {p['K']:3d}  cpu {p['cpu']:7.1f}  held-out {p['heldout']:.4f}",
                      flush=True)
        print(f"  final: K {r['K_final']}, {r['n_laps']} laps ({r['stop_reason']}), {r['fit_cpu']:.1f} CPU s, "
              f"held-out {r['final']:.4f}; check {r['final_check']}", flush=True)
    return {"data": split["describe"], "rows": rows}


# --------------------------------------------------------------------------------------------- report
def scored(row: dict) -> list[dict]:
    return [p for p in row["laps"] if p["heldout"] is not None]


def cpu_to(row: dict, target: float):
    """CPU of the first scored point at or above ``target`` (None: never)."""
    return next((p["cpu"] for p in scored(row) if p["heldout"] >= target - 1e-12), None)


def at_cpu(row: dict, cpu: float):
    """The last scored point reached within ``cpu`` CPU s (None: none)."""
    points = [p for p in scored(row) if p["cpu"] <= cpu + 1e-9]
    return points[-1] if points else None


def summary(rows: dict) -> list[str]:
    near = "; ".join(f"{name} {cpu_to(r, r['final'] - NEAR):.1f} s (of {r['fit_cpu']:.1f})" for name, r in rows.items())
    lines = [f"- CPU to within {NEAR} nats of its own final score (first scored point): {near}."]
    if REFERENCE in rows:
        end = rows[REFERENCE]["fit_cpu"]
        there = {name: at_cpu(r, end) for name, r in rows.items()}
        there = {name: p for name, p in there.items() if p is not None}  # never empty: the reference row's end
        best = max(there, key=lambda name: there[name]["heldout"])
        lines.append(f"- At {REFERENCE}'s end ({end:.1f} CPU s), best so far (last scored point within "
                     f"that CPU): **{best}** "
                     + ", ".join(f"{name} {p['heldout']:.4f} (lap {p['lap']})" for name, p in there.items()) + ".")
    lda = {name: r for name, r in rows.items() if name.startswith("LDA")}
    hdp = rows.get("HDPTopicModel() defaults")
    if lda and hdp:
        name = max(lda, key=lambda n: lda[n]["final"])
        hit = cpu_to(hdp, lda[name]["final"])
        lines.append(f"- Best LDA final: {name} {lda[name]['final']:.4f} at {lda[name]['fit_cpu']:.1f} CPU s; "
                     "HDPTopicModel() defaults reach it "
                     + ("never (at the scored points)." if hit is None else f"at {hit:.1f} CPU s."))
    return lines


def _moves(laps, upto: int, since: int) -> str:
    """Moves accepted/tried over laps ``since + 1 .. upto``, e.g. ``b0/3 m1/50 d3/4``."""
    total = {}
    for p in laps:
        if since < p["lap"] <= upto:
            for kind, m in p["moves"].items():
                total[kind] = [a + b for a, b in zip(total.get(kind, (0, 0)), (m["accepted"], m["tried"]), strict=True)]
    return " ".join(f"{kind[0]}{a}/{t}" for kind, (a, t) in total.items() if t) or ("–" if not total else "none tried")


def markdown(payload: dict) -> str:
    meta = payload["meta"]
    lines = ["# Topic curves: held-out score over CPU and K over laps (issue 24)", "",
             f"Command: `{meta['command']}`  ", (f"Date: {meta['date']}; stickbreak {meta['stickbreak']}, "
             f"git {meta['git']}; load average at start {meta['load_start']}, at end {meta['load_end']}.  "),
             ("Protocol: docstring of `benchmarks/topic_curves.py` (split and rows of `benchmarks/defaults.py`). "
             "CPU s excludes the scoring; a method's last line is its last lap (why it stopped), scored from "
             "the fitted `topic_word_`; moves: births (b), merges (m), deletes (d) accepted/tried since "
             "the previous line. Plot: `topic_curves.png`."), ""]
    for corpus, res in payload["results"].items():
        d = res["data"]
        run = res.get("run", meta)
        lines += [f"## {corpus}", ""]
        if run["command"] != meta["command"] or run["date"] != meta["date"]:
            lines += [f"(kept from an earlier run: `{run['command']}`, {run['date']}, git {run['git']})", ""]
        lines += [(f"{d['train_docs']:,} train docs, {d['train_tokens']:,} tokens, V={d['V']:,}; "
                  f"{d['test_docs']:,} test docs, {d['heldout_tokens']:,} held-out tokens."), "",
                  "| method | lap | K | CPU s | held-out | moves | peak RSS MiB |",
                  "|---|---:|---:|---:|---:|---|---:|"]
        for name, r in res["rows"].items():
            previous = 0
            for p in scored(r):
                lap = f"{p['lap']} ({r['stop_reason']})" if p is r["laps"][-1] else p["lap"]
                lines.append(f"| {name} | {lap} | {p['K']} | {p['cpu']:.1f} | {p['heldout']:.4f} | "
                             f"{_moves(r['laps'], p['lap'], previous)} | {rss_cell(p)} |")
                previous = p["lap"]
        lines += [""] + summary(res["rows"])
        odd = [name for name, r in res["rows"].items() if not r["final_check"]["same_score"]]
        lines.append("- Callback's last topics = fitted topics: " + ("yes, every row (same array, same score)."
                     if not odd else f"NO for {', '.join(odd)} (last point is the fitted estimator's score)."))
        lines.append("")
    return "\n".join(lines)


def plot(payload: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = payload["results"]
    fig, axes = plt.subplots(2, len(results), figsize=(5.2 * len(results), 8), squeeze=False)
    for j, (corpus, res) in enumerate(results.items()):
        top, bottom = axes[0, j], axes[1, j]
        for i, (name, r) in enumerate(res["rows"].items()):
            pts = scored(r)
            style = {"color": f"C{i}", "ls": ("-", "--", "-", ":")[i % 4], "label": name}
            top.plot([p["cpu"] for p in pts], [p["heldout"] for p in pts], marker="o", ms=4, **style)
            bottom.plot([p["lap"] for p in r["laps"]], [p["K"] for p in r["laps"]], marker=".", ms=3, **style)
        if REFERENCE in res["rows"]:
            top.axvline(res["rows"][REFERENCE]["fit_cpu"], color="gray", ls=":", lw=1)
        finals = [r["final"] for r in res["rows"].values()]
        top.set_ylim(min(finals) - 0.15, max(finals) + 0.02)  # lap 1 is far below; keep the ends readable
        top.set(title=f"{corpus}: held-out vs CPU", xlabel="CPU s (scoring excluded)", ylabel="held-out LL per word")
        bottom.set(title=f"{corpus}: K vs lap", xlabel="lap", ylabel="K (topics with >= 1 expected token)")
        top.grid(alpha=0.3)
        bottom.grid(alpha=0.3)
    axes[0, 0].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"{payload['meta']['command']}\n{payload['meta']['date']}; gray dotted line: {REFERENCE}'s end",
                 fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _git() -> str:
    def run(*args):
        return subprocess.run(["git", *args], check=False, cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = run("status", "--porcelain", "--untracked-files=no") or run("status", "--porcelain",
                                                                        "benchmarks/topic_curves.py")
    return run("rev-parse", "--short", "HEAD") + (" (+ uncommitted changes)" if dirty else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", nargs="+", default=list(CORPORA), choices=CORPORA)
    parser.add_argument("--every", type=int, default=5, help="score every this many laps (and lap 1, the last)")
    args = parser.parse_args(argv)

    def load():
        return " ".join(f"{v:.2f}" for v in os.getloadavg())

    meta = {"command": " ".join(["python benchmarks/topic_curves.py", *(sys.argv[1:] if argv is None else argv)]),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "stickbreak": stickbreak.__version__,
            "git": _git(), "load_start": load(), "every": args.every, "max_laps": TOPIC_LAPS}
    results = {}
    for corpus in args.corpus:  # one thread in each row's process
        results[corpus] = {**run_corpus(corpus, args.every), "run": {k: meta[k] for k in ("command", "date", "git")}}
    meta["load_end"] = load()
    path = STEM.with_suffix(".json")
    if path.exists():  # corpora not run keep an earlier run's rows
        earlier = json.loads(path.read_text())["results"]
        results = {c: results.get(c, earlier.get(c)) for c in CORPORA if c in results or c in earlier}
    payload = {"meta": meta, "results": results}
    RESULTS.mkdir(exist_ok=True)
    path.write_text(json.dumps(payload, indent=1))
    text = markdown(payload)
    STEM.with_suffix(".md").write_text(text)
    plot(payload, STEM.with_suffix(".png"))
    print(text)


if __name__ == "__main__":
    main()
