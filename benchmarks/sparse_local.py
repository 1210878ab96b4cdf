"""L-sparse local steps against the dense step: time per pass and held-out score against L (Hughes
2016 thesis, ch. 7, Figs. 7.3-7.6).

Protocol:

* ``patches``: 8x8 grey patches (DC removed) of the ``natural_images`` photos, the thesis's
  zero-mean Gaussian mixture: ``--n-train`` patches from ``sklearn_china``, ``skimage_astronaut``,
  ``skimage_coffee``, ``skimage_chelsea`` (equal shares, seed 0) and ``--n-test`` held-out patches
  from ``sklearn_flower`` and ``skimage_rocket``. ``DPMixture(obs_model="zero_mean_gauss")``, memoized
  VI over 4 batches, no moves (``moves=()``), k-means++ start (the same for every L), ``--laps`` laps. Score: mean
  held-out log predictive density per patch (nats).
* ``wiki``, ``20newsgroups``: ``benchmarks/topic_moves.py``'s split (10% of documents held out, each
  split in half by tokens). Models in ``--models``: ``hdp`` is ``HDPTopicModel`` (concentration 10,
  doc-topic prior 0.5, topic-word prior 0.1: the thesis's), ``lda`` is ``LDA`` (doc-topic prior
  0.5/K per topic, topic-word prior 0.1: the thesis's α = 0.5, λ = 0.1); memoized VI over 8
  batches, no moves (LDA has none; the HDP's
  ``moves=()``: the pass times compare local steps), ``--laps`` laps, every
  other option at its default (LDA's dense step runs SQUAREM, the sparse one the plain iteration).
  Score: document completion per held-out word (:func:`stickbreak.evaluate.completion_from_split`),
  nats.
* K in ``--ks``; L in ``--ls`` (``K`` = dense, ``n_active=None``). One process per run, one thread,
  ``--workers`` at a time (1 for the published table). CPU seconds per pass exclude scoring and a
  small untimed warm-up fit (numba compilation), and are the mean over laps 2.. (the first lap carries
  the initialisation). The speed-up is dense CPU per pass / this run's.

Run:  .venv/bin/python benchmarks/sparse_local.py [--datasets patches,wiki,20newsgroups] [--ks 200,800]
Writes benchmarks/results/sparse_local.{json,md}; finished cells are kept and skipped on a rerun.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from _rss import peak_rss_mib  # noqa: E402
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"
TRAIN_IMAGES = ("sklearn_china", "skimage_astronaut", "skimage_coffee", "skimage_chelsea")
TEST_IMAGES = ("sklearn_flower", "skimage_rocket")
TOPIC_PRIOR = dict(concentration=10.0, doc_topic_prior=0.5, topic_word_prior=0.1)


def load_patches(n_train: int, n_test: int, side: int = 8) -> dict:
    from sklearn.feature_extraction.image import extract_patches_2d

    images = np.load(DATA / "natural_images" / "natural_images.npz")

    def patches(names, total, seed):
        parts = []
        for i, name in enumerate(names):
            img = images[name].astype(float) / 255.0
            grey = img.mean(axis=2) if img.ndim == 3 else img
            share = total // len(names) + (i < total % len(names))
            parts.append(extract_patches_2d(grey, (side, side), max_patches=share, random_state=seed + i)
                         .reshape(share, -1))
        x = np.concatenate(parts)
        return x - x.mean(axis=1, keepdims=True)

    return {"train": patches(TRAIN_IMAGES, n_train, 0), "test": patches(TEST_IMAGES, n_test, 100)}


class LapClock:
    """A fit callback: CPU seconds at the end of every lap. A pass is timed from the end of the first
    lap on, so the initialisation (k-means++ for the mixtures) is not counted."""

    def __init__(self):
        self.start, self.ends = time.process_time(), []

    def __call__(self, record, params):
        self.ends.append(time.process_time())

    def summary(self) -> dict:
        laps = np.diff([self.start] + self.ends)
        return {"cpu_s": float(self.ends[-1] - self.start), "laps": len(laps), "lap_cpu_s": laps.tolist(),
                "cpu_per_pass": float(laps[1:].mean() if len(laps) > 1 else laps[0])}


def run_patches(data: dict, K: int, L: int | None, laps: int) -> dict:
    from stickbreak import DPMixture

    def make(max_laps, callbacks=None):
        return DPMixture(n_components=K, obs_model="zero_mean_gauss", n_active=L, algorithm="memoized", n_batches=4,
                         max_laps=max_laps, min_laps=max_laps, tol=0.0, random_state=0, callbacks=callbacks, moves=())

    make(1).fit(data["train"][:2000])  # untimed warm-up (numba compilation)
    clock = LapClock()
    est = make(laps, [clock]).fit(data["train"])
    return {**clock.summary(), "elbo": float(est.elbo_trace_[-1]), "score": est.score(data["test"]),
            "K_used": int(est.n_active_components_)}


def run_topics(data: dict, model: str, K: int, L: int | None, laps: int) -> dict:
    from stickbreak import LDA, HDPTopicModel
    from stickbreak.evaluate import completion_from_split

    def make(max_laps, callbacks=None):
        common = dict(n_topics=K, n_active=L, algorithm="memoized", n_batches=8, max_laps=max_laps, min_laps=max_laps,
                      tol=0.0, random_state=0, callbacks=callbacks)
        if model == "hdp":
            return HDPTopicModel(**common, moves=(), **TOPIC_PRIOR)
        return LDA(**common, doc_topic_prior=TOPIC_PRIOR["doc_topic_prior"] / K,
                   topic_word_prior=TOPIC_PRIOR["topic_word_prior"])

    make(1).fit(data["train"][:200])  # untimed warm-up (numba compilation)
    clock = LapClock()
    est = make(laps, [clock]).fit(data["train"])
    score = completion_from_split(est, data["observed"], data["heldout"]).per_word
    return {**clock.summary(), "elbo": float(est.elbo_trace_[-1]), "score": float(score), "K_used": int(est.n_topics_)}


def run_one(dataset: str, model: str, K: int, L: int | None, args) -> dict:
    warnings.simplefilter("ignore")
    if dataset == "patches":
        out = run_patches(load_patches(args.n_train, args.n_test), K, L, args.laps)
    else:
        from topic_moves import load_corpus

        out = run_topics(load_corpus(dataset), model, K, L, args.laps)
    peak_mib = peak_rss_mib()
    return {"dataset": dataset, "model": model, "K": K, "L": L, **out, "peak_rss_mib": peak_mib, "own_process": True}


def key(dataset: str, model: str, K: int, L: int | None) -> str:
    return f"{dataset}|{model}|{K}|{'dense' if L is None else L}"


def markdown(payload: dict) -> str:
    rows = payload["rows"]
    lines = ["# L-sparse local steps against the dense step (Hughes 2016, ch. 7)", "",
             f"Generated {payload['generated']} by "
             + ", ".join(f"`{c}`" for c in sorted({r["command"] for r in rows.values()}))
             + f"; load average {payload.get('load', 'n/a')} at the start of the last run.", "",
             "CPU seconds per pass (one thread, scoring excluded), speed-up against the dense run of the same "
             "model and K (dense CPU / this run's CPU), held-out score (patches: log predictive density per patch; "
             "text: document completion per held-out word, nats), components used after the last pass, and the "
             "peak resident memory of the row's own process (n/a: a row run when processes were shared).", ""]
    groups = sorted({(r["dataset"], r["model"], r["K"]) for r in rows.values()},
                    key=lambda g: (["patches", "wiki", "20newsgroups"].index(g[0]), g[1], g[2]))
    for dataset, model, K in groups:
        dense = rows.get(key(dataset, model, K, None))
        title = dataset if dataset == "patches" else f"{dataset}, {model.upper()}"
        lines += [f"## {title}, K = {K}", "", "| L | CPU s / pass | speed-up | held-out | final ELBO | "
                                              "used | peak RSS MiB |",
                  "|---:|---:|---:|---:|---:|---:|---:|"]
        cells = sorted((r for r in rows.values() if (r["dataset"], r["model"], r["K"]) == (dataset, model, K)),
                       key=lambda r: np.inf if r["L"] is None else r["L"])
        for r in cells:
            ratio = f"{dense['cpu_per_pass'] / r['cpu_per_pass']:.2f}×" if dense else "n/a"
            label = "K (dense)" if r["L"] is None else str(r["L"])
            rss = f"{r['peak_rss_mib']:.0f}" if r.get("own_process") else "n/a"  # rows run before one process per row
            lines.append(f"| {label} | {r['cpu_per_pass']:.2f} | {ratio} | {r['score']:.4f} | {r['elbo']:.6g} "
                         f"| {r['K_used']} | {rss} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="patches,wiki,20newsgroups")
    ap.add_argument("--models", default="hdp,lda", help="text models (patches: always the Gaussian mixture)")
    ap.add_argument("--ks", default="200,800")
    ap.add_argument("--ls", default="1,4,8,16,K")
    ap.add_argument("--laps", type=int, default=3)
    ap.add_argument("--n-train", type=int, default=20_000)
    ap.add_argument("--n-test", type=int, default=5_000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--rerun", action="store_true",
                    help="recompute the rows already in the results (default: skip them)")
    args = ap.parse_args(argv)
    out_json = RESULTS / "sparse_local.json"
    payload = json.loads(out_json.read_text()) if out_json.exists() else {"rows": {}}
    payload["load"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    jobs = [(d, "gmm" if d == "patches" else m, int(k), None if l == "K" else int(l))
            for d in args.datasets.split(",") for m in (["gmm"] if d == "patches" else args.models.split(","))
            for k in args.ks.split(",") for l in args.ls.split(",")]
    if not args.rerun:
        jobs = [j for j in jobs if key(*j) not in payload["rows"]]
    # a fresh process per row: its peak resident memory is the row's own
    with ProcessPoolExecutor(max_workers=args.workers, mp_context=multiprocessing.get_context("spawn"),
                             max_tasks_per_child=1) as pool:
        futures = {pool.submit(run_one, d, m, k, l, args): (d, m, k, l) for d, m, k, l in jobs}
        for future in as_completed(futures):
            row = future.result()
            row["command"] = "python benchmarks/sparse_local.py " + " ".join(argv or sys.argv[1:])
            row_key = key(row["dataset"], row["model"], row["K"], row["L"])
            payload["rows"][row_key] = row
            payload["generated"] = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            out_json.write_text(json.dumps(payload, indent=1))
            print(f"{row_key}: {row['cpu_per_pass']:.2f} s/pass, held-out {row['score']:.4f}, used {row['K_used']}",
                  flush=True)
    (RESULTS / "sparse_local.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
