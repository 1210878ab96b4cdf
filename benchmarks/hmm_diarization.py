"""Speaker diarization on the AMI debug clips (Hughes 2016, §6.6), each 30 s clip alone (one batch),
full-covariance Gaussian emissions. Two preprocessings (``--preprocess``):

``frames`` (the default, as before): 19 MFCCs at 100 Hz, sticky HDP-HMM with kappa = 100 from K =
25, memoized VI with birth, merge and delete moves and with merge and delete moves against fixed-K
memoized runs from the same contiguous-block initialisations. Scored by the foreground Hamming
distance: frames with no speaker or overlapping speech (true label < 0) are left out of both the
alignment and the count. Each run in a fresh process after an untimed one-lap fit there (numba's
kernels); the table's peak RSS is the largest of a clip's runs. Writes
benchmarks/results/hmm_diarization.{json,md}.

``fox`` (Fox, Sudderth, Jordan & Willsky 2011, AOAS §6; bnpy's copy of their data is
``*_Nmeans25features_SpNsp.mat``: means of 25 frames, speech/non-speech): 19 MFCCs recomputed from
the wav with 30 ms windows every 10 ms (``--window-ms 25``: the staged features), the frames of
one speaker only (oracle speech activity; no speech and overlap dropped), averaged over
non-overlapping 250 ms blocks (``hmm_common.speech_blocks``), each block labelled by its majority
speaker; no standardisation (the library's default prior scales with each feature's variance).
Rows per clip and seed: the library's ``HDPHMM()`` defaults (K = 10, kappa = 0, births, merges,
deletes); ``HDPHMM`` as the thesis (K = 25, kappa = 100) with birth+merge+delete, merge+delete and no
moves, and with merge+delete and diagonal covariances; ``FiniteHMM`` (kappa = 100) with K = the true
number of speakers (among the blocks) and K = 25; hmmlearn's ``GaussianHMM`` (full covariance, 100 EM
iterations) with both Ks; one state for everything. Every row is scored by
``stickbreak.evaluate.segmentation_report`` on the blocks (aligned Hamming distance, states used).
All runs in this process, after one untimed warm-up fit of each method (numba's kernels).
Writes benchmarks/results/hmm_diarization_fox{suffix}.{json,md}.

Run:  .venv/bin/python benchmarks/hmm_diarization.py [--preprocess frames] [--seeds 0,1] [--laps 50]
      .venv/bin/python benchmarks/hmm_diarization.py --preprocess fox [--seeds 0,1,2] [--window-ms 30]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
import warnings

import hmmlearn
import numpy as np
from hmmlearn.hmm import GaussianHMM

from _rss import in_fresh_process, rss_cell
from hmm_common import RESULTS, ami_clip, ami_clips, ami_mfcc, fit_row, speech_blocks
from stickbreak import FiniteHMM, HDPHMM
from stickbreak.evaluate import segmentation_report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preprocess", choices=("frames", "fox"), default="frames")
    parser.add_argument("--seeds", default=None, help="default 0,1 (frames), 0,1,2 (fox)")
    parser.add_argument("--laps", type=int, default=50, help="frames only (fox: the estimators' default, 100)")
    parser.add_argument("--initial-K", type=int, default=25)
    parser.add_argument("--stickiness", type=float, default=100.0)
    parser.add_argument("--window-ms", type=float, default=30.0, help="fox only: MFCC window (25: the staged features)")
    parser.add_argument("--suffix", default="", help="fox only: appended to the results' file names")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in (args.seeds or ("0,1" if args.preprocess == "frames" else "0,1,2")).split(",")]
    (frames_main if args.preprocess == "frames" else fox_main)(args, seeds)


def frames_main(args, seeds):
    rows = []
    for uri, _, labels in ami_clips():
        speakers = len(np.unique(labels[labels >= 0]))
        for moves in (("birth", "merge", "delete"), ("merge", "delete"), ()):
            for seed in seeds:
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



# ---------------------------------------------------------------------- --preprocess fox
def fox_methods(speakers: int, initial_K: int, kappa: float) -> dict:
    """Name -> fit(X, seed) returning the predicted state of every block."""
    thesis = dict(n_states=initial_K, stickiness=kappa)
    return {
        "one state": lambda X, seed: np.zeros(len(X), dtype=int),
        "HDPHMM() defaults": lambda X, seed: HDPHMM(random_state=seed).fit(X).predict(X),
        f"HDPHMM K0={initial_K} κ={kappa:g} b+m+d": lambda X,
        seed: HDPHMM(**thesis, random_state=seed).fit(X).predict(X),
        f"HDPHMM K0={initial_K} κ={kappa:g} m+d": lambda X, seed: HDPHMM(**thesis, moves=("merge", "delete"),
                                                                          random_state=seed).fit(X).predict(X),
        f"HDPHMM K0={initial_K} κ={kappa:g} none": lambda X, seed: HDPHMM(**thesis, moves=(),
                                                                           random_state=seed).fit(X).predict(X),
        f"HDPHMM K0={initial_K} κ={kappa:g} m+d diag": lambda X, seed: HDPHMM(**thesis, obs_model="diag_gauss",
                                                                               moves=("merge", "delete"),
                                                                               random_state=seed).fit(X).predict(X),
        f"FiniteHMM K=true κ={kappa:g}": lambda X, seed: FiniteHMM(speakers, stickiness=kappa,
                                                                   random_state=seed).fit(X).predict(X),
        f"FiniteHMM K={initial_K} κ={kappa:g}": lambda X,
        seed: FiniteHMM(**thesis, random_state=seed).fit(X).predict(X),
        "hmmlearn K=true": lambda X, seed: _hmmlearn(X, speakers, seed),
        f"hmmlearn K={initial_K}": lambda X, seed: _hmmlearn(X, initial_K, seed),
    }


def _hmmlearn(X, K: int, seed: int):
    """hmmlearn's GaussianHMM, full covariance, k-means init, 100 EM iterations (tol=0: stops early only
    if the log-likelihood falls)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate states with K = 25 on ~100 blocks
        return GaussianHMM(K, covariance_type="full", n_iter=100, tol=0.0, random_state=seed).fit(X).predict(X)


def fox_main(args, seeds):
    load_start, started = os.getloadavg(), time.perf_counter()
    clips = [(uri, *speech_blocks(ami_mfcc(uri, args.window_ms), labels)) for uri, _, labels in ami_clips()]
    warm = clips[0][1]
    for name, method in fox_methods(2, args.initial_K, args.stickiness).items():  # numba's kernels, untimed
        method(warm, 0)
    rows = []
    for uri, X, truth, purity in clips:
        speakers = len(np.unique(truth))
        for name, method in fox_methods(speakers, args.initial_K, args.stickiness).items():
            for seed in seeds:
                row = dict(clip=uri, blocks=len(X), speakers=speakers, purity=float(purity.mean()), method=name,
                           seed=seed)
                t0 = time.perf_counter()
                try:
                    report = segmentation_report(truth, method(X, seed), foreground_only=True)
                    row.update(hamming=report["hamming"], states=report["n_pred_states"])
                except Exception as exc:  # e.g. hmmlearn's k-means with more states than blocks
                    row.update(hamming=None, states=None, error=f"{type(exc).__name__}: {exc}")
                row["seconds"] = time.perf_counter() - t0
                rows.append(row)
            done = [r for r in rows if r["clip"] == uri and r["method"] == name]
            print(f"{uri} ({speakers} speakers, {len(X)} blocks) {name}: hamming "
                  f"{' / '.join(_cell(r['hamming'], '.3f') for r in done)} states "
                  f"{' / '.join(_cell(r['states'], 'd') for r in done)}", flush=True)
    meta = dict(command="python " + " ".join(sys.argv), date_utc=datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%d %H:%M UTC"), window_ms=args.window_ms, block_frames=25, seeds=seeds,
                initial_K=args.initial_K, stickiness=args.stickiness, hmmlearn=hmmlearn.__version__,
                load_average_start=load_start, load_average_end=os.getloadavg(),
                wall_s=time.perf_counter() - started)
    RESULTS.mkdir(exist_ok=True)
    stem = RESULTS / f"hmm_diarization_fox{args.suffix}"
    stem.with_suffix(".json").write_text(json.dumps(dict(meta=meta, rows=rows), indent=1))
    stem.with_suffix(".md").write_text(fox_tables(meta, rows))
    print(fox_tables(meta, rows))


def _cell(value, spec: str) -> str:
    return "err" if value is None else format(value, spec)


def fox_tables(meta, rows) -> str:
    """Header, then per clip x method: Hamming distance (mean over seeds, failures left out) and the
    states used (per seed); the last line is the mean over clips."""
    methods = list(dict.fromkeys(r["method"] for r in rows))
    clips = list(dict.fromkeys(r["clip"] for r in rows))
    out = [f"Generated by `{meta['command']}` on {meta['date_utc']} ({meta['wall_s']:.0f} s; load average "
           f"{meta['load_average_start'][0]:.2f} at start, {meta['load_average_end'][0]:.2f} at end). "
           f"{meta['window_ms']:g} ms MFCC windows, 250 ms blocks of single-speaker frames, seeds "
           f"{', '.join(map(str, meta['seeds']))}; hmmlearn {meta['hmmlearn']}.", ""]
    for title, key, spec in (("Hamming distance on the blocks (mean over seeds)", "hamming", None),
                             ("States used (distinct Viterbi states on the blocks; per seed)", "states", "d")):
        out += [f"### {title}", "", "| clip | blocks | speakers | purity | " + " | ".join(methods) + " |",
                "|---|---:|---:|---:|" + "---:|" * len(methods)]
        for uri in clips:
            mine = [r for r in rows if r["clip"] == uri]
            cells = []
            for m in methods:
                runs = [r for r in mine if r["method"] == m]
                ok = [r[key] for r in runs if r[key] is not None]
                cells.append(("err" if not ok else f"{np.mean(ok):.3f}") if spec is None
                             else " / ".join(_cell(r[key], spec) for r in runs))
            out.append(f"| {uri} | {mine[0]['blocks']} | {mine[0]['speakers']} | {mine[0]['purity']:.3f} | "
                       + " | ".join(cells) + " |")
        if spec is None:
            big = [u for u in clips if next(r for r in rows if r["clip"] == u)["speakers"] >= 2
                   and next(r for r in rows if r["clip"] == u)["blocks"] >= 20]
            for label, chosen in (("mean", clips),
                                  (f"mean, {len(big)} clips with >= 2 speakers and >= 20 blocks", big)):
                cells = []
                for m in methods:
                    runs = [r for r in rows if r["method"] == m and r["clip"] in chosen]
                    ok = [r["hamming"] for r in runs if r["hamming"] is not None]
                    missing = "" if len(ok) == len(runs) else f" ({len(ok)}/{len(runs)} runs)"
                    cells.append(f"**{np.mean(ok):.3f}**" + missing)
                out.append(f"| **{label}** | | | | " + " | ".join(cells) + " |")
        out.append("")
    errors = sorted({(r["clip"], r["method"], r["error"]) for r in rows if "error" in r})
    out += [f"- failed: {c}, {m}: {e}" for c, m, e in errors]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
