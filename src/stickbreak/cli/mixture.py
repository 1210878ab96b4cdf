"""``stickbreak fit mixture``: DP and finite mixtures on a data file or a bundled data set."""

from __future__ import annotations

import time

import numpy as np

from .. import datasets, obs
from ..config import INIT_METHODS, SAMPLING
from ..priors import MIXTURE_WEIGHTS
from ..data import BagOfWords
from ..data.shards import ShardStore
from ..datasets import read_data
from ..estimators import DPMixture, FiniteMixture
from ..estimators.mixture_base import MIXTURE_PLANS
from ..evaluate import cluster_label_table, majority_vote_accuracy
from ..moves import k_over_laps, move_summary
from .common import (MOVES_HELP, add_checkpoint_option, add_executor_option, add_run_options, checkpoint_target,
                     exit_code, parse_moves, parse_options, stop_status, write_csv, write_trace)
from .outputs import output_bytes, staged_output
from .report import save_run

#: Clusters listed on screen; the CSV written with --out has all of them.
MAX_ROWS_SHOWN = 15
#: What a mixture of independent items can use: the AR Gaussian needs sequences (``fit hmm``).
MIXTURE_OBS = tuple(sorted(name for name in obs.OBS_MODELS if name != "ar_gauss"))
#: The mixture estimators' algorithms, with SVI's other name.
MIXTURE_ALGORITHMS = (*MIXTURE_PLANS, "svi")


def add_fit_mixture(sub) -> None:
    p = sub.add_parser("mixture", help="DP or finite mixture",
                       description="Fit a DP or finite mixture by variational Bayes.")
    p.add_argument("data", help=f"a bundled data set ({', '.join(datasets.names('vectors'))}) or a .npy/.npz/.csv "
                                "file")
    p.add_argument("--obs", default="gauss", choices=MIXTURE_OBS,
                   help="observation model (default gauss; ar_gauss needs sequences: `stickbreak fit hmm`)")
    p.add_argument("--weights", default="dp", choices=sorted(MIXTURE_WEIGHTS),
                   help="dp (default) or finite mixture weights")
    p.add_argument("-K", "--n-components", type=int, default=None,
                   help="initial number of clusters (dp, default: one per 100 items, 1 to 100; memoized VI's moves "
                        "learn K; the truncation level under vb or stochastic) or the number of components (finite, "
                        "default 20)")
    p.add_argument("--concentration", type=float, default=1.0, help="DP concentration or Dirichlet alpha")
    p.add_argument("--prior", action="append", metavar="KEY=VALUE", help="observation prior option (repeatable)")
    p.add_argument("--n-active", type=int, default=None, metavar="L",
                   help="at most L clusters per item get non-zero responsibility (L-sparse, faster for large K; "
                        "default: dense)")
    p.add_argument("--algorithm", default=None, choices=MIXTURE_ALGORITHMS,
                   help="vb (batch), stochastic (= svi, SVI), memoized (needed for moves) or truncation_free (dp, "
                        "mult); default memoized for dp, vb for finite")
    p.add_argument("--moves", default=None, help=MOVES_HELP)
    p.add_argument("--move-option", action="append", metavar="KEY=VALUE",
                   help="move setting (repeatable), e.g. max_components=100; see MovesConfig")
    p.add_argument("--init", default="kmeans++", choices=INIT_METHODS)
    p.add_argument("--max-laps", type=int, default=200)
    p.add_argument("--tol", type=float, default=1e-6, help="relative ELBO change at convergence")
    p.add_argument("--n-batches", type=int, default=1, help="batches for memoized VI / minibatches per SVI lap")
    p.add_argument("--learning-rate-delay", type=float, default=10.0, help="SVI tau in rho_t = (t + tau)^-kappa")
    p.add_argument("--learning-rate-decay", type=float, default=0.7, help="SVI kappa in (0.5, 1]")
    p.add_argument("--sampling", default="without_replacement", choices=SAMPLING)
    p.add_argument("--n-jobs", type=int, default=1, help="threads for the local step")
    add_run_options(p, "model.npz, trace.csv, clusters.csv, labels.csv", _run_fit_mixture)
    add_checkpoint_option(p)
    add_executor_option(p)


def _print_clusters(est, X, labels) -> list:
    pred = est.labels_
    counts = np.bincount(pred, minlength=est.n_components_)
    order = [k for k in np.argsort(-counts) if counts[k] > 0]
    means = getattr(est, "means_", None)
    show_means = means is not None and means.shape[1] <= 6
    purity: dict = {r[0]: r for r in cluster_label_table(labels, pred)} if labels is not None else {}
    header = (["cluster", "items", "weight"] + (["mean"] if show_means else [])
              + (["majority label", "purity"] if purity else []))
    rows = []
    for k in order:
        row: list = [int(k), int(counts[k]), round(float(est.weights_[k]), 4)]
        if show_means and means is not None:
            row.append(" ".join(f"{v:.3g}" for v in means[k]))
        if purity:
            row += [purity[k][2], round(purity[k][3], 3)]
        rows.append(row)
    shown = rows[:MAX_ROWS_SHOWN]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *shown)]
    for line in [header] + shown:
        print("  ".join(str(x).rjust(w) for x, w in zip(line, widths)))
    if len(rows) > len(shown):
        rest = rows[len(shown):]
        print(f"... and {len(rest)} smaller clusters holding {sum(r[1] for r in rest)} items (all rows in "
              "clusters.csv)")
    if labels is not None:
        print(f"majority-vote accuracy against the reference labels: {majority_vote_accuracy(labels, pred):.3f}")
    return [header] + rows


def _size(X) -> tuple[int, int]:
    """``(items, features)`` of what :func:`~stickbreak.datasets.read_data` returned."""
    if isinstance(X, ShardStore):
        return X.n_items, X.n_features
    rows, columns = X.counts.shape if isinstance(X, BagOfWords) else np.shape(X)
    return int(rows), int(columns)


def _run_fit_mixture(args) -> int:

    if args.n_active is not None and args.n_active < 1:  # before reading any data
        raise ValueError(f"--n-active must be a positive integer (at most that many clusters per item get non-zero "
                         f"responsibility), got {args.n_active}; leave it out for dense responsibilities")
    X, labels, name = read_data(args.data)
    cls = DPMixture if args.weights == "dp" else FiniteMixture
    chosen = {name: value for name, value in (("n_components", args.n_components), ("algorithm", args.algorithm))
              if value is not None}  # else the estimator's defaults
    est = cls(**chosen, obs_model=args.obs, concentration=args.concentration,
              obs_prior=parse_options(args.prior, "--prior"), moves=parse_moves(args.moves),
              move_options=parse_options(args.move_option, "--move-option"), init=args.init,
              max_laps=args.max_laps, tol=args.tol, n_batches=args.n_batches, n_jobs=args.n_jobs,
              executor=args.executor,
              algorithm_options=dict(learning_rate_delay=args.learning_rate_delay,
                                     learning_rate_decay=args.learning_rate_decay, sampling=args.sampling),
              n_active=args.n_active, random_state=args.seed, verbose=0 if args.quiet else 1)
    n_items, n_features = _size(X)
    shape = f"{n_items}x{n_features}" + (f" in {len(X)} shards" if isinstance(X, ShardStore) else "")
    mixture_cfg, _, _, moves_cfg = est._configs(n_items)
    moves = moves_cfg.moves
    how = est.algorithm + (f" + {','.join(moves)}" if moves else "") + (f", L={args.n_active}" if args.n_active else "")
    start_k = f"K={mixture_cfg.n_components} at the start" if moves else f"K={mixture_cfg.n_components}"
    print(f"{cls.__name__}({args.obs}, {start_k}, {how}) on {name} ({shape})")
    checkpoint = checkpoint_target(args, output_bytes(n_items, 2, mixture_cfg.n_components
                                                      * (n_features * n_features + 2 * n_features + 4)))
    start = time.perf_counter()
    est.fit(X, checkpoint=checkpoint)
    seconds = time.perf_counter() - start
    status = stop_status(est)
    print(f"{status} after {est.n_iter_} laps in {seconds:.2f} s; ELBO {est.lower_bound_:.6g} nats "
          f"({est.lower_bound_ / len(est.labels_):.4f} per item); {est.n_active_components_} clusters used of "
          f"{est.n_components_}")
    if moves:
        print(move_summary(est.trace_, moves))
        print(k_over_laps(est.trace_))
    table = _print_clusters(est, X, labels)
    if args.out:
        with staged_output(args.out, est) as stage:
            est.save(stage / "model.npz")
            write_trace(stage, est)
            write_csv(stage / "clusters.csv", table[0], table[1:])
            write_csv(stage / "labels.csv", ["item", "cluster"], enumerate(est.labels_.tolist()))
            print(f"wrote {args.out}/model.npz, trace.csv, clusters.csv, labels.csv")
            save_run(args, stage, "mixture", est, seconds, X, labels)
    return exit_code(est)
