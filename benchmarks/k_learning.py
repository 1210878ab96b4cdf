"""Is K learned, or inherited from the start? (issue 45)

For each corpus, the HDP topic model with its defaults from every start and seed, beside the
samplers that learn K from no topics (our collapsed Gibbs HDP, tomotopy's HDP) and the LDA grid:

* ``HDPTopicModel(random_state=s)``, the default (``init="gibbs"``: the better by the ELBO of two
  short collapsed Gibbs chains, from no topics and from 100 seed documents, then memoized VI with
  birth, merge and delete), seeds 0-4;
* ``HDPTopicModel(n_topics=k, random_state=0)`` for the starts k in 10, 50, 100, 200 (a third
  chain, seeded with k documents, judged with the default's two; since commit 02031a6, before
  which it ran alone; then the same);
* the previous default, ``HDPTopicModel(n_topics=k, init="random")`` from the same starts;
* ``HDPTopicModel(algorithm="gibbs")`` from no topics, stopped once it has used the CPU of the
  default with seed 0 (a callback); memoized VI at the default's final K without moves
  (``n_topics=K, init="random", moves=()``: the cost the issue compares with); tomotopy's
  ``HDPModel`` (``initial_k=2``, its own defaults as in ``benchmarks/topic_peers.py``; ``TP_SWEEPS``
  sweeps);
* ``LDA`` by batch VB at K in 10, 20, 50, 100, 200;
* with ``--init-study``, the default with other budgets for its Gibbs start
  (``algorithm_options`` ``init_sweeps`` in 50, 100, 400; ``init_tokens`` in 200,000 and 1,000,000).

Corpora: ``ap``, ``we8there`` and ``20newsgroups`` (``../shared/data``), and ``short20``: the
first 15 tokens of each raw 20newsgroups document (``docs.tsv.gz``), counted by scikit-learn's
``CountVectorizer(stop_words="english", min_df=2)``. Split of ``benchmarks/topic_moves.py``
(documents permuted by ``RandomState(0)``, 10 % held out, each held-out document's tokens halved)
and one evaluator for every row: document completion by ``completion_from_split`` on the rows of
``topic_word_`` (ours: topics holding at least one token).

Every row runs in a fresh process with one thread (BLAS and numba), after an untimed small fit of
the same estimator there (numba's kernels load or compile outside the timing; tomotopy needs
none); CPU is process time of the fit. Run:

    .venv/bin/python benchmarks/k_learning.py [--only ap,we8there,short20,20newsgroups] [--seeds 5]

Writes ``benchmarks/results/k_learning.{json,md}`` and ``k_learning.png`` (K reached against the
start; corpora not run keep their rows from an earlier run) and copies the figure to
``docs/images/k_learning.png`` for the guide's "How K is learned" page.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rss import in_fresh_process  # noqa: E402
from topic_moves import SHARED, load_corpus, split_corpus  # noqa: E402  (the topic benchmarks' split)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
CORPORA = ("ap", "we8there", "short20", "20newsgroups")
STARTS = (10, 50, 100, 200)
LDA_SIZES = (10, 20, 50, 100, 200)
TP_SWEEPS = 500
INIT_SWEEPS = (50, 100, 400)
INIT_TOKENS = (200_000, 1_000_000)
SHORT_TOKENS = 15


def short_corpus() -> dict:
    """``short20``: the first ``SHORT_TOKENS`` tokens of each raw 20newsgroups document, split as
    :func:`topic_moves.load_corpus` splits the others."""
    with gzip.open(SHARED / "20newsgroups" / "docs.tsv.gz", "rt", encoding="utf-8") as f:
        texts = [" ".join(line.rstrip("\n").split("\t")[-1].split()[:SHORT_TOKENS]) for line in f if line.strip()]
    return split_corpus(CountVectorizer(stop_words="english", min_df=2).fit_transform(texts).tocsr(), "short20")


def corpus_split(name: str) -> dict:
    return short_corpus() if name == "short20" else load_corpus(name)


def methods() -> dict:
    """method name -> (kind, options)."""
    out = {"default": ("hdp", {})}
    out.update({f"default seed {s}": ("hdp", {"random_state": s}) for s in range(1, 10)})
    out.update({f"start {k}": ("hdp", {"n_topics": k}) for k in STARTS})
    out.update({f"random start {k}": ("hdp", {"n_topics": k, "init": "random"}) for k in STARTS})
    out.update({f"LDA K={k}": ("lda", {"n_topics": k}) for k in LDA_SIZES})
    out.update({f"init_sweeps={n}": ("hdp", {"algorithm_options": {"init_sweeps": n}}) for n in INIT_SWEEPS})
    out.update({f"init_tokens={n}": ("hdp", {"algorithm_options": {"init_tokens": n}}) for n in INIT_TOKENS})
    out["our Gibbs HDP (same CPU)"] = ("gibbs", {})
    out["tomotopy HDP"] = ("tomotopy", {})
    return out


def _moves(trace) -> dict:
    total = {}
    for record in trace:
        for kind, count in (record.get("moves") or {}).items():
            seen = total.setdefault(kind, [0, 0])
            seen[0] += count["accepted"]
            seen[1] += count["tried"]
    return total


FIXED = "fixed K = default's (no moves)"


def row(corpus: str, method: str, cpu_budget: float | None = None, fixed_k: int | None = None) -> dict:
    """One row, in a fresh process (:func:`in_fresh_process`); ``cpu_budget`` and ``fixed_k``: the
    default's CPU and final K, for the rows that depend on them."""
    import stickbreak
    from stickbreak.evaluate import completion_from_split

    warnings.simplefilter("ignore", ConvergenceWarning)
    data = corpus_split(corpus)
    kind, options = methods()[method] if method != FIXED else ("hdp", {"n_topics": fixed_k, "init": "random",
                                                                       "moves": ()})
    options = {"random_state": 0, **options}

    def score(topic_word):
        return float(completion_from_split(topic_word, data["observed"], data["heldout"]).per_word)

    with threadpool_limits(limits=1):
        if kind == "tomotopy":
            import topic_peers

            run = topic_peers.run_tp_hdp(data["train"], topic_peers.Settings(), TP_SWEEPS)
            model = run.extra["model"]
            live = [k for k in range(model.k) if model.is_live_topic(k)]
            topic_word = topic_peers._tp_topic_word(model, live, data["train"].shape[1])
            return {"corpus": corpus, "method": method, "K": len(live), "heldout": score(topic_word),
                    "cpu": run.fit_cpu_s, "laps": TP_SWEEPS, "start": 2, "elbo": None, "moves": {}}
        estimator = {"hdp": stickbreak.HDPTopicModel, "lda": stickbreak.LDA,
                     "gibbs": stickbreak.HDPTopicModel}[kind]
        if kind == "gibbs":
            options = {**options, "algorithm": "gibbs", "max_laps": 100_000}
        estimator(**options).set_params(max_laps=2).fit(data["train"][:300])  # untimed: numba's kernels
        callbacks = None
        if cpu_budget is not None:
            begun = time.process_time()
            callbacks = [lambda record, params: time.process_time() - begun >= cpu_budget]
        start = time.process_time()
        model = estimator(**options, callbacks=callbacks).fit(data["train"])
        cpu = time.process_time() - start
    used = model.topic_sizes_ >= 1.0
    return {"corpus": corpus, "method": method, "K": int(used.sum()), "heldout": score(model.topic_word_[used]),
            "cpu": cpu, "laps": int(model.n_iter_), "start": options.get("n_topics"),
            "K_first_lap": int(model.trace_[0]["n_components"]) if kind == "hdp" else None,
            "elbo": float(model.lower_bound_) if kind != "gibbs" else None, "moves": _moves(model.trace_),
            "stop": model.stop_reason_}


def run_corpus(corpus: str, n_seeds: int, init_study: bool, only_methods=None, reference=None) -> list[dict]:
    """The corpus's rows (``only_methods``: these only); the rows that depend on the default's CPU
    and final K read them from this run's default row, or from ``reference`` (an earlier run's)."""
    names = ["default", *(f"default seed {s}" for s in range(1, n_seeds)), *(f"start {k}" for k in STARTS),
             *(f"random start {k}" for k in STARTS), *(f"LDA K={k}" for k in LDA_SIZES), "tomotopy HDP"]
    if init_study:
        names += [*(f"init_sweeps={n}" for n in INIT_SWEEPS), *(f"init_tokens={n}" for n in INIT_TOKENS)]
    if only_methods is not None:  # a reduced run (a large corpus, or rows added): these rows only
        names = [name for name in names if name in only_methods]
    rows = []
    for name in names:
        rows.append(in_fresh_process(row, corpus, name))
        print(rows[-1], flush=True)
    reference = next((r for r in rows if r["method"] == "default"), reference)
    for name in ("our Gibbs HDP (same CPU)", FIXED):
        if only_methods is None or name in only_methods:
            rows.append(in_fresh_process(row, corpus, name, reference["cpu"], reference["K"]))
            print(rows[-1], flush=True)
    return rows


def merged(earlier: list[dict], new: list[dict]) -> list[dict]:
    """``earlier`` rows with those of ``new`` methods replaced, then the new methods' rows."""
    replaced = {r["method"]: r for r in new}
    kept = [replaced.pop(r["method"], r) for r in earlier]
    return kept + [r for r in new if r["method"] in replaced]


def summary(rows: list[dict]) -> dict:
    """The issue's targets, read from one corpus's rows."""
    by = {r["method"]: r for r in rows}
    seeds = [r for r in rows if r["method"] == "default" or r["method"].startswith("default seed")]
    starts = [by[f"start {k}"] for k in STARTS if f"start {k}" in by]
    k_seeds = np.array([r["K"] for r in seeds], dtype=float)
    k_starts = np.array([r["K"] for r in starts], dtype=float)
    median = float(np.median(k_starts)) if len(k_starts) else float("nan")
    best_start = max(starts, key=lambda r: r["heldout"]) if starts else None
    best_lda = max((r for r in rows if r["method"].startswith("LDA")), key=lambda r: r["heldout"], default=None)
    default, gibbs, fixed = by.get("default"), by.get("our Gibbs HDP (same CPU)"), by.get(FIXED)
    return {
        "K starts": [int(k) for k in k_starts],
        "starts within 20% of median": (bool(np.all(np.abs(k_starts - median) <= 0.2 * median))
                                         if len(k_starts) > 1 else None),
        "K seeds": [int(k) for k in k_seeds],
        "CV of K over seeds": float(k_seeds.std() / k_seeds.mean()) if len(k_seeds) > 1 else None,
        "default - best start": None if best_start is None else default["heldout"] - best_start["heldout"],
        "best start": None if best_start is None else best_start["method"],
        "default - best LDA": None if best_lda is None else default["heldout"] - best_lda["heldout"],
        "best LDA": None if best_lda is None else best_lda["method"],
        "default - Gibbs HDP (same CPU)": None if gibbs is None else default["heldout"] - gibbs["heldout"],
        "CPU default / fixed K": None if fixed is None else default["cpu"] / fixed["cpu"],
    }


def _moves_cell(moves: dict) -> str:
    return " ".join(f"{kind[0]}{a}/{t}" for kind, (a, t) in moves.items()) or "–"


def markdown(results: dict, meta: dict) -> str:
    lines = ["# K learned, or inherited from the start? (issue 45)", "",
             f"stickbreak {meta['stickbreak']}, git {meta['git']}; protocol in the docstring of "
             "`benchmarks/k_learning.py`. Commands (load average at their start):", ""]
    lines += [f"- {name}: `{command}`" for name, command in meta["parts"].items()] + [""]
    lines += ["K: topics holding at least one token (tomotopy: live topics). Moves: births (b), merges (m) and "
              "deletes (d) accepted/tried. CPU s: the fit alone, one thread, compilation excluded.", ""]
    for corpus in CORPORA:
        if corpus not in results:
            continue
        rows = results[corpus]["rows"]
        lines += [f"## {corpus}", "", "| method | start | K after lap 1 | final K | held-out per word | "
                                      "ELBO | laps | CPU s "
                  "| moves |", "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in rows:
            elbo = "–" if r.get("elbo") is None else f"{r['elbo']:.0f}"
            start = "learned" if r.get("start") is None and r["method"] != "tomotopy HDP" else r["start"]
            lines.append(f"| {r['method']} | {start} | {r.get('K_first_lap') or '–'} | {r['K']} | {r['heldout']:.4f} | "
                         f"{elbo} | {r['laps']} | {r['cpu']:.1f} | {_moves_cell(r.get('moves', {}))} |")
        s = results[corpus]["summary"]
        lines += ["", "Targets: " + "; ".join(f"{k}: {_fmt(v)}" for k, v in s.items()), ""]
    return "\n".join(lines)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:+.4f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def figure(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    corpora = [c for c in CORPORA if c in results]
    fig, axes = plt.subplots(1, len(corpora), figsize=(3.6 * len(corpora), 3.4), squeeze=False)
    for ax, corpus in zip(axes[0], corpora):
        by = {r["method"]: r for r in results[corpus]["rows"]}
        for prefix, label, style in (("start", "default init (Gibbs start)", "o-"),
                                     ("random start", "previous default (random init)", "s--")):
            ks = [k for k in STARTS if f"{prefix} {k}" in by]
            ax.plot(ks, [by[f"{prefix} {k}"]["K"] for k in ks], style, label=label)
        seeds = [r["K"] for r in results[corpus]["rows"] if r["method"].startswith("default")]
        ax.plot([5] * len(seeds), seeds, "k^", label="n_topics=None (5 seeds)", alpha=0.7)
        for name, marker in (("tomotopy HDP", "x"), ("our Gibbs HDP (same CPU)", "+")):
            if name in by:
                ax.axhline(by[name]["K"], ls=":", color="grey" if marker == "x" else "tab:green", label=name)
        ax.plot([5, 200], [5, 200], color="lightgrey", lw=0.8, label="final K = start")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(corpus)
        ax.set_xlabel("start (n_topics)")
    axes[0][0].set_ylabel("topics at the end")
    axes[0][0].legend(fontsize=7, loc="lower right")  # the first corpus has every row
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="ap,we8there,short20", help=f"corpora among {', '.join(CORPORA)}")
    parser.add_argument("--seeds", type=int, default=5, help="seeds of the default (1 to 10)")
    parser.add_argument("--init-study", action="store_true", help="also the default with other Gibbs-start budgets")
    parser.add_argument("--methods", default=None,
                        help="only these rows, comma-separated method names (a large corpus, or rows added to "
                             "an earlier run, whose other rows stay), e.g. 'default,start 10,random start 100'")
    args = parser.parse_args(argv)
    import subprocess

    import stickbreak

    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=ROOT).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "src"], capture_output=True, text=True, cwd=ROOT).stdout
    meta = {"command": "python benchmarks/k_learning.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "stickbreak": stickbreak.__version__, "git": git + (" (+ uncommitted changes)" if dirty else ""),
            "load": " ".join(f"{v:.2f}" for v in os.getloadavg())}
    path = RESULTS / "k_learning.json"
    results = json.loads(path.read_text())["results"] if path.exists() else {}
    for corpus in args.only.split(","):
        earlier_rows = results.get(corpus, {}).get("rows", []) if args.methods is not None else []
        reference = next((r for r in earlier_rows if r["method"] == "default"), None)
        rows = merged(earlier_rows, run_corpus(corpus, args.seeds, args.init_study,
                                               None if args.methods is None else args.methods.split(","), reference))
        command = f"{meta['command']} (load {meta['load']})"
        current = json.loads(path.read_text()) if path.exists() else {"results": {}, "meta": {}}  # other runs' corpora
        results = {**current["results"], corpus: {"rows": rows, "summary": summary(rows)}}
        before = current["meta"].get("parts", {}).get(corpus)
        meta["parts"] = {**current["meta"].get("parts", {}),
                         corpus: f"{before}; then {command}" if args.methods is not None and before else command}
        path.write_text(json.dumps({"meta": meta, "results": results}, indent=1, default=float))
    text = markdown(results, meta)
    (RESULTS / "k_learning.md").write_text(text)
    figure(results, RESULTS / "k_learning.png")
    shutil.copy(RESULTS / "k_learning.png", ROOT / "docs" / "images" / "k_learning.png")
    print(text)


if __name__ == "__main__":
    main()
