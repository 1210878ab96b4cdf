"""What a person sees of a fit while it runs (issue 26): a progress bar over the batches of every
lap with K, the ELBO and the moves accepted in the last lap; one line when numba starts compiling
the kernels on first use (the silent wait of a cold cache), and how long it took; and a
:mod:`logging` record per lap on the ``"stickbreak"`` logger, so a run can be followed in a file
(``logging.basicConfig(filename=..., level=logging.INFO)``).

The bar and the compile lines show at ``verbose >= 1`` (the CLI's default); the log records are
always written, at INFO, and Python's logging shows them only where it is configured to. Only
the laps' compilations in this process are seen: worker processes (``executor="processes"`` or
Dask) compile on their own, and a lap 1 that waits for them is only slow.
"""

from __future__ import annotations

import logging
import sys
from contextlib import contextmanager
from time import perf_counter

from numba.core import event
from tqdm.auto import tqdm

logger = logging.getLogger("stickbreak")

#: A lap that spent at least this many seconds compiling says so.
COMPILE_NOTICE = 1.0


class _CompileWatch(event.Listener):
    """Seconds numba spends compiling this package's kernels (outermost compilations only: a
    kernel's callees compile within it; numba compiles under one lock, so never two at once), and
    a notice at the first one."""

    def __init__(self, notice):
        self.notice, self.seconds, self.noticed = notice, 0.0, False
        self._depth, self._started = 0, 0.0

    def on_start(self, ev):
        if not ev.data["dispatcher"].py_func.__module__.startswith("stickbreak."):
            return
        self._depth += 1
        if self._depth == 1:
            self._started = perf_counter()
        if not self.noticed:
            self.noticed = True
            self.notice()

    def on_end(self, ev):
        if not ev.data["dispatcher"].py_func.__module__.startswith("stickbreak."):
            return
        self._depth -= 1
        if self._depth == 0:
            self.seconds += perf_counter() - self._started


def _say(show: bool, message: str) -> None:
    logger.info(message)
    if show:
        tqdm.write(message, file=sys.stderr)


#: What a fit says when numba starts compiling its kernels (the silent wait of a cold cache).
FIRST_USE = "compiling numba kernels on first use (numba caches them: later runs skip this)..."


@contextmanager
def phase(verbose: int, what: str):
    """A phase of a fit outside its laps (a learned start): ``what...`` as it begins and how long it
    took at its end, with the seconds of it numba spent compiling kernels on first use (the HDP's
    learned start compiles the sampler's and the topic step's kernels); logged at INFO, shown at
    ``verbose >= 1``."""
    start, show = perf_counter(), verbose >= 1
    _say(show, f"{what}...")
    watch = _CompileWatch(lambda: _say(show, f"{what}: {FIRST_USE}"))
    event.register("numba:compile", watch)
    try:
        yield
    finally:
        event.unregister("numba:compile", watch)
    compiled = f" ({watch.seconds:.1f} s of it compiling numba kernels)" if watch.seconds >= COMPILE_NOTICE else ""
    _say(show, f"{what}: done in {perf_counter() - start:.1f} s{compiled}")


class FitProgress:
    """A fit's progress: :meth:`visited` after each of a lap's ``n_batches`` batches (1: the bar
    counts laps), :meth:`lap_done` after each lap."""

    def __init__(self, desc: str, max_laps: int, n_batches: int, laps_done: int, verbose: int):
        self.desc, self.show, self.n_batches = desc, verbose >= 1, max(1, int(n_batches))
        self.bar = tqdm(total=max_laps * self.n_batches, initial=laps_done * self.n_batches, disable=not self.show,
                        unit="batch" if self.n_batches > 1 else "lap", desc=desc, dynamic_ncols=True)
        self.lap_position = 0  # batches of the lap in progress already counted
        self.compiled = 0.0
        self.watch = _CompileWatch(lambda: _say(self.show, f"{desc}: {FIRST_USE}"))

    @contextmanager
    def watching(self):
        """Watch numba's compilations for the duration of the block."""
        event.register("numba:compile", self.watch)
        try:
            yield self
        finally:
            event.unregister("numba:compile", self.watch)

    def visited(self, done: int, total: int) -> None:
        """``done`` of the lap's ``total`` batches are visited."""
        position = round(done * self.n_batches / max(total, 1))
        self.bar.update(position - self.lap_position)
        self.lap_position = position

    def lap_done(self, record) -> None:
        """The lap of ``record`` (a :class:`~stickbreak.driver.LapRecord`) is complete."""
        self.bar.update(self.n_batches - self.lap_position)
        self.lap_position = 0
        accepted = ", ".join(f"{kind} {v['accepted']}" for kind, v in record.moves.items() if v["accepted"])
        postfix = {"lap": record.lap, "K": record.n_effective, "elbo": f"{record.elbo:.6g}"}
        self.bar.set_postfix(postfix | ({"moves": accepted} if accepted else {}), refresh=False)
        logger.info("%s lap %d: ELBO %.10g, K %d (%d used), %.1f s%s", self.desc, record.lap, record.elbo,
                    record.n_components, record.n_effective, record.seconds,
                    f", accepted {accepted}" if accepted else "")
        compiled, self.compiled = self.watch.seconds - self.compiled, self.watch.seconds
        if compiled >= COMPILE_NOTICE:
            _say(self.show, f"{self.desc}: lap {record.lap} included {compiled:.1f} s of compiling numba kernels")

    def close(self) -> None:
        self.bar.close()
