"""Command line for HDP admixtures of any observation family: ``stickbreak fit admixture DATA ...``.
Groups of items are read the way ``fit hmm`` reads sequences (an .npz with X and lengths, ...)."""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..driver import EFFECTIVE_COUNT
from ..estimators import HDPAdmixture
from .common import (check_heldout, exit_code, parse_moves, parse_options, print_moves, read_sequence_data,
                    split_heldout, stop_status, write_csv, write_trace)
from .outputs import check_room, output_bytes, staged_output
from .report import save_run

#: Topics listed on screen; topics.csv (with --out) has all of them.
TOPICS_SHOWN = 12


def _estimator(args) -> HDPAdmixture:
    est = HDPAdmixture(n_topics=args.n_topics, obs_model=args.obs, obs_prior=parse_options(args.prior, "--prior"),
                       concentration=args.concentration, doc_topic_prior=args.doc_topic_prior,
                       algorithm=args.algorithm, n_batches=args.n_batches, moves=parse_moves(args.moves),
                       move_options=parse_options(args.move_option, "--move-option"), init=args.init,
                       local_start=args.local_start, max_laps=args.max_laps, tol=args.tol, random_state=args.seed,
                       verbose=0 if args.quiet else 1, n_jobs=args.n_jobs)
    est._configs()  # every setting checked before the data are read
    return est


def _topic_rows(est) -> list:
    """``[topic, items, weight]`` of every topic holding an item's worth of mass, largest first."""
    order = np.argsort(-est.topic_counts_)
    return [[int(k), round(float(est.topic_counts_[k]), 1), round(float(est.topic_weights_[k]), 4)]
            for k in order if est.topic_counts_[k] >= EFFECTIVE_COUNT]


def _print_topics(rows: list) -> None:
    total = sum(row[1] for row in rows)
    for topic, items, weight in rows[:TOPICS_SHOWN]:
        print(f"  topic {topic:3d}  {100 * items / total:5.1f}% of the items  weight {weight:.4f}")
    if len(rows) > TOPICS_SHOWN:
        print(f"  ... and {len(rows) - TOPICS_SHOWN} smaller topics (all in topics.csv with --out)")


def _write_group_topics(path, est, groups, ids) -> None:
    """Each training group's topic proportions over the used topics, by its id (or row) in the data."""
    used = np.flatnonzero(est.topic_counts_ >= EFFECTIVE_COUNT)
    theta = est.topic_proportions(groups)[:, used]
    write_csv(path, ["group"] + [f"topic {k}" for k in used],
               ([g] + [f"{p:.4g}" for p in row] for g, row in zip(ids, theta)))


def run_fit_admixture(args) -> int:
    est = _estimator(args)
    check_heldout(args.heldout)
    seqs, _, name, group_ids = read_sequence_data(args, "admixture")
    train, test, train_rows, test_rows = split_heldout(seqs, args.heldout, args.seed, "groups")
    moves = est._configs()[1].moves
    how = est.algorithm + (f" + {','.join(moves)}" if moves else "")
    start_k = f"K={est.n_topics}" + (" at the start" if moves else "")
    print(f"HDPAdmixture({est.obs_model}, {start_k}, {how}) on {name} ({train.n_items} groups, {train.n_frames} items "
          f"x {train.n_features} features)")
    start = time.perf_counter()
    with warnings.catch_warnings():  # the status line says whether it converged
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_room(args.out, output_bytes(train.n_items, est.n_topics, est.n_topics * (
            train.n_features * train.n_features + 2 * train.n_features)), "--out")
        est.fit(train)
    seconds = time.perf_counter() - start
    print(f"{stop_status(est)} after {est.n_iter_} laps in {seconds:.1f} s; ELBO {est.lower_bound_:.6g} nats "
          f"({est.lower_bound_ / train.n_frames:.4f} per item); {est.n_active_topics_} topics used of {est.n_topics_}")
    print_moves(est.trace_)
    rows = _topic_rows(est)
    _print_topics(rows)
    scores = {}  # for the report
    if test is not None:
        score = scores["held-out groups: per-item log-likelihood"] = est.score(test)
        print(f"held-out groups: {test.n_items} ({test.n_frames} items); per-item log-likelihood {score:.4f} nats "
              "(completion: half of each group's items fit its topic weights, the other half is scored)")
    if args.out:
        with staged_output(args.out, est) as stage:
            est.save(stage / "model.npz")
            write_trace(stage, est)
            write_csv(stage / "topics.csv", ["topic", "items", "weight"], rows)
            ids = train_rows.tolist() if group_ids is None else [group_ids[g] for g in train_rows]
            _write_group_topics(stage / "group_topics.csv", est, train, ids)
            print(f"wrote {args.out}/model.npz, trace.csv, topics.csv, group_topics.csv")
            save_run(args, stage, "admixture", est, seconds, train, scores=scores,
                     heldout_documents=test_rows.tolist())
    return exit_code(est)
