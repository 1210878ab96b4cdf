"""What a person sees while a fit runs (issue 26): a bar over the batches of every lap with K and
the ELBO, one line when numba starts compiling on first use and how long a lap spent compiling,
and a log record per lap on the "stickbreak" logger."""

from __future__ import annotations

import logging
import warnings

import numba
import numpy as np
import pytest

from stickbreak import DPMixture, HDPTopicModel, LDA
from stickbreak.datasets import load
from stickbreak import progress as progress_module
from stickbreak.progress import FitProgress, phase


def _fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # too few laps to converge, on purpose
        return est.fit(X)


@pytest.mark.parametrize("make, steps", [
    (lambda: HDPTopicModel(n_topics=5, n_batches=4, max_laps=2, random_state=0), 4),
    (lambda: LDA(n_topics=5, algorithm="stochastic", batch_size=500, max_laps=2, random_state=0), 5)])
def test_the_bar_moves_batch_by_batch_and_shows_k_and_the_elbo(make, steps, capsys, monkeypatch):
    """Memoized VI reports each batch, stochastic VI each step; the bar counts batches over all laps."""
    visits = []
    visited = FitProgress.visited
    monkeypatch.setattr(FitProgress, "visited", lambda self, done, total: (visits.append((done, total)),
                                                                           visited(self, done, total)))
    _fit(make().set_params(verbose=1), load("ap").X)
    assert visits == [(i, steps) for i in range(1, steps + 1)] * 2
    last = capsys.readouterr().err.replace("\r", "\n").strip().split("\n")[-1]
    assert f"{2 * steps}/{2 * steps} [" in last and "lap=2" in last and "K=" in last and "elbo=" in last


def test_quiet_by_default_in_python(capsys):
    _fit(DPMixture(n_components=3, max_laps=2, random_state=0), load("digits").X[:300])
    assert capsys.readouterr().err == ""


def test_every_lap_is_logged(caplog):
    with caplog.at_level(logging.INFO, logger="stickbreak"):
        _fit(DPMixture(n_components=3, max_laps=3, random_state=0), load("digits").X[:300])
    laps = [r.getMessage() for r in caplog.records if " lap " in r.getMessage()]
    assert len(laps) == 3 and laps[0].startswith("DPMixture lap 1: ELBO") and "K 3" in laps[0]


def test_a_first_compilation_is_announced_once_and_timed(capsys, caplog):
    def add_one(x):
        return x + 1

    add_one.__module__ = "stickbreak.kernels.not_cached"  # as one of the package's kernels
    kernel = numba.njit(add_one)
    progress = FitProgress("fit", 1, 1, 0, verbose=1)
    with caplog.at_level(logging.INFO, logger="stickbreak"), progress.watching():
        kernel(1)
        kernel(2.0)  # another signature: compiled again, announced no more
        kernel(3)
    progress.close()
    err = capsys.readouterr().err
    assert err.count("compiling numba kernels on first use") == 1
    assert progress.watch.seconds > 0
    assert any("compiling numba kernels" in r.getMessage() for r in caplog.records)
    assert np.isclose(kernel(1), 2)


def test_a_phase_before_the_laps_says_how_long_it_compiled(capsys, monkeypatch):
    """The HDP's learned start compiles most of a first fit's kernels: its closing line says so."""
    def add_two(x):
        return x + 2

    add_two.__module__ = "stickbreak.kernels.not_cached"
    kernel = numba.njit(add_two)
    monkeypatch.setattr(progress_module, "COMPILE_NOTICE", 1e-9)  # any compiling at all
    with phase(1, "HDP: learned start"):
        kernel(1)
    err = capsys.readouterr().err.strip().split("\n")
    assert err[0] == "HDP: learned start..." and err[1] == f"HDP: learned start: {progress_module.FIRST_USE}"
    assert err[2].startswith("HDP: learned start: done in ") and "s of it compiling numba kernels)" in err[2]
    with phase(1, "again"):
        kernel(3)  # compiled already: nothing to say
    assert capsys.readouterr().err.strip().split("\n")[-1].endswith(" s")


def test_warming_an_unknown_kernel_module_names_the_known_ones():
    from stickbreak.kernels.warm import warm

    with pytest.raises(ValueError, match="no kernel examples in \\['topics.nowhere'\\]; choose from .*topics.dense"):
        warm(1, ("topics.nowhere",))
