"""The thesis's HMM toy (Hughes 2016, §6.6): 32 sequences x T = 1000, 8 sticky 2-D Gaussian states,
B = 8 batches, full-covariance Gaussian emissions, sticky HDP-HMM with kappa in {0, 50}.

Memoized VI with birth, merge and delete moves (from K = 1, 50 and 100) and with merge and delete
moves only (from K = 50 and 100), against fixed-K memoized runs from the same contiguous-block
initialisations. The thesis reports that the adaptive runs reach Hamming distance 0 within about 20
laps whatever the stickiness.

Each run in a fresh process (its peak RSS: the table shows the largest over seeds) after an untimed
one-lap fit there (numba's kernels).

Run:  .venv/bin/python benchmarks/hmm_toy.py [--seeds 0,1,2] [--laps 30] [--initial-K 1,50,100]
Writes benchmarks/results/hmm_toy.{json,md}.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from _rss import in_fresh_process, rss_cell
from hmm_common import RESULTS, fit_row, toy


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--laps", type=int, default=30)
    parser.add_argument("--initial-K", default="1,50,100")
    parser.add_argument("--kappas", default="0,50")
    args = parser.parse_args(argv)
    rows = []
    for kappa in [float(k) for k in args.kappas.split(",")]:
        for n_states in [int(k) for k in args.initial_K.split(",")]:
            for moves in (("birth", "merge", "delete"), ("merge", "delete"), ()):
                if n_states == 1 and "birth" not in moves:
                    continue  # from one state only births can grow K
                for seed in [int(s) for s in args.seeds.split(",")]:
                    row = in_fresh_process(fit_row, toy, (0,), dict(family="gauss", stickiness=kappa),
                                           n_states=n_states,
                                           moves=moves, n_batches=8, seed=seed, max_laps=args.laps)
                    row["kappa"] = kappa
                    rows.append(row)
                    print(f"kappa={kappa:g} K0={n_states} moves={'+'.join(moves) or 'none'} seed={seed}: "
                          f"laps={row['laps']} K={row['final_K']} hamming={row['hamming']:.4f} "
                          f"zero at lap {row['first_lap_hamming_zero']} elbo={row['elbo']:.1f} fit "
                          f"{row['fit_wall_s']:.1f}s",
                          flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "hmm_toy.json").write_text(json.dumps(rows, indent=1))
    (RESULTS / "hmm_toy.md").write_text(table(rows))
    print(table(rows))


def table(rows) -> str:
    lines = ["| kappa | initial K | moves | final K | Hamming at lap 20 | final Hamming | first lap with "
             "Hamming 0 | ELBO | fit s "
             "| peak RSS MiB |", "|---:|---:|---|---|---|---|---|---:|---:|---:|"]
    groups = {}
    for r in rows:
        groups.setdefault((r["kappa"], r["n_states"], "+".join(r["moves"]) or "none (fixed K)"), []).append(r)
    for (kappa, k0, moves), rs in groups.items():
        at20 = [next((t["hamming"] for t in r["trace"] if t["lap"] == 20), r["hamming"]) for r in rs]
        final = [r["hamming"] for r in rs]
        lines.append(
            f"| {kappa:g} | {k0} | {moves} | {' / '.join(str(r['final_K']) for r in rs)} | "
            f"{' / '.join(f'{h:.3f}' for h in at20)} | {' / '.join(f'{h:.3f}' for h in final)} | "
            f"{' / '.join(str(r['first_lap_hamming_zero'] or '-') for r in rs)} | "
            f"{np.mean([r['elbo'] for r in rs]):.1f} | "
            f"{np.mean([r['fit_wall_s'] for r in rs]):.1f} | {rss_cell(rs)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
