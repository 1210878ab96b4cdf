"""Topic models side by side: stickbreak's LDA / HDP against scikit-learn, gensim and tomotopy on `wiki`.

Protocol (``../shared/research/peers.md`` section 3.2, reproduced exactly):

* Data: ``../shared/data/wiki`` (7,961 Wikipedia articles, V = 6,130). Documents permuted with
  ``RandomState(0)``; the last 10 % are test documents; the vocabulary is restricted to words that occur
  in the training split. Each test document's tokens are split in half (``split_documents(X_test,
  mode="tokens", heldout_fraction=0.5, seed=1)``): an observed half and a held-out half.
* Score: document completion (``completion_from_split``): theta_d fitted on the observed half with the
  topics fixed (EM fixed point, prior 1/K per topic), then the mean log-probability per held-out token
  (nats) and perplexity = exp(-score). The same code for every model; only the topic-word matrix differs.
* Settings: K=20, alpha=0.1, eta=0.01 for every LDA, seed 0, hyper-parameter optimisation off, else
  library defaults; the peers' HDPs at library defaults; see ``topic_peers.py`` for each peer and how
  its per-pass snapshots are taken without changing what it computes.
* Budget: ``--passes P`` (default 10) VB passes / laps; Gibbs runs (tomotopy) get 20 P sweeps, with a
  row also at P sweeps.
* Timing: process CPU (``time.process_time``, all threads of the process) and wall time of the
  training calls only. After every pass the topic-word matrix is scored with the clock stopped (the
  time spent there is subtracted), giving a held-out-score-vs-CPU curve; "CPU to target" is the
  cumulative CPU of the first snapshot reaching the target. BLAS pinned to one thread
  (threadpoolctl, plus OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS=1 in each child); tomotopy ``workers=1``.
* Memory: every configuration runs in a fresh subprocess (``topics.py --one NAME``); peak RSS is that
  process's own high-water mark (``_rss.peak_rss_mib``: data, split, fit and scoring together; "RSS
  at fit start" is shown too).
* Ours: ``OURS`` below (``stickbreak.LDA`` / ``stickbreak.HDPTopicModel``); per-lap snapshots via the
  estimators' ``callbacks`` (``callback(record, params)`` after every lap, ``params.topic_word`` the
  current (K, V) topics); the callback's own time is subtracted like the peers' snapshots; one untimed
  tiny warm-up fit first (numba compilation). A configuration is skipped with a message while its
  estimator cannot be imported. Topics out = the estimator's ``n_topics_`` (topics with a non-negligible
  expected token count).

Run:

    .venv/bin/python benchmarks/topics.py [--only a,b] [--passes 10] [--quick] [--merge] [--split peers] [--list]

(``--check`` too). Writes benchmarks/results/topics.{md,json} (``--quick``: topics_quick.{md,json}).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data" / "wiki"
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(HERE))

import topic_peers  # noqa: E402
from _rss import peak_rss_mib  # noqa: E402

TARGETS = (-7.90, -7.86)
GIBBS_FACTOR = 20  # Gibbs sweeps per VB pass of budget (peers.md: 10 passes vs 200 sweeps)
QUICK_TRAIN, QUICK_TEST, QUICK_PASSES = 1500, 200, 3
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")

# ------------------------------------------------------------------------------------------ evaluator
def peers_md_split(X, mode="tokens", heldout_fraction=0.5, seed=1):
    """The split of peers.md section 3.2 exactly: each document's tokens (column order, repeated by
    count) permuted by one ``RandomState(seed)`` drawn over the documents in order, then cut: the first
    ``N - ceil(N f)`` observed, the rest held out (wiki: 145,429 / 145,842; unigram -8.2733 as in peers.md).
    Used by ``--split peers``."""
    if mode != "tokens":
        raise ValueError("peers_md_split supports mode='tokens' only")
    X = sp.csr_matrix(X)
    rng = np.random.RandomState(seed)
    parts = {True: ([], [], []), False: ([], [], [])}
    for d, (a, b) in enumerate(zip(X.indptr[:-1], X.indptr[1:])):
        tokens = np.repeat(X.indices[a:b], X.data[a:b].astype(np.int64))
        tokens = tokens[rng.permutation(len(tokens))]
        n_obs = len(tokens) - int(math.ceil(len(tokens) * heldout_fraction))
        for observed, chunk in ((True, tokens[:n_obs]), (False, tokens[n_obs:])):
            words, counts = np.unique(chunk, return_counts=True)
            rows, cols, vals = parts[observed]
            rows.append(np.full(len(words), d)), cols.append(words), vals.append(counts)
    out = []
    for observed in (True, False):
        rows, cols, vals = (np.concatenate(x) for x in parts[observed])
        out.append(sp.csr_matrix((vals.astype(np.float64), (rows, cols)), shape=X.shape))
    return out[0], out[1]


from stickbreak.evaluate.topics import completion_from_split, split_documents  # noqa: E402

EVALUATOR = "stickbreak.evaluate.topics (split_documents, completion_from_split)"


SPLITS = {"stickbreak": split_documents, "peers": peers_md_split}


# ------------------------------------------------------------------------------------------------ data
def load_split(quick: bool = False, split: str = "stickbreak") -> dict:
    z = np.load(DATA / "bow.npz")
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
    order = np.random.RandomState(0).permutation(X.shape[0])
    n_test = int(round(0.1 * X.shape[0]))
    train_rows, test_rows = order[:-n_test], order[-n_test:]
    if quick:
        train_rows, test_rows = train_rows[:QUICK_TRAIN], test_rows[:QUICK_TEST]
    train, test = X[train_rows], X[test_rows]
    keep = np.asarray(train.sum(axis=0)).ravel() > 0
    train, test = sp.csr_matrix(train[:, keep]), sp.csr_matrix(test[:, keep])
    observed, heldout = SPLITS[split](test, mode="tokens", heldout_fraction=0.5, seed=1)
    return {"train": train, "observed": sp.csr_matrix(observed), "heldout": sp.csr_matrix(heldout),
            "describe": {"corpus": "wiki" + (" (--quick subset)" if quick else ""), "split": split,
                         "train_docs": int(train.shape[0]),
                         "train_tokens": int(train.sum()), "V": int(train.shape[1]), "test_docs": int(test.shape[0]),
                         "observed_tokens": int(observed.sum()), "heldout_tokens": int(heldout.sum())}}


def unigram_baseline(data) -> dict:
    freq = np.asarray(data["train"].sum(axis=0), dtype=np.float64).ravel() + 0.01
    score = completion_from_split(freq[None, :], data["observed"], data["heldout"])
    return {"per_word": score.per_word, "perplexity": score.perplexity}


# ---------------------------------------------------------------------------------------------- ours
def _callbacks(callback):
    """Our estimators call ``callback(lap_record, params)``; the harness wants the (K, V) topics."""
    return None if callback is None else [lambda record, params: callback(record, params.topic_word)]


def _ours_lda(algorithm, **extra):
    def make(passes, callback):
        import stickbreak

        return stickbreak.LDA(n_topics=20, doc_topic_prior=0.1, topic_word_prior=0.01, algorithm=algorithm,
                              max_laps=passes, tol=0.0, random_state=0, callbacks=_callbacks(callback), **extra)
    return make


def _ours_hdp(**extra):
    def make(passes, callback):
        import stickbreak

        kwargs = dict(n_topics=100, concentration=10.0, doc_topic_prior=0.5, topic_word_prior=0.01,
                      algorithm="memoized", n_batches=8, max_laps=passes, tol=0.0, random_state=0,
                      callbacks=_callbacks(callback))
        kwargs.update(extra)
        return stickbreak.HDPTopicModel(**kwargs)
    return make


#: Our configurations: name -> (family, factory(passes, callback) -> unfitted estimator). Add variants here.
OURS = {
    "ours_lda_vb": ("lda", _ours_lda("vb")),
    "ours_lda_vb_plain": ("lda", _ours_lda("vb", algorithm_options={"local_accelerate": False})),
    "ours_lda_svi": ("lda", _ours_lda("stochastic", n_batches=56)),  # batch size 128, as sk_online
    "ours_hdp_memo": ("hdp", _ours_hdp()),
}


def ours_available(name: str) -> str | None:
    """None if the stickbreak estimator of configuration ``name`` imports, else the reason it does not."""
    cls = "LDA" if OURS[name][0] == "lda" else "HDPTopicModel"
    try:
        getattr(__import__("stickbreak"), cls)
    except Exception as exc:  # noqa: BLE001
        return f"stickbreak.{cls} not importable ({type(exc).__name__}: {exc})"
    return None


def _ours_topics_out(est, K):
    for attr in ("n_topics_", "n_active_topics_", "n_topics_used_", "n_active_components_"):
        if hasattr(est, attr):
            return int(getattr(est, attr)), f"{attr}"
    for attr in ("topic_counts_", "component_counts_", "topic_token_counts_"):
        if hasattr(est, attr):
            return int(np.sum(np.asarray(getattr(est, attr)) >= 1.0)), f"{attr} >= 1 token"
    return K, "K (no usage attribute found on the estimator)"


def run_ours(name, X, passes, on_snapshot=None, snapshot_at=None, threads=1) -> topic_peers.PeerRun:
    family, make = OURS[name]
    with threadpool_limits(limits=threads, user_api="blas"):
        warm = X[: min(200, X.shape[0])]
        make(1, None).fit(warm[:, :])  # untimed: numba compilation
    clock = topic_peers.Clock(on_snapshot, snapshot_at)
    laps = []

    def callback(record, topic_word):
        laps.append(getattr(record, "lap", None))
        if clock.wants(len(laps)) or len(laps) == passes:
            clock.snapshot(len(laps), lambda: topic_word)

    est = make(passes, callback)
    with threadpool_limits(limits=threads, user_api="blas"):
        clock.start()
        est.fit(X)
        fit_cpu, fit_wall = clock.elapsed()
    K = clock.snapshots[-1][3]["K"] if clock.snapshots and isinstance(clock.snapshots[-1][3], dict) else None
    topics_out, note = _ours_topics_out(est, K)
    return topic_peers.PeerRun(clock.snapshots, fit_cpu, fit_wall, topics_out=topics_out, topics_out_note=note,
                               extra={"laps_reported": laps, "stop_reason": str(getattr(est, "stop_reason_", ""))})


# --------------------------------------------------------------------------------------------- configs
def all_configs() -> dict:
    """name -> (library, kind 'vb'|'gibbs', family 'lda'|'hdp')."""
    out = {name: (topic_peers.LIBRARY[name.split("_")[0]], kind, family)
           for name, (_, kind, family) in topic_peers.RUNNERS.items()}
    out.update({name: ("stickbreak", "vb", family) for name, (family, _) in OURS.items()})
    return out


def gibbs_grid(sweeps: int) -> list[int]:
    grid = set(range(1, 21)) | set(range(25, 101, 5)) | set(range(110, sweeps + 1, 10)) | {sweeps}
    return sorted(p for p in grid if p <= sweeps)


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items() if k != "model"}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def _load() -> str:
    return "/".join(f"{v:.2f}" for v in os.getloadavg())


def _rss_mb() -> float:
    return peak_rss_mib()


def run_one(name: str, passes: int, quick: bool, threads: int, split: str = "stickbreak") -> dict:
    """One configuration in this (fresh) process; returns the JSON-able result."""
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    library, kind, family = all_configs()[name]
    out = {"name": name, "library": library, "kind": kind, "family": family, "evaluator": EVALUATOR,
           "started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "load_start": _load()}
    data = load_split(quick, split)
    out["data"] = data["describe"]
    budget = passes * (GIBBS_FACTOR if kind == "gibbs" else 1)
    snapshot_at = gibbs_grid(budget) if kind == "gibbs" else None
    eval_cpu = [0.0]

    def on_snapshot(p, topic_word):
        t = time.process_time()
        score = completion_from_split(topic_word, data["observed"], data["heldout"])
        eval_cpu[0] += time.process_time() - t
        return {"per_word": float(score.per_word), "perplexity": float(score.perplexity), "K": int(topic_word.shape[0])}

    def log(p, cpu, wall, value):
        print(f"  {name} pass {p}: cpu {cpu:.2f} s, wall {wall:.2f} s, held-out {value['per_word']:.4f}, "
              f"K {value['K']}", flush=True)

    out["rss_at_fit_start_mb"] = _rss_mb()
    if name in OURS:
        reason = ours_available(name)
        if reason is not None:
            out["skipped"] = reason
            return out
        run = run_ours(name, data["train"], budget, on_snapshot, snapshot_at, threads)
    else:
        run = topic_peers.RUNNERS[name][0](data["train"], topic_peers.Settings(), budget, on_snapshot, snapshot_at)
    out["peak_rss_mb"] = _rss_mb()
    for p, cpu, wall, value in run.snapshots:
        log(p, cpu, wall, value)
    out.update({
        "budget": budget, "budget_unit": "sweeps" if kind == "gibbs" else "passes",
        "snapshots": [{"pass": p, "cpu_s": cpu, "wall_s": wall, **value} for p, cpu, wall, value in run.snapshots],
        "fit_cpu_s": run.fit_cpu_s, "fit_wall_s": run.fit_wall_s, "prep_cpu_s": run.prep_cpu_s,
        "prep_wall_s": run.prep_wall_s, "topics_out": run.topics_out, "topics_out_note": run.topics_out_note,
        "extra": _jsonable(run.extra), "eval_cpu_s": eval_cpu[0], "load_end": _load(),
    })
    return out


# ---------------------------------------------------------------------------------------------- report
def _row_at(res, p):
    return next((s for s in res["snapshots"] if s["pass"] == p), None)


def cpu_to_target(res, target):
    hit = next((s for s in res.get("snapshots", []) if s["per_word"] >= target), None)
    return None if hit is None else hit["cpu_s"]


def table_rows(results: dict, passes: int) -> list[tuple[str, dict, dict]]:
    """(label, result, snapshot) for every reported row: the final pass, plus P sweeps for Gibbs runs."""
    rows = []
    for name, res in results.items():
        if not res.get("snapshots"):
            continue
        final = res["snapshots"][-1]
        if res["kind"] == "gibbs" and final["pass"] != passes and _row_at(res, passes) is not None:
            rows.append((f"{name} @{passes}", res, _row_at(res, passes)))
        rows.append((name, res, final))
    return rows


def _fmt(x, spec, missing="–"):
    return missing if x is None else format(x, spec)


def markdown(payload: dict) -> str:
    meta, results, data = payload["meta"], payload["results"], payload["meta"]["data"]
    P = meta["passes"]
    tok, docs = data["train_tokens"], data["train_docs"]
    lines = [
        "# Topic models side by side: stickbreak vs scikit-learn, gensim, tomotopy (wiki)",
        "",
        f"Command: `{meta['command']}` ({meta['date']})  ",
        f"Machine: {meta['machine']}; load average (1/5/15 min) at start {meta['load_start']}, at end "
        f"{meta['load_end']}  ",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()) + "  ",
        f"Evaluator: {meta['evaluator']}  ",
        f"Data: {data['corpus']}: {docs:,} train docs, {tok:,} train tokens, V={data['V']:,}; "
        f"{data['test_docs']} test docs, "
        f"{data['observed_tokens']:,} observed / {data['heldout_tokens']:,} held-out tokens (split: {data['split']}). "
        f"Unigram baseline held-out LL/word = {meta['unigram']['per_word']:.4f} (perplexity "
        f"{meta['unigram']['perplexity']:.0f}).",
        "",
        "Protocol (peers.md §3.2; details in the docstrings of `benchmarks/topics.py` and `topic_peers.py`): "
        "K=20, α=0.1, η=0.01 for every LDA, seed 0, no hyper-parameter optimisation, other settings library "
        "defaults; HDPs at library defaults. Held-out score = document completion (θ from the observed half of each "
        "test document, Φ fixed; mean log p per held-out token, nats). One fresh process per row; BLAS and all "
        "thread pools pinned to 1, tomotopy `workers=1`. CPU = process CPU s, wall = wall s, both cumulative over "
        "the training calls only, evaluation excluded (clock stopped at each per-pass snapshot). "
        f"Budget: {P} VB passes/laps; Gibbs (tomotopy) {P * GIBBS_FACTOR} sweeps, with a row at {P} sweeps too.",
        "",
        "| run | passes / sweeps | CPU s | wall s | fit-call CPU s | M tokens / CPU-s (per pass) | docs / "
        "CPU-s | topics out "
        f"| held-out LL/word | perplexity | peak RSS MB (at fit start) | CPU s to {TARGETS[0]:.2f} | CPU "
        f"s to {TARGETS[1]:.2f} | load start/end |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, res, s in table_rows(results, P):
        final = s is res["snapshots"][-1]
        live = dict(map(tuple, res["extra"].get("live_k_by_pass", [])))
        topics = res["topics_out"] if final else live.get(s["pass"], res["topics_out"])
        lines.append(
            f"| {label} | {s['pass']} | {s['cpu_s']:.2f} | {s['wall_s']:.2f} | "
            f"{_fmt(res['fit_cpu_s'] if final else None, '.2f')} "
            f"| {tok * s['pass'] / s['cpu_s'] / 1e6:.2f} | {docs * s['pass'] / s['cpu_s']:,.0f} | {topics} "
            f"| {s['per_word']:.4f} | {s['perplexity']:.0f} | {res['peak_rss_mb']:.0f} "
            f"({res['rss_at_fit_start_mb']:.0f}) | "
            + " | ".join(_fmt(cpu_to_target(res, t), ".2f", "not reached") for t in TARGETS)
            + f" | {res['load_start'].split('/')[0]}/{res['load_end'].split('/')[0]} |")
    for name, res in results.items():
        if res.get("skipped") or res.get("error"):
            lines.append(f"| {name} | – | | | | | | | | | | | | skipped: {res.get('skipped') or res.get('error')} |")
    lines += ["", "Topics out: LDA = K; gensim HDP = its fixed truncation T (rows of `get_topics()`; "
                  "gensim has no notion of "
              "used topics); tomotopy HDP = `live_k` (Φ uses live topics only); ours = topics with at least one token "
              "(see `topics_out_note` in the JSON). fit-call CPU s = the whole library call (e.g. sklearn "
              "`fit` ends with "
              "an extra E-step for its training bound), the CPU column only the passes. Peak RSS is the whole child "
              "process (data, split, fit, scoring).", "",
              "Peers (exact calls in `topic_peers.py`): `sk_batch`/`sk_online` = scikit-learn "
              "`LatentDirichletAllocation` "
              "batch / online (batch_size 128); per-pass snapshots from one `fit` (batch: an observing wrapper around "
              "`_em_step`) or `partial_fit` once per pass with `total_samples=D` (online), both "
              "bit-identical to a plain "
              "`fit(max_iter=P)` (`topics.py --check`). `gensim_online` = `LdaModel` (chunksize 2000, iterations 50, "
              "`eval_every=None`: gensim's default in-training perplexity logging is evaluation, +31 % CPU), snapshots "
              "from a per-epoch callback `Metric`. `gensim_hdp` = `HdpModel` defaults (T=150, K=15, α=γ=1, κ=1, τ=64, "
              "chunksize 256), `max_chunks = P·⌈D/256⌉`. `tp_lda` = tomotopy `LDAModel` (`optim_interval=0`), "
              "`tp_hdp` = `HDPModel(initial_k=2, α=0.1, γ=0.1, η=0.01)` with default hyper-parameter optimisation; "
              "`train(n, workers=1)` in increments (identical to one call).", ""]

    # curves
    lines += ["## Held-out LL/word by pass (cumulative CPU s)", "", "| run | curve |", "|---|---|"]
    for name, res in results.items():
        if not res.get("snapshots"):
            continue
        if res["kind"] == "gibbs":
            keep = {1, 2, 5, 10, 20, 50, 100, 150, 200, 300, 400, res["snapshots"][-1]["pass"]}
        else:
            keep = {s["pass"] for s in res["snapshots"]}
        lines.append(f"| {name} | " + " · ".join(f"{s['pass']}: {s['per_word']:.4f} ({s['cpu_s']:.1f})"
                                                 for s in res["snapshots"] if s["pass"] in keep) + " |")
    lines.append("")

    # ratios
    ours = [n for n, r in results.items() if r.get("library") == "stickbreak" and r.get("snapshots")]
    peers = [n for n, r in results.items() if r.get("library") != "stickbreak" and r.get("snapshots")]
    lines += ["## Ratios (ours vs each peer)", ""]
    if not ours:
        lines += ["No stickbreak configuration in this run"
                  + (f" ({next(r['skipped'] for n, r in results.items() if r.get('skipped'))})"
                     if any(r.get("skipped") for r in results.values()) else "") + ".", ""]
    else:
        lines += ["Throughput = our tokens per CPU-s per pass ÷ the peer's (final rows; >1: ours faster per pass). "
                  "CPU to target = the peer's CPU s to reach the target ÷ ours (>1: ours reaches it sooner).", "",
                  "| ours | peer | throughput ratio | "
                  + " | ".join(f"CPU to {t:.2f}: peer ÷ ours" for t in TARGETS) + " |",
                  "|---|---|---:|" + "---:|" * len(TARGETS)]

        def rate(res):
            s = res["snapshots"][-1]
            return s["pass"] / s["cpu_s"]

        for o in ours:
            for p in peers:
                cells = []
                for t in TARGETS:
                    a, b = cpu_to_target(results[p], t), cpu_to_target(results[o], t)
                    cells.append(f"{a / b:.2f}" if a is not None and b is not None else
                                 f"peer n/r, ours {b:.1f} s" if b is not None else
                                 f"ours n/r, peer {a:.1f} s" if a is not None else "neither")
                lines.append(f"| {o} | {p} | {rate(results[o]) / rate(results[p]):.2f} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["Per-pass snapshots, settings and notes for every run: `topics.json` (same name as this file)."]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------ main
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="comma-separated configuration names (default: all)")
    parser.add_argument("--passes", type=int, default=None, help=f"VB passes (default 10, --quick {QUICK_PASSES}); "
                        f"Gibbs sweeps = {GIBBS_FACTOR} x passes")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke test: {QUICK_TRAIN} train / {QUICK_TEST} test docs")
    parser.add_argument("--merge", action="store_true", help="keep earlier results of configurations not run now")
    parser.add_argument("--threads", type=int, default=1, help="thread-pool size for ours (peers always 1)")
    parser.add_argument("--out", default=None, help="output path without suffix")
    parser.add_argument("--split", choices=list(SPLITS), default="stickbreak",
                        help="test-token split: ours (stickbreak.evaluate.topics.split_documents, "
                             "default) or peers.md's "
                             "exact RandomState(1) split")
    parser.add_argument("--list", action="store_true", help="list configuration names and exit")
    parser.add_argument("--check", action="store_true", help="check that the peers' per-pass snapshot runs equal plain "
                        "one-call fits (600 training docs, 3 passes) and exit")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--json-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    passes = args.passes or (QUICK_PASSES if args.quick else 10)
    configs = all_configs()
    if args.list:
        for name, (lib, kind, family) in configs.items():
            print(f"{name:16s} {lib:12s} {family} ({kind})")
        return

    if args.check:
        train = load_split(True, args.split)["train"][:600]
        train = sp.csr_matrix(train[:, np.asarray(train.sum(axis=0)).ravel() > 0])
        print("max |snapshot - plain fit| of the normalised topic-word matrices:",
              topic_peers.check_equivalence(train, 3))
        return

    if args.one:  # child
        try:
            result = run_one(args.one, passes, args.quick, args.threads, args.split)
        except Exception as exc:  # noqa: BLE001
            result = {"name": args.one, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        Path(args.json_out).write_text(json.dumps(result, indent=1))
        return

    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(configs)
    unknown = [n for n in names if n not in configs]
    if unknown:
        parser.error(f"unknown configuration(s) {unknown}; known: {list(configs)}")
    out_path = Path(args.out) if args.out else RESULTS / ("topics_quick" if args.quick else "topics")
    meta = {
        "command": "python benchmarks/topics.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "load_start": _load(), "passes": passes, "quick": args.quick, "evaluator": EVALUATOR,
        "threads_ours": args.threads,
    }
    import stickbreak

    meta["versions"] = {"stickbreak": stickbreak.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
                        **topic_peers.library_versions()}
    data = load_split(args.quick, args.split)
    meta["data"] = data["describe"]
    meta["unigram"] = unigram_baseline(data)
    print(f"data: {meta['data']}\nunigram baseline: {meta['unigram']['per_word']:.4f}\nevaluator: {EVALUATOR}",
          flush=True)

    results = {}
    if args.merge and out_path.with_suffix(".json").exists():
        previous = json.loads(out_path.with_suffix(".json").read_text())
        if previous["meta"]["passes"] == passes and previous["meta"]["data"] == meta["data"]:
            results = {n: r for n, r in previous["results"].items() if n not in names}
        else:
            print("--merge: earlier results use other passes or data; not merged", flush=True)
    env = dict(os.environ, **{k: "1" for k in THREAD_ENV})
    if args.threads != 1:
        env.update({k: str(args.threads) for k in THREAD_ENV})
    env["PYTHONWARNINGS"] = "ignore::DeprecationWarning"
    for name in names:
        reason = ours_available(name) if name in OURS else None
        if reason is not None:
            print(f"SKIPPED {name}: {reason}", flush=True)
            results[name] = {"name": name, "library": "stickbreak", "skipped": reason}
            continue
        print(f"== {name}", flush=True)
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
            json_out = tmp.name
        cmd = [sys.executable, str(Path(__file__).resolve()), "--one", name, "--passes", str(passes),
               "--json-out", json_out, "--threads", str(args.threads), "--split", args.split]
        cmd += ["--quick"] if args.quick else []
        proc = subprocess.run(cmd, env=env)
        try:
            res = json.loads(Path(json_out).read_text())
        except Exception as exc:  # noqa: BLE001
            res = {"name": name, "error": f"child exited {proc.returncode}, no result ({exc})"}
        finally:
            Path(json_out).unlink(missing_ok=True)
        if res.get("error"):
            print(res.get("traceback", res["error"]), flush=True)
        results[name] = res
    order = list(configs)
    results = dict(sorted(results.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
    meta["load_end"] = _load()
    payload = {"meta": meta, "results": results}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.with_suffix(".json").write_text(json.dumps(payload, indent=1))
    text = markdown(payload)
    out_path.with_suffix(".md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
