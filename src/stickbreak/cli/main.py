"""Command line: ``stickbreak fit mixture|topics|hmm DATA ...``, ``stickbreak eval``, ``stickbreak report`` and
``stickbreak datasets``."""

from __future__ import annotations

import argparse
import sys

from .. import datasets
from ..data import DataError
from .hmm import add_fit_hmm
from .mixture import add_fit_mixture
from .report import add_report
from .topics import add_eval, add_fit_topics


def _run_datasets(args) -> int:
    for name, text in datasets.summaries().items():
        print(f"{name:14s} {text}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stickbreak", description="Bayesian nonparametric models by variational inference.")
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("fit", help="fit a model")
    models = fit.add_subparsers(dest="model", required=True)
    add_fit_mixture(models)
    add_fit_topics(models)
    add_fit_hmm(models)
    add_eval(commands)
    add_report(commands)
    ds = commands.add_parser("datasets", help="list the bundled data sets")
    ds.set_defaults(run=_run_datasets)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (DataError, ValueError, TypeError, FileNotFoundError) as exc:
        print(f"stickbreak: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
