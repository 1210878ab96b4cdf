"""``stickbreak fit admixture`` on groups of items read as ``fit hmm`` reads sequences, and on bad input."""

import csv
import json
import re

import numpy as np
import pytest

import stickbreak
from stickbreak.cli.main import main
from stickbreak.data import Sequences

LENGTHS = [50] * 12


@pytest.fixture(scope="module")
def groups(tmp_path_factory):
    """Twelve groups of 50 items from three zero-mean Gaussians of different shapes (the groups of the
    estimator's docstring), as .npz (X, lengths, seq_names), .csv (group column) and .npy plus ids."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4)) * np.repeat([[1, 1, 1, 1], [3, .3, 1, 1], [.3, 3, 1, 1]], 200, axis=0)
    folder = tmp_path_factory.mktemp("groups")
    names = np.array([f"image{g}" for g in range(12)])
    np.savez(folder / "groups.npz", X=X, lengths=LENGTHS, seq_names=names)
    np.savez(folder / "no_lengths.npz", X=X)
    np.savez(folder / "short_lengths.npz", X=X, lengths=LENGTHS[:-1])
    ids = np.repeat(np.arange(12), 50)
    with open(folder / "groups.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["image", "kind", "a", "b", "c", "d"])
        writer.writerows([[g, g % 3, *row] for g, row in zip(ids, X)])
    np.save(folder / "groups.npy", X)
    np.save(folder / "ids.npy", ids)
    return folder, X


def test_fit_admixture_saves_a_model_that_loads_and_predicts(groups, capsys):
    folder, X = groups
    out = folder / "run"
    code = main(["fit", "admixture", str(folder / "groups.npz"), "-K", "10", "--heldout", "0.25", "--seed", "0",
                 "--quiet", "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert ("HDPAdmixture(zero_mean_gauss, K=10 at the start, memoized + birth,merge,delete) on groups "
            "(9 groups, 450 items x 4 features)") in text
    assert re.search(r"after \d+ laps in [\d.]+ s; ELBO -[\d.]+ nats \(-[\d.]+ per item\); 3 topics used of \d+", text)
    assert "moves accepted/tried: birth" in text and "K over the laps: 10 (lap 1)" in text
    held = re.search(r"held-out groups: 3 \(150 items\); per-item log-likelihood (-[\d.]+) nats", text)
    model = stickbreak.load(out / "model.npz")
    assert isinstance(model, stickbreak.HDPAdmixture) and model.n_active_topics_ == 3
    assert model.predict(X, lengths=LENGTHS).shape == (600,)
    assert model.topic_proportions(X, lengths=LENGTHS).shape == (12, model.n_topics_)
    run = json.loads((out / "run.json").read_text())
    assert run["command"] == "admixture" and len(run["heldout_documents"]) == 3
    test = Sequences.from_arrays(X, np.arange(0, 650, 50)).subset(run["heldout_documents"])
    assert float(held.group(1)) == pytest.approx(model.score(test), abs=1e-4)
    with open(out / "group_topics.csv") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 1 + 9 and rows[1][0].startswith("image") and len(rows[0]) == 1 + 3
    with open(out / "trace.csv") as fh:
        assert len(list(csv.DictReader(fh))) == model.n_iter_
    expected = ["ELBO and K over laps", "Topic sizes", "Topic proportions per group"]
    assert re.findall(r"<figcaption>(.*?)</figcaption>", (out / "report.html").read_text()) == expected
    (out / "report.html").unlink()
    assert main(["report", str(out)]) == 0  # drawn again from run.json, on the 9 training groups
    page = (out / "report.html").read_text()
    assert "stickbreak fit admixture" in page and "<td>sequences</td><td>9</td>" in page


def test_fit_admixture_from_csv_and_npy_files(groups, capsys):
    folder, _ = groups
    assert main(["fit", "admixture", str(folder / "groups.csv"), "--id-column", "image", "--label-column", "kind",
                 "--obs", "diag_gauss", "-K", "4", "--algorithm", "vb", "--moves", "none", "--max-laps", "5",
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "HDPAdmixture(diag_gauss, K=4, vb) on groups (12 groups, 600 items x 4 features)" in text
    assert "stopped (max laps) after 5 laps" in text and "moves accepted" not in text
    assert main(["fit", "admixture", str(folder / "groups.npy"), "--ids", str(folder / "ids.npy"), "-K", "5",
                 "--n-batches", "3", "--max-laps", "4", "--quiet"]) == 0
    assert "on groups (12 groups, 600 items x 4 features)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["{g}/no_lengths.npz"], "add 'lengths'"),
        (["{g}/short_lengths.npz"], "lengths add up to 550 frames but X has 600"),
        (["{g}/groups.npy"], "pass ids="),
        (["old_faithful"], "`stickbreak fit admixture` needs sequence data"),
        (["{g}/groups.npz", "--obs", "mult"], "argument --obs: invalid choice: 'mult'"),
        (["{g}/groups.npz", "--obs", "bern"], "must be binary"),
        (["{g}/groups.npz", "-K", "0"], "n_topics must be >= 1"),
        (["{g}/groups.npz", "--algorithm", "vb", "--moves", "merge"], "need algorithm='memoized'"),
        (["{g}/groups.npz", "--prior", "colour=3"], "unknown prior option"),
        (["{g}/groups.npz", "--heldout", "1"], "--heldout must be in [0, 1)"),
        (["{g}/groups.npz", "--n-batches", "13"], "n_batches=13 exceeds the number of groups (12)"),
    ],
)
def test_bad_input_exits_with_clear_message_before_fitting(groups, argv, message, capsys):
    folder, _ = groups
    out = folder / "bad_run"
    argv = ["fit", "admixture"] + [a.replace("{g}", str(folder)) for a in argv] + ["--quiet", "--out", str(out)]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses an unknown choice itself
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    assert message in captured.err and "after" not in captured.out  # no lap was run
    assert not (out / "model.npz").exists()
