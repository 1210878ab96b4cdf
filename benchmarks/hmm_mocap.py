"""Sticky HDP-HMM on mocap6 (Hughes 2016, §6.6), side by side with bnpy 0.1.7.

Data: ``../shared/data/mocap6`` (6 sequences, 2,058 frames, 12 joint angles; bnpy's ``Xprev``; 12
exercise labels). Model: AR(1) Gaussian emissions with bnpy's default matrix-Normal-Wishart prior for
AutoRegGauss (``ECovMat=eye, sF=1, nu=D+2, MMat=eye, VMat=eye, sV=1``: noise scale B = I, coefficient
mean I, coefficient precision I), sticky HDP-HMM with gamma = 10, alpha = 0.5, alpha_0 = 5,
kappa in {0, 50}; one batch per sequence; memoized VI from contiguous-block initialisations of K = 30
and 60 states.

Ours: merge+delete (adaptive), merge only, and fixed K (no moves). bnpy: merge only and fixed K
(its HDP-HMM deletes raise ``NotImplementedError: Restricted local step function for HDPHMM`` and
its births ``TypeError ... make_subset() ... 'example_id_list'`` in 0.1.7; see benchmarks/bnpy/).

Same evaluator: every run, bnpy's included, is scored by our code: the exact ELBO of its final global
parameters with the optimal local step, and the Hamming distance of their Viterbi path to the
exercise labels after the optimal one-to-one alignment. Wall time is the whole fit (bnpy: ``bnpy.run``
including its initialisation and disk output, BLAS pinned to one thread; ours: the driver, one thread).
Each run in a fresh process (ours after an untimed one-lap fit there, for numba's kernels); peak RSS:
that process's (bnpy: its own ``bnpy.run`` process, a child of the run's).

Run:  .venv/bin/python benchmarks/hmm_mocap.py [--bnpy] [--seeds 0] [--laps 100]
Writes benchmarks/results/hmm_mocap.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from _rss import CHILDREN_KEY, KEY, in_fresh_process, rss_cell, with_children
from hmm_common import RESULTS, ROOT, SHARED, fit_row, make_model, mocap6
from stickbreak.models.hmm.params import HMMParams
from stickbreak.core.protocols import total_elbo
from stickbreak.evaluate import hamming_distance

BNPY_PYTHON = Path("/work/bnpy-venv/bin/python")
BNPY_RUNNER = ROOT / "benchmarks" / "bnpy" / "run_hdphmm.py"
#: bnpy's AutoRegGauss defaults in our prior options (B = dof * covariance = I with dof = D + 2 = 14).
PRIOR = {"covariance": 1.0 / 14.0, "dof": 14.0, "coef_mean": 1.0, "coef_precision": 1.0}
TOL = 1e-5


def bnpy_params(z) -> HMMParams:
    """bnpy's final global parameters in our coordinates (bnpy's ``V`` is the coefficient precision)."""
    M, V, B = z["post_M"], z["post_V"], z["post_B"]
    cross = np.einsum("kde,kef->kdf", M, V)
    obs = {"nu": z["post_nu"], "prec_pred": V, "cross": cross, "scatter": B + np.einsum("kde,kfe->kdf", cross, M)}
    trans = {"start": z["alloc_startTheta"], "trans": z["alloc_transTheta"], "rho": z["alloc_rho"],
             "omega": z["alloc_omega"]}
    return HMMParams(np.arange(len(z["post_nu"])), obs, trans)


def evaluate(model, data, labels, params) -> tuple[float, float]:
    """(exact ELBO with optimal local parameters, Hamming distance of the Viterbi path)."""
    stats = model.summarize(data, model.local_step(params, data), params.uids)
    states = model.viterbi(params, data)
    return total_elbo(model.elbo_terms(params, stats)), hamming_distance(labels, states)


def run_bnpy(n_states: int, kappa: float, moves: str, seed: int, laps: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bnpy.npz"
        cmd = [str(BNPY_PYTHON), str(BNPY_RUNNER), "--data", str(SHARED / "mocap6" / "mocap6.npz"),
               "--obs", "AutoRegGauss", "--algo", "memoVB", "--nLap", str(laps), "--seed", str(seed),
               "--gamma", "10", "--alpha", "0.5",
               "--startAlpha", "5", "--K", str(n_states), "--kappa", str(kappa), "--out", str(out)]
        if moves:
            cmd += ["--moves", moves]
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        subprocess.run(cmd, check=True, env=env, cwd=ROOT, capture_output=True)
        z = dict(np.load(out, allow_pickle=False))
    return z


def bnpy_row(n_states: int, kappa: float, moves: str, seed: int, laps: int) -> dict:
    """One bnpy run scored by our evaluator (in a fresh process: bnpy's is its child)."""
    data, labels = mocap6()
    z = run_bnpy(n_states, kappa, moves, seed, laps)
    row = {"library": "bnpy 0.1.7", "kappa": kappa, "n_states": n_states, "seed": seed,
           "moves": moves.split(",") if moves else [], "status": str(z["status"])}
    if "post_nu" in z:
        elbo, hamming = evaluate(make_model(data, "ar_gauss", kappa, PRIOR), data, labels, bnpy_params(z))
        row.update(final_K=int(z["final_K"]), laps=float(z["n_laps_done"]), elbo=elbo,
                   bnpy_own_elbo=float(z["final_elbo_total"]), hamming=hamming,
                   hamming_bnpy_viterbi=hamming_distance(labels, z["map_z_viterbi"]),
                   fit_wall_s=float(z["fit_wall_sec"]), cpu_s=float(z["fit_cpu_sec"]))
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--laps", type=int, default=100)
    parser.add_argument("--bnpy", action="store_true", help="also run bnpy (needs /work/bnpy-venv)")
    parser.add_argument("--initial-K", default="30,60")
    parser.add_argument("--kappas", default="0,50")
    args = parser.parse_args(argv)
    data, _ = mocap6()
    rows = []
    for kappa in [float(k) for k in args.kappas.split(",")]:
        for n_states in [int(k) for k in args.initial_K.split(",")]:
            for seed in [int(s) for s in args.seeds.split(",")]:
                for moves in (("birth", "merge", "delete"), ("merge", "delete"), ("merge",), ()):
                    row = in_fresh_process(fit_row, mocap6, (),
                                           dict(family="ar_gauss", stickiness=kappa, obs_prior=PRIOR),
                                           n_states=n_states, moves=moves, n_batches=data.n_items, seed=seed,
                                           max_laps=args.laps, tol=TOL)
                    row.update(library="stickbreak", kappa=kappa)
                    rows.append(row)
                    print(_line(row), flush=True)
                if args.bnpy and BNPY_PYTHON.exists():
                    for moves in ("merge", ""):
                        row = in_fresh_process(with_children, bnpy_row, n_states, kappa, moves, seed, args.laps)
                        rows.append(row)
                        print(_line(row), flush=True)
    RESULTS.mkdir(exist_ok=True)
    for r in rows:
        r.pop("trace", None)
    (RESULTS / "hmm_mocap.json").write_text(json.dumps(rows, indent=1))
    (RESULTS / "hmm_mocap.md").write_text(table(rows))
    print(table(rows))


def _line(row) -> str:
    if "elbo" not in row:
        return f"{row['library']} kappa={row['kappa']:g} K0={row['n_states']} moves={row['moves']}: {row.get('status')}"
    return (f"{row['library']} kappa={row['kappa']:g} K0={row['n_states']} moves={'+'.join(row['moves']) or 'none'} "
            f"seed={row['seed']}: K={row['final_K']} elbo={row['elbo']:.1f} hamming={row['hamming']:.3f} "
            f"laps={row['laps']} wall {row['fit_wall_s']:.1f}s")


def _rss_of(row) -> str:
    """The fit's process: ours, the run's; bnpy, its ``bnpy.run`` child."""
    return rss_cell(row, CHILDREN_KEY if row["library"] != "stickbreak" else KEY)


def table(rows) -> str:
    lines = ["| kappa | initial K | library | moves | final K | laps | ELBO (our evaluator) | Hamming | "
             "wall s | bnpy wall / ours "
             "| peak RSS MiB |", "|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    ours = {(r["kappa"], r["n_states"], r["seed"], tuple(r["moves"])): r for r in rows if r["library"] == "stickbreak"}
    for r in rows:
        if "elbo" not in r:
            lines.append(f"| {r['kappa']:g} | {r['n_states']} | {r['library']} | {'+'.join(r['moves'])} | "
                         f"{r['status']} "
                         f"| | | | | | {_rss_of(r)} |")
            continue
        ratio = ""
        if r["library"] != "stickbreak":
            mine = ours.get((r["kappa"], r["n_states"], r["seed"], tuple(r["moves"])))
            ratio = f"{r['fit_wall_s'] / mine['fit_wall_s']:.1f}x" if mine else ""
        lines.append(f"| {r['kappa']:g} | {r['n_states']} | {r['library']} | "
                     f"{'+'.join(r['moves']) or 'none (fixed K)'} | "
                     f"{r['final_K']} | {r['laps']:g} | {r['elbo']:.1f} | {r['hamming']:.3f} | "
                     f"{r['fit_wall_s']:.1f} | {ratio} "
                     f"| {_rss_of(r)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
