"""Checkpoints are authenticated (issue 50): one edited with its SHA-256 recomputed, or written under
another user's key, is refused by name; resumed with ``trust=True``, any state that does not hold
together is a CheckpointError, never a numpy or numba traceback. Seeded fuzzing of the document and
the arrays of a mixture, a topic model and an HMM checkpoint."""

from __future__ import annotations

import copy
import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

import stickbreak
from stickbreak.cli.main import main
from stickbreak.persist import CheckpointError, authenticity, checkpoint

import resume_cases

N_EDITS = 40  # per case


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    base = tmp_path_factory.mktemp("ckpt")
    for case in ("mixture", "topics", "hmm"):
        est, X, inputs = resume_cases.make(case, "memoized")
        est.set_params(max_laps=2).fit(X, checkpoint=base / case, **inputs)
    return base


def raw(directory: Path) -> tuple[dict, dict]:
    with np.load(directory / checkpoint.FILENAME) as npz:
        arrays = {k: npz[k] for k in npz.files}
    for key in (checkpoint.CHECKSUM_KEY, checkpoint.MAC_KEY):
        arrays.pop(key)
    return json.loads(str(arrays.pop(checkpoint.DOCUMENT_KEY))), arrays


def forged(directory: Path, document: dict, arrays: dict) -> None:
    """What an editor without the key can write: the document and arrays with a valid SHA-256."""
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document)
    np.savez(directory / checkpoint.FILENAME, **{checkpoint.DOCUMENT_KEY: np.array(text),
                                                 checkpoint.CHECKSUM_KEY: np.array(checkpoint._checksum(text, arrays)),
                                                 **arrays})


def locations(tree, prefix=()):
    """Every key path of a JSON tree (the first three items of each list)."""
    items = tree.items() if isinstance(tree, dict) else enumerate(tree[:3]) if isinstance(tree, list) else ()
    for key, value in items:
        yield prefix + (key,)
        yield from locations(value, prefix + (key,))


def edit(document: dict, arrays: dict, rng: random.Random) -> str:
    kind = rng.choice(["delete", "list", "text", "negative", "shorter array", "other dtype", "no array"])
    if kind in ("shorter array", "other dtype", "no array"):
        name = rng.choice(sorted(arrays))
        if kind == "no array":
            del arrays[name]
        elif kind == "shorter array":
            arrays[name] = arrays[name].ravel()[:-1] if arrays[name].size > 1 else np.zeros(3)
        else:
            arrays[name] = arrays[name].astype(np.float32 if arrays[name].dtype.kind != "f" else np.complex128)
        return f"{kind} {name}"
    where = rng.choice(list(locations(document)))
    node = document
    for key in where[:-1]:
        node = node[key]
    if kind == "delete":
        del node[where[-1]]
    else:
        node[where[-1]] = {"list": [1, 2], "text": "x", "negative": -7}[kind]
    return f"{kind} at {where}"


@pytest.mark.parametrize("case", ["mixture", "topics", "hmm"])
def test_edited_checkpoints_are_refused_and_trusted_ones_fail_by_name(written, tmp_path, case):
    document, arrays = raw(written / case)
    _, X, inputs = resume_cases.make(case, "memoized")
    rng = random.Random(case)
    for trial in range(N_EDITS):
        doc, arr = copy.deepcopy(document), dict(arrays)
        what = edit(doc, arr, rng)
        target = tmp_path / f"{trial}"
        forged(target, doc, arr)
        with pytest.raises(CheckpointError, match="was not written by this user's stickbreak on this machine, or "
                                                  "was edited since"):
            stickbreak.resume(target, X, **inputs)
        try:
            stickbreak.resume(target, X, trust=True, **inputs)
        except CheckpointError:
            pass
        except Exception as exc:  # pragma: no cover - the failure message names the edit
            pytest.fail(f"{what}: {type(exc).__name__}: {exc}")
        shutil.rmtree(target)


def test_another_users_checkpoint_needs_trust(written, tmp_path, monkeypatch):
    shutil.copytree(written / "mixture", tmp_path / "c")
    monkeypatch.setenv(authenticity.KEY_ENV, str(tmp_path / "other.key"))
    _, X, _ = resume_cases.make("mixture", "memoized")
    with pytest.raises(CheckpointError, match=r"there is no key at .*other.key to check it with"):
        stickbreak.resume(tmp_path / "c", X)
    assert authenticity.load_key(create=True) is not None
    with pytest.raises(CheckpointError, match=r"its authentication code does not match the key at .*other.key"):
        stickbreak.resume(tmp_path / "c", X)
    assert stickbreak.resume(tmp_path / "c", X, trust=True).n_iter_ == 2  # (the fit stopped at its max_laps=2)


def test_cli_resume_refuses_a_checkpoint_whose_outputs_were_changed(tmp_path, monkeypatch, capsys):
    """An edited command line (here: another --out) would make `stickbreak resume` write elsewhere."""
    monkeypatch.chdir(tmp_path)
    assert main(["fit", "mixture", "old_faithful", "--max-laps", "2", "--checkpoint", "ck", "--quiet"]) == 0
    document, arrays = raw(tmp_path / "ck")
    document["extra"]["cli"]["argv"] += ["--out", str(tmp_path / "elsewhere")]
    forged(tmp_path / "ck", document, arrays)
    capsys.readouterr()
    assert main(["resume", "ck", "--max-laps", "3"]) == 2
    assert "was not written by this user's stickbreak" in capsys.readouterr().err
    assert not (tmp_path / "elsewhere").exists()
