"""``stickbreak fit short-texts``: raw text in (one document per line, or a CSV column), topics and
each document's topic out, the run's files and its report."""

import csv
import json

from stickbreak import datasets
from stickbreak.cli.main import main


def test_fit_short_texts_from_a_text_file_writes_the_run(tmp_path, capsys):
    texts = datasets.load("news_openings").extras["texts"][:300]
    path = tmp_path / "openings.txt"
    path.write_text("\n".join(texts) + "\n")
    out = tmp_path / "run"
    assert main(["fit", "short-texts", str(path), "--min-df", "2", "--max-laps", "5", "--quiet",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "ShortTextTopicModel(memoized from init=gibbs, K learned)" in printed and "topic " in printed
    with open(out / "labels.csv") as fh:
        labels = list(csv.DictReader(fh))
    with open(out / "topics.csv") as fh:
        topics = list(csv.DictReader(fh))
    assert len(labels) == 300 and {row["topic"] for row in labels} <= {row["topic"] for row in topics}
    assert abs(sum(int(row["documents"]) for row in topics) - 300) <= len(topics)  # expected counts, rounded
    run = json.loads((out / "run.json").read_text())
    assert run["command"] == "short-texts" and "report.html" in run["files"]
    assert main(["report", str(out), "-o", str(tmp_path / "again.html")]) == 0
    assert "Top words" in (tmp_path / "again.html").read_text()


def test_fit_short_texts_reads_a_csv_column_and_refuses_bad_options(tmp_path, capsys):
    path = tmp_path / "titles.csv"
    path.write_text("id,title\n" + "".join(f"{i},{t}\n" for i, t in enumerate(
        ["cheap flights to rome", "rome hotel deals", "paris flights", "pandas merge error",
         "numpy array error", "python list sorting"] * 5)))
    assert main(["fit", "short-texts", str(path), "--text-column", "title", "--algorithm", "truncation_free",
                 "--quiet"]) == 0
    assert "truncation_free" in capsys.readouterr().out
    assert main(["fit", "short-texts", str(path), "--text-column", "title", "--min-df", "0"]) == 2
    assert "--min-df must be at least 1" in capsys.readouterr().err
