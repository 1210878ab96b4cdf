"""``stickbreak fit short-texts DATA``: one topic per document, K learned (:class:`~stickbreak.ShortTextTopicModel`)
on raw text (one document per line, or a CSV text column) or word counts."""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..estimators import ShortTextTopicModel
from .common import corpus, exit_code, parse_moves, print_fitted, stop_status, write_csv, write_trace
from .outputs import check_room, output_bytes, staged_output
from .report import save_run
from .topics import TOPICS_SHOWN

#: The topics a run is assumed to end with, for the room its files need (K is learned).
TOPICS_GUESS = 200


def _estimator(args) -> ShortTextTopicModel:
    chosen = {name: value for name, value in (("n_topics", args.n_topics), ("topic_word_prior", args.eta),
                                              ("algorithm", args.algorithm), ("init", args.init))
              if value is not None}  # else the estimator's defaults
    return ShortTextTopicModel(**chosen, concentration=args.concentration, moves=parse_moves(args.moves),
                               max_laps=args.max_laps, tol=args.tol, random_state=args.seed,
                               verbose=0 if args.quiet else 1)


def print_topics(est, n_words: int) -> list:
    """The topics, largest first: documents, share of the documents and top words."""
    rows = [[t["topic"], round(float(est.component_counts_[t["topic"]])), round(t["size"]),
             " ".join(str(w) for w, _ in t["words"])] for t in est.top_words(n_words)]
    rows.sort(key=lambda row: -row[1])
    total = max(float(np.sum(est.component_counts_)), 1e-300)
    for topic, documents, _, words in rows[:TOPICS_SHOWN]:
        print(f"  topic {topic:3d}  {documents:7d} documents ({100 * documents / total:5.1f}%)  {words}")
    if len(rows) > TOPICS_SHOWN:
        print(f"  ... and {len(rows) - TOPICS_SHOWN} smaller topics (all in topics.csv with --out)")
    return rows


def run_fit_short_texts(args) -> int:
    bow = corpus(args.data, args.text_column, min_df=args.min_df)
    est = _estimator(args)
    print(f"ShortTextTopicModel({est.algorithm} from init={est.init}, K learned) on {args.data} "
          f"({bow.n_items} documents, {bow.n_features} words, {int(bow.total_counts.sum())} tokens)")
    check_room(args.out, output_bytes(bow.n_items, 2, 2.0 * TOPICS_GUESS * bow.n_features), "--out")
    began = time.perf_counter()
    with warnings.catch_warnings():  # the status line below says whether it converged
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(bow)
    seconds = time.perf_counter() - began
    print_fitted(f"{stop_status(est)} after {est.n_iter_} laps in {seconds:.1f} s; ELBO {est.lower_bound_:.6g} "
                 f"nats; {est.n_topics_} topics", est, bow)
    rows = print_topics(est, args.top_words)
    if args.out:
        with staged_output(args.out, est) as stage:
            est.save(stage / "model.npz")
            write_csv(stage / "topics.csv", ["topic", "documents", "tokens", "top words"], rows)
            write_csv(stage / "labels.csv", ["document", "topic"], enumerate(est.labels_.tolist()))
            write_trace(stage, est)
            print(f"wrote {args.out}/model.npz, topics.csv, labels.csv, trace.csv")
            save_run(args, stage, "short-texts", est, seconds, bow)
    return exit_code(est)
