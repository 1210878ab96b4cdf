"""The blocked Gibbs sampler of Fox et al. (2011, Alg. 3) as the HDP-HMM baseline, and memoized VI
started from its output (Hughes 2016, §6.6: "within minutes, our methods give segmentations closer
to the truth than the sampler, which needs hours").

Data: the thesis's toy (32 sequences x 1000 frames, 8 sticky 2-D Gaussian states, kappa = 50, 8
batches for VI) and the AMI debug clips (19 MFCCs at 100 Hz, about 3000 frames each, one clip at a
time, kappa = 100, Hamming distance over foreground frames only). Rows, each in a fresh process
after an untimed 2-lap fit there (numba's kernels):

* ``gibbs``: ``HDPHMM(algorithm="gibbs")``, weak limit L = 25, its Hamming distance (of the
  sampled states, aligned) and log joint ``log p(x, z | beta)`` at checkpoint sweeps;
* ``memoized (default init, ...)``: ``HDPHMM`` memoized VI from K = 25 contiguous blocks with its
  default moves (birth, merge, delete), and with merge and delete only;
* ``memoized from gibbs@N``: memoized VI with merge and delete moves from the sampler's states
  after N sweeps (``init=`` labels); its CPU seconds count the N sweeps too.

CPU seconds are the fitting process's ``time.process_time`` (scoring at the checkpoints left out).

Run:  .venv/bin/python benchmarks/hmm_sampler.py [--seeds 0,1] [--sweeps 10,100,1000,2000]
      [--from-sweeps 10,100] [--clips N] [--toy-only | --ami-only]
Writes benchmarks/results/hmm_sampler.{json,md}.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from _rss import in_fresh_process, rss_cell
from hmm_common import RESULTS, ami_clip, ami_clips, toy

from stickbreak import HDPHMM
from stickbreak.evaluate import hamming_distance

WEAK_LIMIT = 25
SETTINGS = {"toy": dict(stickiness=50.0, n_batches=8, vi_laps=30, foreground=False),
            "ami": dict(stickiness=100.0, n_batches=1, vi_laps=50, foreground=True)}


def _data(dataset: str, clip: str | None):
    return toy(0) if dataset == "toy" else ami_clip(clip)


def _hamming(labels, states, dataset) -> float:
    return float(hamming_distance(labels, states, foreground_only=SETTINGS[dataset]["foreground"]))


def gibbs_row(dataset: str, clip: str | None, seed: int, checkpoints: list[int]) -> dict:
    """The sampler for max(checkpoints) sweeps; Hamming, log joint and CPU seconds at each checkpoint,
    and the states there (for the rows that start memoized VI from them)."""
    data, labels = _data(dataset, clip)
    kappa = SETTINGS[dataset]["stickiness"]
    HDPHMM(n_states=WEAK_LIMIT, algorithm="gibbs", stickiness=kappa, max_laps=2, random_state=seed).fit(data)
    trace, states_at, scoring = [], {}, [0.0]
    cpu0 = time.process_time()

    def at_checkpoint(record, sample):
        if record.lap in checkpoints:
            t0 = time.process_time()
            trace.append({"sweep": record.lap, "cpu_s": t0 - cpu0 - scoring[0], "log_joint": record.elbo,
                          "hamming": _hamming(labels, sample.states, dataset),
                          "K_used": int(len(np.unique(sample.states)))})
            states_at[record.lap] = np.unique(sample.states, return_inverse=True)[1].astype(np.int64)
            scoring[0] += time.process_time() - t0

    est = HDPHMM(n_states=WEAK_LIMIT, algorithm="gibbs", stickiness=kappa, max_laps=max(checkpoints),
                 random_state=seed, callbacks=[at_checkpoint]).fit(data)
    last = trace[-1]
    return {"dataset": dataset, "clip": clip, "seed": seed, "method": "gibbs", "K": last["K_used"],
            "hamming": last["hamming"], "cpu_s": last["cpu_s"], "elbo": est.elbo_, "trace": trace,
            "states_at": {n: s.tolist() for n, s in states_at.items()}}


def vi_row(dataset: str, clip: str | None, seed: int, start_states=None, start_sweep: int = 0,
           start_cpu: float = 0.0, moves=("birth", "merge", "delete")) -> dict:
    """Memoized VI from the default init with ``moves``, or with merge and delete from given states."""
    data, labels = _data(dataset, clip)
    s = SETTINGS[dataset]
    if start_states is None:
        options = dict(n_states=WEAK_LIMIT, moves=tuple(moves))
        method = f"memoized (default init, {'+'.join(moves)})"
    else:
        start_states = np.asarray(start_states, dtype=np.int64)
        options = dict(n_states=int(start_states.max()) + 1, init=start_states, moves=("merge", "delete"))
        method = f"memoized merge+delete from gibbs@{start_sweep}"
    common = dict(stickiness=s["stickiness"], n_batches=s["n_batches"], random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the untimed warm-up stops after 2 laps
        HDPHMM(**options, **common, max_laps=2).fit(data)
    cpu0 = time.process_time()
    est = HDPHMM(**options, **common, max_laps=s["vi_laps"]).fit(data)
    cpu = time.process_time() - cpu0
    return {"dataset": dataset, "clip": clip, "seed": seed, "method": method, "K": int(est.n_states_),
            "hamming": _hamming(labels, est.predict(data), dataset), "vi_cpu_s": cpu, "cpu_s": start_cpu + cpu,
            "elbo": float(est.elbo_), "laps": int(est.n_iter_)}


def run(dataset: str, clip: str | None, seeds, checkpoints, from_sweeps) -> list[dict]:
    rows = []
    for seed in seeds:
        g = in_fresh_process(gibbs_row, dataset, clip, seed, checkpoints)
        states_at = g.pop("states_at")
        rows.append(g)
        print(f"{dataset} {clip or ''} seed={seed} gibbs: " + ", ".join(
            f"@{t['sweep']} H={t['hamming']:.3f} K={t['K_used']} {t['cpu_s']:.1f}s" for t in g["trace"]), flush=True)
        vi_rows = [in_fresh_process(vi_row, dataset, clip, seed, moves=moves)
                   for moves in (("birth", "merge", "delete"), ("merge", "delete"))]
        for n in from_sweeps:
            cpu = next(t["cpu_s"] for t in g["trace"] if t["sweep"] == n)
            vi_rows.append(in_fresh_process(vi_row, dataset, clip, seed, states_at[n], n, cpu))
        for r in vi_rows:
            print(f"{dataset} {clip or ''} seed={seed} {r['method']}: H={r['hamming']:.3f} K={r['K']} "
                  f"elbo={r['elbo']:.1f} {r['cpu_s']:.1f}s", flush=True)
        rows += vi_rows
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--sweeps", default="10,100,1000,2000")
    parser.add_argument("--from-sweeps", default="10,100")
    parser.add_argument("--clips", type=int, default=None, help="only the first N AMI clips")
    parser.add_argument("--toy-only", action="store_true")
    parser.add_argument("--ami-only", action="store_true")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    checkpoints = sorted(int(n) for n in args.sweeps.split(","))
    from_sweeps = [int(n) for n in args.from_sweeps.split(",")] if args.from_sweeps else []
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()
    rows = []
    if not args.ami_only:
        rows += run("toy", None, seeds, checkpoints, from_sweeps)
    if not args.toy_only:
        uris = [uri for uri, _, _ in ami_clips()][:args.clips]
        for uri in uris:
            rows += run("ami", uri, seeds, checkpoints, from_sweeps)
    meta = {"command": " ".join([".venv/bin/python", "benchmarks/hmm_sampler.py", *sys.argv[1:]]),
            "started_utc": started.isoformat(timespec="seconds"),
            "finished_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "loadavg_start": load_before, "loadavg_end": os.getloadavg(), "cores": os.cpu_count(),
            "weak_limit": WEAK_LIMIT, "settings": SETTINGS}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "hmm_sampler.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    (RESULTS / "hmm_sampler.md").write_text(report(meta, rows))
    print(report(meta, rows))


def _mean(values) -> str:
    return f"{np.mean(values):.3f}"


def report(meta, rows) -> str:
    lines = [f"Command: `{meta['command']}`  ", f"Run {meta['started_utc']} to {meta['finished_utc']} (UTC) on "
             f"{meta['cores']} cores; load average (1, 5, 15 min) {tuple(round(x, 2) for x in meta['loadavg_start'])} "
             f"at the start, {tuple(round(x, 2) for x in meta['loadavg_end'])} at the end.", ""]
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        mine = [r for r in rows if r["dataset"] == dataset]
        clips = list(dict.fromkeys(r["clip"] for r in mine))
        what = "Hamming over all frames" if dataset == "toy" else f"foreground Hamming, mean over {len(clips)} clips"
        lines += [f"## {dataset} ({what}; seeds {sorted({r['seed'] for r in mine})})", "",
                  "| method | Hamming | K | CPU s | ELBO | peak RSS MiB |", "|---|---:|---:|---:|---:|---:|"]
        for method in dict.fromkeys(r["method"] for r in mine):
            rs = [r for r in mine if r["method"] == method]
            if method == "gibbs":
                sweeps = [t["sweep"] for t in rs[0]["trace"]]
                for sweep in sweeps:
                    at = [next(t for t in r["trace"] if t["sweep"] == sweep) for r in rs]
                    elbo = f" (ELBO {np.mean([r['elbo'] for r in rs]):.0f})" if sweep == sweeps[-1] else ""
                    lines.append(f"| gibbs @ {sweep} sweeps | {_mean([t['hamming'] for t in at])} | "
                                 f"{np.mean([t['K_used'] for t in at]):.1f} | "
                                 f"{np.mean([t['cpu_s'] for t in at]):.1f} | "
                                 f"log joint {np.mean([t['log_joint'] for t in at]):.0f}{elbo} | {rss_cell(rs)} |")
                continue
            lines.append(f"| {method} | {_mean([r['hamming'] for r in rs])} | {np.mean([r['K'] for r in rs]):.1f} | "
                         f"{np.mean([r['cpu_s'] for r in rs]):.1f} | "
                         f"{np.mean([r['elbo'] for r in rs]):.0f} | {rss_cell(rs)} |")
        lines.append("")
        if dataset == "ami":
            lines += _per_clip(mine)
    lines.append("ELBO of a gibbs row: the exact ELBO of the variational posterior certain of the last sample's states "
                 "(what HDPHMM(algorithm='gibbs').elbo_ reports); 'log joint': log p(x, z | beta) of the sample.")
    return "\n".join(lines) + "\n"


def _per_clip(rows) -> list[str]:
    methods = list(dict.fromkeys(r["method"] for r in rows))
    names = [("gibbs (last)" if m == "gibbs" else m.replace("memoized ", "VI ")) for m in methods]
    lines = ["Per clip, foreground Hamming (seeds separated by /):", "",
             "| clip | " + " | ".join(names) + " |", "|---|" + "---|" * len(methods)]
    for clip in dict.fromkeys(r["clip"] for r in rows):
        cells = [" / ".join(f"{r['hamming']:.3f}" for r in rows if r["clip"] == clip and r["method"] == m)
                 for m in methods]
        lines.append(f"| {clip} | " + " | ".join(cells) + " |")
    return lines + [""]


if __name__ == "__main__":
    main()
