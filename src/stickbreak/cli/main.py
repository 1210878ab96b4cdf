"""Command line: ``stickbreak fit mixture|topics|hmm|admixture DATA ...``, ``stickbreak resume DIR``,
``stickbreak eval``, ``stickbreak report`` and ``stickbreak datasets``."""

from __future__ import annotations

import io
import os
import sys

from ..datasets import summaries as dataset_summaries
from ..data import DataError
from .arguments import build_parser, runner
from .outputs import OutputError
from .vocabulary import INTERRUPTED_EXIT

__all__ = ["build_parser", "main"]


def run_datasets(args) -> int:
    """``stickbreak datasets``: each bundled data set and what it holds."""
    for name, text in dataset_summaries().items():
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


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    stdout = sys.stdout = _ClosedPipeTolerant(sys.stdout)
    try:
        return runner(args)(args)
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
