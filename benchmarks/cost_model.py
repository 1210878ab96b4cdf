"""A cost model of memoized VI's synchronous laps (issue 48), calibrated on this machine with one
worker process, checked against two, and projected to machines we do not have.

One steady lap (``stickbreak.learn.memo_sync``: every batch visited in one call under the lap's
parameters, one global step, the moves) on ``W`` workers, ``N`` items in ``B`` batches held in
``P`` parts (``P = B``: each batch whole on one worker, the default with synchronous laps; or
``P = B W``: every batch split over the workers, ``whole_batches=False``), costs

    T(W) = D + W m / beta + n_calls l + (c N + p P) / W

- ``D``: the driver's serial CPU per lap (global step, exact ELBO, merge screen and trials, births'
  creation, sending and receiving): it does not depend on ``N`` or ``W``;
- ``m``: bytes sent to and received from each worker per lap (the parameters of each call, one
  sum of statistics per call back), at ``beta`` bytes per second through the driver, and ``l``
  the round trip of a call (both measured here on the pipes worker processes use, pickling
  included): time the driver waits for, not CPU it spends;
- ``c``: worker CPU per item per lap (local steps, delete rounds, births' work on the items) and
  ``p`` per part per lap (each part's parameters cut to its features, its statistics over all
  features, its cache written through): the workers compute in parallel, the driver waits.

Calibration (``--key``, default the scaling benchmark's memoized HDP on 20newsgroups, K=100):
steady-lap figures are the differences between a 6-lap and a 2-lap fit (laps 3-6, moves
included), each in a fresh process: 1 worker process with 8 and with 16 batches gives ``c`` and
``p`` (same ``N``, twice the parts), and ``D`` = the 8-batch run's driver CPU per lap. The check:
2 worker processes, 8 batches, predicted from those alone (the measured 2-worker row is never used
to fit), wall and CPU per lap side by side.

Projection: ``N`` = 1M and 10M items in batches of the calibration's size, ``W`` = 1 to 128, ``D``
and the bytes per worker as measured (they depend on ``K`` and ``V``, not ``N``), ``beta`` as
measured here and at 1.25 GB/s (10 Gb Ethernet); parallel efficiency ``T(1) / (W T(W))``, for
both placements: split, the parts and their per-part cost grow with ``W``.

Run:  .venv/bin/python benchmarks/cost_model.py [--key hdp] [--laps 2,6]
Writes benchmarks/results/cost_model_<key>.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

from stickbreak.data import BagOfWords
from stickbreak.parallel import sharded

from _rss import in_fresh_process
from scaling import WORKLOADS, run

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
NETWORK = 1.25e9  # bytes per second: 10 Gb Ethernet
PROJECTED_ITEMS = (10 ** 6, 10 ** 7)
PROJECTED_WORKERS = (1, 2, 8, 32, 128)
WHOLE = "each batch whole on one worker (the default with synchronous laps)"
SPLIT = "each batch split over the W workers (whole_batches=False)"


def measure(key: str, n_batches: int, n_workers: int, laps: int) -> dict:
    """One fit (``laps`` laps, synchronous, on ``n_workers`` worker processes), with the executor's
    calls counted."""
    calls = [0]
    on_parts = sharded.ShardedExecutor.on_parts

    def counted(self, *args, **kwargs):
        calls[0] += 1
        return on_parts(self, *args, **kwargs)

    sharded.ShardedExecutor.on_parts = counted  # this process only (a fresh one per row)
    _, data, make = WORKLOADS[key]
    X = data()
    row = run(lambda laps: make(laps).set_params(n_batches=n_batches), X, laps, "processes", n_workers, True)
    trace_seconds = [0.0] + np.cumsum(row["lap_seconds"]).tolist()
    n_items = X.n_items if isinstance(X, BagOfWords) else len(X)
    return {**row, "calls": calls[0], "n_items": int(n_items), "lap_ends": trace_seconds}


def steady(short: dict, long: dict) -> dict:
    """Per-lap figures of laps ``short+1..long`` from two fits of the same setting."""
    laps = long["laps"] - short["laps"]
    return {"wall": (long["lap_ends"][-1] - long["lap_ends"][short["laps"]]) / laps,
            "driver_cpu": (long["driver_cpu"] - short["driver_cpu"]) / laps,
            "workers_cpu": (long["workers_cpu"] - short["workers_cpu"]) / laps,
            "bytes": sum(long["lap_bytes"][short["laps"]:]) / laps,
            "calls": (long["calls"] - short["calls"]) / laps, "n_items": long["n_items"]}


def _echo(connection) -> None:
    while True:
        try:
            payload = connection.recv_bytes()
        except EOFError:
            return
        connection.send_bytes(payload[:8])


def pipe_bandwidth(megabytes: int = 20, repeats: int = 20) -> dict:
    """Bytes per second the driver moves to a worker process and back (pickled arrays through a
    pipe, as :mod:`stickbreak.parallel.processes` does), and the round trip of an empty call."""
    here, there = multiprocessing.Pipe()
    child = multiprocessing.get_context("spawn").Process(target=_echo, args=(there,))
    child.start()
    array = np.random.default_rng(0).random(megabytes * 2 ** 20 // 8)
    try:
        here.send_bytes(b"warm-up!")
        here.recv_bytes()
        start = time.perf_counter()
        for _ in range(repeats):
            here.send_bytes(pickle.dumps(array, protocol=pickle.HIGHEST_PROTOCOL))
            pickle.loads(pickle.dumps(array, protocol=pickle.HIGHEST_PROTOCOL))  # the answer's unpickling
            here.recv_bytes()
        per_byte = (time.perf_counter() - start) / (repeats * array.nbytes)
        start = time.perf_counter()
        for _ in range(repeats * 10):
            here.send_bytes(b"nothing!")
            here.recv_bytes()
        latency = (time.perf_counter() - start) / (repeats * 10)
    finally:
        here.close()
        child.join(timeout=10)
    return {"beta": 1.0 / per_byte, "latency": latency}


def calibrated(one8: dict, one16: dict, transport: dict) -> dict:
    """``c``, ``p``, ``D`` and the bytes per worker per lap from the 1-worker rows."""
    parts8, parts16 = 8, 16
    p = (one16["workers_cpu"] - one8["workers_cpu"]) / (parts16 - parts8)
    c = (one8["workers_cpu"] - p * parts8) / one8["n_items"]
    return {"c": c, "p": p, "D": one8["driver_cpu"], "bytes_per_worker": one8["bytes"],
            "calls": one8["calls"], "batch_items": one8["n_items"] / 8}


def predicted(model: dict, n_items: float, n_workers: int, beta: float, latency: float,
              split: bool = False) -> dict:
    """The model's lap on ``n_workers`` workers: driver CPU, workers' CPU (all of them) and wall;
    each batch whole on one worker, or ``split`` over the workers."""
    n_batches = max(1.0, n_items / model["batch_items"])
    transfer = n_workers * model["bytes_per_worker"] / beta + model["calls"] * latency
    workers = model["c"] * n_items + model["p"] * n_batches * (n_workers if split else 1)
    return {"driver_cpu": model["D"], "workers_cpu": workers, "wall": model["D"] + transfer + workers / n_workers}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--key", default="hdp", choices=sorted(WORKLOADS))
    parser.add_argument("--laps", default="2,6")
    args = parser.parse_args(argv)
    short, long = (int(v) for v in args.laps.split(","))
    load_before = os.getloadavg()
    started = time.perf_counter()
    transport = pipe_bandwidth()
    rows = {}
    for name, (n_batches, n_workers) in {"1 worker, 8 batches": (8, 1), "1 worker, 16 batches": (16, 1),
                                         "2 workers, 8 batches": (8, 2)}.items():
        fits = [in_fresh_process(measure, args.key, n_batches, n_workers, laps) for laps in (short, long)]
        for fit, laps in zip(fits, (short, long)):
            fit["laps"] = laps
        rows[name] = {**steady(*fits), "load": fits[-1]["load_after"]}
        print(name, rows[name], flush=True)
    model = calibrated(rows["1 worker, 8 batches"], rows["1 worker, 16 batches"], transport)
    check = predicted(model, rows["2 workers, 8 batches"]["n_items"], 2, transport["beta"], transport["latency"])
    projection = [{"n_items": n, "n_workers": w, "network": label, "placement": placement,
                   **predicted(model, n, w, beta, transport["latency"], placement == SPLIT)}
                  for placement in (WHOLE, SPLIT) for n in PROJECTED_ITEMS
                  for label, beta in (("measured here", transport["beta"]), ("10 Gb Ethernet", NETWORK))
                  for w in PROJECTED_WORKERS]
    for row in projection:
        one = next(r for r in projection if (r["n_items"], r["network"], r["placement"], r["n_workers"]) ==
                   (row["n_items"], row["network"], row["placement"], 1))
        row["efficiency"] = one["wall"] / (row["n_workers"] * row["wall"])
    result = {"key": args.key, "title": WORKLOADS[args.key][0], "transport": transport, "rows": rows, "model": model,
              "check": check, "projection": projection, "seconds": time.perf_counter() - started,
              "load_before": load_before, "load_after": os.getloadavg()}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"cost_model_{args.key}.json").write_text(json.dumps(result, indent=1))
    (RESULTS / f"cost_model_{args.key}.md").write_text(report(result, " ".join(["benchmarks/cost_model.py"] +
                                                                                sys.argv[1:])))


def report(result: dict, command: str) -> str:
    t, m, rows, check = result["transport"], result["model"], result["rows"], result["check"]
    measured2 = rows["2 workers, 8 batches"]
    lines = [f"# Cost model of synchronous memoized laps: {result['title']} (`{command}`)", "",
             f"{os.cpu_count()} cores; {result['seconds']:.0f} s; load average "
             f"{'/'.join(f'{v:.2f}' for v in result['load_before'])} at the start, "
             f"{'/'.join(f'{v:.2f}' for v in result['load_after'])} at the end.", "",
             "## Steady laps measured (laps 3-6 of a 6-lap fit less a 2-lap fit, worker processes)", "",
             "| setting | wall s/lap | driver CPU s/lap | workers' CPU s/lap | MB moved/lap | calls/lap | load after |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {name} | {r['wall']:.2f} | {r['driver_cpu']:.2f} | {r['workers_cpu']:.2f} | {r['bytes'] / 1e6:.1f} "
              f"| {r['calls']:.1f} | {r['load']:.2f} |" for name, r in rows.items()]
    lines += ["", "## Calibrated on the 1-worker rows", "",
              f"- transport through the driver: beta = {t['beta'] / 1e6:.0f} MB/s (pipe and pickling), "
              f"{t['latency'] * 1e6:.0f} us per empty call",
              f"- c = {m['c'] * 1e6:.1f} us of worker CPU per item per lap; p = {m['p'] * 1e3:.1f} ms per part per lap",
              f"- D = {m['D']:.2f} s of driver CPU per lap; {m['bytes_per_worker'] / 1e6:.1f} MB per worker per lap "
              f"in {m['calls']:.1f} calls; batches of {m['batch_items']:.0f} items", "",
              "## Check: 2 workers, 8 batches (each whole on one worker), predicted from the 1-worker rows", "",
              "| | predicted | measured | error |", "|---|---|---|---|"]
    for name, key in (("wall s/lap", "wall"), ("driver CPU s/lap", "driver_cpu"),
                      ("workers' CPU s/lap", "workers_cpu")):
        error = check[key] / measured2[key] - 1
        lines.append(f"| {name} | {check[key]:.2f} | {measured2[key]:.2f} | {error:+.0%} |")
    lines += ["", "## Projection (K and V as calibrated)", "",
              "| placement | items | network | W | wall s/lap | driver CPU s/lap | workers' CPU s/lap "
              "| parallel efficiency |",
              "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['placement']} | {r['n_items']:,} | {r['network']} | {r['n_workers']} | {r['wall']:.1f} | "
              f"{r['driver_cpu']:.1f} | {r['workers_cpu']:.0f} | {r['efficiency']:.2f} |" for r in result["projection"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
