"""Command line for topic models: ``stickbreak fit topics DATA ...`` and ``stickbreak eval MODEL DATA``."""

from __future__ import annotations

import json
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .. import persist
from ..config import COLLAPSED_ALGORITHMS
from ..data import BagOfWords, DataError
from ..estimators import DILN, LDA, HDPTopicModel
from ..evaluate import document_completion, mean_coherence, split_documents
from .common import (checkpoint_target, corpus, exit_code, parse_moves, print_fitted, split_heldout, stop_status,
                    write_csv, write_trace)
from .outputs import output_bytes, staged_output
from .report import save_run, source_of

#: Topics listed on screen; topics.csv (with --out) has all of them.
TOPICS_SHOWN = 12
#: The topics a run that learns K from none (a Gibbs start) is assumed to end with, for the room its files need.
LEARNED_TOPICS_GUESS = 200


def _estimator(args):

    common = dict(max_laps=args.max_laps, tol=args.tol, n_jobs=args.n_jobs, executor=args.executor,
                  random_state=args.seed,
                  verbose=0 if args.quiet else 1)
    options = {}
    if args.n_batches is not None:
        common["n_batches"] = args.n_batches
    if args.batch_size is not None:
        common["batch_size"] = args.batch_size
    if args.algorithm is not None:
        common["algorithm"] = args.algorithm
    if args.algorithm in COLLAPSED_ALGORITHMS:
        options["burn_in"] = args.burn_in
    moves = _moves(args)
    if args.model == "diln":
        if args.n_active is not None:
            raise ValueError("--n-active is for --model lda or hdp; DILN's local step is dense")
        return _diln_estimator(args, moves, common)
    if args.n_active is not None:
        common["n_active"] = args.n_active
    if args.model == "lda":
        if moves:
            raise ValueError("--moves needs --model hdp: LDA keeps a fixed number of topics")
        if args.algorithm in COLLAPSED_ALGORITHMS:
            options["sample_threshold"] = args.sample_threshold
        return LDA(n_topics=20 if args.n_topics is None else args.n_topics, doc_topic_prior=args.alpha,
                   topic_word_prior=args.eta, algorithm_options=options or None, **common)
    hdp = dict(concentration=args.gamma, moves=moves, variational_family=args.family,
               algorithm_options={**options, "doc_truncation": args.doc_truncation}, **common)
    if args.alpha is not None:
        hdp["doc_topic_prior"] = args.alpha
    if args.eta is not None:
        hdp["topic_word_prior"] = args.eta
    return HDPTopicModel(n_topics=args.n_topics, **hdp)


def _diln_estimator(args, moves, common):

    if moves:
        raise ValueError("--moves is for the HDP topic model; DILN learns its topics' use within the truncation -K")
    if args.algorithm not in (None, "vb", "svi", "stochastic"):
        raise ValueError(f"--model diln takes --algorithm vb or svi, not {args.algorithm}")
    extra = {} if args.eta is None else {"topic_word_prior": args.eta}
    return DILN(n_topics=200 if args.n_topics is None else args.n_topics, latent_dim=args.latent_dim,
                location_variance=args.location_variance, correlated=not args.no_correlation, **extra, **common)


def print_correlations(est, n_pairs: int = 5, n_words: int = 5) -> list:
    """The most positively and negatively correlated pairs of used topics, with their top words."""
    if getattr(est, "topic_correlation_", None) is None:
        return []
    words = {t["topic"]: " ".join(str(w) for w, _ in t["words"]) for t in est.top_words(n_words)}
    for label, negative in (("positively", False), ("negatively", True)):
        print(f"most {label} correlated topics (cosine of their locations):")
        for pair in est.top_correlated_pairs(n_pairs, negative=negative):
            i, j = pair["topics"]
            print(f"  {pair['correlation']:+.2f}  [{words.get(i, i)}]  ~  [{words.get(j, j)}]")
    used = np.flatnonzero(est.topic_sizes_ >= 1.0)
    first, second = (used[i] for i in np.triu_indices(len(used), k=1))
    return [[int(a), int(b), float(c)] for a, b, c in zip(first, second, est.topic_correlation_[first, second])]


def _moves(args):
    return parse_moves(args.moves)


def print_topics(est, n_words: int) -> list:
    rows = [[t["topic"], round(t["size"]), " ".join(str(w) for w, _ in t["words"])] for t in est.top_words(n_words)]
    total = float(np.sum(est.topic_sizes_))
    for topic, size, words in rows[:TOPICS_SHOWN]:
        print(f"  topic {topic:3d}  {100 * size / total:5.1f}%  {words}")
    if len(rows) > TOPICS_SHOWN:
        print(f"  ... and {len(rows) - TOPICS_SHOWN} smaller topics (all in topics.csv with --out)")
    return rows


def _split_heldout_tokens(bow: BagOfWords, fraction: float, algorithm, seed: int):
    """Training counts and held-out tokens of the same documents (collapsed algorithms only)."""
    if fraction == 0:
        return bow, None
    if algorithm not in COLLAPSED_ALGORITHMS:
        raise ValueError(f"--heldout-tokens is scored during collapsed inference; choose --algorithm from "
                         f"{', '.join(COLLAPSED_ALGORITHMS)} (or --heldout for document completion)")
    if not 0 < fraction < 1:
        raise ValueError(f"--heldout-tokens must be in (0, 1), got {fraction}")

    train, test = split_documents(bow.counts, mode="tokens", heldout_fraction=fraction, seed=seed)
    return BagOfWords.from_counts(train, vocabulary=bow.vocabulary), test


def run_fit_topics(args) -> int:
    bow = corpus(args.data, args.text_column, min_df=args.min_df)
    train, test, train_rows, test_rows = split_heldout(bow, args.heldout, args.seed)
    train, heldout_tokens = _split_heldout_tokens(train, args.heldout_tokens, args.algorithm, args.seed)
    est = _estimator(args)
    collapsed = est.algorithm in COLLAPSED_ALGORITHMS
    unbounded = est.algorithm == "truncation_free" or (collapsed and args.model == "hdp")
    moves = () if args.model != "hdp" else est._moves_config().moves
    start = "K learned by a Gibbs start" if est._start_topics() == 0 else f"K={est._start_topics()}"
    truncation = "no truncation" if unbounded else start + (" at the start" if moves and est._start_topics() else "")
    how = est.algorithm + (f" + {','.join(moves)}" if moves else "")
    print(f"{type(est).__name__}({truncation}, {how}) on {args.data} "
          f"({train.n_items} documents, {train.n_features} words, {int(train.total_counts.sum())} tokens)")
    began = time.perf_counter()
    with warnings.catch_warnings():  # the status line below says whether it converged
        warnings.simplefilter("ignore", ConvergenceWarning)
        n_topics = est._start_topics() or LEARNED_TOPICS_GUESS
        checkpoint = checkpoint_target(args, output_bytes(train.n_items, n_topics, 2.0 * n_topics * train.n_features))
        (est.fit(train, heldout=heldout_tokens, checkpoint=checkpoint) if collapsed
         else est.fit(train, checkpoint=checkpoint))
    seconds = time.perf_counter() - began
    status = stop_status(est)
    objective = {"truncation_free": "progressive log-lik. per document"}.get(est.algorithm,
                                                                             "log joint" if collapsed else "ELBO")
    print_fitted(f"{status} after {est.n_iter_} laps in {seconds:.1f} s; {objective} {est.lower_bound_:.6g} nats; "
                 f"{est.n_topics_} topics used of {len(est.topic_sizes_)}", est, bow)
    rows = print_topics(est, args.top_words)
    correlations = print_correlations(est) if args.model == "diln" else []
    scores = {}  # for the report
    if heldout_tokens is not None:
        score = scores["held-out tokens: per-word log-likelihood"] = est.heldout_per_word_[-1]
        print(f"held-out tokens: {int(heldout_tokens.sum())} of the training documents; per-word log-likelihood "
              f"{score:.4f} nats (perplexity {np.exp(-score):.1f}; predictive averaged after {args.burn_in} "
              "burn-in sweeps for samplers)")
    if test is not None:
        score = scores["held-out documents: per-word log-likelihood"] = est.score(test)
        how = "Monte Carlo over q, Paisley et al. Eq. 40" if args.model == "diln" else "point estimate of theta"
        print(f"held-out documents: {test.n_items}; per-word log-likelihood {score:.4f} nats "
              f"(perplexity {np.exp(-score):.1f}; document completion, half of each document's tokens, {how})")
    if args.out:
        with staged_output(args.out, est) as stage:
            est.save(stage / "model.npz")
            write_csv(stage / "topics.csv", ["topic", "tokens", "top words"], rows)
            if correlations:
                write_csv(stage / "correlations.csv", ["topic_i", "topic_j", "correlation"], correlations)
            write_trace(stage, est)
            _write_doc_topics(stage / "doc_topics.csv", est, train, train_rows)
            print(f"wrote {args.out}/model.npz, topics.csv, trace.csv, doc_topics.csv")
            save_run(args, stage, "topics", est, seconds, train, scores=scores, heldout_documents=test_rows.tolist())
    return exit_code(est)


def _write_doc_topics(path, est, train: BagOfWords, rows: np.ndarray) -> None:
    """Each training document's topic proportions over the used topics, by its row in the data."""
    used = np.flatnonzero(est.topic_sizes_ >= 1.0)
    theta = est.transform(train)[:, used]
    write_csv(path, ["document"] + [f"topic {k}" for k in used],
               ([int(d)] + [f"{p:.4g}" for p in row] for d, row in zip(rows, theta)))


def _documents_to_score(args, bow: BagOfWords) -> BagOfWords:
    """The documents ``eval`` scores: a ``fit --heldout`` run's held-out documents when ``data`` is
    the data it was fitted on (its ``run.json`` beside the model lists them), else all of ``data``,
    with a warning when they are the training documents themselves."""
    run_file = args.model.parent / "run.json"
    run = json.loads(run_file.read_text()) if run_file.is_file() else {}
    if run.get("command") != "topics" or run.get("data") != source_of(args.data) or args.all_documents:
        return bow
    heldout = run.get("heldout_documents") or []
    if heldout:
        print(f"scoring the {len(heldout)} documents `fit --heldout` held out (listed in {run_file}); "
              "--all-documents scores every document")
        return bow.subset(np.asarray(heldout, dtype=np.int64))
    warnings.warn(f"{args.data} is the data the model was fitted on, without held-out documents: the score of "
                  "training documents is optimistic; fit with --heldout, or score other documents.", UserWarning,
                  stacklevel=2)
    return bow


def run_eval(args) -> int:

    est = persist.load(args.model)
    if not hasattr(est, "topic_word_"):
        raise DataError(f"{args.model} holds a {type(est).__name__}; `stickbreak eval` scores topic models")
    bow = corpus(args.data, args.text_column, est.vocabulary_)
    if bow.n_features != est.n_features_in_:
        raise DataError(f"{args.data} has {bow.n_features} words but the model was fitted on {est.n_features_in_}; "
                        "score documents over the training vocabulary")
    bow = _documents_to_score(args, bow)
    score = document_completion(est, bow, mode=args.mode, heldout_fraction=args.fraction, seed=args.seed)
    used = est.topic_word_[est.topic_sizes_ >= 1.0]
    print(f"{type(est).__name__} with {est.n_topics_} topics on {bow.n_items} documents ({args.mode} split, "
          f"{args.fraction:g} held out): per-word log-likelihood {score.per_word:.4f} nats, perplexity "
          f"{score.perplexity:.1f}")
    n_top = min(10, bow.n_features)
    print(f"coherence of the used topics on these documents (top {n_top} words): "
          f"NPMI {mean_coherence(used, bow, measure='npmi', n_top=n_top):.4f}")
    return 0


