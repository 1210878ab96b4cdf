"""Checkpoint and resume: a fit killed (SIGKILL) after any lap, or within a lap after a checkpoint
of the lap in progress, and resumed ends exactly where the uninterrupted fit ends; bad checkpoints
are refused and left untouched; unsupported settings are refused before any work; the command line's
``fit --checkpoint`` and ``resume``."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

import stickbreak
from stickbreak import DILN, LDA, CheckpointDir, DPMixture, FiniteMixture, HDPTopicModel
from stickbreak.cli.main import main
from stickbreak.estimators import mixture_base, topic_base
from stickbreak.estimators._checkpoint import CheckpointSession, read
from stickbreak.learn.memo_state import MemoLapInProgress
from stickbreak.learn.stochastic import StochasticLapInProgress
from stickbreak.moves.records import DeleteRecord
from stickbreak.parallel import LocalExecutor
from stickbreak.persist import CheckpointError, checkpoint

import resume_cases

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"


class _Killed(BaseException):
    """Stands for the process dying right after a checkpoint was written."""


@lru_cache(maxsize=None)
def uninterrupted(case: str, algorithm: str, synchronous_laps: bool = False):
    """The case's fit without a stop; ``synchronous_laps``: on two threads with memoized VI's
    synchronous laps (those of a fit on 2 worker processes)."""
    est, X, inputs = resume_cases.make(case, algorithm)
    if not synchronous_laps:
        return est.fit(X, **inputs)
    executor = LocalExecutor(2, synchronous_laps=True)
    try:
        return est.set_params(executor=executor, n_jobs=2).fit(X, **inputs)
    finally:
        executor.close()


def killed_after(case: str, algorithm: str, lap, directory: Path, executor: str | None = None) -> None:
    """Run the case in another process that kills itself (SIGKILL) once lap ``lap`` is complete,
    or (``lap="wN"``) right after its N-th checkpoint, with checkpoints after every batch (its
    worker processes, if any, must end with it: they hold the output pipes open)."""
    scratch = directory.parent / f"{directory.name}-tmp"  # the killed run's spill files stay in pytest's tmp_path
    scratch.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
           "TMPDIR": str(scratch)}
    extra = [executor] if executor else []
    done = subprocess.run([sys.executable, str(HERE / "resume_cases.py"), case, algorithm, str(lap), str(directory),
                           *extra], capture_output=True, text=True, env=env)
    assert done.returncode == -signal.SIGKILL, done.stderr[-3000:]


def assert_resumed_equal(case: str, algorithm: str, lap: int, directory: Path, births_in_flight: bool = False):
    killed_after(case, algorithm, lap, directory)
    state = read(directory).content["state"]
    assert read(directory).document["lap"] == lap
    if births_in_flight:  # the checkpoint holds birth proposals still being tracked through the batches
        assert len(state.births) > 0
    _, X, inputs = resume_cases.make(case, algorithm)
    resumed = stickbreak.resume(directory, X, **inputs)
    reference = uninterrupted(case, algorithm)
    assert resumed.lower_bound_ == pytest.approx(reference.lower_bound_, rel=1e-9, abs=0)
    assert resumed.params_.n_components == reference.params_.n_components
    assert np.array_equal(resumed.params_.uids, reference.params_.uids)
    for name, value in reference.params_.obs.items():
        np.testing.assert_allclose(resumed.params_.obs[name], value, rtol=1e-9, atol=0)
    assert [r["elbo"] for r in resumed.trace_] == pytest.approx([r["elbo"] for r in reference.trace_], rel=1e-9)
    assert len(resumed.trace_) == len(reference.trace_) > lap


def assert_same_result(resumed, reference) -> None:
    assert resumed.lower_bound_ == pytest.approx(reference.lower_bound_, rel=1e-9, abs=0)
    assert np.array_equal(resumed.params_.uids, reference.params_.uids)
    assert [r["elbo"] for r in resumed.trace_] == pytest.approx([r["elbo"] for r in reference.trace_], rel=1e-9)
    assert [r["n_components"] for r in resumed.trace_] == [r["n_components"] for r in reference.trace_]


# with 3 batches and a checkpoint after every batch (SVI: every step), a lap writes 3: after its
# first and second batches (in progress) and at its end; the N-th write is in lap (N - 1) // 3 + 1
# topics_deletes: lap 3 replays lap 2's accepted delete, held by the workers (write 8: one batch
# has replayed it); lap 4's delete is being refined, its proposals held by the workers (write 11)
@pytest.mark.parametrize("case, algorithm, write, executor", [
    ("mixture", "memoized", 7, None), ("topics", "memoized", 8, None), ("hmm", "memoized", 13, None),
    ("topics", "memoized", 11, "processes-batchwise"), ("topics_deletes", "memoized", 8, "processes-batchwise"),
    ("topics_deletes", "memoized", 11, "processes-batchwise"), ("topics", "stochastic", 8, None),
    ("mixture", "stochastic", 4, None)])
def test_a_fit_killed_within_a_lap_resumes_from_the_lap_in_progress(tmp_path, case, algorithm, write, executor):
    """SIGKILL right after a checkpoint written in the middle of a lap (memoized: births, merges and
    deletes on; on worker processes the batches' caches are fetched into it); the resumed run
    finishes that lap and ends with the uninterrupted run's ELBO, K and trace."""
    killed_after(case, algorithm, f"w{write}", tmp_path, executor)
    saved = read(tmp_path)
    state = saved.content["state"]
    assert isinstance(state, MemoLapInProgress if algorithm == "memoized" else StochasticLapInProgress)
    assert 0 < state.position < 3
    assert saved.document["lap"] == (write - 1) // 3 and len(saved.content["trace"]) == saved.document["lap"]
    if algorithm == "memoized":
        assert all(m is not None for m in state.lap.memo) and not any(state.lap.placed)
    if case == "topics_deletes":  # the proposals the workers held were fetched into the checkpoint
        lap = state.lap
        if write == 11:
            assert lap.delete_total is not None and len(lap.delete_carried) == state.position
        else:
            deletes = [r for r in lap.log if isinstance(r, DeleteRecord)]
            assert len(deletes) == 1 and len(deletes[0].proposals) == 3 - state.position
    done = saved.content["trace"]
    assert saved.content["seconds"] > (done[-1]["seconds"] if done else 0.0)  # the lap had been running
    _, X, inputs = resume_cases.make(case, algorithm)
    resumed = stickbreak.resume(tmp_path, X, **inputs)
    assert_same_result(resumed, uninterrupted(case, algorithm))
    assert resumed.trace_[len(done)]["seconds"] >= saved.content["seconds"]  # its time before the kill counts


def test_checkpoints_within_laps_take_seconds_between_them():
    with pytest.raises(ValueError, match="seconds between checkpoints"):
        CheckpointDir("somewhere", every=0)


# a birth is in flight after lap 3 (mixture, topics) and lap 4 (HMM) of the memoized cases
FAST = [("mixture", "memoized", 3, True), ("topics", "memoized", 3, True), ("hmm", "memoized", 4, True),
        ("mixture", "vb", 2, False), ("topics", "vb", 2, False), ("hmm", "vb", 2, False),
        ("mixture", "stochastic", 2, False), ("topics", "stochastic", 4, False), ("hmm", "stochastic", 2, False)]
SLOW = ([(case, algorithm, lap, False) for case in ("mixture", "topics", "hmm")
         for algorithm in ("memoized", "vb", "stochastic") for lap in (1, 6)]
        + [(case, algorithm, 2, False) for case in ("finite_mixture", "lda", "finite_hmm")
           for algorithm in ("memoized", "vb", "stochastic")])


@pytest.mark.parametrize("case, algorithm, lap, births_in_flight", FAST)
def test_killed_fit_resumes_to_the_uninterrupted_result(tmp_path, case, algorithm, lap, births_in_flight):
    assert_resumed_equal(case, algorithm, lap, tmp_path, births_in_flight)


@pytest.mark.slow
@pytest.mark.parametrize("case, algorithm, lap, births_in_flight", SLOW)
def test_killed_fit_resumes_after_any_lap(tmp_path, case, algorithm, lap, births_in_flight):
    assert_resumed_equal(case, algorithm, lap, tmp_path, births_in_flight)


def test_resuming_a_finished_run_runs_no_more_laps(tmp_path):
    est, X, _ = resume_cases.make("mixture", "vb")
    est.set_params(tol=1e-3)
    fitted = est.fit(X, checkpoint=tmp_path)
    assert fitted.converged_ and read(tmp_path).document["stop_reason"] == "converged"
    resumed = stickbreak.resume(tmp_path, X)
    assert resumed.n_iter_ == fitted.n_iter_ and resumed.lower_bound_ == fitted.lower_bound_


def test_a_run_without_random_state_resumes_to_its_own_result(tmp_path):
    """The generator's state at the start of fit is kept: the resumed run repeats the same batches."""
    est, X, _ = resume_cases.make("mixture", "memoized")
    copied = tmp_path / "after_lap_3"

    def keep_lap_3(record, params):
        if record.lap == 3:
            copied.mkdir()
            shutil.copy(tmp_path / "run" / checkpoint.FILENAME, copied / checkpoint.FILENAME)

    whole = est.set_params(random_state=None, callbacks=[keep_lap_3]).fit(X, checkpoint=tmp_path / "run")
    resumed = stickbreak.resume(copied, X)
    assert resumed.random_state is not None and resumed.lower_bound_ == whole.lower_bound_
    assert np.array_equal(resumed.params_.obs["nu"], whole.params_.obs["nu"])


def test_a_resumed_run_killed_again_resumes_again(tmp_path, monkeypatch):
    est, X, _ = resume_cases.make("mixture", "memoized")
    save = CheckpointSession.save
    for lap in (2, 5):
        def save_then_die(self, state, trace, stop_reason, seconds, lap=lap):
            save(self, state, trace, stop_reason, seconds)
            if len(trace) == lap:
                raise _Killed

        monkeypatch.setattr(CheckpointSession, "save", save_then_die)
        with pytest.raises(_Killed):
            est.fit(X, checkpoint=tmp_path) if lap == 2 else stickbreak.resume(tmp_path, X)
    monkeypatch.setattr(CheckpointSession, "save", save)
    resumed = stickbreak.resume(tmp_path, X)
    assert resumed.lower_bound_ == uninterrupted("mixture", "memoized").lower_bound_
    assert resumed.n_iter_ == resume_cases.MAX_LAPS


def test_a_new_fit_does_not_replace_an_existing_checkpoint(tmp_path):
    est, X, _ = resume_cases.make("mixture", "vb")
    est.set_params(max_laps=2).fit(X, checkpoint=tmp_path)
    before = (tmp_path / checkpoint.FILENAME).read_bytes()
    with pytest.raises(CheckpointError, match="already holds a checkpoint; continue that run with stickbreak.resume"):
        est.fit(X, checkpoint=tmp_path)
    assert (tmp_path / checkpoint.FILENAME).read_bytes() == before


_HOLD_THE_DIRECTORY = """
import sys, time
from pathlib import Path
import resume_cases
est, X, _ = resume_cases.make("mixture", "vb")
started, go = Path(sys.argv[2]), Path(sys.argv[3])
def wait(record, params):
    started.touch()
    while not go.exists():
        time.sleep(0.05)
est.set_params(max_laps=2, callbacks=[wait]).fit(X, checkpoint=sys.argv[1])
"""


def test_a_second_run_on_a_checkpoint_directory_in_use_is_refused(tmp_path):
    """Two concurrent runs on one directory: the second is refused by name before any work (the
    directory's lock, not the "already holds a checkpoint" check both could pass), the first runs
    on and its checkpoint resumes."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(HERE), os.environ.get("PYTHONPATH", "")])}
    started, go = tmp_path / "started", tmp_path / "go"
    first = subprocess.Popen([sys.executable, "-c", _HOLD_THE_DIRECTORY, str(tmp_path / "c"), str(started), str(go)],
                             env=env, stderr=subprocess.PIPE, text=True)
    try:
        while not started.exists():
            assert first.poll() is None, first.stderr.read()
            time.sleep(0.05)
        est, X, _ = resume_cases.make("mixture", "vb")
        with pytest.raises(CheckpointError, match=rf"c is in use by another run \(process {first.pid} on host .*, "
                                                  r"started .*\); wait for it to end"):
            est.set_params(max_laps=2).fit(X, checkpoint=tmp_path / "c")
    finally:
        go.touch()
        assert first.wait() == 0, first.stderr.read()
    assert not (tmp_path / "c" / ".lock").exists()  # released by the run that held it
    assert stickbreak.resume(tmp_path / "c", X).n_iter_ == 2


def test_a_killed_run_leaves_its_directory_unlocked(tmp_path):
    """The lock is the kernel's (flock): a run killed with SIGKILL holds nothing afterwards."""
    killed_after("mixture", "vb", 2, tmp_path / "c")
    _, X, _ = resume_cases.make("mixture", "vb")
    assert stickbreak.resume(tmp_path / "c", X).n_iter_ == resume_cases.MAX_LAPS


# ---------------------------------------------------------------------------------------------- bad checkpoints
@pytest.fixture
def written(tmp_path):
    est, X, _ = resume_cases.make("mixture", "vb")
    est.set_params(max_laps=3)
    est.fit(X, checkpoint=tmp_path)
    return tmp_path, X


def _refused(directory: Path, X, match: str, fit=None):
    before = (directory / checkpoint.FILENAME).read_bytes()
    with pytest.raises(CheckpointError, match=match):
        stickbreak.resume(directory, X) if fit is None else fit()
    assert (directory / checkpoint.FILENAME).read_bytes() == before  # never touched by a failed resume


def _raw(directory: Path) -> tuple[dict, dict]:
    with np.load(directory / checkpoint.FILENAME) as npz:
        arrays = {k: npz[k] for k in npz.files}
    return json.loads(str(arrays.pop(checkpoint.DOCUMENT_KEY))), arrays


def _rewrite(directory: Path, change) -> None:
    """The checkpoint with its document changed (and a checksum that matches)."""
    document, arrays = _raw(directory)
    change(document)
    arrays.pop(checkpoint.CHECKSUM_KEY)
    arrays.pop(checkpoint.MAC_KEY)
    checkpoint.write(directory, document, arrays)


def test_flipped_bytes_are_refused(written):
    directory, X = written
    path = directory / checkpoint.FILENAME
    data = bytearray(path.read_bytes())
    _, arrays = _raw(directory)
    largest = max(arrays.values(), key=lambda a: a.nbytes)
    for at in (data.find(largest.tobytes()) + largest.nbytes // 2, data.find('"content"'.encode("utf-32-le"))):
        flipped = data.copy()
        flipped[at] ^= 0xFF
        path.write_bytes(bytes(flipped))
        _refused(directory, X, "is truncated or corrupt")
    path.write_bytes(bytes(data))


def test_contents_not_matching_the_checksum_are_refused(written):
    directory, X = written
    document, arrays = _raw(directory)
    arrays["a0"] = arrays["a0"] + 1.0  # a consistent zip file whose payload was changed
    np.savez(directory / checkpoint.FILENAME, **{checkpoint.DOCUMENT_KEY: np.array(json.dumps(document))}, **arrays)
    _refused(directory, X, "its sha256 checksum does not match")


def test_truncated_file_is_refused(written):
    directory, X = written
    path = directory / checkpoint.FILENAME
    path.write_bytes(path.read_bytes()[:-100])
    _refused(directory, X, "truncated or corrupt")


def test_other_data_are_refused(written):
    directory, X = written
    _refused(directory, X + 1e-9, "the data differ from those")
    _refused(directory, X[:-1], r"shape \[400, 2\]")


def test_missing_checkpoint_is_refused(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint at"):
        stickbreak.resume(tmp_path, np.zeros((3, 2)))


def test_other_format_version_and_unknown_types_are_refused(written):
    directory, X = written
    _rewrite(directory, lambda d: d.update(format_version=99))
    _refused(directory, X, "format version 99")
    _rewrite(directory, lambda d: d.update(format_version=checkpoint.FORMAT_VERSION))
    _rewrite(directory, lambda d: d["content"]["@dict"][0][1]["fields"]["params"].update({"@type": "Popen"}))
    _refused(directory, X, "'Popen', which is not a known state type")


def test_other_estimator_or_parameters_are_refused(written):
    directory, X = written
    resuming = read(directory)
    _refused(directory, X, "checkpoint of a DPMixture fit, not of a FiniteMixture",
             lambda: FiniteMixture(n_components=3, algorithm="vb").fit(X, checkpoint=resuming))
    est, _, _ = resume_cases.make("mixture", "vb")
    est.set_params(max_laps=3, concentration=2.0)
    _refused(directory, X, r"other parameters \(concentration=1.0\)", lambda: est.fit(X, checkpoint=resuming))


def test_a_kill_while_writing_leaves_the_previous_checkpoint(written, monkeypatch):
    directory, X = written
    before = (directory / checkpoint.FILENAME).read_bytes()

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # dies inside np.savez, after the temporary file was opened

    monkeypatch.setattr(checkpoint.np, "savez", killed)
    with pytest.raises(KeyboardInterrupt):
        checkpoint.write(directory, {"format": "x"}, {})
    assert (directory / checkpoint.FILENAME).read_bytes() == before
    assert os.listdir(directory) == [checkpoint.FILENAME]
    monkeypatch.undo()
    (directory / f".{checkpoint.FILENAME}.99999.tmp").write_bytes(b"left by a writer killed mid-write")
    checkpoint.write(directory, *_raw(directory))
    assert os.listdir(directory) == [checkpoint.FILENAME]


# ---------------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("make", [
    lambda: LDA(n_topics=3, algorithm="gibbs"),
    lambda: HDPTopicModel(algorithm="vb", variational_family="two_level"),
    lambda: HDPTopicModel(algorithm="truncation_free"),
    lambda: DILN(n_topics=3),
    lambda: DPMixture(obs_model="mult", algorithm="truncation_free"),
])
def test_unsupported_algorithms_are_refused_before_any_work(tmp_path, monkeypatch, make):
    def no_work(*args, **kwargs):
        raise AssertionError("work started before the checkpoint was refused")

    for module in (topic_base, mixture_base):
        monkeypatch.setattr(module, "prepare_data", no_work)
    counts, _ = resume_cases.make_bars_corpus(n_docs=20, doc_length=20, side=4, n_bars=4, seed=0)
    with pytest.raises(ValueError, match="cannot write checkpoints: checkpoint= is supported by algorithm='vb', "
                                         "'stochastic' and 'memoized'"):
        make().fit(counts, checkpoint=tmp_path / "run")
    assert not (tmp_path / "run").exists()


# ---------------------------------------------------------------------------------------------- command line
def test_cli_fit_with_checkpoint_then_resume(tmp_path, monkeypatch, capsys):
    """Killed within lap 4 (a checkpoint after every batch), resumed from another directory:
    relative paths are the fit's."""
    argv = ["fit", "mixture", "old_faithful", "--algorithm", "memoized", "--n-batches", "3", "--max-laps", "8",
            "--tol", "1e-12", "--seed", "1", "--quiet"]
    monkeypatch.chdir(tmp_path)
    assert main(argv + ["--out", "whole"]) == 0
    save = CheckpointSession.save

    def save_then_die(self, state, trace, stop_reason, seconds):
        save(self, state, trace, stop_reason, seconds)
        if len(trace) == 3 and isinstance(state, MemoLapInProgress):  # within lap 4, after its first batch
            raise _Killed

    monkeypatch.setattr(CheckpointSession, "save", save_then_die)
    with pytest.raises(_Killed):
        main(argv + ["--checkpoint", "ckpt", "--checkpoint-every", "1e-9", "--out", "resumed"])
    assert read(tmp_path / "ckpt").document["every"] == 1e-9
    monkeypatch.setattr(CheckpointSession, "save", save)
    capsys.readouterr()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert main(["resume", "../ckpt"]) == 0
    assert read(tmp_path / "ckpt").document["lap"] == 8
    assert "stopped (max laps) after 8 laps" in capsys.readouterr().out
    whole = stickbreak.load(tmp_path / "whole" / "model.npz")
    resumed = stickbreak.load(tmp_path / "resumed" / "model.npz")
    assert resumed.lower_bound_ == pytest.approx(whole.lower_bound_, rel=1e-9, abs=0)
    np.testing.assert_allclose(resumed.means_, whole.means_, rtol=1e-9)


def test_cli_resume_refuses_a_checkpoint_written_from_python(written, capsys):
    directory, _ = written
    assert main(["resume", str(directory)]) == 2
    assert "was not written by `stickbreak fit`" in capsys.readouterr().err


@pytest.mark.parametrize("case, lap", [("topics", 3), ("hmm", 3), ("topics_deletes", 2)])
def test_a_fit_on_worker_processes_killed_resumes_anywhere_to_the_same_result(tmp_path, case, lap):
    """The driver is killed with its workers busy; the run goes on in the driver's own threads
    with the laps it started with, synchronous (topics_deletes: the delete accepted at lap 2's end
    is held by the workers until the batches replay it; the checkpoint fetched it)."""
    killed_after(case, "memoized", lap, tmp_path, executor="processes")
    if case == "topics_deletes":
        deletes = [r for r in read(tmp_path).content["state"].log if isinstance(r, DeleteRecord)]
        assert len(deletes) == 1 and sorted(deletes[0].proposals) == [0, 1, 2]
    _, X, inputs = resume_cases.make(case, "memoized")
    resumed = stickbreak.resume(tmp_path, X, executor="threads", **inputs)
    reference = uninterrupted(case, "memoized", synchronous_laps=True)
    assert resumed.params_.n_components == reference.params_.n_components
    assert [r["elbo"] for r in resumed.trace_] == pytest.approx([r["elbo"] for r in reference.trace_], rel=1e-9)


@pytest.mark.parametrize("case", ["mixture", "topics"])
def test_a_run_that_reached_its_max_laps_is_extended_by_resume(tmp_path, case):
    """A longer run resumed from a shorter one's last lap is the longer run, lap for lap."""
    est, X, inputs = resume_cases.make(case, "memoized")
    est.set_params(max_laps=3).fit(X, checkpoint=tmp_path, **inputs)
    assert read(tmp_path).document["stop_reason"] == "max_laps"
    extended = stickbreak.resume(tmp_path, X, max_laps=resume_cases.MAX_LAPS, **inputs)
    reference = uninterrupted(case, "memoized")
    assert [r["elbo"] for r in extended.trace_] == pytest.approx([r["elbo"] for r in reference.trace_], rel=1e-9)
    assert extended.params_.n_components == reference.params_.n_components


def test_cli_resume_extends_a_finished_run(tmp_path, monkeypatch, capsys):
    argv = ["fit", "mixture", "old_faithful", "--algorithm", "memoized", "--n-batches", "3", "--tol", "1e-12",
            "--seed", "1", "--quiet"]
    monkeypatch.chdir(tmp_path)
    assert main(argv + ["--max-laps", "8", "--out", "whole"]) == 0
    assert main(argv + ["--max-laps", "3", "--checkpoint", "ckpt", "--out", "short"]) == 0
    capsys.readouterr()
    assert main(["resume", "ckpt", "--max-laps", "8", "--executor", "threads"]) == 0
    assert "stopped (max laps) after 8 laps" in capsys.readouterr().out
    whole = stickbreak.load(tmp_path / "whole" / "model.npz")
    extended = stickbreak.load(tmp_path / "short" / "model.npz")
    assert extended.lower_bound_ == pytest.approx(whole.lower_bound_, rel=1e-9, abs=0)


@pytest.mark.parametrize("cls", [LDA, HDPTopicModel])
def test_a_saved_stream_goes_on_as_if_it_had_never_stopped(tmp_path, cls):
    """partial_fit's checkpoint is save(): the step count and documents seen travel with the model."""
    counts, _ = resume_cases.make("topics", "stochastic")[1], None
    pieces = [counts[i:i + 20] for i in range(0, 120, 20)]
    whole = cls(n_topics=4, random_state=0)
    for piece in pieces:
        whole.partial_fit(piece)
    first = cls(n_topics=4, random_state=0)
    for piece in pieces[:3]:
        first.partial_fit(piece)
    first.save(tmp_path / "stream.npz")
    loaded = stickbreak.load(tmp_path / "stream.npz")
    for piece in pieces[3:]:
        loaded.partial_fit(piece)
    np.testing.assert_allclose(loaded.components_, whole.components_, rtol=1e-12)
    assert loaded.n_iter_ == whole.n_iter_ == 6


def test_a_shard_store_is_fingerprinted_one_shard_at_a_time(tmp_path, monkeypatch):
    """The driver hashes a store's shards one after another, each released before the next is read
    (a million documents fingerprinted all at once held 3.4 GB on the driver), to the same digest
    as the documents in memory."""
    import weakref

    from stickbreak.data import BagOfWords, ShardStore

    counts, _ = resume_cases.make("topics", "memoized")[1], None
    store = ShardStore.write(BagOfWords(counts), tmp_path / "shards", n_batches=4)
    read_before, original = [], ShardStore.__getitem__

    def getitem(self, b):
        assert all(ref() is None for ref in read_before), "an earlier shard is still held"
        shard = original(self, b)
        read_before.append(weakref.ref(shard.counts.data))  # its largest array
        return shard

    monkeypatch.setattr(ShardStore, "__getitem__", getitem)
    digest = checkpoint.fingerprint(store)
    assert len(read_before) == 4
    assert digest["shape"] == [store.n_items, store.n_features]
    assert digest == checkpoint.fingerprint(ShardStore.open(tmp_path / "shards"))
