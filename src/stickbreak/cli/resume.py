"""``stickbreak resume DIR``: a killed ``stickbreak fit`` continued from its checkpoint."""

from __future__ import annotations

import os
from pathlib import Path

from ..estimators._checkpoint import read as read_checkpoint
from .arguments import build_parser, runner


def run_resume(args) -> int:
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
        return runner(fit_args)(fit_args)
    finally:
        os.chdir(here)
