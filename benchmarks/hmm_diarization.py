"""Speaker diarization on the AMI debug clips (Hughes 2016, §6.6): each 30 s clip alone (one batch),
19 MFCCs at 100 Hz, full-covariance Gaussian emissions, sticky HDP-HMM with kappa = 100, from K = 25.

Memoized VI with merge and delete moves against fixed-K memoized runs from the same contiguous-block
initialisations. Scored by the foreground Hamming distance: frames with no speaker or overlapping
speech (true label < 0) are left out of both the alignment and the count.

Run:  .venv/bin/python benchmarks/hmm_diarization.py [--seeds 0,1] [--laps 50]
Writes benchmarks/results/hmm_diarization.{json,md}.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from hmm_common import RESULTS, ami_clips, fit, make_model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--laps", type=int, default=50)
    parser.add_argument("--initial-K", type=int, default=25)
    parser.add_argument("--stickiness", type=float, default=100.0)
    args = parser.parse_args(argv)
    rows = []
    for uri, data, labels in ami_clips():
        model = make_model(data, "gauss", args.stickiness)
        speakers = len(np.unique(labels[labels >= 0]))
        for moves in (("merge", "delete"), ()):
            for seed in [int(s) for s in args.seeds.split(",")]:
                row = fit(model, data, labels, args.initial_K, moves, 1, seed, args.laps, foreground_only=True)
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


def _joined(rows) -> str:
    return " / ".join(format(r["hamming"], ".3f") for r in rows)


def table(rows) -> str:
    lines = ["| clip | speakers | foreground | merge+delete: K | Hamming | ELBO | fixed K=25: Hamming | ELBO |",
             "|---|---:|---:|---|---|---:|---|---:|"]
    for uri in dict.fromkeys(r["clip"] for r in rows):
        adaptive = [r for r in rows if r["clip"] == uri and r["moves"]]
        fixed = [r for r in rows if r["clip"] == uri and not r["moves"]]
        first = adaptive[0]
        lines.append(
            f"| {uri} | {first['speakers']} | {first['foreground']:.2f} | {' / '.join(str(r['final_K']) for r in adaptive)} | "
            f"{_joined(adaptive)} | {np.mean([r['elbo'] for r in adaptive]):.0f} | "
            f"{_joined(fixed)} | {np.mean([r['elbo'] for r in fixed]):.0f} |")
    both = lambda key, sel: np.mean([r[key] for r in rows if bool(r["moves"]) == sel])  # noqa: E731
    lines.append(f"| **mean** | | | | {both('hamming', True):.3f} | | {both('hamming', False):.3f} | |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
