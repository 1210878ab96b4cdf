"""The command line's grammar: every command, option, choice and help text of ``stickbreak``, and
which function runs each command. This module imports no model, so that a mistyped option or an
unwritable ``--out`` is refused as soon as the line is read; a command's module (``mixture``,
``topics``, ``hmm``, ``admixture``, ``report``, ``resume``) is imported only to run it."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Callable

from ..datasets import names as dataset_names
from .._version import __version__
from .outputs import out_directory
from .vocabulary import (ADDRESS_SCHEMES, ADMIXTURE_ALGORITHMS, ADMIXTURE_DEFAULTS as DEFAULTS, ADMIXTURE_INITS,
                         ADMIXTURE_OBS_MODELS, CHECKPOINT_EVERY as EVERY, EXECUTORS, HMM_INITS, HMM_OBS_MODELS,
                         INIT_METHODS, LOCAL_STARTS, MIXTURE_ALGORITHMS, MIXTURE_OBS, MIXTURE_WEIGHTS, SAMPLING,
                         SHORT_TEXT_ALGORITHMS, TOPIC_ALGORITHMS)

#: ``--moves`` help shared by the commands whose estimators learn K with moves.
MOVES_HELP = ("memoized VI: comma-separated moves (birth,merge,delete) or 'none'; default: all three for the "
              "nonparametric models (they learn K), none otherwise")


def runner(args: argparse.Namespace) -> Callable[[argparse.Namespace], int]:
    """The function that runs the command ``args`` were parsed for: ``args.run`` names it as
    ``"module:function"`` of this package, imported now (the models load with it)."""
    module, function = args.run.split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), function)


def _executor(value: str) -> str:
    """``--executor``: a name of :data:`EXECUTORS` or a Dask scheduler's address."""
    if value in EXECUTORS or value.startswith(ADDRESS_SCHEMES):
        return value
    raise argparse.ArgumentTypeError(f"{value!r} is not an executor; choose one of {list(EXECUTORS)} or a Dask "
                                     "scheduler address such as tcp://10.0.0.5:8786")


def add_output_options(parser, per_lap_table: bool = False) -> None:
    """``--progress`` and ``--quiet``, the same in every fit command: a progress bar (the default
    unless the command prints a per-lap table) or nothing per lap."""
    what = "a progress bar instead of the per-lap table" if per_lap_table else "a progress bar (the default)"
    parser.add_argument("--progress", action="store_true", help=what)
    parser.add_argument("--quiet", action="store_true", help="nothing per lap")


def add_run_options(parser, files: str, run: str, per_lap_table: bool = False) -> None:
    """The options every fit command has: ``--seed``, ``--out DIR`` (where ``files`` are written, with
    run.json and report.html) and :func:`add_output_options`; ``run`` names the command's function
    (``"module:function"``, see :func:`runner`)."""
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=out_directory, help=f"directory for {files}, run.json and report.html")
    add_output_options(parser, per_lap_table)
    parser.set_defaults(run=run)


def add_executor_option(parser) -> None:
    """``--executor`` of a fit command: where the local steps run (with ``--n-jobs`` workers)."""
    parser.add_argument("--executor", type=_executor, default=None, metavar="WHERE",
                        help="where the local steps run: threads (default), processes or dask (--n-jobs workers), "
                             "or a Dask scheduler address such as tcp://10.0.0.5:8786")


def add_checkpoint_option(parser) -> None:
    """``--checkpoint DIR`` of a fit command (``stickbreak resume DIR`` sets ``resume``)."""
    parser.add_argument("--checkpoint", type=Path, metavar="DIR",
                        help="save the state after every lap in DIR; `stickbreak resume DIR` continues a killed run")
    parser.add_argument("--checkpoint-every", type=float, default=EVERY, metavar="SECONDS",
                        help=f"memoized and stochastic runs also save within a lap once SECONDS have passed "
                             f"since the last save "
                             f"(default {EVERY:.0f})")
    parser.set_defaults(resume=None)


def add_sequence_file_options(parser, unit: str, label_help: str) -> None:
    """How a sequence file marks its ``unit`` s (HMM sequences, admixture groups): ``--ids`` for .npy
    data, ``--id-column`` and ``--label-column`` for .csv data (what :func:`read_sequence_data` reads)."""
    parser.add_argument("--ids", help=f".npy data: the {unit} id of every row (.npy or one id per line)")
    parser.add_argument("--id-column", help=f".csv data: the {unit}-id column (name or 0-based number)")
    parser.add_argument("--label-column", help=f".csv data: a column of true labels, {label_help}")


def add_fit_mixture(sub) -> None:
    p = sub.add_parser("mixture", help="DP or finite mixture",
                       description="Fit a DP or finite mixture by variational Bayes.")
    p.add_argument("data", help=f"a bundled data set ({', '.join(dataset_names('vectors'))}) or a .npy/.npz/.csv "
                                "file")
    p.add_argument("--obs", default="gauss", choices=MIXTURE_OBS,
                   help="observation model (default gauss; ar_gauss needs sequences: `stickbreak fit hmm`)")
    p.add_argument("--weights", default="dp", choices=MIXTURE_WEIGHTS,
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
    add_run_options(p, "model.npz, trace.csv, clusters.csv, labels.csv", "mixture:run_fit_mixture")
    add_checkpoint_option(p)
    add_executor_option(p)


def add_fit_topics(sub) -> None:
    p = sub.add_parser("topics", help="LDA, HDP or DILN topic model",
                       description="Fit LDA, the HDP topic model or DILN to word counts and print the main topics.")
    p.add_argument("data", help=f"a bundled corpus ({', '.join(dataset_names('text'))}), an LDA-C/UCI/MatrixMarket/"
                                ".npz file, a directory with bow.npz + vocab.txt.gz, a .txt file of raw text (one "
                                "document per line) or a CSV file with --text-column")
    add_text_column_option(p)
    p.add_argument("--min-df", type=int, default=1, metavar="N",
                   help="raw text: keep only the words of at least N documents (default 1: every word)")
    p.add_argument("--model", default="hdp", choices=("lda", "hdp", "diln"),
                   help="hdp (default; learns the number of topics), lda, or diln (an HDP with correlated topics)")
    p.add_argument("-K", "--n-topics", type=int, default=None,
                   help="topics (LDA, default 20); initial number of topics (HDP, default: the topics a short "
                        "collapsed Gibbs run finds, then memoized VI's moves learn K; the truncation level under the "
                        "other algorithms); truncation level (DILN, default 200)")
    p.add_argument("--algorithm", default=None, choices=TOPIC_ALGORITHMS,
                   help="vb, svi (= stochastic), memoized or truncation_free (HDP only; starts from no topics); "
                        "collapsed, one sweep per lap: gibbs (LDA or HDP), svb, cvb, cvb0, hybrid_vb_gibbs, "
                        "hybrid_cvb_gibbs (LDA) (default: vb for LDA, memoized for HDP)")
    p.add_argument("--family", default="direct", choices=("direct", "two_level"),
                   help="HDP variational family: direct assignment (Hughes) or two-level sticks (Hoffman et al.)")
    p.add_argument("--doc-truncation", type=int, default=20, help="two-level HDP: atoms per document (T)")
    p.add_argument("--batch-size", type=int, default=None, help="SVI: documents per minibatch (overrides --n-batches)")
    p.add_argument("--alpha", type=float, default=None, help="doc_topic_prior (default: LDA 1/K, HDP 1)")
    p.add_argument("--eta", type=float, default=None, help="topic_word_prior (default: LDA 1/K, HDP 0.05, DILN 0.5)")
    p.add_argument("--gamma", type=float, default=10.0, help="HDP top-level concentration gamma (default 10)")
    p.add_argument("--latent-dim", type=int, default=20, help="DILN: dimension d of the topic locations")
    p.add_argument("--location-variance", type=float, default=None, help="DILN: variance c of the topic locations "
                                                                         "(default 1/d; must be below 1)")
    p.add_argument("--no-correlation", action="store_true",
                   help="DILN: the HDP special case (exp(-l'u) := 1, Paisley et al. 2012, §4.3)")
    p.add_argument("--n-batches", type=int, default=None, help="memoized batches / SVI minibatches per lap")
    p.add_argument("--n-active", type=int, default=None, metavar="L",
                   help="L-sparse local steps (Hughes 2016, ch. 7): at most L topics per word type of a document "
                        "(LDA/HDP with vb, svi or memoized; default dense)")
    p.add_argument("--moves", default=None, help=MOVES_HELP + " (HDP only)")
    p.add_argument("--max-laps", type=int, default=100)
    p.add_argument("--tol", type=float, default=1e-4, help="relative ELBO change at convergence")
    p.add_argument("--n-jobs", type=int, default=1, help="threads for the local step (-1: all cores)")
    p.add_argument("--heldout", type=float, default=0.0,
                   help="fraction of documents held out and scored by document completion (default 0: none)")
    p.add_argument("--heldout-tokens", type=float, default=0.0,
                   help="collapsed algorithms: fraction of each document's tokens held out and scored after every "
                        "sweep (Welling et al. 2008, Eqs. 30-31; default 0: none)")
    p.add_argument("--burn-in", type=int, default=10,
                   help="collapsed samplers: sweeps before the held-out predictive is averaged")
    p.add_argument("--sample-threshold", type=float, default=1.0,
                   help="LDA hybrids: pairs with at most this count are sampled (r)")
    p.add_argument("--top-words", type=int, default=8, help="words shown per topic")
    add_run_options(p, "model.npz, trace.csv, topics.csv, doc_topics.csv", "topics:run_fit_topics")
    add_checkpoint_option(p)
    add_executor_option(p)


def add_fit_short_texts(sub) -> None:
    p = sub.add_parser("short-texts", help="one topic per document (titles, tweets, questions), K learned",
                       description="Fit ShortTextTopicModel (the Dirichlet-process mixture of multinomials) to short "
                                   "documents and print its topics; the number of topics is learned.")
    p.add_argument("data", help=f"a .txt file of raw text (one document per line), a CSV file with --text-column, a "
                                f"bundled corpus ({', '.join(dataset_names('text'))}) or a word-count file as "
                                "`fit topics` reads")
    add_text_column_option(p)
    p.add_argument("--min-df", type=int, default=1, metavar="N",
                   help="raw text: keep only the words of at least N documents (default 1: every word)")
    p.add_argument("--algorithm", default=None, choices=SHORT_TEXT_ALGORITHMS,
                   help="memoized (default: memoized VI with births, merges and deletes), vb, or truncation_free "
                        "(truncation-free SVI from no topic: faster, fewer topics)")
    p.add_argument("--init", default=None, choices=INIT_METHODS,
                   help="gibbs (default: the documents dealt among many topics, then 10 collapsed Gibbs sweeps), "
                        "kmeans++ or random (from -K topics)")
    p.add_argument("-K", "--n-topics", type=int, default=None,
                   help="topics of the start (default: one per 10 documents, at most 1000, for the Gibbs start; one "
                        "per 30 documents, at most 100, otherwise); K is learned from there")
    p.add_argument("--concentration", type=float, default=1.0, help="DP concentration (larger: more topics)")
    p.add_argument("--eta", type=float, default=None,
                   help="topic_word_prior, each word's pseudo-count (default 0.1; larger: fewer, coarser topics, "
                        "e.g. 1 for snippets of 15-20 words)")
    p.add_argument("--moves", default=None, help=MOVES_HELP)
    p.add_argument("--max-laps", type=int, default=20)
    p.add_argument("--tol", type=float, default=1e-6, help="relative ELBO change at convergence")
    p.add_argument("--top-words", type=int, default=8, help="words shown per topic")
    add_run_options(p, "model.npz, topics.csv, labels.csv, trace.csv", "short_texts:run_fit_short_texts")


def add_eval(commands) -> None:
    p = commands.add_parser("eval", help="score a saved topic model on documents",
                            description="Held-out per-word log-likelihood (document completion) and coherence.")
    p.add_argument("model", type=Path, help="a model.npz written by `stickbreak fit topics --out`")
    p.add_argument("data", help="documents to score (same vocabulary, same formats as `fit topics`; raw text is "
                                "counted over the model's vocabulary)")
    add_text_column_option(p)
    p.add_argument("--mode", default="tokens", choices=("tokens", "types"),
                   help="split each document's random tokens (thesis) or disjoint word types (SVI paper)")
    p.add_argument("--fraction", type=float, default=0.5, help="held-out fraction of each document")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--all-documents", action="store_true",
                   help="score every document of DATA, also when the model's run held some out (run.json)")
    p.set_defaults(run="topics:run_eval")


def add_text_column_option(parser) -> None:
    parser.add_argument("--text-column", default=None, metavar="NAME",
                        help="DATA is a CSV file with a header line: each row's NAME cell is one document's raw text")


def add_fit_hmm(sub) -> None:
    p = sub.add_parser("hmm", help="sticky HDP-HMM or finite HMM",
                       description="Fit a (sticky) HDP hidden Markov model, or a finite one, to sequences and "
                                   "segment them; scores the segmentation when the data carry true labels.")
    p.add_argument("data", help="a bundled sequence data set (mocap6) or a sequence file: .npz (X with lengths, "
                                "offsets or seq_ids; optional Z/labels, Xprev), .npy with --ids, or .csv(.gz) with a "
                                "sequence-id column")
    p.add_argument("--obs", default="gauss", choices=HMM_OBS_MODELS,
                   help="emission model of each state (default gauss)")
    p.add_argument("-K", "--n-states", type=int, default=None,
                   help="initial number of states (HDP-HMM, default 10: the moves learn K) or the number of "
                        "states (--finite, default 50)")
    p.add_argument("--stickiness", type=float, default=0.0,
                   help="kappa: extra prior mass on self-transitions (0: not sticky)")
    p.add_argument("--transition-concentration", type=float, default=0.5, help="alpha of the transition rows")
    p.add_argument("--start-concentration", type=float, default=5.0, help="alpha_0 of the start distribution")
    p.add_argument("--concentration", type=float, default=None, help="HDP-HMM top-level gamma (default 10)")
    p.add_argument("--finite", action="store_true", help="a finite HMM with Dirichlet rows instead of the HDP-HMM")
    p.add_argument("--algorithm", default="memoized", choices=("memoized", "vb", "stochastic"),
                   help="memoized VI (default; the only one with moves), batch vb or stochastic VI")
    p.add_argument("--n-batches", "--batches", dest="n_batches", type=int, default=1,
                   help="batches (minibatches for stochastic) of whole sequences; at most the number of sequences")
    p.add_argument("--moves", default=None, help=MOVES_HELP)
    p.add_argument("--move-option", action="append", metavar="KEY=VALUE",
                   help="move setting (repeatable); see MovesConfig")
    p.add_argument("--prior", action="append", metavar="KEY=VALUE", help="observation prior option (repeatable)")
    p.add_argument("--init", default="contiguous_blocks", choices=HMM_INITS)
    p.add_argument("--max-laps", type=int, default=100)
    p.add_argument("--tol", type=float, default=1e-6, help="relative ELBO change at convergence")
    p.add_argument("--n-jobs", type=int, default=1, help="threads of the forward-backward kernel (-1: all cores)")
    add_sequence_file_options(p, "sequence", "to score the segmentation")
    p.add_argument("--time-column", help=".csv data: a time column, checked to increase within each sequence")
    p.add_argument("--foreground-only", action="store_true",
                   help="also score only frames whose true label is >= 0 (negative labels mark background)")
    add_run_options(p, "model.npz, states.csv, trace.csv, summary.json", "hmm:run_fit_hmm", per_lap_table=True)
    add_checkpoint_option(p)
    add_executor_option(p)


def add_fit_admixture(sub) -> None:
    p = sub.add_parser("admixture", help="HDP admixture of any observation family over groups of items",
                       description="Fit an HDP admixture (each group mixes corpus-level topics of the observation "
                                   "family; an item comes from one topic) to groups of items by memoized VI with "
                                   "birth, merge and delete moves, or batch VB.")
    p.add_argument("data", help="groups of items, given as `fit hmm` takes sequences: a bundled sequence data set "
                                "(mocap6) or a file: .npz (X with lengths, offsets or seq_ids), .npy with --ids, or "
                                ".csv(.gz) with a group-id column; the order of the items within a group does not "
                                "matter")
    p.add_argument("--obs", default=DEFAULTS["obs_model"], choices=ADMIXTURE_OBS_MODELS,
                   help=f"observation model of each topic (default {DEFAULTS['obs_model']})")
    p.add_argument("-K", "--n-topics", type=int, default=DEFAULTS["n_topics"],
                   help=f"initial number of topics (default {DEFAULTS['n_topics']}; memoized VI's moves learn K, "
                        "batch VB keeps it)")
    p.add_argument("--concentration", type=float, default=DEFAULTS["concentration"],
                   help=f"top-level gamma (default {DEFAULTS['concentration']:g})")
    p.add_argument("--alpha", "--doc-topic-prior", dest="doc_topic_prior", type=float,
                   default=DEFAULTS["doc_topic_prior"],
                   help=f"each group's DP concentration over the topics (default {DEFAULTS['doc_topic_prior']:g})")
    p.add_argument("--prior", action="append", metavar="KEY=VALUE", help="observation prior option (repeatable)")
    p.add_argument("--algorithm", default=DEFAULTS["algorithm"], choices=ADMIXTURE_ALGORITHMS,
                   help="memoized VI (default; the only one with moves) or batch vb")
    p.add_argument("--n-batches", type=int, default=1,
                   help="memoized batches of whole groups; at most the number of groups")
    p.add_argument("--moves", default=None, help=MOVES_HELP)
    p.add_argument("--move-option", action="append", metavar="KEY=VALUE",
                   help="move setting (repeatable); see MovesConfig")
    p.add_argument("--init", default=DEFAULTS["init"], choices=ADMIXTURE_INITS, help="how the first topics are drawn")
    p.add_argument("--local-start", default=DEFAULTS["local_start"], choices=LOCAL_STARTS,
                   help=f"where each group's local fixed point starts every lap (default {DEFAULTS['local_start']})")
    p.add_argument("--max-laps", type=int, default=DEFAULTS["max_laps"])
    p.add_argument("--tol", type=float, default=DEFAULTS["tol"], help="relative ELBO change at convergence")
    p.add_argument("--n-jobs", type=int, default=1, help="threads sharing each local step's groups (-1: all cores)")
    p.add_argument("--heldout", type=float, default=0.0,
                   help="fraction of the groups held out and scored by completion (default 0: none)")
    add_sequence_file_options(p, "group", "left out of the features")
    add_run_options(p, "model.npz, trace.csv, topics.csv, group_topics.csv", "admixture:run_fit_admixture")


def add_report(commands) -> None:
    p = commands.add_parser("report", help="write the HTML report of a fit run",
                            description="A self-contained HTML report (figures, fit, data, settings, versions) of "
                                        "a run directory written by `stickbreak fit ... --out RUN_DIR`.")
    p.add_argument("run_dir", type=Path, help="a directory written by `stickbreak fit ... --out`")
    p.add_argument("-o", "--output", type=Path, help="the HTML file to write (default RUN_DIR/report.html)")
    p.add_argument("--image-shape", help="mixtures of images: draw the cluster means as images of this shape, "
                                         "e.g. 8x8 (default: a 2-D PCA projection of the items)")
    p.set_defaults(run="report:run_report")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stickbreak",
                                     description="Bayesian nonparametric models by variational inference.")
    parser.add_argument("--version", action="version", version=f"stickbreak {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("fit", help="fit a model")
    models = fit.add_subparsers(dest="model", required=True)
    add_fit_mixture(models)
    add_fit_topics(models)
    add_fit_hmm(models)
    add_fit_admixture(models)
    add_fit_short_texts(models)
    resume = commands.add_parser("resume", help="continue a fit killed before its end from its checkpoint")
    resume.add_argument("directory", type=Path, help="the directory given to `stickbreak fit ... --checkpoint`")
    resume.add_argument("--max-laps", type=int, default=None, metavar="N",
                        help="run to N laps in all (more than the fit asked for extends it)")
    resume.add_argument("--trust", action="store_true",
                        help="resume a checkpoint another user or machine wrote, or one edited since: it runs the "
                             "command line the file holds, outputs included")
    add_executor_option(resume)
    resume.set_defaults(run="resume:run_resume")
    add_eval(commands)
    add_report(commands)
    ds = commands.add_parser("datasets", help="list the bundled data sets")
    ds.set_defaults(run="main:run_datasets")
    return parser

