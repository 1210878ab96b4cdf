"""The command line on bundled real data, files, and bad input."""

import csv

import numpy as np
import pytest

import stickbreak
from stickbreak import datasets
from stickbreak.cli.main import main


def test_datasets_command_lists_bundled_data(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in datasets.names():
        assert name in out


def test_fit_mixture_on_bundled_digits(tmp_path, capsys):
    out_dir = tmp_path / "run"
    code = main(["fit", "mixture", "digits", "--seed", "0", "--max-laps", "40", "--out", str(out_dir), "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    # the defaults learn K: memoized VI with every move, from one cluster
    assert "DPMixture(gauss, K=17 at the start, memoized + birth,merge,delete) on digits (1797x64)" in out
    model = stickbreak.load(out_dir / "model.npz")
    assert model.n_components_ >= 4
    assert "majority-vote accuracy" in out and f"clusters used of {model.n_components_}" in out
    assert "moves accepted/tried: birth" in out
    with open(out_dir / "trace.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == model.n_iter_ and float(rows[-1]["elbo"]) == pytest.approx(model.lower_bound_)
    assert (out_dir / "clusters.csv").exists()
    with open(out_dir / "labels.csv") as fh:
        labels = list(csv.DictReader(fh))
    assert len(labels) == 1797 and [int(r["cluster"]) for r in labels] == model.labels_.tolist()


def test_fit_mixture_from_files_and_options(tmp_path, capsys):
    X = datasets.load("old_faithful").X
    np.save(tmp_path / "x.npy", X)
    np.savetxt(tmp_path / "x.csv", X, delimiter=",", header="a,b", comments="")
    for path in ("x.npy", "x.csv"):
        code = main(["fit", "mixture", str(tmp_path / path), "--obs", "diag_gauss", "--weights", "finite", "-K", "3",
                     "--prior", "dof=5", "--prior", "covariance=0.5,20", "--quiet"])
        assert code == 0
    assert "FiniteMixture(diag_gauss, K=3, vb) on x (272x2)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["fit", "mixture", "no_such_thing"], "neither a bundled data set"),
        (["fit", "mixture", "old_faithful", "--prior", "colour=3"], "unknown prior option"),
        (["fit", "mixture", "old_faithful", "-K", "0"], "n_components must be >= 1"),
        (["fit", "mixture", "old_faithful", "--obs", "bern"], "must be binary"),
        (["fit", "mixture", "old_faithful", "--algorithm", "vb", "--moves", "birth"], "need algorithm='memoized'"),
        (["fit", "mixture", "old_faithful", "--algorithm", "memoized", "--moves", "split"],
         "move='split' is not valid"),
        (["fit", "mixture", "old_faithful", "--move-option", "colour=1"], "unknown move option"),
        (["fit", "mixture", "old_faithful", "--algorithm", "stochastic", "--learning-rate-decay", "0.4"],
         "kappa) must be in (0.5, 1]"),
    ],
)
def test_bad_input_exits_with_clear_message(argv, message, capsys):
    assert main(argv + ["--quiet"]) == 2
    assert message in capsys.readouterr().err


def test_bad_file_types(tmp_path, capsys):
    (tmp_path / "x.txt").write_text("1,2\n")
    assert main(["fit", "mixture", str(tmp_path / "x.txt"), "--quiet"]) == 2
    assert "use a .npy, .npz or .csv file" in capsys.readouterr().err
    (tmp_path / "bad.csv").write_text("a,b\n1,zebra\n")
    assert main(["fit", "mixture", str(tmp_path / "bad.csv"), "--quiet"]) == 2
    assert "not a numeric CSV" in capsys.readouterr().err


def test_memoized_moves_from_one_cluster_and_shards(tmp_path, capsys):
    from stickbreak.data import DenseData, ShardStore

    code = main(["fit", "mixture", "old_faithful", "-K", "1", "--algorithm", "memoized", "--moves",
                 "birth,merge,delete", "--n-batches", "4", "--move-option", "max_components=30", "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    assert "memoized + birth,merge,delete" in out and "moves accepted/tried: birth" in out
    assert "2 clusters used of 2" in out
    ShardStore.write(DenseData.from_array(datasets.load("old_faithful").X), tmp_path / "shards", n_batches=3)
    assert main(["fit", "mixture", str(tmp_path / "shards"), "--algorithm", "memoized", "-K", "3", "--quiet"]) == 0
    assert "(272x2 in 3 shards)" in capsys.readouterr().out


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"stickbreak {stickbreak.__version__}"


def test_output_into_a_closed_pipe_still_writes_the_run(tmp_path):
    """``stickbreak fit ... | head -1``: the reader closes the pipe after one line; the fit goes on,
    writes its files and exits 0 instead of dying with BrokenPipeError."""
    import subprocess
    import sys

    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "stickbreak.cli.main", "fit", "topics", "ap", "--model", "lda",
                             "--n-topics", "5", "--max-laps", "3", "--seed", "0", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert b"BrokenPipeError" not in err
    assert {p.name for p in out.iterdir()} >= {"model.npz", "topics.csv", "trace.csv"}


@pytest.mark.parametrize("kind", ["file", "unwritable"])
def test_out_that_cannot_hold_the_run_is_refused_before_fitting(tmp_path, capsys, kind):
    target = tmp_path / "taken"
    target.write_text("not a directory")
    out = target if kind == "file" else target / "below_a_file"
    with pytest.raises(SystemExit) as stop:
        main(["fit", "mixture", "old_faithful", "--max-laps", "2", "--out", str(out)])
    err = capsys.readouterr()
    assert stop.value.code == 2 and "--out" in err.err and "lap" not in err.out  # refused before any lap


def test_a_fit_interrupted_by_ctrl_c_says_so_and_exits_130(tmp_path, monkeypatch, capsys):
    """Ctrl-C in a lap keeps the laps before it: the files are written, the status line says
    "interrupted" (not "stopped (max laps)") and the exit status is 130, as for SIGINT."""
    from stickbreak import driver

    real_fit = driver._fit

    def interrupted_after_two_laps(model, batches, params, learner, config, callbacks, *rest):
        def stop(record, params):
            if record.lap == 2:
                raise KeyboardInterrupt
        return real_fit(model, batches, params, learner, config, [*callbacks, stop], *rest)

    monkeypatch.setattr(driver, "_fit", interrupted_after_two_laps)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        code = main(["fit", "mixture", "old_faithful", "--max-laps", "10", "--out", str(tmp_path / "run")])
    out = capsys.readouterr().out
    assert code == 130 and "interrupted (Ctrl-C" in out and "stopped (max laps)" not in out
    assert (tmp_path / "run" / "model.npz").exists()


def test_fit_commands_share_their_output_flags_and_list_only_usable_choices(capsys):
    for command in ("mixture", "topics", "hmm"):
        with pytest.raises(SystemExit):
            main(["fit", command, "--help"])
        text = capsys.readouterr().out
        assert "--progress" in text and "--quiet" in text and "--n-batches" in text
        if command == "mixture":
            assert "ar_gauss" not in text.split("--obs {")[1].split("}")[0]
            assert "gibbs" not in text.split("--algorithm {")[1].split("}")[0]  # (a start, --init gibbs, is usable)


def test_topic_runs_write_document_topics_and_eval_scores_the_held_out_documents(tmp_path, capsys):
    out_dir = tmp_path / "run"
    assert main(["fit", "topics", "ap", "--model", "lda", "-K", "4", "--max-laps", "2", "--heldout", "0.1",
                 "--out", str(out_dir), "--quiet"]) == 0
    fitted = capsys.readouterr().out
    with open(out_dir / "doc_topics.csv") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["document", "topic 0", "topic 1", "topic 2", "topic 3"] and len(rows) == 1 + 2246 - 225
    assert main(["eval", str(out_dir / "model.npz"), "ap"]) == 0
    out = capsys.readouterr().out
    assert "scoring the 225 documents `fit --heldout` held out" in out
    held_out = fitted.split("held-out documents: 225; per-word log-likelihood ")[1].split()[0]
    assert f"per-word log-likelihood {held_out} nats" in out  # the same documents, the same score
    with pytest.warns(UserWarning, match="training documents is optimistic"):
        main(["fit", "topics", "ap", "--model", "lda", "-K", "4", "--max-laps", "2", "--out", str(tmp_path / "all"),
              "--quiet"]) or main(["eval", str(tmp_path / "all" / "model.npz"), "ap"])


def test_the_output_directory_is_replaced_as_a_unit(tmp_path, monkeypatch, capsys):
    """A run's files go in together: an interrupt while writing leaves the previous run whole, and a
    new run replaces the previous one's files, not only those it writes itself."""
    from stickbreak.cli import report

    out_dir = tmp_path / "run"
    base = ["fit", "topics", "ap", "-K", "4", "--max-laps", "2", "--out", str(out_dir), "--quiet"]
    assert main(base + ["--model", "diln", "--latent-dim", "2"]) == 0
    assert (out_dir / "correlations.csv").exists()
    before = {p.name: p.read_bytes() for p in out_dir.iterdir() if p.is_file()}

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "write_report", killed)
    assert main(base + ["--model", "lda"]) == 130
    assert {p.name: p.read_bytes() for p in out_dir.iterdir() if p.is_file()} == before  # the DILN run, untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no staging directory left behind
    monkeypatch.undo()
    assert main(base + ["--model", "lda"]) == 0
    capsys.readouterr()
    names = {p.name for p in out_dir.iterdir()}
    assert "correlations.csv" not in names
    assert stickbreak.load(out_dir / "model.npz").__class__.__name__ == "LDA"
    import json
    run = json.loads((out_dir / "run.json").read_text())
    assert set(run["files"]) == names and set(run["sha256"]) == names - {"run.json"}


def test_a_corpus_without_vocabulary_says_its_topics_show_word_ids(tmp_path, capsys):
    from stickbreak.data import BagOfWords, write_npz

    counts = np.random.default_rng(0).poisson(1.0, size=(40, 15)).astype(float) + np.eye(40, 15)
    write_npz(BagOfWords.from_counts(counts), tmp_path / "c.npz")
    assert main(["fit", "topics", str(tmp_path / "c.npz"), "--model", "lda", "-K", "2", "--max-laps", "2",
                 "--quiet"]) == 0
    assert "no vocabulary found for this corpus" in capsys.readouterr().out


def test_topics_from_raw_text_one_document_per_line_or_a_csv_column(tmp_path, capsys):
    """`fit topics docs.txt` reads one document per line, `--text-column` a CSV column (quoted cells
    may span lines); both count the text as fit counts raw text, row i being line or row i, and
    `eval` counts raw text over the model's vocabulary. The help lists only text corpora."""
    rng = np.random.default_rng(0)
    words = [["apple", "banana", "cherry", "grape"], ["engine", "wheel", "brake", "tyre"]]
    docs = [" ".join(rng.choice(words[i % 2], size=12)) for i in range(40)]
    docs[5] = ""  # an empty line is an empty document
    (tmp_path / "docs.txt").write_text("\n".join(docs) + "\n", encoding="utf-8")
    with open(tmp_path / "docs.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "review"])
        writer.writerows([[i, doc.replace(" ", "\n", 1)] for i, doc in enumerate(docs)])
    runs = {}
    for name, extra in (("txt", []), ("csv", ["--text-column", "review"])):
        out_dir = tmp_path / name
        data = str(tmp_path / ("docs.txt" if name == "txt" else "docs.csv"))
        assert main(["fit", "topics", data, *extra, "--model", "lda", "-K", "2", "--max-laps", "5", "--seed", "0",
                     "--out", str(out_dir), "--quiet"]) == 0
        assert "40 documents, 8 words" in capsys.readouterr().out
        with open(out_dir / "doc_topics.csv") as fh:
            runs[name] = list(csv.reader(fh))
        assert main(["eval", str(out_dir / "model.npz"), data, *extra, "--all-documents"]) == 0
        assert "on 40 documents" in capsys.readouterr().out
    assert runs["txt"] == runs["csv"] and len(runs["txt"]) == 41
    docs[0] += " kiwi"  # a word of one document only
    (tmp_path / "docs.txt").write_text("\n".join(docs) + "\n", encoding="utf-8")
    for min_df, words in ((1, 9), (2, 8)):
        assert main(["fit", "topics", str(tmp_path / "docs.txt"), "--min-df", str(min_df), "--model", "lda", "-K", "2",
                     "--max-laps", "2", "--quiet"]) == 0
        assert f"40 documents, {words} words" in capsys.readouterr().out
    assert main(["fit", "topics", "ap", "--min-df", "2", "--quiet"]) == 2
    assert "--min-df applies to raw text" in capsys.readouterr().err
    assert main(["fit", "topics", str(tmp_path / "docs.csv"), "--text-column", "text", "--quiet"]) == 2
    assert "has no column 'text'; its header names ['id', 'review']" in capsys.readouterr().err
    (tmp_path / "latin1.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    assert main(["fit", "topics", str(tmp_path / "latin1.txt"), "--quiet"]) == 2
    assert "is not UTF-8 text" in capsys.readouterr().err
    (tmp_path / "short.csv").write_text("id,review\n1,apple pie\n2\n", encoding="utf-8")
    assert main(["fit", "topics", str(tmp_path / "short.csv"), "--text-column", "review", "--quiet"]) == 2
    assert "short.csv, line 3: the row has 1 cells" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fit", "topics", "--help"])
    listed = capsys.readouterr().out.split("a bundled corpus (")[1].split(")")[0]
    assert listed == "ap, news_openings"  # the corpora of word counts, not digits, mocap6 or old_faithful
