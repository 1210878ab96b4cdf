"""``stickbreak fit mixture``: DP and finite mixtures on a data file or a bundled data set."""

from __future__ import annotations

import time

import numpy as np

from ..data import BagOfWords
from ..data.shards import ShardStore
from ..datasets import read_data
from ..estimators import DPMixture, FiniteMixture
from ..evaluate import cluster_label_table, majority_vote_accuracy
from ..moves import k_over_laps, move_summary
from .common import (checkpoint_target, exit_code, parse_moves, parse_options, stop_status, write_csv, write_trace)
from .outputs import output_bytes, staged_output
from .report import save_run

#: Clusters listed on screen; the CSV written with --out has all of them.
MAX_ROWS_SHOWN = 15


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


def run_fit_mixture(args) -> int:

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
