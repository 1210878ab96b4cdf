#!/usr/bin/env python
"""Fit bnpy 0.1.7's DP Gaussian mixture (memoVB + moves) and save the result to .npz.

Run with the bnpy venv made by recipe.sh (NOT the project venv):

    /work/bnpy-venv/bin/python benchmarks/bnpy/run_dpmixture.py \
        --data X.npy --out result.npz --K 1 --moves birth,merge --nBatch 20 --nLap 50 \
        --seed 0 --gamma0 1.0 --nu NU --kappa KAPPA --sF SF --ECovMat eye|covdata [--mean zero|data]

Model: bnpy.run(XData(X), 'DPMixtureModel', 'Gauss', 'memoVB', ...), i.e. a DP mixture
(stick-breaking, truncation K grown/shrunk by the moves) of full-covariance Gaussians with a
Normal-Wishart prior on each cluster. bnpy's output files go to a temporary directory that is
removed afterwards (unless --keep-output).

Seeds: bnpy derives its seeds from (jobname, taskid) by md5; --seed S runs bnpy task S+1
(jobname 'none', bnpy's default), so --seed 0 is bnpy's default task 1. The derived algseed and
dataorderseed are saved.

Saved keys (result.npz):
  trace_lap, trace_loss, trace_elapsed_sec, trace_K, trace_is_full_lap
      bnpy's trace (info_dict *_history). bnpy also records a few fractional laps
      (the first batches); trace_is_full_lap marks the integer laps.
  fit_wall_sec, fit_cpu_sec     wall / process-CPU time of bnpy.run() (init + fit + bnpy disk I/O)
  bnpy_elapsed_sec              bnpy's own elapsedTimeInSec (fit loop only, from learnAlg start)
  final_loss, final_K, n_laps_done, status
  final_elbo_total              -final_loss * N * D (bnpy's ELBO in nats; see loss definition)
  post_nu (K,), post_kappa (K,), post_m (K,D), post_B (K,D,D)   obsModel.Post, as stored
  prior_nu, prior_kappa, prior_m (D,), prior_B (D,D)           obsModel.Prior, as stored
  prior_nu_requested, prior_kappa_requested                     what was asked (bnpy clamps)
  alloc_eta1 (K,), alloc_eta0 (K,)    q(u_k) = Beta(eta1_k, eta0_k), stick fractions
  alloc_gamma1, alloc_gamma0          stick prior u_k ~ Beta(gamma1, gamma0)
  alloc_Ebeta (K,)                    E-weights from allocModel.get_active_comp_probs()
  count_N (K,)                        SS.N, expected counts per cluster
  taskid, algseed, dataorderseed, N, D, config_json, bnpy_version, numpy_version
"""
import os

# One BLAS/OpenMP thread unless the caller says otherwise (must precede numpy import).
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault("MPLBACKEND", "Agg")  # bnpy imports matplotlib at import time

import argparse
import json
import shutil
import sys
import tempfile
import time

import numpy as np
from importlib.metadata import version as _dist_version

from _bnpy_common import import_bnpy  # the sibling module (this script's folder is on sys.path)



def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help=".npy file with an (N, D) float array")
    p.add_argument("--out", required=True, help="output .npz path")
    p.add_argument("--K", type=int, default=1, help="initial number of clusters")
    p.add_argument("--moves", default="birth,merge",
                   help="comma list of bnpy moves (birth,merge,delete,shuffle); '' for none")
    p.add_argument("--nBatch", type=int, default=20)
    p.add_argument("--nLap", type=int, default=50)
    p.add_argument("--seed", type=int, default=0, help="bnpy taskid = seed + 1")
    p.add_argument("--gamma0", type=float, default=1.0, help="DP concentration (gamma1 fixed at 1)")
    p.add_argument("--nu", type=float, default=0.0,
                   help="Wishart dof; bnpy uses max(nu, D+2) (default 0 -> D+2)")
    p.add_argument("--kappa", type=float, default=1e-4, help="mean precision scale (bnpy default 1e-4)")
    p.add_argument("--sF", type=float, default=1.0, help="scale of E[Sigma] under the prior")
    p.add_argument("--ECovMat", default="eye", choices=["eye", "covdata", "diagcovdata"],
                   help="E[Sigma] = sF*I (eye) or sF*cov(X, bias) (covdata)")
    p.add_argument("--mean", default="zero", choices=["zero", "data"],
                   help="prior mean m: zeros or the data mean (bnpy MMat)")
    p.add_argument("--initname", default="bregmankmeans",
                   help="bnpy initname: 'bregmankmeans' (Bregman k-means++ then "
                        "--initIters k-means iterations on the whole data; with K=1 this is one "
                        "cluster on all data) or 'randexamples' (K single random items)")
    p.add_argument("--initIters", type=int, default=1,
                   help="init_NiterForBregmanKMeans (bnpy default 1), only for bregmankmeans")
    p.add_argument("--convergeThr", type=float, default=None,
                   help="bnpy convergeThr (memoVB default 0.01; max |dN_k| per batch)")
    p.add_argument("--bnpy-kw", action="append", default=[], metavar="KEY=VALUE",
                   help="extra bnpy kwarg, e.g. b_startLap=2, m_startLap=2, b_Kfresh=10 "
                        "(repeatable; numbers are parsed by bnpy's own config types)")
    p.add_argument("--outdir", default=None,
                   help="bnpy output dir (default: a fresh temp dir, deleted afterwards)")
    p.add_argument("--keep-output", action="store_true", help="keep bnpy's output dir")
    p.add_argument("--verbose", action="store_true", help="echo bnpy's log to stdout")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    bnpy, createUniqueRandomSeed = import_bnpy()

    X = np.ascontiguousarray(np.load(args.data), dtype=np.float64)
    if X.ndim != 2:
        sys.exit("--data must hold a 2-D (N, D) array, got shape %s" % (X.shape,))
    N, D = X.shape
    Data = bnpy.data.XData(X=X)

    own_tmp = args.outdir is None
    outdir = tempfile.mkdtemp(prefix="bnpy_dpmix_") if own_tmp else args.outdir
    taskid = args.seed + 1
    jobname = "none"  # bnpy's default OutputPrefs.jobname

    kw = dict(
        nLap=args.nLap, nBatch=args.nBatch,
        K=args.K, initname=args.initname, init_NiterForBregmanKMeans=args.initIters,
        gamma0=args.gamma0,
        # bnpy's config declares nu as int ('nu = 0'), so a float string would be rejected by its
        # argparse; a 0-d ndarray bypasses the string parsing and reaches createPrior unchanged.
        nu=np.asarray(float(args.nu)),
        kappa=args.kappa, sF=args.sF, ECovMat=args.ECovMat, MMat=args.mean,
        output_path=outdir, jobname=jobname,
        printEvery=1, traceEvery=1,
    )
    if args.convergeThr is not None:
        kw["convergeThr"] = args.convergeThr
    moves = ",".join(m.strip() for m in args.moves.split(",") if m.strip())
    if moves:
        kw["moves"] = moves
    for item in args.bnpy_kw:
        key, _, val = item.partition("=")
        kw[key.strip()] = val.strip()

    t_wall0, t_cpu0 = time.perf_counter(), time.process_time()
    hmodel, info = bnpy.run(Data, "DPMixtureModel", "Gauss", "memoVB",
                            taskID=taskid, doSaveToDisk=True,
                            doWriteStdOut=bool(args.verbose), **kw)
    fit_wall = time.perf_counter() - t_wall0
    fit_cpu = time.process_time() - t_cpu0

    obs, alloc = hmodel.obsModel, hmodel.allocModel
    Post, Prior = obs.Post, obs.Prior
    SS = info["SS"]
    lap = np.asarray(info["lap_history"], dtype=float)
    final_loss = float(info["loss"])
    K = int(Post.K)
    config = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    config.update(data=os.path.abspath(args.data), algName="memoVB",
                  allocModelName="DPMixtureModel", obsModelName="Gauss")

    out = dict(
        trace_lap=lap,
        trace_loss=np.asarray(info["loss_history"], dtype=float),
        trace_elapsed_sec=np.asarray(info["elapsed_time_sec_history"], dtype=float),
        trace_K=np.asarray(info["K_history"], dtype=int),
        trace_is_full_lap=np.isclose(lap, np.round(lap)),
        fit_wall_sec=fit_wall, fit_cpu_sec=fit_cpu,
        bnpy_elapsed_sec=float(info["elapsedTimeInSec"]),
        final_loss=final_loss, final_K=K,
        n_laps_done=float(lap[-1]) if lap.size else 0.0,
        status=str(info.get("status", "")),
        final_elbo_total=-final_loss * float(np.sum(SS.N)) * D,
        post_nu=np.array(Post.nu, dtype=float).reshape(K),
        post_kappa=np.array(Post.kappa, dtype=float).reshape(K),
        post_m=np.array(Post.m, dtype=float).reshape(K, D),
        post_B=np.array(Post.B, dtype=float).reshape(K, D, D),
        prior_nu=float(Prior.nu), prior_kappa=float(Prior.kappa),
        prior_m=np.array(Prior.m, dtype=float).reshape(D),
        prior_B=np.array(Prior.B, dtype=float).reshape(D, D),
        prior_nu_requested=float(args.nu), prior_kappa_requested=float(args.kappa),
        alloc_eta1=np.array(alloc.eta1, dtype=float), alloc_eta0=np.array(alloc.eta0, dtype=float),
        alloc_gamma1=float(alloc.gamma1), alloc_gamma0=float(alloc.gamma0),
        alloc_Ebeta=np.array(alloc.get_active_comp_probs(), dtype=float),
        count_N=np.array(SS.N, dtype=float),
        taskid=taskid,
        algseed=createUniqueRandomSeed(jobname, taskID=taskid),
        dataorderseed=createUniqueRandomSeed("", taskID=taskid),
        N=N, D=D,
        config_json=json.dumps(config, sort_keys=True),
        bnpy_version=_dist_version("bnpy"),
        numpy_version=np.__version__,
    )
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    np.savez(args.out, **out)

    if own_tmp and not args.keep_output:
        shutil.rmtree(outdir, ignore_errors=True)
    elif args.keep_output or not own_tmp:
        print("bnpy output dir: %s" % os.path.join(outdir, str(taskid)))
    if args.nu > 0 and float(Prior.nu) != float(args.nu):
        print("note: prior nu clamped by bnpy to max(nu, D+2) = %g (asked %g)"
              % (float(Prior.nu), args.nu), file=sys.stderr)
    print("bnpy final loss %.10g  K %d  laps %.3f  status %s"
          % (final_loss, K, out["n_laps_done"], out["status"]))
    print("fit wall %.3f s  cpu %.3f s  (bnpy elapsed %.3f s)"
          % (fit_wall, fit_cpu, out["bnpy_elapsed_sec"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
