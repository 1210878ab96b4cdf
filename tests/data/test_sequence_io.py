"""Reading sequence files (.npz, .npy + ids, .csv) and the bundled mocap6 sequences."""

import gzip

import numpy as np
import pytest

from stickbreak import datasets
from stickbreak.data import DataError, SequenceFile, Sequences, read_sequences

LENGTHS = [3, 1, 2]
X = np.arange(12, dtype=float).reshape(6, 2)
OFFSETS = np.array([0, 3, 4, 6])
IDS = np.array([7, 7, 7, 2, 5, 5])
Z = np.array([1, 1, 2, 0, 3, 3])


def _check(found, labels=None, ids=None):
    assert isinstance(found, SequenceFile) and isinstance(found.sequences, Sequences)
    np.testing.assert_array_equal(found.sequences.X, X)
    np.testing.assert_array_equal(found.sequences.offsets, OFFSETS)
    if labels is None:
        assert found.labels is None
    else:
        np.testing.assert_array_equal(found.labels, labels)
    assert found.sequence_ids == ids


# ---------------------------------------------------------------- .npz


@pytest.mark.parametrize("structure", [
    {"lengths": np.array(LENGTHS)}, {"offsets": OFFSETS}, {"seq_ids": IDS}, {"sequence_ids": IDS},
])
def test_npz_structures(tmp_path, structure):
    np.savez(tmp_path / "walk.npz", X=X, **structure)
    found = read_sequences(tmp_path / "walk.npz")
    _check(found, ids=(7, 2, 5) if "lengths" not in structure and "offsets" not in structure else None)
    assert found.name == "walk" and found.xprev is None


@pytest.mark.parametrize("key", ["Z", "labels"])
def test_npz_labels_xprev_and_names(tmp_path, key):
    xprev = X - 0.5
    np.savez(tmp_path / "d.npz", X=X, lengths=np.array(LENGTHS), Xprev=xprev, seq_names=np.array(["a", "b", "c"]),
             **{key: Z})
    found = read_sequences(str(tmp_path / "d.npz"))
    _check(found, labels=Z, ids=("a", "b", "c"))
    np.testing.assert_array_equal(found.xprev, xprev)


def test_npz_with_only_x_takes_ids_argument(tmp_path):
    np.savez(tmp_path / "d.npz", X=X)
    _check(read_sequences(tmp_path / "d.npz", ids=IDS), ids=(7, 2, 5))


@pytest.mark.parametrize("arrays, message", [
    ({"Y": X}, "no 'X'"),
    ({"X": X}, "not where each sequence starts"),
    ({"X": X, "lengths": np.array(LENGTHS), "offsets": OFFSETS}, "gives the sequences twice"),
    ({"X": X, "lengths": np.array([3, 1, 1])}, "add up to 5 frames but X has 6"),
    ({"X": X, "lengths": np.array([3, 0, 3])}, "positive integers"),
    ({"X": X, "lengths": np.array([3.0, 3.0])}, "positive integers"),
    ({"X": X, "offsets": np.array([0, 4, 3, 6])}, "strictly increasing"),
    ({"X": X, "seq_ids": np.array([1, 1, 2, 2, 1, 1])}, "not contiguous.*sort the rows by sequence id, then time"),
    ({"X": X, "seq_ids": IDS[:5]}, "one id per frame"),
    ({"X": X, "lengths": np.array(LENGTHS), "Z": Z[:4]}, "Z has shape"),
    ({"X": X, "lengths": np.array(LENGTHS), "Xprev": X[:, :1]}, "Xprev has shape"),
    ({"X": X, "lengths": np.array(LENGTHS), "seq_names": np.array(["a", "b"])}, "seq_names has shape"),
    ({"X": X[:, 0], "lengths": np.array(LENGTHS)}, "1-D"),
])
def test_npz_errors(tmp_path, arrays, message):
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(DataError, match=message):
        read_sequences(tmp_path / "bad.npz")


def test_npz_ids_argument_and_file_structure_conflict(tmp_path):
    np.savez(tmp_path / "d.npz", X=X, lengths=np.array(LENGTHS))
    with pytest.raises(DataError, match="lengths, the ids argument"):
        read_sequences(tmp_path / "d.npz", ids=IDS)


# ---------------------------------------------------------------- .npy + ids


def test_npy_with_ids_array_npy_and_text(tmp_path):
    np.save(tmp_path / "frames.npy", X)
    _check(read_sequences(tmp_path / "frames.npy", ids=list(IDS)), ids=(7, 2, 5))
    np.save(tmp_path / "ids.npy", IDS)
    _check(read_sequences(tmp_path / "frames.npy", ids=tmp_path / "ids.npy"), ids=(7, 2, 5))
    (tmp_path / "ids.txt").write_text("s7\ns7\ns7\ns2\ns5\ns5\n")
    found = read_sequences(tmp_path / "frames.npy", ids=str(tmp_path / "ids.txt"))
    _check(found, ids=("s7", "s2", "s5"))
    assert found.name == "frames"


def test_npy_errors(tmp_path):
    np.save(tmp_path / "frames.npy", X)
    with pytest.raises(DataError, match="pass ids="):
        read_sequences(tmp_path / "frames.npy")
    with pytest.raises(DataError, match=r"frames of sequence 7 are not contiguous: it starts again at frames \[5\]"):
        read_sequences(tmp_path / "frames.npy", ids=[7, 7, 2, 2, 5, 7])
    with pytest.raises(DataError, match="one id per frame"):
        read_sequences(tmp_path / "frames.npy", ids=[1, 2])
    with pytest.raises(DataError, match="csv files only"):
        read_sequences(tmp_path / "frames.npy", ids=IDS, label_column="z")


# ---------------------------------------------------------------- .csv


def _csv_lines(header=True, id_name="sequence", ids=IDS):
    lines = [f"{id_name},x0,x1,z"] if header else []
    lines += [f"{s},{a:g},{b:g},{z}" for s, (a, b), z in zip(ids, X, Z)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("id_name", ["sequence", "seq", "sequence_id", "id"])
def test_csv_finds_the_id_column_by_name(tmp_path, id_name):
    (tmp_path / "moves.csv").write_text(_csv_lines(id_name=id_name).replace(",z\n", ",zz\n", 1))
    found = read_sequences(tmp_path / "moves.csv", label_column="zz")
    _check(found, labels=Z, ids=(7, 2, 5))
    assert found.name == "moves" and found.xprev is None


def test_csv_id_column_anywhere_and_string_ids(tmp_path):
    rows = ["x0,x1,speaker,sequence"] + [f"{a:g},{b:g},{z},run{s}" for s, (a, b), z in zip(IDS, X, "aabcdd")]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    found = read_sequences(tmp_path / "d.csv", label_column="speaker")
    _check(found, labels=list("aabcdd"), ids=("run7", "run2", "run5"))


def test_csv_without_header_by_column_numbers_and_gzip(tmp_path):
    text = _csv_lines(header=False)
    (tmp_path / "d.csv").write_text(text)
    _check(read_sequences(tmp_path / "d.csv", id_column=0, label_column=-1), labels=Z, ids=(7, 2, 5))
    with gzip.open(tmp_path / "d.csv.gz", "wt") as fh:
        fh.write(_csv_lines())
    found = read_sequences(tmp_path / "d.csv.gz", label_column="z")
    _check(found, labels=Z, ids=(7, 2, 5))
    assert found.name == "d"


def test_csv_without_label_column_keeps_it_as_a_feature(tmp_path):
    (tmp_path / "d.csv").write_text(_csv_lines())
    found = read_sequences(tmp_path / "d.csv")
    np.testing.assert_array_equal(found.sequences.X, np.column_stack([X, Z]))
    assert found.labels is None


def test_csv_time_column_is_checked_and_dropped(tmp_path):
    times = [0, 1, 2, 0, 5, 6]
    rows = ["seq,t,x0,x1"] + [f"{s},{t},{a:g},{b:g}" for s, t, (a, b) in zip(IDS, times, X)]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    _check(read_sequences(tmp_path / "d.csv", time_column="t"), ids=(7, 2, 5))
    rows[3] = rows[3].replace("7,2,", "7,0.5,")  # line 4 goes back in time
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    with pytest.raises(DataError, match=r"time does not increase within a sequence at lines \[4\].*sort the rows"):
        read_sequences(tmp_path / "d.csv", time_column="t")


@pytest.mark.parametrize("text, options, message", [
    ("", {}, "is empty"),
    ("sequence,x\n", {}, "has a header but no frames"),
    ("name,x\na,1\n", {}, "no sequence-id column .* in its header"),
    ("1,2\n1,3\n", {}, "in a header line; pass id_column="),
    ("sequence,x\n1,2\n1\n", {}, r"lines \[3\] do not have 2 columns"),
    ("sequence,x\n1,2\n1,oops\n", {}, "line 3, column 'x' holds 'oops', not a number"),
    ("1,2\n1,\n", {"id_column": 0}, "line 2, column 1 holds '', not a number"),
    ("sequence,x\n1,2\n2,3\n1,4\n", {},
     r"sequence 1 are not contiguous: it starts again at lines \[4\].*sort the rows"),
    ("sequence,x\n1,2\n", {"id_column": "seq"}, "is not a column of the file"),
    ("1,2\n", {"id_column": "seq"}, "has no header line"),
    ("1,2\n", {"id_column": 5}, "out of range"),
    ("sequence,x\n1,2\n", {"label_column": "sequence"}, "pick the same column twice"),
    ("sequence,z\n1,2\n", {"label_column": "z"}, "no feature columns"),
    ("sequence,t,x\n1,a,2\n", {"time_column": "t"}, "column 't' holds 'a'"),
])
def test_csv_errors(tmp_path, text, options, message):
    (tmp_path / "bad.csv").write_text(text)
    with pytest.raises(DataError, match=message):
        read_sequences(tmp_path / "bad.csv", **options)


def test_csv_rejects_ids_argument(tmp_path):
    (tmp_path / "d.csv").write_text(_csv_lines())
    with pytest.raises(DataError, match="as a column"):
        read_sequences(tmp_path / "d.csv", ids=IDS)


# ---------------------------------------------------------------- any file


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_sequences(tmp_path / "nothing.npz")
    (tmp_path / "d.txt").write_text("1 2\n")
    with pytest.raises(DataError, match="cannot read sequences from d.txt"):
        read_sequences(tmp_path / "d.txt")


def test_round_trip_of_written_sequences(tmp_path):
    seqs = Sequences.from_list([np.ones((4, 3)), np.zeros((2, 3)), np.full((5, 3), 2.0)])
    np.savez(tmp_path / "s.npz", X=seqs.X, lengths=seqs.lengths)
    back = read_sequences(tmp_path / "s.npz").sequences
    np.testing.assert_array_equal(back.X, seqs.X)
    np.testing.assert_array_equal(back.offsets, seqs.offsets)


# ---------------------------------------------------------------- bundled mocap6


def test_mocap6_loader():
    ds = datasets.load("mocap6")
    assert "mocap6" in datasets.names() and "mocap6" in datasets.summaries()
    seqs = ds.X
    assert isinstance(seqs, Sequences)
    assert (seqs.n_items, seqs.n_frames, seqs.n_features) == (6, 2058, 12)
    assert seqs.lengths.tolist() == [382, 205, 251, 446, 387, 387]
    assert seqs.X.dtype == np.float64
    assert ds.labels.shape == (2058,) and ds.labels.dtype.kind == "i"
    assert sorted(np.unique(ds.labels).tolist()) == list(range(1, 13))
    assert len(ds.feature_names) == 12
    assert ds.extras["label_names"] == ("JumpJack", "Jog", "Squat", "KneeRaise", "ArmCircle", "Twist", "SideReach",
                                        "Box", "UpDown", "ToeTouchOneHand", "SideBend", "ToeTouchTwoHands")
    xprev = ds.extras["Xprev"]
    assert xprev.shape == (2058, 12) and xprev.dtype == np.float64
    # within a sequence, Xprev is the frame before
    for start, end in zip(seqs.offsets[:-1], seqs.offsets[1:]):
        np.testing.assert_array_equal(xprev[start + 1:end], seqs.X[start:end - 1])
    assert len(ds.extras["sequence_names"]) == 6


def test_mocap6_matches_the_staged_original():
    original = "/work/shared/data/mocap6/mocap6.npz"
    try:
        m = np.load(original)
    except FileNotFoundError:
        pytest.skip("the staged original is not on this machine")
    ds = datasets.load("mocap6")
    np.testing.assert_allclose(ds.X.X, m["X"], rtol=1e-6)
    np.testing.assert_allclose(ds.extras["Xprev"], m["Xprev"], rtol=1e-6)
    np.testing.assert_array_equal(ds.labels, m["Z"])


def test_other_datasets_have_empty_extras():
    assert datasets.load("old_faithful").extras == {}


def test_pandas_and_the_csv_module_read_a_table_alike(tmp_path):
    """The fast path (pandas' C reader) gives the csv-module reader's columns; a short row or an
    empty cell sends the file to the csv-module reader, which names the line."""
    from stickbreak.data import csv_table, sequence_io

    path = tmp_path / "s.csv"
    path.write_text("seq, t, speaker, x, y\nA, 0, bob, 0.5, -1\nA, 1, 7, 1e3, 2\n B,0,ann,3,4\n")
    fast, slow = csv_table.fast_table(path), sequence_io._slow_table(path)
    assert fast.header == slow.header == ["seq", "t", "speaker", "x", "y"] and fast.first_line == slow.first_line == 2
    for a, b in zip(fast.columns, slow.columns):
        np.testing.assert_array_equal(sequence_io._as_text(a) if a.dtype.kind not in "iuf" else a.astype(float),
                                      b if a.dtype.kind not in "iuf" else b.astype(float))
    got = read_sequences(path, label_column="speaker", time_column="t")
    assert got.sequence_ids == ("A", "B") and got.labels.tolist() == ["bob", "7", "ann"]
    np.testing.assert_array_equal(got.sequences.X, [[0.5, -1], [1000, 2], [3, 4]])
    path.write_text("seq,x,y\n1,0.5,1\n1,2\n")
    assert csv_table.fast_table(path) is None
    with pytest.raises(DataError, match="lines \\[3\\] do not have 3 columns"):
        read_sequences(path)


def test_csv_ids_too_long_for_an_integer_are_names(tmp_path):
    """A 20-digit sequence id does not fit an int64: it is kept as the name it is (no OverflowError)."""
    big = "9" * 20
    (tmp_path / "s.csv").write_text(f"seq,x\n{big},1\n{big},2\n7,3\n")
    read = read_sequences(tmp_path / "s.csv")
    assert read.sequence_ids == (big, "7") and read.sequences.n_items == 2


def test_sequences_are_indexed_like_a_corpus():
    seqs = datasets.load("mocap6").X
    assert seqs[0].n_items == 1 and np.array_equal(seqs[0].X, seqs.X[: seqs.lengths[0]])
    assert np.array_equal(seqs[1:3].lengths, seqs.lengths[1:3])
    assert np.array_equal(seqs[-1].lengths, seqs.lengths[-1:])
    assert np.array_equal(seqs[seqs.lengths > 300].lengths, seqs.lengths[seqs.lengths > 300])
    with pytest.raises(IndexError, match="sequence 6 is out of range for 6 sequences"):
        seqs[6]
