"""The thesis's toy experiments for memoized VI with moves (Hughes 2016, §4.4, Figs. 4.5 and 4.6).

(a) Delete vs merge: 25,000 draws from N(0, 1), DP concentration 10, prior variance 1, full-data
    memoized VI (one batch) from K = 5. For each seed: merges only, then merges and deletes, from the
    same start. Reports where merges stall and whether a delete is accepted where merges are rejected.
(b) Edge patches: 100,000 zero-mean 5x5 patches from 8 equiprobable edge clusters
    (``stickbreak.datasets.synthetic.make_edge_patches``), 100 batches of 1,000, 10 seeds.
    Memoized + birth/merge/delete from K = 1 against fixed-K = 25 runs from random examples (the
    thesis's "10 fixed random inits"): stochastic VI
    at three step-size settings (the thesis's (kappa, tau) = (0.5, 10), (0.5, 100), (0.9, 10), with
    kappa = 0.5 replaced by 0.55 because Robbins-Monro needs kappa > 0.5), memoized and batch VB.
    A true cluster counts as found when one learned cluster holds at least 80% of its patches and is
    at least 80% made of them.

Every row (a seed of (a); a method and seed of (b)) runs in a fresh process: its peak RSS is the
row's own ((b): the table shows the largest over seeds). (b) fits after an untimed one-lap fit on
2,000 patches there (numba's kernels).

Run:  .venv/bin/python benchmarks/mixture_toys.py [--seeds 10] [--laps 40]
Writes benchmarks/results/mixture_toys.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from _rss import in_fresh_process, rss_cell
from stickbreak import DPMixture
from stickbreak.datasets.synthetic import make_edge_patches

RESULTS = Path(__file__).resolve().parent / "results"


def clusters_found(labels_true, labels_pred, threshold=0.8) -> int:
    found = 0
    for k in np.unique(labels_true):
        members = labels_pred[labels_true == k]
        values, counts = np.unique(members, return_counts=True)
        j = values[np.argmax(counts)]
        purity = np.mean(labels_true[labels_pred == j] == k)
        found += counts.max() / len(members) >= threshold and purity >= threshold
    return int(found)


def delete_vs_merge_row(seed: int) -> dict:
    """(a) for one seed (in a fresh process: :func:`delete_vs_merge`)."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    X = np.random.default_rng(0).normal(size=(25000, 1))
    common = dict(n_components=5, concentration=10.0, obs_prior={"covariance": 1.0}, algorithm="memoized",
                  init="random", tol=1e-9, max_laps=60)
    merges = DPMixture(moves=("merge",), random_state=seed, **common).fit(X)
    both = DPMixture(moves=("merge", "delete"), random_state=seed, **common).fit(X)
    late = merges.trace_[-20:]
    return {
        "seed": seed,
        "merge_only_K": merges.n_active_components_,
        "merge_only_elbo": merges.lower_bound_,
        "merges_rejected_late": sum(r["moves"]["merge"]["tried"] - r["moves"]["merge"]["accepted"] for r in late),
        "merges_accepted_late": sum(r["moves"]["merge"]["accepted"] for r in late),
        "with_delete_K": both.n_active_components_,
        "with_delete_elbo": both.lower_bound_,
        "deletes_accepted": sum(1 for m in both.move_log_ if m["kind"] == "delete"),
    }


def delete_vs_merge(seeds: int) -> list[dict]:
    rows = []
    for seed in range(seeds):
        rows.append(in_fresh_process(delete_vs_merge_row, seed))
        print("delete-vs-merge", rows[-1], flush=True)
    return rows


EDGE_METHODS = {
    "memoized + birth/merge/delete, K=1": dict(n_components=1, algorithm="memoized",
                                               moves=("birth", "merge", "delete")),
    "stochastic K=25 (kappa=0.55, tau=10)": dict(
        n_components=25, algorithm="stochastic",
        algorithm_options=dict(learning_rate_decay=0.55, learning_rate_delay=10.0)),
    "stochastic K=25 (kappa=0.55, tau=100)": dict(
        n_components=25, algorithm="stochastic",
        algorithm_options=dict(learning_rate_decay=0.55, learning_rate_delay=100.0)),
    "stochastic K=25 (kappa=0.9, tau=10)": dict(n_components=25, algorithm="stochastic",
                                                 algorithm_options=dict(learning_rate_decay=0.9,
                                                                        learning_rate_delay=10.0)),
    "memoized K=25": dict(n_components=25, algorithm="memoized"),
    "batch VB K=25": dict(n_components=25, algorithm="vb"),
}
for _options in EDGE_METHODS.values():  # the thesis starts fixed-K runs from random examples
    if _options["n_components"] > 1:
        _options["init"] = "random"


def edge_patches_row(name: str, seed: int, laps: int) -> dict:
    """(b) for one method and seed (in a fresh process: :func:`edge_patches`)."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    X, labels = make_edge_patches(100_000, seed=0)
    options = EDGE_METHODS[name]
    DPMixture(obs_model="zero_mean_gauss", n_batches=2, max_laps=1, random_state=seed,
              **options).fit(X[:2000])  # untimed
    start = time.perf_counter()
    model = DPMixture(obs_model="zero_mean_gauss", n_batches=100, max_laps=laps, random_state=seed, **options).fit(X)
    return {"method": name, "seed": seed, "seconds": time.perf_counter() - start, "laps": model.n_iter_,
            "elbo": model.lower_bound_, "K_used": model.n_active_components_,
            "found": clusters_found(labels, model.labels_)}


def edge_patches(seeds: int, laps: int) -> list[dict]:
    rows = []
    for name in EDGE_METHODS:
        for seed in range(seeds):
            rows.append(in_fresh_process(edge_patches_row, name, seed, laps))
            print("edge-patches", rows[-1], flush=True)
    return rows


def markdown(delete_rows, edge_rows, meta) -> str:
    lines = ["# Memoized VI with moves: the thesis's toy experiments", "",
             f"Command: `{meta['command']}`  ", f"Total time: {meta['seconds']:.0f} s", "",
             "## (a) 25,000 draws from N(0,1), K=5 at the start (random examples), gamma=10", "",
             "| seed | merges only: K | merges rejected in last 20 laps | accepted | ELBO | with deletes: "
             "K | deletes accepted | ELBO "
             "| peak RSS MiB |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in delete_rows:
        lines.append(f"| {r['seed']} | {r['merge_only_K']} | {r['merges_rejected_late']} | "
                     f"{r['merges_accepted_late']} | "
                     f"{r['merge_only_elbo']:.2f} | {r['with_delete_K']} | {r['deletes_accepted']} | "
                     f"{r['with_delete_elbo']:.2f} "
                     f"| {rss_cell(r)} |")
    stalled = [r for r in delete_rows if r["merge_only_K"] > 1]
    lines += ["", f"Merges alone stalled above K=1 in {len(stalled)} of {len(delete_rows)} seeds "
              f"(at K={sorted({r['merge_only_K'] for r in stalled})}); with deletes, "
              f"{sum(r['with_delete_K'] == 1 for r in delete_rows)} of {len(delete_rows)} reached K=1.", "",
              "## (b) 100,000 edge patches (5x5, 8 clusters), 100 batches", "",
              "| method | runs finding all 8 | mean clusters found | mean K used | mean final ELBO | mean "
              "laps | mean seconds "
              "| peak RSS MiB |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name in EDGE_METHODS:
        rows = [r for r in edge_rows if r["method"] == name]
        if not rows:
            continue
        lines.append(f"| {name} | {sum(r['found'] == 8 for r in rows)}/{len(rows)} | "
                     f"{np.mean([r['found'] for r in rows]):.1f} | "
                     f"{np.mean([r['K_used'] for r in rows]):.1f} | {np.mean([r['elbo'] for r in rows]):.0f} | "
                     f"{np.mean([r['laps'] for r in rows]):.1f} | "
                     f"{np.mean([r['seconds'] for r in rows]):.1f} | {rss_cell(rows)} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--laps", type=int, default=40)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    start = time.perf_counter()
    delete_rows = delete_vs_merge(args.seeds)
    edge_rows = edge_patches(args.seeds, args.laps)
    meta = {"command": "python benchmarks/mixture_toys.py " + " ".join(sys.argv[1:]),
            "seconds": time.perf_counter() - start}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mixture_toys.json").write_text(json.dumps({"meta": meta, "delete_vs_merge": delete_rows,
                                                           "edge_patches": edge_rows}, indent=1))
    text = markdown(delete_rows, edge_rows, meta)
    (RESULTS / "mixture_toys.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
