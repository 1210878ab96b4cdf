"""``--out`` and ``--checkpoint`` are checked before the fit, and ``--out`` is replaced whole after it
(issue 50): a kill at any point leaves the previous complete run or the new one, a failed write
keeps the model, Ctrl-C waits for the write."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import stickbreak
from stickbreak.cli import common, outputs
from stickbreak.cli.main import main

SRC = Path(__file__).resolve().parents[2] / "src"
FIT = ["fit", "mixture", "old_faithful", "--max-laps", "2", "--quiet"]

# A run's files written through staged_output, then a kill (SIGKILL) at one point; argv: OUT TAG POINT
_KILLED_WRITE = """
import ctypes, hashlib, json, os, signal, sys
from pathlib import Path
from stickbreak.cli import outputs
out, tag, point = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
def die():
    os.kill(os.getpid(), signal.SIGKILL)
if point.startswith("rename"):  # no renameat2: the two-rename swap, killed after its N-th rename
    outputs.ctypes = type("NoLibc", (), {"CDLL": staticmethod(lambda *a, **k: object())})
    real, done = os.rename, []
    def rename(a, b):
        real(a, b); done.append(1)
        if len(done) == int(point[-1]): die()
    outputs.os.rename = rename
elif point == "after-swap":
    real_swap = outputs._swap
    outputs._swap = lambda a, b: (real_swap(a, b), die())
class Model:
    def save(self, path): return path
outputs.out_directory(str(out))
with outputs.staged_output(out, Model()) as stage:
    files = {f"f{i}.txt": f"{tag} {i}" for i in range(5)}
    for i, (name, text) in enumerate(files.items()):
        (stage / name).write_text(text)
        if point == f"writing-{i}": die()
    digests = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in files.items()}
    (stage / "run.json").write_text(json.dumps({"tag": tag, "files": [*files, "run.json"], "sha256": digests}))
    if point == "before-swap": die()
"""


def complete_run(out: Path) -> str:
    """The tag of the complete run ``out`` holds (every file its run.json lists, with its digest)."""
    run = json.loads((out / "run.json").read_text())
    assert sorted(p.name for p in out.iterdir()) == sorted(run["files"])
    for name, digest in run["sha256"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    return run["tag"]


@pytest.mark.parametrize("point", ["writing-0", "writing-3", "before-swap", "after-swap", "rename-1", "rename-2",
                                   "rename-3"])
def test_a_kill_at_any_point_leaves_the_previous_or_the_new_run(tmp_path, point, monkeypatch):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    monkeypatch.setattr(sys, "argv", ["old run", str(tmp_path / "run"), "old", "none"])

    def write(tag, where):
        return subprocess.run([sys.executable, "-c", _KILLED_WRITE, str(tmp_path / "run"), tag, where], env=env,
                              capture_output=True, text=True)

    exec(compile(_KILLED_WRITE, "old run", "exec"), {"__name__": "old_run"})  # the previous run, in this process
    assert complete_run(tmp_path / "run") == "old"
    assert write("new", point).returncode == -signal.SIGKILL
    outputs.out_directory(str(tmp_path / "run"))  # what the next run does first (undoes a half swap)
    expected = "new" if point in ("after-swap", "rename-2", "rename-3") else "old"
    assert complete_run(tmp_path / "run") == expected


def test_an_unwritable_out_is_refused_before_the_fit(tmp_path, capsys):
    if os.geteuid() == 0:  # root writes anywhere but in /proc
        unwritable = Path("/proc/stickbreak-run") if Path("/proc").is_dir() else None
    else:
        (tmp_path / "ro").mkdir(mode=0o500)
        unwritable = tmp_path / "ro" / "run"
    if unwritable is None:
        pytest.skip("no directory this user cannot write")
    with pytest.raises(SystemExit) as stop:
        main(FIT + ["--out", str(unwritable)])
    assert stop.value.code == 2
    err = capsys.readouterr()
    assert re_search(r"argument --out: cannot write in .*; give --out a directory you can write to", err.err)
    assert "DPMixture" not in err.out  # refused before the run began


def re_search(pattern, text):
    import re
    return re.search(pattern, text) is not None


def test_an_out_holding_other_files_is_refused(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit):
        main(FIT + ["--out", str(tmp_path)])
    assert "holds files that no stickbreak run wrote (notes.txt); a run replaces its --out directory whole" in \
        capsys.readouterr().err
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_checkpoint_inside_out_is_refused(tmp_path, capsys):
    assert main(FIT + ["--out", str(tmp_path / "run"), "--checkpoint", str(tmp_path / "run" / "ckpt")]) == 2
    assert "is inside --out" in capsys.readouterr().err
    assert not (tmp_path / "run" / "ckpt").exists()


def test_a_full_disk_is_refused_before_the_fit(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(outputs.shutil, "disk_usage", lambda path: type("Usage", (), {"free": 10 * 2**20})())
    assert main(FIT + ["--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr()
    assert re_search(r"--out .*run has 10 MiB free but the run needs about \d+ MiB there", err.err)
    assert "converged" not in err.out and "stopped" not in err.out


def test_a_write_that_fails_keeps_the_model_and_says_where(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    assert main(FIT + ["--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(common, "write_csv", no_space)
    monkeypatch.setattr("stickbreak.cli.mixture.write_csv", no_space)
    monkeypatch.setattr(outputs.tempfile, "gettempdir", lambda: str(tmp_path))
    capsys.readouterr()
    assert main(FIT + ["--out", str(out), "--seed", "3"]) == 2
    err = capsys.readouterr().err
    kept = tmp_path / f"stickbreak-model-{os.getpid()}.npz"
    assert f"could not write {out} ([Errno 28] No space left on device); the fitted model is kept in {kept}" in err
    assert type(stickbreak.load(kept)).__name__ == "DPMixture"
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the previous run, whole


def test_ctrl_c_while_writing_waits_for_the_write(tmp_path):
    class Model:
        def save(self, path):
            return path

    out = tmp_path / "run"
    outputs.out_directory(str(out))
    before = signal.getsignal(signal.SIGINT)  # (SIG_IGN where the suite runs in the background)
    with pytest.raises(KeyboardInterrupt):
        with outputs.staged_output(out, Model()) as stage:
            os.kill(os.getpid(), signal.SIGINT)  # held back: the files still go in
            (stage / "a.txt").write_text("written")
    assert (out / "a.txt").read_text() == "written"
    assert signal.getsignal(signal.SIGINT) is before
