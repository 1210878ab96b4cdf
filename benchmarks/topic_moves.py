"""HDP topic moves on real corpora (Hughes 2016, §5.6) and side by side with bnpy, tomotopy and gensim.

Reproduction (``--corpus wiki`` and ``--corpus 20newsgroups``): our memoized HDP from K=100 and
K=200 with merge+delete moves against the same run without moves, reporting after every lap the
number of topics (``K``: topics left; ``K_eff``: topics explaining at least one expected token), the
held-out per-word log-likelihood and the cumulative process CPU time.

Side by side (``wiki`` only): bnpy 0.1.7's memoized HDP with merge, delete and shuffle moves from
K=100 (``benchmarks/bnpy/run_hdptopics.py`` in ``/work/bnpy-venv``, built by
``benchmarks/bnpy/recipe.sh``; one batch, since its HDP delete crashes with several), tomotopy's
HDP (collapsed Gibbs, 1,000 sweeps) and gensim's HdpModel (online VB, ``--gensim-passes`` passes).
Ours and bnpy use the thesis's prior (gamma=10, alpha=0.5, topic-word pseudo-count 0.1); tomotopy
and gensim run at the settings of ``benchmarks/topics.py`` (their library defaults).

Protocol: the split and evaluator of ``benchmarks/topics.py`` (documents permuted with
``RandomState(0)``, last 10 % held out, vocabulary restricted to training words, each test
document's tokens split in half; document completion by ``stickbreak.evaluate``), the same code
for every row. 20newsgroups: the same protocol over all 18,821 posts (empty ones dropped). Every
configuration runs in a fresh subprocess with one BLAS/numba thread; snapshot scoring is excluded
from the CPU times. "CPU to bnpy's final" is the CPU time of the first lap of ours whose held-out
score reaches bnpy's final one. Peak RSS: the configuration's subprocess (data, fit, scoring; bnpy: its
own process); per lap, that process's peak so far (the lap's scoring included).

Run:  .venv/bin/python benchmarks/topic_moves.py --corpus wiki [--laps 30] [--only a,b] [--no-peers]
Writes benchmarks/results/topic_moves_<corpus>.{md,json} (with ``--only``, the other rows of an
earlier run are kept).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy.sparse as sp

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"
BNPY_PYTHON = Path("/work/bnpy-venv/bin/python")
sys.path.insert(0, str(HERE))

import topic_peers  # noqa: E402
from _rss import CHILDREN_KEY, KEY, measured, peak_rss_mib, rss_cell, with_children  # noqa: E402
from stickbreak.evaluate import completion_from_split, split_documents  # noqa: E402

PRIOR = dict(concentration=10.0, doc_topic_prior=0.5, topic_word_prior=0.1)  # the thesis's (§5.6)
N_BATCHES = 8
TP_SWEEPS = 1000


def load_corpus(corpus: str) -> dict:
    """``benchmarks/topics.py``'s split applied to ``corpus``: train, observed and held-out halves."""
    z = np.load(SHARED / corpus / "bow.npz")
    return split_corpus(sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"])), corpus)


def split_corpus(X, corpus: str) -> dict:
    """The split of :func:`load_corpus` applied to the counts ``X`` (documents x words)."""
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    order = np.random.RandomState(0).permutation(X.shape[0])
    n_test = int(round(0.1 * X.shape[0]))
    train, test = X[order[:-n_test]], X[order[-n_test:]]
    keep = np.asarray(train.sum(axis=0)).ravel() > 0
    train, test = sp.csr_matrix(train[:, keep]), sp.csr_matrix(test[:, keep])
    observed, heldout = split_documents(test, mode="tokens", heldout_fraction=0.5, seed=1)
    return {"train": train, "observed": sp.csr_matrix(observed), "heldout": sp.csr_matrix(heldout),
            "describe": {"corpus": corpus, "train_docs": train.shape[0], "train_tokens": int(train.sum()),
                         "V": train.shape[1], "test_docs": test.shape[0], "heldout_tokens": int(heldout.sum())}}


def configs(corpus: str) -> dict:
    """name -> (kind, options)."""
    out = {"ours_moves_K100": ("ours", {"n_topics": 100, "moves": ("merge", "delete")}),
           "ours_moves_K200": ("ours", {"n_topics": 200, "moves": ("merge", "delete")}),
           "ours_fixed_K100": ("ours", {"n_topics": 100, "moves": ()})}
    if corpus == "wiki":
        out["bnpy_moves_K100"] = ("bnpy", {"K": 100, "moves": "merge,delete,shuffle"})
    out.update({"tp_hdp": ("tp_hdp", {}), "gensim_hdp": ("gensim_hdp", {})})
    return out


# ------------------------------------------------------------------------------------------- one run
def run_ours(data, options: dict, laps: int, score) -> dict:
    import stickbreak

    def make(max_laps, callbacks):
        return stickbreak.HDPTopicModel(algorithm="memoized", n_batches=N_BATCHES, max_laps=max_laps, tol=0.0,
                                        random_state=0, callbacks=callbacks, **PRIOR, **options)

    make(1, None).fit(data["train"][:200])  # untimed: numba compilation
    trace, excluded = [], [0.0]
    start = time.process_time()

    def callback(record, params):
        t = time.process_time()
        r = record.as_dict()
        trace.append({"lap": r["lap"], "cpu_s": t - start - excluded[0], "K": params.n_components,
                      "K_eff": r["n_effective"], "elbo": r["elbo"], "moves": r.get("moves", {}),
                      "per_word": score(params.topic_word), "peak_rss_mib": peak_rss_mib()})
        print(f"  lap {r['lap']}: K {params.n_components} K_eff {r['n_effective']} held-out "
              f"{trace[-1]['per_word']:.4f} cpu {trace[-1]['cpu_s']:.1f} s {r.get('moves', '')}", flush=True)
        excluded[0] += time.process_time() - t

    est = make(laps, [callback])
    est.fit(data["train"])
    return {"trace": trace, "fit_cpu_s": time.process_time() - start - excluded[0], "K_out": int(est.n_topics_)}


def run_bnpy(data, options: dict, laps: int, score) -> dict:
    if not BNPY_PYTHON.exists():
        return {"skipped": f"{BNPY_PYTHON} missing (run benchmarks/bnpy/recipe.sh)"}
    with tempfile.TemporaryDirectory() as tmp:
        X = data["train"]
        np.savez(f"{tmp}/x.npz", data=X.data, indices=X.indices, indptr=X.indptr, shape=X.shape)
        cmd = [str(BNPY_PYTHON), str(HERE / "bnpy" / "run_hdptopics.py"), "--data", f"{tmp}/x.npz", "--out",
               f"{tmp}/r.npz", "--K", str(options["K"]), "--moves", options["moves"], "--nBatch", "1",
               "--nLap", str(laps), "--seed", "0", "--gamma", str(PRIOR["concentration"]),
               "--alpha", str(PRIOR["doc_topic_prior"]), "--lam", str(PRIOR["topic_word_prior"]),
               "--snapshot-laps", ",".join(str(lap) for lap in range(1, laps + 1))]
        subprocess.run(cmd, check=True)
        r = np.load(f"{tmp}/r.npz", allow_pickle=False)
        keep = ("trace_lap", "trace_K", "trace_loss", "trace_elapsed_sec", "fit_wall_sec", "fit_cpu_sec", "status",
                "n_laps_done", "final_K")
        out = {key: r[key].tolist() for key in keep if key in r.files}
        elapsed = dict(zip(r["trace_lap"].tolist(), r["trace_elapsed_sec"].tolist()))
        trace = [{"lap": int(lap), "K": int(k), "wall_s": elapsed.get(float(lap)),
                  "per_word": score(tw[:k])} for lap, k, tw in zip(r["snap_laps"], r["snap_K"], r["snap_topic_word"])]
        out.update({"trace_scored": trace, "per_word": score(r["topic_word"]), "fit_cpu_s": float(r["fit_cpu_sec"]),
                    "K_out": int(np.sum(r["count_N"] >= 1.0)), "command": " ".join(cmd[1:])})
    return out


def run_peer(name: str, data, passes: int, score) -> dict:
    snapshots = set(range(100, TP_SWEEPS + 1, 100)) if name == "tp_hdp" else None
    budget = TP_SWEEPS if name == "tp_hdp" else passes
    run = topic_peers.RUNNERS[name][0](data["train"], topic_peers.Settings(), budget,
                                      lambda p, tw: {"per_word": score(tw), "K": tw.shape[0]}, snapshots)
    live = dict(run.extra.get("live_k_by_pass", []))
    trace = [{"lap": p, "cpu_s": cpu, "K": live.get(p, value["K"]), "per_word": value["per_word"]}
             for p, cpu, _, value in run.snapshots]
    return {"trace": trace, "fit_cpu_s": run.fit_cpu_s, "K_out": run.topics_out, "K_note": run.topics_out_note,
            "budget": budget}


def run_one(corpus: str, name: str, laps: int, gensim_passes: int) -> dict:
    data = load_corpus(corpus)

    def score(topic_word):
        return float(completion_from_split(topic_word, data["observed"], data["heldout"]).per_word)

    kind, options = configs(corpus)[name]
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if kind == "ours":
        out = run_ours(data, options, laps, score)
    elif kind == "bnpy":
        out = run_bnpy(data, options, laps, score)
    else:
        out = run_peer(kind, data, gensim_passes, score)
    return {"name": name, "kind": kind, "options": {k: v for k, v in options.items()}, "started": started,
            "load": os.getloadavg()[0], "data": data["describe"], **out}


# --------------------------------------------------------------------------------------------- report
def final_score(res: dict):
    return res["trace"][-1]["per_word"] if res.get("trace") else res.get("per_word")


def cpu_to(res: dict, target: float):
    hit = next((t for t in res.get("trace", []) if t["per_word"] >= target), None)
    return None if hit is None else hit["cpu_s"]


def markdown(payload: dict) -> str:
    meta, results = payload["meta"], payload["results"]
    d = meta["data"]
    lines = [f"# HDP topic moves on `{meta['corpus']}`", "",
             f"Last command: `{meta['command']}` ({meta['date']}); rows it did not run are kept from earlier runs "
             "(each row's start date and load average in the table).  ",
             f"Data: {d['train_docs']:,} train docs, {d['train_tokens']:,} tokens, V={d['V']:,}; "
             f"{d['test_docs']} test docs, "
             f"{d['heldout_tokens']:,} held-out tokens. Protocol: docstring of `benchmarks/topic_moves.py`.", "",
             "| run | K at start | K out | held-out LL/word | CPU s | laps / sweeps | started (load) | peak RSS MiB |",
             "|---|---:|---:|---:|---:|---:|---|---:|"]
    for name, res in results.items():
        if res.get("skipped"):
            lines.append(f"| {name} | skipped: {res['skipped']} | | | | | | |")
            continue
        start = res["options"].get("n_topics", res["options"].get("K", "–"))
        n = res["trace"][-1]["lap"] if res.get("trace") else res.get("n_laps_done", "–")
        lines.append(f"| {name} | {start} | {res['K_out']} | {final_score(res):.4f} | {res['fit_cpu_s']:.1f} | {n} | "
                     f"{res.get('started', '–')} ({res.get('load', float('nan')):.2f}) | "
                     f"{rss_cell(res, CHILDREN_KEY if res['kind'] == 'bnpy' else KEY)} |")
    bnpy = results.get("bnpy_moves_K100")
    if bnpy and not bnpy.get("skipped"):
        target = bnpy["per_word"]
        lines += ["", f"bnpy's final held-out score {target:.4f} after {bnpy['fit_cpu_s']:.1f} CPU s."]
        for name in ("ours_moves_K100", "ours_moves_K200"):
            hit = cpu_to(results.get(name, {}), target)
            if hit is not None:
                lines.append(f"- {name} reached it after {hit:.1f} CPU s: bnpy / ours = "
                             f"{bnpy['fit_cpu_s'] / hit:.1f}x.")
            elif name in results:
                lines.append(f"- {name} did not reach it.")
    for name, res in results.items():
        if not res.get("trace") or res["kind"] != "ours":
            continue
        lines += ["", f"## {name}: per lap", "", "| lap | K | K_eff | held-out | CPU s | merges | deletes "
                                                 "| peak RSS MiB |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for t in res["trace"]:
            mv = t.get("moves", {})
            acc = {k: f"{v['accepted']}/{v['tried']}" for k, v in mv.items()}
            lines.append(f"| {t['lap']} | {t['K']} | {t['K_eff']} | {t['per_word']:.4f} | {t['cpu_s']:.1f} | "
                         f"{acc.get('merge', '–')} | {acc.get('delete', '–')} | {rss_cell(t)} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="wiki", choices=["wiki", "20newsgroups", "ap"])
    parser.add_argument("--laps", type=int, default=30)
    parser.add_argument("--gensim-passes", type=int, default=10)
    parser.add_argument("--only", default="")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        run = (with_children,
               run_one) if configs(args.corpus)[args.one][0] == "bnpy" else (run_one,)  # bnpy: a subprocess
        Path(args.out).write_text(json.dumps(measured(*run, args.corpus, args.one, args.laps, args.gensim_passes)))
        return
    names = [n for n in configs(args.corpus) if not args.only or n in args.only.split(",")]
    if args.no_peers:
        names = [n for n in names if n.startswith("ours")]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            print(f"{name} ...", flush=True)
            out = f"{tmp}/{name}.json"
            subprocess.run([sys.executable, __file__, "--corpus", args.corpus, "--laps", str(args.laps),
                            "--gensim-passes", str(args.gensim_passes), "--one", name, "--out", out], check=True)
            results[name] = json.loads(Path(out).read_text())
    command = "python benchmarks/topic_moves.py " + " ".join(sys.argv[1:] if argv is None else argv)
    payload = {"meta": {"command": command,
                        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "corpus": args.corpus,
                        "data": next(iter(results.values()))["data"]},
               "results": results}
    RESULTS.mkdir(exist_ok=True)
    stem = RESULTS / f"topic_moves_{args.corpus}"
    if args.only and stem.with_suffix(".json").exists():  # keep the other rows of an earlier run
        earlier = json.loads(stem.with_suffix(".json").read_text())["results"]
        results = {**{k: v for k, v in earlier.items() if k not in results}, **results}
        payload["results"] = results
    stem.with_suffix(".json").write_text(json.dumps(payload, indent=1))
    stem.with_suffix(".md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
