#!/usr/bin/env python
"""Fit bnpy 0.1.7's (sticky) HDP-HMM on a set of sequences and save the result to .npz.

Run with the bnpy venv made by recipe.sh (NOT the project venv):

    /work/bnpy-venv/bin/python benchmarks/bnpy/run_hdphmm.py \
        --data /work/shared/data/mocap6/mocap6.npz --out result.npz \
        --obs AutoRegGauss --K 30 --moves merge --nLap 100 --seed 0 \
        --gamma 10 --alpha 0.5 --startAlpha 5 --kappa 0 [--initname randcontigblocks]

Known bnpy 0.1.7 limitations for HDPHMM + memoVB (the run is recorded as crashed, see below):
  * delete: NotImplementedError: Restricted local step function for HDPHMM
    (birthmove/BRestrictedLocalStep.py has restricted local steps only for DPMixtureModel and
    HDPTopicModel); raised at the first batch of lap 2 (d_startLap), whatever nBatch is.
  * birth: TypeError: GroupXData.make_subset() got an unexpected keyword argument
    'example_id_list' (init/FromScratchBregman.py:486, makeDataSubsetByThresholdResp); raised
    at the first batch (b_startLap = 0).
  merge and shuffle work.

Input: DATA.npz with X (T, D) float, lengths (S,) positive ints summing to T, and (needed for
--obs AutoRegGauss) Xprev (T, D), the previous frame of each row. Sequence s is rows
doc_range[s]:doc_range[s+1] with doc_range = [0, cumsum(lengths)]. Other keys are ignored.
The data become bnpy.data.GroupXData(X=X, doc_range=doc_range, Xprev=Xprev).

Model: bnpy.run(GroupXData, 'HDPHMM', OBS, ALGO, ...) (allocmodel/hmm/HDPHMM.py): top-level
sticks u_k ~ Beta(1, gamma) with q(u_k) = Beta(rho_k omega_k, (1-rho_k) omega_k);
start pi_0 ~ Dir(startAlpha * beta); rows pi_j ~ Dir(transAlpha * beta + hmmKappa * e_j)
(sticky when hmmKappa > 0); q(pi_0) = Dir(startTheta) (K+1,), q(pi_j) = Dir(transTheta[j])
(K, K+1), the last column being the >K remainder; structured q(z) per sequence
(forward-backward). bnpy names and where they come from (bnpy/config/*.conf, parsed by bnpy):
  gamma, transAlpha (--alpha), startAlpha, hmmKappa (--kappa)
        allocmodel.conf [HDPHMM]: 10.0, 0.1 (!), 5.0, 0.0 (HDPHMM.set_prior's own signature
        says transAlpha=0.5, but bnpy.run always passes the .conf value). This script's
        defaults are the thesis' 10 / 0.5 / 5 / 0, so --alpha differs from bnpy.run's default.
        The values bnpy actually used are saved (alloc_gamma, ..., alloc_kappa).
  nGlobalIters / nGlobalItersBigChange   allocmodel.conf: 2 / 20 rho<->theta alternations
  obs prior (obsmodel.conf [AutoRegGauss] / [Gauss] / [DiagGauss]); nu is clamped by bnpy
        to max(nu, D+2):
    AutoRegGauss: matrix-Normal-Wishart: nu, B = E[Sigma]*(nu-D-1) with E[Sigma] =
        sF*I (ECovMat eye), sF*cov(X) (covdata, diagcovdata: its diagonal) or
        sF*cov(X - Xprev) (covfirstdiff, diagcovfirstdiff); M = 0 (MMat zero) or sM*I
        (MMat eye, bnpy's .conf default); V = sV*I (VMat eye) or sV*E[Sigma] (VMat same).
        Post fields nu (K,), B (K,D,D), M (K,D,E), V (K,E,E).
    Gauss: Normal-Wishart nu, B, m (MMat zero|data), kappa (--kappa_obs, default 1e-4).
    DiagGauss: Normal-Gamma per dim: nu, beta, m, kappa (--kappa_obs).
  K, initname, initBlockLen   init.conf; FromScratchGauss handles all three obs models.
        'randcontigblocks' (this script's default, the thesis' fixed-K init for HMMs): shuffle
        the sequence ids; state k gets one random window of initBlockLen (default 20) frames
        of sequence perm[k % S] (the whole sequence if it is shorter), hard resp = 1 there,
        then one obs global step; blocks of different states may overlap. bnpy's own default
        is 'randexamples' (K random single frames); also 'randexamplesbydist', 'kmeans',
        'randsoftpartition'. The alloc model then starts from its prior-like init
        (HDPHMM.init_global_params: rho = create_initrho(K), omega = 1+gamma, counts 1).
  nBatch, nLap   onlinedata.conf; default here nBatch = number of sequences (one per batch).
  convergeThr    memoVB 0.01 (max |N_k - N_k(prev lap)| for every batch, and no pending
                 "reasonable" moves), VB 0.05; minLaps 1.
  moves, m_*, d_*, b_*   moves.conf (m_startLap = d_startLap = 2, m_maxNumPairsContainingComp 5,
                 b_startLap 0, ...); use --bnpy-kw to change them.
The fully resolved bnpy kwargs of the run are saved (bnpy_kwargs_json).

Loss normalisation (HModel.calc_evidence): loss = -ELBO / scale with
scale = obsModel.getDatasetScale(SS) = SS.N.sum() * SS.D for AutoRegGauss, Gauss and
DiagGauss, i.e. per observed scalar: (number of frames) * D, where D = X.shape[1] (Xprev's
dimension E is NOT counted). SS.N is the expected state count summed over the frames covered by
SS; for a memoVB/VB run it is all frames after the first lap, so scale = T*D (mocap6:
2058*12 = 24696). ELBO = L_alloc (HDPHMMUtil.calcELBO_LinearTerms: L_top surrogate for the
sticks + slack terms - c_Dir(transTheta) - c_Dir(startTheta)) + L_entropy (Htable.sum() +
Hstart.sum(), from SS ELBO terms) + L_obs (obsModel.calcELBO_Memoized). Saved:
  final_elbo_total = -final_loss * loss_scale, loss_scale = SS.N.sum() * D (nats);
  trace_elbo_total = -trace_loss * T * D (exact for laps >= 1; for fractional laps < 1 bnpy
  divided by the frames seen so far, so those entries are only indicative).
Note the HDP-HMM "ELBO" is bnpy's surrogate bound (L_top), not the exact ELBO.
soVB (doMemoELBO=1, bnpy's default): the loss scores the current globals against the
whole-data memoized SStotal, so scale = T*D too (used here); but info["SS"], saved as ss_*,
is the last minibatch's SS amplified by nDocTotal/nDoc, and recomputed_loss is NaN.

Seeds: bnpy derives its seeds from (jobname, taskid) by md5; --seed S runs bnpy task S+1
(jobname 'none'), so --seed 0 is bnpy's default task 1. algseed (init, moves) and
dataorderseed (batch partition/order) are saved.

Output: bnpy gets doSaveToDisk=True (births and move transcripts need it); its files go to a
temp dir removed afterwards (unless --keep-output / --outdir). Fit times include bnpy's disk I/O
(saveEvery=5 laps). BLAS/OpenMP are pinned to 1 thread unless the caller's environment says
otherwise (setdefault before numpy is imported).

MAP states: after the fit, with the final global parameters and outside the timed region,
  map_z_viterbi (T,)  Viterbi path per sequence via bnpy.allocmodel.hmm.HMMUtil.runViterbiAlg
      with logSoftEv = obsModel.calc_local_params(Data)['E_log_soft_ev'] (E_q[log p(x_t|k)]),
      logPi0 = E_q[log pi_0][:K], logPi = E_q[log pi_j][:K,:K] (digamma(theta) -
      digamma(row sum incl. the >K column)), i.e. the same inputs as bnpy's local step and
      bnpy's XViterbi hook (which passes exp() of these; runViterbiAlg takes the log again).
  map_z_resp (T,)     argmax_k of resp from a fresh full-data local step (forward-backward)
  resp (T,K)          that resp
  fresh_local_loss    -ELBO/scale for the fresh local step with the final globals, no global
                      update afterwards (differs slightly from final_loss, which uses the
                      memoized local stats of the last lap).
Both labelings are 0-based indices into the final K states (bnpy's order after shuffle).

Saved keys (result.npz):
  trace_lap, trace_loss, trace_elapsed_sec, trace_K, trace_is_full_lap, trace_elbo_total
  fit_wall_sec, fit_cpu_sec     wall / process-CPU time of bnpy.run() (init + fit + disk I/O)
  bnpy_elapsed_sec              bnpy's own elapsedTimeInSec (fit loop, from learnAlg start)
  final_loss, final_elbo_total, loss_scale, final_K, n_laps_done, status
  recomputed_loss               -hmodel.calc_evidence(SS=final SS)/scale after the fit;
                                == final_loss up to rounding (checks the saved SS/globals;
                                for VB, whose SS has no entropy terms, with bnpy's final LP)
  alloc_transTheta (K,K+1), alloc_startTheta (K+1,), alloc_rho (K,), alloc_omega (K,)
  alloc_Ebeta (K+1,)            E[beta] incl. the remainder (StickBreakUtil.rho2beta)
  alloc_gamma, alloc_transAlpha, alloc_startAlpha, alloc_kappa,
  alloc_nGlobalIters, alloc_nGlobalItersBigChange       as stored in the allocModel
  post_<f>                      every obsModel.Post field, as stored (K leading)
  prior_<f>                     every obsModel.Prior field, as stored (after bnpy's clamping)
  ss_<f>, ssterm_<f>            every field / ELBO term (Htable, Hstart) of the final whole-data
                                SuffStatBag (N, StartStateCount, TransStateCount, obs stats),
                                enough to recompute final_loss from the saved globals
  state_uids (K,)               bnpy's stable uids of the final states
  map_z_viterbi, map_z_resp, resp, fresh_local_loss, fresh_local_elbo_total
  move_kinds, move_accepts, move_trials, move_accept_<kind>, move_log_lap, move_log_kind
      accepted moves from MemoVBMovesAlg's MoveLog (via the customFuncPath hook), trials from
      bnpy's merge/delete transcript summaries (-1 = not available); memoVB only
  lengths (S,), doc_range (S+1,), T, D, E (Xprev dim or 0), n_seq, nBatch
  taskid, algseed, dataorderseed, config_json, bnpy_kwargs_json, bnpy_version, numpy_version
  On a crash inside bnpy.run: status = 'crashed: <Type>: <message>', error_traceback, the
  trace recorded so far, fit times, move log and last_lap_completed / last_K (no model keys);
  exit code 1.
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

import numpy as np
from importlib.metadata import version as _dist_version

from _bnpy_common import import_bnpy, timed_run  # the sibling module (this script's folder is on sys.path)
# Shared helpers of the topic runner (pure functions; importing it has no side effects beyond
# the same env defaults as above).
from run_hdptopics import MOVE_KINDS, move_summary, quiet_delete_logger, trace_arrays

_CB_MODNAME = "bnpy_hdphmm_hook"  # name under which bnpy imports this module as its hook
_HOOK = dict(learnAlg=None, MoveLog=None, last_lap=None, last_K=None)


def onBatchComplete(args=None, learnAlg=None, MoveLog=None, **kwargs):
    """bnpy hook, after every batch: keep references for move counts and crash reports."""
    if learnAlg is not None:
        _HOOK["learnAlg"] = learnAlg
    if MoveLog is not None:
        _HOOK["MoveLog"] = MoveLog


def onLapComplete(args=None, lapFrac=0.0, hmodel=None, **kwargs):
    """bnpy hook, after each integer lap (and at lap 0)."""
    if hmodel is not None:
        _HOOK["last_lap"] = int(round(float(lapFrac)))
        _HOOK["last_K"] = int(hmodel.obsModel.K)


def onAlgorithmComplete(args=None, MoveLog=None, learnAlg=None, **kwargs):
    onBatchComplete(learnAlg=learnAlg, MoveLog=MoveLog)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help=".npz with X (T,D), lengths (S,), [Xprev (T,D)]")
    p.add_argument("--out", required=True, help="output .npz path")
    p.add_argument("--obs", default="AutoRegGauss", choices=["AutoRegGauss", "Gauss", "DiagGauss"])
    p.add_argument("--algo", default="memoVB", choices=["memoVB", "VB", "soVB"])
    p.add_argument("--K", type=int, default=30, help="initial number of states")
    p.add_argument("--nBatch", type=int, default=None,
                   help="batches for memoVB/soVB (default: number of sequences)")
    p.add_argument("--nLap", type=int, default=100)
    p.add_argument("--moves", default="",
                   help="comma list among birth,merge,delete,shuffle (memoVB only); '' = none")
    p.add_argument("--seed", type=int, default=0, help="bnpy taskid = seed + 1")
    p.add_argument("--gamma", type=float, default=10.0, help="top-level DP concentration")
    p.add_argument("--alpha", type=float, default=0.5,
                   help="transAlpha (bnpy.run's .conf default is 0.1; thesis 0.5)")
    p.add_argument("--startAlpha", type=float, default=5.0)
    p.add_argument("--kappa", type=float, default=0.0, help="hmmKappa (sticky self-transition)")
    p.add_argument("--nu", type=float, default=0.0, help="Wishart dof; bnpy uses max(nu, D+2)")
    p.add_argument("--sF", type=float, default=1.0, help="scale of E[Sigma] under the prior")
    p.add_argument("--ECovMat", default="eye",
                   choices=["eye", "covdata", "diagcovdata", "covfirstdiff", "diagcovfirstdiff"],
                   help="E[Sigma] = sF * (I | cov(X) | diag cov(X) | cov(X - Xprev) | its "
                        "diagonal); the firstdiff ones need Xprev")
    p.add_argument("--MMat", default=None,
                   help="prior mean: AutoRegGauss zero|eye (bnpy default eye); Gauss/DiagGauss "
                        "zero|data (bnpy default zero); default: bnpy's")
    p.add_argument("--sM", type=float, default=None, help="AutoRegGauss: M = sM*I if MMat=eye")
    p.add_argument("--VMat", default=None, choices=[None, "eye", "same"],
                   help="AutoRegGauss: V = sV*I (eye, bnpy default) or sV*E[Sigma] (same)")
    p.add_argument("--sV", type=float, default=None, help="AutoRegGauss V scale (bnpy default 1)")
    p.add_argument("--kappa_obs", type=float, default=None,
                   help="Gauss/DiagGauss mean precision scale (bnpy default 1e-4)")
    p.add_argument("--initname", default="randcontigblocks",
                   help="randcontigblocks (default) | randexamples (bnpy default) | "
                        "randexamplesbydist | kmeans | randsoftpartition")
    p.add_argument("--initBlockLen", type=int, default=None,
                   help="randcontigblocks window length (bnpy default 20)")
    p.add_argument("--convergeThr", type=float, default=None,
                   help="bnpy convergeThr (memoVB default 0.01, VB 0.05); 0 = run all laps")
    p.add_argument("--bnpy-kw", action="append", default=[], metavar="KEY=VALUE",
                   help="extra bnpy kwarg, e.g. m_startLap=10, m_maxNumPairsContainingComp=50 "
                        "(repeatable; parsed by bnpy's own config types)")
    p.add_argument("--outdir", default=None,
                   help="bnpy output dir (default: a fresh temp dir, deleted afterwards)")
    p.add_argument("--keep-output", action="store_true", help="keep bnpy's output dir")
    p.add_argument("--verbose", action="store_true", help="echo bnpy's log to stdout")
    return p.parse_args(argv)


def load_sequences(path, need_xprev):
    z = np.load(path, allow_pickle=False)
    X = np.ascontiguousarray(z["X"], dtype=np.float64)
    if X.ndim != 2:
        sys.exit("--data: X must be 2-D (T, D), got %s" % (X.shape,))
    lengths = np.asarray(z["lengths"]).astype(np.int64).ravel()
    if lengths.size == 0 or np.any(lengths <= 0) or lengths.sum() != X.shape[0]:
        sys.exit("--data: lengths must be positive and sum to T=%d (got sum %d)"
                 % (X.shape[0], lengths.sum()))
    Xprev = None
    if "Xprev" in z.files:
        Xprev = np.ascontiguousarray(z["Xprev"], dtype=np.float64)
        if Xprev.shape[0] != X.shape[0] or Xprev.ndim != 2:
            sys.exit("--data: Xprev must be (T, E) with T=%d" % X.shape[0])
    if need_xprev and Xprev is None:
        sys.exit("--obs AutoRegGauss needs Xprev in --data")
    return X, Xprev, lengths


def _dims_shape(bag, dims):
    if dims is None:
        return ()
    if isinstance(dims, str):
        dims = (dims,)
    return tuple(int(getattr(bag, d)) if isinstance(d, str) else int(d) for d in dims)


def parambag_arrays(bag, prefix):
    """All fields of a bnpy ParamBag as float arrays, with their declared shapes."""
    out = {}
    for key, dims in bag._FieldDims.items():
        arr = np.array(getattr(bag, key), dtype=float)
        try:
            arr = arr.reshape(_dims_shape(bag, dims))
        except (ValueError, AttributeError):
            pass
        out[prefix + key] = arr
    return out


def viterbi_and_resp(hmodel, Data):
    from bnpy.allocmodel.hmm import HMMUtil
    from scipy.special import digamma
    alloc = hmodel.allocModel
    K = int(alloc.K)
    obsLP = hmodel.obsModel.calc_local_params(Data)
    logSoftEv = np.array(obsLP["E_log_soft_ev"], dtype=float)  # copy: the HMM step edits row 0
    tT = alloc.transTheta
    logPi = (digamma(tT) - digamma(tT.sum(axis=1))[:, None])[:K, :K]
    sT = alloc.startTheta
    logPi0 = (digamma(sT) - digamma(sT.sum()))[:K]
    z = np.empty(Data.X.shape[0], dtype=np.int32)
    dr = Data.doc_range
    for n in range(Data.nDoc):
        z[dr[n]:dr[n + 1]] = HMMUtil.runViterbiAlg(logSoftEv[dr[n]:dr[n + 1]], logPi0, logPi)
    LP = hmodel.calc_local_params(Data)
    resp = np.array(LP["resp"], dtype=float)
    SS = hmodel.get_global_suff_stats(Data, LP, doPrecompEntropy=1)
    fresh_loss = -float(hmodel.calc_evidence(SS=SS))
    return z, resp, fresh_loss, float(hmodel.obsModel.getDatasetScale(SS))


def _jsonable(o):
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    return str(o)


def main(argv=None):
    args = parse_args(argv)
    moves = [m.strip() for m in args.moves.split(",") if m.strip()]
    bad = [m for m in moves if m not in ("birth", "merge", "delete", "shuffle")]
    if bad:
        sys.exit("unknown move(s) %s; choose from birth,merge,delete,shuffle" % bad)
    if moves and args.algo != "memoVB":
        sys.exit("--moves need --algo memoVB")

    bnpy, createUniqueRandomSeed = import_bnpy()
    if not args.verbose:
        quiet_delete_logger()

    X, Xprev, lengths = load_sequences(args.data, args.obs == "AutoRegGauss")
    T, D = X.shape
    doc_range = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    S = int(lengths.size)
    Data = bnpy.data.GroupXData(X=X, doc_range=doc_range,
                                Xprev=Xprev if args.obs == "AutoRegGauss" else None)
    nBatch = S if args.nBatch is None else int(args.nBatch)
    if nBatch < 1 or nBatch > S:
        sys.exit("--nBatch must be in 1..%d (number of sequences)" % S)

    sys.modules[_CB_MODNAME] = sys.modules[__name__]
    own_tmp = args.outdir is None
    outdir = tempfile.mkdtemp(prefix="bnpy_hdphmm_") if own_tmp else args.outdir
    try:
        return fit_and_save(args, bnpy, createUniqueRandomSeed, Data, X, Xprev, lengths,
                            doc_range, nBatch, moves, outdir,
                            keep=not own_tmp or args.keep_output)
    finally:
        if own_tmp and not args.keep_output:
            shutil.rmtree(outdir, ignore_errors=True)


def fit_and_save(args, bnpy, createUniqueRandomSeed, Data, X, Xprev, lengths, doc_range,
                 nBatch, moves, outdir, keep):
    T, D = X.shape
    E = int(Xprev.shape[1]) if (Xprev is not None and args.obs == "AutoRegGauss") else 0
    taskid = args.seed + 1
    jobname = "none"  # bnpy's default OutputPrefs.jobname

    kw = dict(
        nLap=args.nLap, nBatch=nBatch,
        K=args.K, initname=args.initname,
        gamma=args.gamma, transAlpha=args.alpha, startAlpha=args.startAlpha,
        hmmKappa=args.kappa,
        # bnpy's .conf declares nu as int; a 0-d ndarray bypasses its string parsing.
        nu=np.asarray(float(args.nu)), sF=args.sF, ECovMat=args.ECovMat,
        output_path=outdir, jobname=jobname, printEvery=1, traceEvery=1,
        customFuncPath=os.path.join(os.path.dirname(os.path.abspath(__file__)), _CB_MODNAME),
    )
    if args.obs == "AutoRegGauss":
        for name in ("MMat", "sM", "VMat", "sV"):
            if getattr(args, name) is not None:
                kw[name] = getattr(args, name)
    else:
        if args.MMat is not None:
            kw["MMat"] = args.MMat
        if args.kappa_obs is not None:
            kw["kappa"] = args.kappa_obs
    if args.initBlockLen is not None:
        kw["initBlockLen"] = args.initBlockLen
    if args.convergeThr is not None:
        kw["convergeThr"] = args.convergeThr
    if moves:
        kw["moves"] = ",".join(moves)
    for item in args.bnpy_kw:
        key, _, val = item.partition("=")
        kw[key.strip()] = val.strip()

    algseed = createUniqueRandomSeed(jobname, taskID=taskid)
    dataorderseed = createUniqueRandomSeed("", taskID=taskid)
    config = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    config.pop("customFuncPath")
    config.pop("output_path")
    config.update(data=os.path.abspath(args.data), algName=args.algo,
                  allocModelName="HDPHMM", obsModelName=args.obs)
    common = dict(
        lengths=np.asarray(lengths), doc_range=doc_range, T=T, D=D, E=E, n_seq=int(lengths.size),
        nBatch=nBatch, taskid=taskid, algseed=algseed, dataorderseed=dataorderseed,
        config_json=json.dumps(config, sort_keys=True),
        bnpy_version=_dist_version("bnpy"), numpy_version=np.__version__,
    )
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    task_output_path = os.path.join(outdir, str(taskid))

    hmodel, info, err, tb, fit_wall, fit_cpu = timed_run(bnpy, Data, "HDPHMM", args.obs, args.algo, taskid,
                                                         args.verbose, kw)

    if err is not None:
        la = _HOOK["learnAlg"]
        out = dict(common)
        if la is not None:
            out.update(trace_arrays(la.lap_list, la.loss_list, la.elapsed_time_sec_list,
                                    la.K_list))
            out["trace_elbo_total"] = -out["trace_loss"] * T * D
            out["n_laps_done"] = float(la.lap_list[-1]) if la.lap_list else 0.0
        out.update(move_summary(_HOOK["MoveLog"], moves, task_output_path))
        if _HOOK["last_lap"] is not None:
            out.update(last_lap_completed=_HOOK["last_lap"], last_K=_HOOK["last_K"])
        out.update(fit_wall_sec=fit_wall, fit_cpu_sec=fit_cpu,
                   status="crashed: %s: %s" % (type(err).__name__, err), error_traceback=tb)
        np.savez(args.out, **out)
        print(tb, file=sys.stderr)
        print("bnpy CRASHED after %.3f s wall (last full lap %s): %s: %s; status saved to %s"
              % (fit_wall, _HOOK["last_lap"], type(err).__name__, err, args.out))
        return 1

    obs, alloc = hmodel.obsModel, hmodel.allocModel
    SS = info["SS"]
    K = int(obs.K)
    final_loss = float(info["loss"])
    # soVB (doMemoELBO=1, bnpy's default) scores the unamplified whole-data SStotal, whose
    # N sums to T once every batch has been seen; info["SS"] is the last amplified batch.
    loss_scale = float(T * D) if args.algo == "soVB" else float(obs.getDatasetScale(SS))
    from bnpy.util.StickBreakUtil import rho2beta

    KwArgs = info.get("KwArgs", {})
    sections = ["HDPHMM", args.obs, args.algo, "Initialization", "OnlineDataPrefs",
                "OutputPrefs"] + moves
    bnpy_kwargs = {s: KwArgs[s] for s in sections if s in KwArgs}

    # bnpy's ELBO re-evaluated from the returned SS and globals (slack terms included); should
    # equal final_loss (a consistency check of what is saved).
    # VB's SS carries no entropy terms; there the returned LP supplies them. soVB returns the
    # last batch's amplified SS, not the whole-data SStotal its (doMemoELBO) loss used.
    if args.algo == "soVB":
        recomputed_loss = float("nan")
    elif SS.hasELBOTerm("Htable"):
        recomputed_loss = -float(hmodel.calc_evidence(SS=SS))
    elif info.get("LP") is not None:
        recomputed_loss = -float(hmodel.calc_evidence(Data=Data, SS=SS, LP=info["LP"]))
    else:
        recomputed_loss = float("nan")
    z_vit, resp, fresh_loss, fresh_scale = viterbi_and_resp(hmodel, Data)

    out = dict(common)
    out.update(trace_arrays(info["lap_history"], info["loss_history"],
                            info["elapsed_time_sec_history"], info["K_history"]))
    out["trace_elbo_total"] = -out["trace_loss"] * T * D
    out.update(
        fit_wall_sec=fit_wall, fit_cpu_sec=fit_cpu,
        bnpy_elapsed_sec=float(info["elapsedTimeInSec"]),
        final_loss=final_loss, loss_scale=loss_scale,
        final_elbo_total=-final_loss * loss_scale,
        final_K=K, recomputed_loss=recomputed_loss,
        n_laps_done=float(info["lap_history"][-1]) if len(info["lap_history"]) else 0.0,
        status=str(info.get("status", "")),
        alloc_transTheta=np.array(alloc.transTheta, dtype=float),
        alloc_startTheta=np.array(alloc.startTheta, dtype=float),
        alloc_rho=np.array(alloc.rho, dtype=float),
        alloc_omega=np.array(alloc.omega, dtype=float),
        alloc_Ebeta=np.array(rho2beta(alloc.rho, returnSize="K+1"), dtype=float),
        alloc_gamma=float(alloc.gamma), alloc_transAlpha=float(alloc.transAlpha),
        alloc_startAlpha=float(alloc.startAlpha), alloc_kappa=float(alloc.kappa),
        alloc_nGlobalIters=int(alloc.nGlobalIters),
        alloc_nGlobalItersBigChange=int(alloc.nGlobalItersBigChange),
        state_uids=np.array(SS.uids, dtype=int),
        map_z_viterbi=z_vit, map_z_resp=np.argmax(resp, axis=1).astype(np.int32), resp=resp,
        fresh_local_loss=fresh_loss, fresh_local_elbo_total=-fresh_loss * fresh_scale,
        bnpy_kwargs_json=json.dumps(bnpy_kwargs, sort_keys=True, default=_jsonable),
    )
    out.update(parambag_arrays(obs.Post, "post_"))
    out.update(parambag_arrays(obs.Prior, "prior_"))
    out.update(parambag_arrays(SS._Fields, "ss_"))
    if SS.hasELBOTerms():
        out.update(parambag_arrays(SS._ELBOTerms, "ssterm_"))
    out.update(move_summary(_HOOK["MoveLog"], moves, info.get("task_output_path")))
    np.savez(args.out, **out)

    if keep:
        print("bnpy output dir: %s" % info.get("task_output_path"))
    full = out["trace_is_full_lap"]
    print("K trace (full laps): %s" % " ".join(
        "%g:%d" % (l, k) for l, k in zip(out["trace_lap"][full], out["trace_K"][full])))
    if moves:
        print("accepted moves: %s   tried: %s" % (
            " ".join("%s=%d" % (k, a) for k, a in zip(MOVE_KINDS, out["move_accepts"]) if a),
            " ".join("%s=%d" % (k, t) for k, t in zip(MOVE_KINDS, out["move_trials"]) if t >= 0)))
    print("bnpy final loss %.10g (ELBO %.6g nats, scale %g)  K %d  laps %.3f  status %s"
          % (final_loss, out["final_elbo_total"], loss_scale, K, out["n_laps_done"],
             out["status"]))
    print("viterbi: %d states used; resp-argmax: %d; agree on %.1f%% of frames"
          % (np.unique(z_vit).size, np.unique(out["map_z_resp"]).size,
             100.0 * np.mean(z_vit == out["map_z_resp"])))
    print("fit wall %.3f s  cpu %.3f s  (bnpy elapsed %.3f s)"
          % (fit_wall, fit_cpu, out["bnpy_elapsed_sec"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
