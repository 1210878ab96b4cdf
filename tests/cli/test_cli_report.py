"""``stickbreak fit ... --out DIR`` writes DIR/report.html and run.json; ``stickbreak report DIR``
writes it again from the saved run (re-reading the data it names)."""

import json
import re

import numpy as np
import pytest

from fitted_models import VOCABULARY, corpus, digits, sequences
from stickbreak.cli.main import main
from stickbreak.data.text_io import write_ldac


def captions(path) -> list[str]:
    return re.findall(r"<figcaption>(.*?)</figcaption>", path.read_text())


def test_fit_mixture_writes_a_report_and_report_redraws_it_with_images(tmp_path):
    np.save(tmp_path / "digits.npy", digits())
    out = tmp_path / "run"
    assert main(["fit", "mixture", str(tmp_path / "digits.npy"), "--max-laps", "4", "--tol", "0", "--quiet",
                 "--out", str(out)]) == 0
    assert captions(out / "report.html") == ["ELBO and K over laps", "Cluster sizes", "Items by cluster (PCA)"]
    run = json.loads((out / "run.json").read_text())
    assert run["command"] == "mixture" and run["data"] == str(tmp_path / "digits.npy")
    assert main(["report", str(out), "--image-shape", "8x8", "-o", str(tmp_path / "again.html")]) == 0
    again = (tmp_path / "again.html").read_text()
    assert "Cluster means as images" in again and "stickbreak fit mixture" in again
    assert "<td>items</td><td>200</td>" in again


@pytest.mark.parametrize("model, last", [("hdp", "Topic sizes"), ("diln", "Topic correlations")])
def test_fit_topics_writes_a_report(tmp_path, model, last):
    write_ldac(corpus(), tmp_path / "docs.ldac", tmp_path / "vocab.txt")
    out = tmp_path / "run"
    assert main(["fit", "topics", str(tmp_path / "docs.ldac"), "--model", model, "-K", "6", "--latent-dim", "3",
                 "--max-laps", "3", "--heldout", "0.2", "--quiet", "--out", str(out)]) == 0
    assert captions(out / "report.html")[-1] == last
    assert main(["report", str(out)]) == 0
    text = (out / "report.html").read_text()
    assert "<td>documents</td><td>48</td>" in text and "&lt;script&gt;" in text and "<script>" not in text
    assert "<td>held-out documents: per-word log-likelihood</td><td>-" in text
    assert VOCABULARY[1] not in text  # a&b is written a&amp;b


def test_fit_hmm_writes_a_report_with_the_true_labels(tmp_path):
    seqs, labels = sequences()
    np.savez(tmp_path / "toy.npz", X=seqs.X, lengths=seqs.lengths, Z=labels)
    out = tmp_path / "run"
    assert main(["fit", "hmm", str(tmp_path / "toy.npz"), "-K", "4", "--max-laps", "3", "--quiet", "--out",
                 str(out)]) == 0
    expected = ["ELBO and K over laps", "Transition matrix", "State sequences", "State durations"]
    assert captions(out / "report.html") == expected
    (out / "report.html").unlink()
    assert main(["report", str(out)]) == 0
    text = (out / "report.html").read_text()
    assert captions(out / "report.html") == expected
    assert "<td>frames</td><td>360</td>" in text and "<td>hamming</td>" in text


def test_report_errors_name_the_problem(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "no saved model" in capsys.readouterr().err
    out = tmp_path / "run"
    assert main(["fit", "mixture", "old_faithful", "--max-laps", "3", "--tol", "0", "--quiet", "--out", str(out)]) == 0
    assert main(["report", str(out), "--image-shape", "eight"]) == 2
    assert "--image-shape expects sizes like 8x8" in capsys.readouterr().err
    (out / "run.json").unlink()
    assert main(["report", str(out)]) == 2
    assert "run.json is missing" in capsys.readouterr().err
