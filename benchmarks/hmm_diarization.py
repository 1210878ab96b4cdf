"""Speaker diarization on the AMI debug clips (Hughes 2016, §6.6): each 30 s clip alone (one batch),
19 MFCCs at 100 Hz, full-covariance Gaussian emissions, sticky HDP-HMM with kappa = 100, from K = 25.

Memoized VI with birth, merge and delete moves and with merge and delete moves against fixed-K
memoized runs from the same contiguous-block initialisations. Scored by the foreground Hamming distance: frames with no speaker or overlapping
speech (true label < 0) are left out of both the alignment and the count.

Each run in a fresh process after an untimed one-lap fit there (numba's kernels); the table's peak
RSS is the largest of a clip's runs.

Run:  .venv/bin/python benchmarks/hmm_diarization.py [--seeds 0,1] [--laps 50]
Writes benchmarks/results/hmm_diarization.{json,md}.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from _rss import in_fresh_process, rss_cell
from hmm_common import RESULTS, ami_clip, ami_clips, fit_row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--laps", type=int, default=50)
    parser.add_argument("--initial-K", type=int, default=25)
    parser.add_argument("--stickiness", type=float, default=100.0)
    args = parser.parse_args(argv)
    rows = []
    for uri, _, labels in ami_clips():
        speakers = len(np.unique(labels[labels >= 0]))
        for moves in (("birth", "merge", "delete"), ("merge", "delete"), ()):
            for seed in [int(s) for s in args.seeds.split(",")]:
                row = in_fresh_process(fit_row, ami_clip, (uri,), dict(family="gauss", stickiness=args.stickiness),
                                       n_states=args.initial_K, moves=moves, n_batches=1, seed=seed, max_laps=args.laps,
                                       foreground_only=True)
                row.update(clip=uri, speakers=speakers, foreground=float(np.mean(labels >= 0)))
                row.pop("trace")
                rows.append(row)
                print(f"{uri} ({speakers} speakers) moves={'+'.join(moves) or 'none'} seed={seed}: K={row['final_K']} "
                      f"foreground hamming={row['hamming']:.3f} elbo={row['elbo']:.1f} laps={row['laps']} "
                      f"fit {row['fit_wall_s']:.1f}s", flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "hmm_diarization.json").write_text(json.dumps(rows, indent=1))
    (RESULTS / "hmm_diarization.md").write_text(table(rows))
    print(table(rows))


KINDS = ("birth+merge+delete", "merge+delete", "none")


def _kind(row) -> str:
    return "+".join(row["moves"]) or "none"


def table(rows) -> str:
    """Per clip and kind of run: final K, foreground Hamming distance (per seed) and mean ELBO."""
    kinds = [k for k in KINDS if any(_kind(r) == k for r in rows)]
    lines = ["| clip | speakers | foreground | " + " | ".join(f"{k}: K | Hamming | ELBO" for k in kinds)
             + " | peak RSS MiB (largest run) |", "|---|---:|---:|" + "---|---|---:|" * len(kinds) + "---:|"]
    for uri in dict.fromkeys(r["clip"] for r in rows):
        mine = [r for r in rows if r["clip"] == uri]
        cells = []
        for kind in kinds:
            runs = [r for r in mine if _kind(r) == kind]
            cells += [" / ".join(str(r["final_K"]) for r in runs), " / ".join(f"{r['hamming']:.3f}" for r in runs),
                      f"{np.mean([r['elbo'] for r in runs]):.0f}"]
        lines.append(f"| {uri} | {mine[0]['speakers']} | {mine[0]['foreground']:.2f} | " + " | ".join(cells)
                     + f" | {rss_cell(mine)} |")
    means = []
    for kind in kinds:
        means += ["", f"{np.mean([r['hamming'] for r in rows if _kind(r) == kind]):.3f}", ""]
    lines.append("| **mean** | | | " + " | ".join(means) + " | |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
