#!/usr/bin/env python
"""Fit bnpy 0.1.7's HDP topic model (memoVB + moves) and save the result to .npz.

Run with the bnpy venv made by recipe.sh (NOT the project venv):

    /work/bnpy-venv/bin/python benchmarks/bnpy/run_hdptopics.py \
        --data BOW.npz --out result.npz --K 100 --moves merge,delete,shuffle --nBatch 1 \
        --nLap 20 --seed 0 --gamma 10 --alpha 0.5 --lam 0.1 [--initname randexamples] \
        [--snapshot-laps 0,5,10]

Input: BOW.npz holds a CSR bag-of-words matrix (docs x vocab) as keys data, indices, indptr,
shape (scipy.sparse.save_npz layout without the format key; float counts are fine). Duplicate
entries are summed and explicit zeros dropped. bnpy's BagOfWordsData asserts that every document
has at least one token, so empty documents (rows) are dropped; doc_kept records which rows were
used. Empty vocabulary columns are kept, so topic_word has the caller's V columns (the caller is
expected to have dropped them already; bnpy handles them through the prior only).

Model: bnpy.run(BagOfWordsData, 'HDPTopicModel', 'Mult', 'memoVB', ...), i.e. the AISTATS'15
HDP topic model (surrogate bound; top-level stick-breaking q(u_k) = Beta(rho_k omega_k,
(1-rho_k) omega_k), document proportions pi_d ~ Dir(alpha * E[beta]); truncation K shrunk by
the moves) with topic-word distributions phi_k ~ Dir(lam, ..., lam). bnpy names (all parsed by
bnpy from the .conf files in bnpy/config/):
  gamma, alpha      allocmodel.conf [HDPTopicModel] (defaults 1.0, 0.5), set_prior in
                    allocmodel/topics/HDPTopicModel.py
  lam               obsmodel.conf [Mult] (default 0.1), createPrior in obsmodel/MultObsModel.py
  K, initname       init.conf [Initialization] (defaults 6, 'randexamples'); the Mult routines
                    are in init/FromScratchMult.py
  nBatch, nLap      onlinedata.conf [OnlineDataPrefs] (defaults 10, 1.0)
  convergeThr, nCoordAscentItersLP, convThrLP, initDocTopicCountLP, restartLP
                    learnalg.conf [memoVB] (defaults 0.01, 10, 0.01, setDocProbsToEGlobalProbs, 0)
  moves, m_*, d_*, s_*
                    moves.conf [merge] / [delete] / [shuffle] (m_startLap = d_startLap = 2, i.e.
                    no merge/delete during the first lap; d_nRefineSteps = 25, ...)
  customFuncPath    output.conf [OutputPrefs]; the per-batch/per-lap hook (see Snapshots)
The fully resolved bnpy kwargs of the run are saved (bnpy_kwargs_json).

Init: --initname randexamples is bnpy's default for every model (init.conf) and the one
FromScratchMult implements first: each of the K topics starts at lam + the word counts of one
distinct random document (K = min(K, nDoc)). 'randomlikewang' (Gamma(1,1) noise scaled as in
Chong Wang's online HDP code, used by bnpy's wiki examples), 'randomfromprior' and
'kmeansplusplus'/'plusplus' (need KMeansRex, not installed) are the other options.

Seeds: bnpy derives its seeds from (jobname, taskid) by md5; --seed S runs bnpy task S+1
(jobname 'none', bnpy's default), so --seed 0 is bnpy's default task 1. The derived algseed
(init + per-lap move randomness) and dataorderseed (batch partition and order) are saved.

Output: bnpy always gets doSaveToDisk=True (its births and move transcripts need it); its files
go to a temporary directory that is removed afterwards (unless --keep-output or --outdir). The
fit times therefore include bnpy's own disk I/O (model .mat snapshots every saveEvery=5 laps,
traces, transcripts), as for run_dpmixture.py. bnpy's delete logger prints to stdout whatever
doWriteStdOut says; that handler is removed unless --verbose (see quiet_delete_logger).

Snapshots (--snapshot-laps): bnpy has a hook mechanism. LearnAlg.eval_custom_func imports the
module named by the customFuncPath kwarg and calls its onBatchComplete / onLapComplete /
onAlgorithmComplete with all local variables of MemoVBMovesAlg.fit (hmodel, SS, lapFrac,
MoveLog, learnAlg, ...). This script passes its own path as customFuncPath (aliased in
sys.modules so bnpy gets this very module back, not a re-import). onLapComplete runs after the
last batch of every integer lap, i.e. after that lap's deletes, merges and shuffle, and once at
lap 0 right after initialisation; at the requested laps it copies Post.lam. Laps that are never
reached (early convergence) are simply absent from snap_laps. The hook is always installed (it
also captures the move log); its per-batch cost is negligible and included in the fit time.

Accepted moves: bnpy's info dict has no move counts. MemoVBMovesAlg.fit keeps a local MoveLog
with one (lap, kind, args, uids_before, uids_after) tuple per ACCEPTED birth/merge/delete and
per shuffle that changed the order ('prune' if s_doPrune); the hook reads it at the end. The
number of merge/delete proposals TRIED per lap is only written to bnpy's
{merge,delete}-transcript-summary.txt ("MERGE @ lap 3.00 : 2/17 accepted."), which is parsed
before the temp dir is removed.

Known bnpy crash: HDP topics with the delete move and nBatch > 1 raise
NameError: name 'xInitSS' is not defined (allocmodel/topics/HDPTopicRestrictedLocalStep2.py,
restrictedLocalStep_HDPTopicModel uses xInitSS when doBuildOnInit, which happens once a delete
proposal has been tracked over an earlier batch of the lap). This script refuses that
combination up front (exit code 2, no output file) unless --allow-known-crash is given. Any
exception raised inside bnpy.run is caught: OUT.npz is still written with status
"crashed: <ExceptionType>: <message>", the traceback, the config, the times, and whatever the
hook captured before the crash (trace, K, moves, last-lap topics); the exit code is then 1.

Saved keys (result.npz):
  topic_word (K,V)              posterior-mean topic-word probabilities, Post.lam row-normalised
  lam (K,V)                     obsModel.Post.lam (Dirichlet parameters of q(phi_k))
  prior_lam (V,)                obsModel.Prior.lam
  final_K, topic_uids (K,)      K and bnpy's stable uids of the final topics
  count_N (K,)                  expected number of tokens per topic: SS.SumWordCounts, which
                                is what SS.getCountVec() returns for HDPTopicModel+Mult (that
                                SS has no N field) and what bnpy's convergence test and move
                                planners use; = Post.lam.sum(1) - V*lam
  alloc_rho (K,), alloc_omega (K,), alloc_Ebeta (K,), alloc_Ebeta_rem
                                q(u_k) parameters and E[beta] (active, remainder)
  alloc_gamma, alloc_alpha      priors as stored
  trace_lap, trace_loss, trace_elapsed_sec, trace_K, trace_is_full_lap
      bnpy's trace (info_dict *_history). bnpy also records a few fractional laps
      (the first batches when nBatch > 1); trace_is_full_lap marks the integer laps.
  fit_wall_sec, fit_cpu_sec     wall / process-CPU time of bnpy.run() (init + fit + bnpy disk I/O)
  bnpy_elapsed_sec              bnpy's own elapsedTimeInSec (fit loop only, from learnAlg start)
  final_loss                    bnpy loss = -ELBO / total tokens (surrogate bound)
  final_elbo_total              -final_loss * n_tokens (nats)
  n_laps_done, status           bnpy's last lap and status ('done. converged.' /
                                'done. not converged. max laps thru data exceeded.'), or
                                'crashed: <ExceptionType>: <message>'
  error_traceback, last_lap_completed
                                crash only; then lam / topic_word / final_K are those after
                                the last completed lap (from the hook), and the trace, move
                                and snapshot keys hold what was recorded before the crash;
                                keys that need the final model (count_N, alloc_*, final_loss,
                                bnpy_elapsed_sec, bnpy_kwargs_json, ...) are absent
  move_kinds                    ['birth', 'merge', 'delete', 'shuffle', 'prune']
  move_accepts (5,)             accepted moves per kind (MoveLog), same order
  move_trials (5,)              proposals tried per kind from the transcripts (birth: -1, not
                                parsed; shuffle/prune: -1, not proposals)
  move_accept_<kind>            the same accepted counts as scalar keys
  move_log_lap, move_log_kind   one entry per MoveLog tuple (lap, kind)
  snap_laps (S,), snap_topic_word (S,K_max,V), snap_K (S,)
      topic-word matrices at the requested laps, NaN-padded to the largest K seen
      (rows >= snap_K[s] are NaN); empty arrays if --snapshot-laps is not given
  n_docs, n_docs_input, doc_kept (n_docs,), V, n_tokens
  taskid, algseed, dataorderseed, seeds_json, config_json, bnpy_kwargs_json,
  bnpy_version, numpy_version
"""
import os

# One BLAS/OpenMP thread unless the caller says otherwise (must precede numpy import).
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault("MPLBACKEND", "Agg")  # bnpy imports matplotlib at import time

import argparse
import glob
import json
import re
import shutil
import sys
import tempfile

import numpy as np
from importlib.metadata import version as _dist_version

from _bnpy_common import import_bnpy, timed_run  # the sibling module (this script's folder is on sys.path)

MOVE_KINDS = ("birth", "merge", "delete", "shuffle", "prune")
_CB_MODNAME = "bnpy_hdptopics_hook"  # name under which bnpy imports this module as its hook

# State filled by the bnpy hook functions below (module globals: bnpy imports this very module).
_HOOK = dict(snap_laps=set(), snaps=[], learnAlg=None, MoveLog=None, last_lam=None,
             last_lap=None)


def onBatchComplete(args=None, learnAlg=None, MoveLog=None, **kwargs):
    """bnpy hook, after every batch: keep references for the move counts and crash reports."""
    if learnAlg is not None:
        _HOOK["learnAlg"] = learnAlg
    if MoveLog is not None:
        _HOOK["MoveLog"] = MoveLog


def onLapComplete(args=None, lapFrac=0.0, hmodel=None, **kwargs):
    """bnpy hook, after each integer lap's moves (and at lap 0): snapshot Post.lam if asked."""
    lap = int(round(float(lapFrac)))
    if hmodel is None:
        return
    if lap in _HOOK["snap_laps"]:
        _HOOK["snaps"].append((lap, np.array(hmodel.obsModel.Post.lam, dtype=float)))
    _HOOK["last_lap"] = lap
    _HOOK["last_lam"] = hmodel.obsModel.Post.lam  # reference only; copied on crash


def onAlgorithmComplete(args=None, MoveLog=None, learnAlg=None, **kwargs):
    """bnpy hook, once at the end of fit()."""
    onBatchComplete(learnAlg=learnAlg, MoveLog=MoveLog)



def quiet_delete_logger():
    """bnpy's DLogger.configure always adds a stdout handler ('if True:' in place of
    'if doWriteStdOut:'); drop it after configure when bnpy was asked not to write to stdout.
    Its transcript files (parsed for move_trials) are unaffected."""
    import logging
    from bnpy.deletemove import DLogger
    orig = DLogger.configure

    def configure(taskoutpath, doSaveToDisk=0, doWriteStdOut=0):
        orig(taskoutpath, doSaveToDisk, doWriteStdOut)
        if not doWriteStdOut:
            DLogger.Log.handlers = [h for h in DLogger.Log.handlers
                                    if isinstance(h, logging.FileHandler)
                                    or not isinstance(h, logging.StreamHandler)]
    DLogger.configure = configure


def parse_int_list(s):
    return sorted({int(x) for x in s.split(",") if x.strip()}) if s else []


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True,
                   help=".npz with a CSR bag-of-words: data, indices, indptr, shape (docs x vocab)")
    p.add_argument("--out", required=True, help="output .npz path")
    p.add_argument("--K", type=int, default=100, help="initial number of topics (truncation)")
    p.add_argument("--moves", default="merge,delete,shuffle",
                   help="comma list of bnpy moves (birth,merge,delete,shuffle); '' for none")
    p.add_argument("--nBatch", type=int, default=1)
    p.add_argument("--nLap", type=int, default=20)
    p.add_argument("--seed", type=int, default=0, help="bnpy taskid = seed + 1")
    p.add_argument("--gamma", type=float, default=10.0, help="top-level DP concentration")
    p.add_argument("--alpha", type=float, default=0.5,
                   help="document-level concentration: pi_d ~ Dir(alpha * E[beta])")
    p.add_argument("--lam", type=float, default=0.1,
                   help="symmetric Dirichlet pseudo-count of each topic-word distribution")
    p.add_argument("--initname", default="randexamples",
                   help="bnpy initname (default randexamples = bnpy's default: K random "
                        "documents' counts + lam; or randomlikewang, randomfromprior)")
    p.add_argument("--m_startLap", type=int, default=2,
                   help="first lap with merges (bnpy default 2)")
    p.add_argument("--d_startLap", type=int, default=2,
                   help="first lap with deletes (bnpy default 2)")
    p.add_argument("--nCoordAscentItersLP", type=int, default=None,
                   help="max per-document local iterations (memoVB default 10)")
    p.add_argument("--convThrLP", type=float, default=None,
                   help="local-step convergence threshold on doc-topic counts (default 0.01)")
    p.add_argument("--convergeThr", type=float, default=None,
                   help="bnpy convergeThr (memoVB default 0.01; max |dN_k| per batch); "
                        "0 disables early stopping, so exactly nLap laps run")
    p.add_argument("--snapshot-laps", default="",
                   help="comma list of integer laps at which to save topic_word (0 = after "
                        "init); taken after that lap's moves")
    p.add_argument("--bnpy-kw", action="append", default=[], metavar="KEY=VALUE",
                   help="extra bnpy kwarg, e.g. m_maxNumPairsContainingComp=10, "
                        "d_nRefineSteps=10, saveEvery=1000 (repeatable; parsed by bnpy)")
    p.add_argument("--allow-known-crash", action="store_true",
                   help="run delete with nBatch > 1 anyway (bnpy crashes; status records it)")
    p.add_argument("--outdir", default=None,
                   help="bnpy output dir (default: a fresh temp dir, deleted afterwards)")
    p.add_argument("--keep-output", action="store_true", help="keep bnpy's output dir")
    p.add_argument("--verbose", action="store_true", help="echo bnpy's log to stdout")
    return p.parse_args(argv)


def load_bow(path):
    """CSR (docs x vocab) from an .npz with data/indices/indptr/shape; drops empty documents."""
    import scipy.sparse as sp
    z = np.load(path, allow_pickle=False)
    shape = tuple(int(s) for s in z["shape"])
    X = sp.csr_matrix((np.asarray(z["data"], dtype=np.float64),
                       np.asarray(z["indices"]), np.asarray(z["indptr"])), shape=shape)
    X.sum_duplicates()
    X.eliminate_zeros()
    X.sort_indices()
    if X.nnz and X.data.min() < 0:
        sys.exit("--data has negative counts")
    doc_kept = np.flatnonzero(np.diff(X.indptr) > 0)
    if doc_kept.size < X.shape[0]:
        X = X[doc_kept]
    return X, doc_kept, shape[0]


def parse_transcript_trials(task_output_path):
    """Proposals tried per kind from bnpy's '<KIND> @ lap L : a/t accepted.' summary lines."""
    trials = dict(merge=0, delete=0)
    accepts = dict(merge=0, delete=0)
    found = dict(merge=False, delete=False)
    pat = re.compile(r"(MERGE|DELETE) @ lap\s+[\d.]+\s*:\s*(\d+)/(\d+) accepted")
    for kind in ("merge", "delete"):
        for fn in glob.glob(os.path.join(task_output_path or "", kind + "-transcript-summary.txt")):
            found[kind] = True
            with open(fn) as f:
                for line in f:
                    m = pat.search(line)
                    if m:
                        accepts[kind] += int(m.group(2))
                        trials[kind] += int(m.group(3))
    return trials, accepts, found


def move_summary(MoveLog, moves, task_output_path):
    log = list(MoveLog or [])
    kinds = [t[1] for t in log]
    acc = np.array([kinds.count(k) for k in MOVE_KINDS], dtype=int)
    trials, tr_acc, found = parse_transcript_trials(task_output_path)
    tr = np.full(len(MOVE_KINDS), -1, dtype=int)
    for i, k in enumerate(MOVE_KINDS):
        if k in ("merge", "delete") and k in moves and found[k]:
            tr[i] = trials[k]
            if tr_acc[k] != acc[i]:
                print("note: %s accepts in MoveLog (%d) != transcript (%d)"
                      % (k, acc[i], tr_acc[k]), file=sys.stderr)
    out = dict(move_kinds=np.array(MOVE_KINDS), move_accepts=acc, move_trials=tr,
               move_log_lap=np.array([float(t[0]) for t in log], dtype=float),
               move_log_kind=np.array(kinds, dtype="U16"))
    for i, k in enumerate(MOVE_KINDS):
        out["move_accept_" + k] = int(acc[i])
    return out


def snapshot_arrays(snaps, V):
    if not snaps:
        return dict(snap_laps=np.zeros(0, dtype=int), snap_topic_word=np.zeros((0, 0, V)),
                    snap_K=np.zeros(0, dtype=int))
    Kmax = max(lam.shape[0] for _, lam in snaps)
    arr = np.full((len(snaps), Kmax, V), np.nan)
    for s, (_, lam) in enumerate(snaps):
        arr[s, :lam.shape[0]] = lam / lam.sum(axis=1, keepdims=True)
    return dict(snap_laps=np.array([l for l, _ in snaps], dtype=int), snap_topic_word=arr,
                snap_K=np.array([lam.shape[0] for _, lam in snaps], dtype=int))


def trace_arrays(lap, loss, elapsed, K):
    lap = np.asarray(lap, dtype=float)
    return dict(trace_lap=lap, trace_loss=np.asarray(loss, dtype=float),
                trace_elapsed_sec=np.asarray(elapsed, dtype=float),
                trace_K=np.asarray(K, dtype=int),
                trace_is_full_lap=np.isclose(lap, np.round(lap)))


def main(argv=None):
    args = parse_args(argv)
    moves = [m.strip() for m in args.moves.split(",") if m.strip()]
    bad = [m for m in moves if m not in ("birth", "merge", "delete", "shuffle")]
    if bad:
        sys.exit("unknown move(s) %s; choose from birth,merge,delete,shuffle" % bad)
    if "delete" in moves and args.nBatch > 1 and not args.allow_known_crash:
        print("run_hdptopics.py: refusing --moves with 'delete' and --nBatch %d > 1: bnpy 0.1.7's "
              "HDP delete crashes there (NameError: name 'xInitSS' is not defined, "
              "bnpy/allocmodel/topics/HDPTopicRestrictedLocalStep2.py). Use --nBatch 1, drop "
              "delete, or pass --allow-known-crash to record the crash in the output's status."
              % args.nBatch, file=sys.stderr)
        return 2

    bnpy, createUniqueRandomSeed = import_bnpy()
    if not args.verbose:
        quiet_delete_logger()

    X, doc_kept, n_docs_input = load_bow(args.data)
    nDoc, V = X.shape
    if nDoc == 0:
        sys.exit("--data has no non-empty documents")
    if args.nBatch > nDoc:
        sys.exit("--nBatch %d > number of non-empty documents %d" % (args.nBatch, nDoc))
    Data = bnpy.data.BagOfWordsData(
        word_id=X.indices.astype(np.int32), word_count=X.data.astype(np.float64),
        doc_range=X.indptr.astype(np.int32), vocab_size=V)

    # Make this module importable by bnpy's hook loader under a fixed name (see docstring).
    sys.modules[_CB_MODNAME] = sys.modules[__name__]
    _HOOK["snap_laps"] = set(parse_int_list(args.snapshot_laps))

    own_tmp = args.outdir is None
    outdir = tempfile.mkdtemp(prefix="bnpy_hdp_") if own_tmp else args.outdir
    try:
        return fit_and_save(args, bnpy, createUniqueRandomSeed, Data, moves, outdir,
                            doc_kept, n_docs_input, keep=not own_tmp or args.keep_output)
    finally:
        if own_tmp and not args.keep_output:
            shutil.rmtree(outdir, ignore_errors=True)


def fit_and_save(args, bnpy, createUniqueRandomSeed, Data, moves, outdir, doc_kept,
                 n_docs_input, keep):
    nDoc, V = Data.nDoc, Data.vocab_size
    n_tokens = float(np.sum(Data.word_count))
    taskid = args.seed + 1
    jobname = "none"  # bnpy's default OutputPrefs.jobname

    kw = dict(
        nLap=args.nLap, nBatch=args.nBatch,
        K=args.K, initname=args.initname,
        gamma=args.gamma, alpha=args.alpha, lam=args.lam,
        output_path=outdir, jobname=jobname,
        printEvery=1, traceEvery=1,
        # eval_custom_func: a path with a separator -> its dir goes on sys.path and the last
        # part (minus .py) is __import__ed; the sys.modules alias above makes that this module.
        customFuncPath=os.path.join(os.path.dirname(os.path.abspath(__file__)), _CB_MODNAME),
    )
    if moves:
        kw["moves"] = ",".join(moves)
        if "merge" in moves:
            kw["m_startLap"] = args.m_startLap
        if "delete" in moves:
            kw["d_startLap"] = args.d_startLap
    for name in ("convergeThr", "nCoordAscentItersLP", "convThrLP"):
        if getattr(args, name) is not None:
            kw[name] = getattr(args, name)
    for item in args.bnpy_kw:
        key, _, val = item.partition("=")
        kw[key.strip()] = val.strip()

    algseed = createUniqueRandomSeed(jobname, taskID=taskid)
    dataorderseed = createUniqueRandomSeed("", taskID=taskid)
    config = dict(kw)
    config.update(data=os.path.abspath(args.data), algName="memoVB",
                  allocModelName="HDPTopicModel", obsModelName="Mult",
                  snapshot_laps=parse_int_list(args.snapshot_laps),
                  allow_known_crash=bool(args.allow_known_crash))
    config.pop("customFuncPath")
    config.pop("output_path")
    common = dict(
        n_docs=nDoc, n_docs_input=n_docs_input, doc_kept=doc_kept, V=V, n_tokens=n_tokens,
        taskid=taskid, algseed=algseed, dataorderseed=dataorderseed,
        seeds_json=json.dumps(dict(seed=args.seed, taskid=taskid, jobname=jobname,
                                   algseed=int(algseed), dataorderseed=int(dataorderseed))),
        config_json=json.dumps(config, sort_keys=True),
        bnpy_version=_dist_version("bnpy"), numpy_version=np.__version__,
    )
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    task_output_path = os.path.join(outdir, str(taskid))

    hmodel, info, err, tb, fit_wall, fit_cpu = timed_run(bnpy, Data, "HDPTopicModel", "Mult", "memoVB", taskid,
                                                         args.verbose, kw)

    if err is not None:
        la = _HOOK["learnAlg"]
        out = dict(common)
        if la is not None:
            out.update(trace_arrays(la.lap_list, la.loss_list, la.elapsed_time_sec_list,
                                    la.K_list))
            out["n_laps_done"] = float(la.lap_list[-1]) if la.lap_list else 0.0
        out.update(move_summary(_HOOK["MoveLog"], moves, task_output_path))
        out.update(snapshot_arrays(_HOOK["snaps"], V))
        if _HOOK["last_lam"] is not None:
            lam = np.array(_HOOK["last_lam"], dtype=float)
            out.update(last_lap_completed=_HOOK["last_lap"], lam=lam,
                       topic_word=lam / lam.sum(axis=1, keepdims=True), final_K=lam.shape[0])
        out.update(fit_wall_sec=fit_wall, fit_cpu_sec=fit_cpu,
                   status="crashed: %s: %s" % (type(err).__name__, err), error_traceback=tb)
        np.savez(args.out, **out)
        print(tb, file=sys.stderr)
        print("bnpy CRASHED after %.3f s wall (last full lap %s): %s: %s; status saved to %s"
              % (fit_wall, _HOOK["last_lap"], type(err).__name__, err, args.out))
        return 1

    obs, alloc = hmodel.obsModel, hmodel.allocModel
    SS = info["SS"]
    lam = np.array(obs.Post.lam, dtype=float)
    K = int(lam.shape[0])
    final_loss = float(info["loss"])
    KwArgs = info.get("KwArgs", {})
    sections = ["HDPTopicModel", "Mult", "memoVB", "Initialization", "OnlineDataPrefs",
                "OutputPrefs"] + moves
    bnpy_kwargs = {s: KwArgs[s] for s in sections if s in KwArgs}

    def _jsonable(o):
        if isinstance(o, np.ndarray):
            return o.tolist()
        if isinstance(o, np.generic):
            return o.item()
        return str(o)

    out = dict(common)
    out.update(trace_arrays(info["lap_history"], info["loss_history"],
                            info["elapsed_time_sec_history"], info["K_history"]))
    out.update(
        topic_word=lam / lam.sum(axis=1, keepdims=True),
        lam=lam,
        prior_lam=np.array(obs.Prior.lam, dtype=float),
        final_K=K,
        topic_uids=np.array(SS.uids, dtype=int),
        count_N=np.array(SS.getCountVec(), dtype=float),
        alloc_rho=np.array(alloc.rho, dtype=float),
        alloc_omega=np.array(alloc.omega, dtype=float),
        alloc_Ebeta=np.array(alloc.E_beta_active(), dtype=float),
        alloc_Ebeta_rem=float(alloc.E_beta_rem()),
        alloc_gamma=float(alloc.gamma), alloc_alpha=float(alloc.alpha),
        fit_wall_sec=fit_wall, fit_cpu_sec=fit_cpu,
        bnpy_elapsed_sec=float(info["elapsedTimeInSec"]),
        final_loss=final_loss,
        final_elbo_total=-final_loss * n_tokens,
        n_laps_done=float(info["lap_history"][-1]) if len(info["lap_history"]) else 0.0,
        status=str(info.get("status", "")),
        bnpy_kwargs_json=json.dumps(bnpy_kwargs, sort_keys=True, default=_jsonable),
    )
    out.update(move_summary(_HOOK["MoveLog"], moves, info.get("task_output_path")))
    out.update(snapshot_arrays(_HOOK["snaps"], V))
    np.savez(args.out, **out)

    if keep:
        print("bnpy output dir: %s" % info.get("task_output_path"))
    missing = sorted(_HOOK["snap_laps"] - set(out["snap_laps"].tolist()))
    if missing:
        print("note: snapshot laps %s not reached (run ended at lap %g)"
              % (missing, out["n_laps_done"]), file=sys.stderr)
    full = out["trace_is_full_lap"]
    print("K trace (full laps): %s" % " ".join(
        "%g:%d" % (l, k) for l, k in zip(out["trace_lap"][full], out["trace_K"][full])))
    print("accepted moves: %s   tried: %s" % (
        " ".join("%s=%d" % (k, a) for k, a in zip(MOVE_KINDS, out["move_accepts"]) if a),
        " ".join("%s=%d" % (k, t) for k, t in zip(MOVE_KINDS, out["move_trials"]) if t >= 0)))
    print("bnpy final loss %.10g  K %d  laps %.3f  status %s"
          % (final_loss, K, out["n_laps_done"], out["status"]))
    print("fit wall %.3f s  cpu %.3f s  (bnpy elapsed %.3f s)"
          % (fit_wall, fit_cpu, out["bnpy_elapsed_sec"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
