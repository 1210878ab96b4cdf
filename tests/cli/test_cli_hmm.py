"""``stickbreak fit hmm`` on the bundled mocap6, on sequence files, and on bad input."""

import csv
import json

import numpy as np
import pytest

import stickbreak
from stickbreak.cli.main import main
from stickbreak.datasets.synthetic import make_sticky_hmm_toy


@pytest.fixture(scope="module")
def toy_files(tmp_path_factory):
    """The toy as .npz (X, lengths, Z), .csv (sequence, label, features) and .npy plus an id file."""
    X, offsets, labels = make_sticky_hmm_toy(n_sequences=6, length=200, seed=0)
    folder = tmp_path_factory.mktemp("toy")
    np.savez(folder / "toy.npz", X=X, lengths=np.diff(offsets), Z=labels)
    ids = np.repeat(np.arange(6), 200)
    with open(folder / "toy.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["sequence", "label", "x", "y"])
        writer.writerows([[s, z, a, b] for s, z, (a, b) in zip(ids, labels, X)])
    np.save(folder / "toy.npy", X)
    np.save(folder / "ids.npy", ids)
    np.savez(folder / "one.npz", X=X[:200], lengths=[200])
    return folder


@pytest.mark.compile_heavy
def test_fit_hmm_on_mocap6_writes_model_states_and_summary(tmp_path, capsys):
    out_dir = tmp_path / "run"
    code = main(["fit", "hmm", "mocap6", "--obs", "ar_gauss", "-K", "10", "--stickiness", "50", "--max-laps", "3",
                 "--foreground-only", "--out", str(out_dir)])
    assert code == 0
    out = capsys.readouterr().out
    assert ("HDPHMM(ar_gauss, K=10, stickiness=50, memoized + birth,merge,delete) on mocap6 "
            "(6 sequences, 2058 frames") in out
    assert "lap" in out and "accepted moves" in out and "stopped (max laps) after 3 laps" in out
    assert "Hamming distance to the true labels after alignment (all frames)" in out
    assert "(foreground frames)" in out and "moves accepted/tried: birth" in out
    model = stickbreak.load(out_dir / "model.npz")
    with open(out_dir / "states.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2058 and set(rows[0]) == {"sequence", "frame", "state"}
    assert rows[0]["sequence"] == "13_29" and rows[0]["frame"] == "0"
    mocap = stickbreak.datasets.load("mocap6")
    states = model.predict(mocap.X, Xprev=mocap.extras["Xprev"])
    np.testing.assert_array_equal([int(r["state"]) for r in rows], states)
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["n_states"] == model.n_states_ and summary["n_laps"] == 3 == model.n_iter_
    assert summary["elbo"] == pytest.approx(model.elbo_) and 0 <= summary["hamming"] <= 1
    assert summary["params"]["obs_model"] == "ar_gauss" and "hamming_foreground" in summary
    assert (out_dir / "trace.csv").exists()


def test_fit_hmm_from_sequence_files(toy_files, capsys):
    code = main(["fit", "hmm", str(toy_files / "toy.npz"), "-K", "12", "--stickiness", "50", "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    assert ("HDPHMM(gauss, K=12, stickiness=50, memoized + birth,merge,delete) on toy "
            "(6 sequences, 1200 frames x 2") in out
    assert "converged" in out and "(all frames): 0.0000" in out and "K over the laps: 11 (lap 1)" in out
    assert not any(line.startswith("lap ") for line in out.splitlines())  # --quiet: no lap table
    code = main(["fit", "hmm", str(toy_files / "toy.csv"), "--label-column", "label", "--finite", "-K", "8",
                 "--stickiness", "50", "--algorithm", "vb", "--moves", "none", "--batches", "2", "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    assert "FiniteHMM(gauss, K=8, stickiness=0, vb)" not in out and "FiniteHMM(gauss, K=8, stickiness=50, vb)" in out
    assert "Hamming distance" in out and "moves accepted" not in out
    code = main(["fit", "hmm", str(toy_files / "toy.npy"), "--ids", str(toy_files / "ids.npy"), "-K", "5",
                 "--algorithm", "stochastic", "--batches", "3", "--max-laps", "3", "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    assert "stopped (max laps) after 3 laps" in out and "Hamming" not in out  # no labels in a .npy


@pytest.mark.parametrize(
    "argv, message",
    [
        (["no_such_thing"], "neither a bundled data set"),
        (["old_faithful"], "holds ndarray, not sequences"),
        (["mocap6", "--moves", "split"], "move='split' is not valid; choose one of"),
        (["mocap6", "--algorithm", "vb", "--moves", "merge"], "need algorithm='memoized'"),
        (["mocap6", "--finite", "--concentration", "3"], "a finite HMM (--finite) has none"),
        (["mocap6", "--stickiness", "-1"], "stickiness must be zero or positive"),
        (["mocap6", "--batches", "7"], "n_batches=7 exceeds the number of sequences (6)"),
        (["mocap6", "--obs", "bern"], "must be binary"),
        (["mocap6", "--prior", "colour=3"], "unknown prior option"),
        (["{toy}/toy.npy", "--foreground-only", "--ids", "{toy}/ids.npy"], "has no numeric labels"),
        (["{toy}/toy.npy"], "pass ids="),
        (["{toy}/one.npz", "--algorithm", "stochastic"], "X holds one sequence"),
    ],
)
def test_bad_input_exits_with_clear_message(toy_files, argv, message, capsys):
    argv = [a.replace("{toy}", str(toy_files)) for a in argv]
    assert main(["fit", "hmm"] + argv + ["--quiet"]) == 2
    assert message in capsys.readouterr().err
