"""Command line: ``stickbreak fit mixture|topics|hmm|admixture DATA ...``, ``stickbreak resume DIR``,
``stickbreak eval``, ``stickbreak report`` and ``stickbreak datasets``."""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

from .. import datasets
from .._version import __version__
from ..data import DataError
from ..estimators._checkpoint import read as read_checkpoint
from .admixture import add_fit_admixture
from .common import INTERRUPTED_EXIT, add_executor_option
from .hmm import add_fit_hmm
from .mixture import add_fit_mixture
from .outputs import OutputError
from .report import add_report
from .topics import add_eval, add_fit_topics


def _run_datasets(args) -> int:
    for name, text in datasets.summaries().items():
        print(f"{name:14s} {text}")
    return 0


class _ClosedPipeTolerant(io.TextIOBase):
    """Standard output that goes quiet when the reader closes the pipe (``stickbreak fit ... | head``):
    the run goes on and still writes its files, instead of dying with BrokenPipeError."""

    def __init__(self, stream):
        self.stream, self.closed_pipe = stream, False

    def write(self, text: str) -> int:
        if not self.closed_pipe:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                self.closed_pipe = True
        return len(text)

    def flush(self) -> None:
        if not self.closed_pipe:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self.closed_pipe = True

    def isatty(self) -> bool:
        return self.stream.isatty()


def _run_resume(args) -> int:
    """Repeat the ``fit`` command line kept in the checkpoint, continuing from its last lap."""
    resuming = read_checkpoint(args.directory.resolve(), args.trust)
    cli = resuming.document["extra"].get("cli")
    if cli is None:
        raise ValueError(f"{args.directory} was not written by `stickbreak fit`; resume it in Python with "
                         f"stickbreak.resume({str(args.directory)!r}, X)")
    fit_args = build_parser().parse_args(cli["argv"])
    fit_args.argv, fit_args.resume = cli["argv"], resuming
    if args.max_laps is not None:
        fit_args.max_laps = args.max_laps
    if args.executor is not None:
        fit_args.executor = args.executor
    here = os.getcwd()
    if Path(cli["cwd"]).is_dir():  # the command line's relative paths (data, --out) as when the fit started
        os.chdir(cli["cwd"])
    try:
        return fit_args.run(fit_args)
    finally:
        os.chdir(here)


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
    resume = commands.add_parser("resume", help="continue a fit killed before its end from its checkpoint")
    resume.add_argument("directory", type=Path, help="the directory given to `stickbreak fit ... --checkpoint`")
    resume.add_argument("--max-laps", type=int, default=None, metavar="N",
                        help="run to N laps in all (more than the fit asked for extends it)")
    resume.add_argument("--trust", action="store_true",
                        help="resume a checkpoint another user or machine wrote, or one edited since: it runs the "
                             "command line the file holds, outputs included")
    add_executor_option(resume)
    resume.set_defaults(run=_run_resume)
    add_eval(commands)
    add_report(commands)
    ds = commands.add_parser("datasets", help="list the bundled data sets")
    ds.set_defaults(run=_run_datasets)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    stdout = sys.stdout = _ClosedPipeTolerant(sys.stdout)
    try:
        return args.run(args)
    except (DataError, ValueError, TypeError, OSError, OutputError) as exc:  # the library's errors, the system's
        print(f"stickbreak: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError as exc:
        print(f"stickbreak: error: out of memory ({exc or 'an allocation failed'}); lower the sizes the run asks "
              "for (components, topics, batches) or run it on a machine with more memory", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("stickbreak: interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT
    finally:
        sys.stdout = stdout.stream
        if stdout.closed_pipe:  # nothing more may reach the closed pipe, not even at interpreter exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
