"""The catalogue of bad input (issue 27): each case is refused before any work with the library's
own error, whose message names the problem and the fix. One row per case: what is passed, the
error type and a pattern of its message; the command line's cases (exit status 2, the message on
stderr) are in ``CLI_CASES``. Reader fuzzing is in ``tests/data/test_reader_fuzz.py``."""

import gzip
import json
import re

import numpy as np
import pytest
import scipy.sparse as sp

import pandas as pd

import stickbreak
from stickbreak import DILN, HDPHMM, LDA, DPMixture, HDPTopicModel
from stickbreak.cli.main import main
from stickbreak.persist import CheckpointError, ModelFileError
from stickbreak.data import (BagOfWords, DataError, ShardStore, as_bag_of_words, iter_bag_of_words, read_corpus,
                             read_sequences)
from stickbreak.data.errors import DataTypeError
from stickbreak.datasets import read_data

RNG = np.random.default_rng(0)
COUNTS = sp.csr_matrix(RNG.poisson(1.0, size=(30, 12)).astype(float) + np.eye(30, 12))
POINTS = RNG.normal(size=(60, 2))


def write(tmp_path, name, payload):
    path = tmp_path / name
    path.write_bytes(payload if isinstance(payload, bytes) else payload.encode())
    return path


def fitted_diln():
    return DILN(n_topics=4, latent_dim=2, max_laps=2, random_state=0).fit(COUNTS)


def shards_with(tmp_path, damage):
    store = ShardStore.write(BagOfWords.from_counts(COUNTS), tmp_path / "s", n_batches=2)
    damage(tmp_path / "s")
    return ShardStore.open(tmp_path / "s") if store else None


def nan_in_shard(directory):
    data = np.load(directory / "shard_00001.data.npy")
    data[0] = np.nan
    np.save(directory / "shard_00001.data.npy", data)


CASES = {
    # estimators: sizes the machine cannot hold
    "topics too many for memory": (lambda t: LDA(n_topics=10**9).fit(COUNTS), DataError,
                                   r"LDA's fit needs about .* GiB of memory but only .* left under .*; lower n_topics"),
    "states too many for memory": (lambda t: HDPHMM(n_states=10**7).fit(POINTS), DataError,
                                   r"HDPHMM's fit needs about .* GiB.*lower n_states"),
    "clusters too many for memory": (lambda t: DPMixture(n_components=10**7).fit(POINTS), DataError,
                                     r"DPMixture's fit needs about .* GiB.*lower n_components"),
    "a count of 1e10 for a token sampler": (
        lambda t: LDA(n_topics=2, algorithm="gibbs").fit(sp.csr_matrix(np.array([[1e10, 1.0], [2.0, 3.0]]))),
        DataError, r"needs about .* GiB.*the sampler holds every one of the 1e\+10 tokens"),
    "a fit's settings": (lambda t: DPMixture(n_components=0).fit(POINTS), ValueError,
                         r"n_components must be >= 1, got 0"),
    "n_jobs of 0": (lambda t: LDA(n_jobs=0).fit(COUNTS), ValueError, r"n_jobs must be a positive integer or -1"),
    "an algorithm the model lacks": (lambda t: DPMixture(algorithm="gibbs").fit(POINTS), ValueError,
                                     r"DPMixture does not support algorithm='gibbs' .*use "
                                     r"LDA\(algorithm=.*choose one of"),
    "an unknown algorithm option": (lambda t: LDA(algorithm_options={"bogus": 1}).fit(COUNTS), ValueError,
                                    r"LDA has no algorithm option\(s\) \['bogus'\]; valid options are"),
    "more batches than sequences": (lambda t: HDPHMM(n_batches=5).fit(POINTS, lengths=[30, 30]), ValueError,
                                    r"n_batches=5 exceeds the number of sequences \(2\).*use n_batches <= 2"),
    "a checkpoint directory in use": (lambda t: [DPMixture(max_laps=2).fit(POINTS, checkpoint=t / "c")
                                                 for _ in range(2)], CheckpointError,
                                      r"already holds a checkpoint; continue that run with stickbreak.resume"),
    # estimators: input
    "NaN in points": (lambda t: DPMixture().fit(np.where(np.arange(120).reshape(60, 2) == 7, np.nan, POINTS)),
                      DataError, r"X contains NaN values in rows \[3\]; remove or impute them"),
    "points as 1-D": (lambda t: DPMixture().fit(np.ones(5)), DataError, r"X is 1-D .*Reshape your data"),
    "a vocabulary of another size": (lambda t: LDA().fit(COUNTS, vocabulary=["a", "b"]), DataError,
                                     r"the vocabulary has 2 words but X has 12 word columns; give the vocabulary"),
    "an empty-document policy that is not one": (lambda t: LDA().fit(COUNTS, empty="drop"), DataError,
                                                 r"empty='drop' is not an option; use one of"),
    "transform with another vocabulary size": (lambda t: LDA(max_laps=2).fit(COUNTS).transform(COUNTS[:, :5]),
                                               ValueError, r"X has 5 features, but LDA is expecting 12"),
    "DataFrame columns renamed since fit": (
        lambda t: DPMixture(max_laps=2).fit(pd.DataFrame(POINTS, columns=["a", "b"])).predict(
            pd.DataFrame(POINTS, columns=["b", "a"])), ValueError, r"feature names should match those .* during fit"),
    "lengths that miss frames": (lambda t: HDPHMM().fit(POINTS, lengths=[10, 10]), DataError,
                                 r"lengths add up to 20 frames but X has 60; lengths must count every frame"),
    "previous frames of another shape": (lambda t: HDPHMM(obs_model="ar_gauss").fit(POINTS, Xprev=POINTS[:10]),
                                         DataError, r"Xprev has shape \(10, 2\) but X has shape \(60, 2\)"),
    "raw text of stop words only": (lambda t: as_bag_of_words(["the a of", "and the"]), DataError,
                                    r"cannot count the words of the raw text: empty vocabulary.*Vectorise it yourself"),
    "raw text mixed with numbers": (lambda t: as_bag_of_words(["a text", 3]), DataError,
                                    r"document 1 is int, among raw text"),
    "raw text streamed without a vocabulary": (lambda t: iter_bag_of_words(["apple pie"]), DataError,
                                               r"streaming raw text needs vocabulary="),
    "a gensim stream without its size": (lambda t: iter_bag_of_words([[(0, 1)]]), DataError,
                                         r"needs n_words= \(gensim: corpus.num_terms\) or vocabulary="),
    "hmm lengths where y goes": (lambda t: HDPHMM().fit(POINTS, [30, 30]), DataError,
                                 r"second argument of fit is y .* 2 entries for 60 frames.*fit\(X, lengths=\.\.\.\)"),
    "weights for a token sampler": (lambda t: LDA(algorithm="gibbs").fit(COUNTS * 0.5), DataError,
                                    r"non-integer counts .*samples word tokens.*'vb', 'stochastic' and 'memoized'"),
    "weights for a mixture of multinomials": (lambda t: DPMixture(obs_model="mult").fit(COUNTS * 0.5), DataError,
                                              r"non-integer counts .*a mixture of multinomials .* scores whole words.*"
                                              r"DPMixture\(obs_model='gauss'"),
    "transform with word ids beyond the vocabulary": (
        lambda t: LDA(max_laps=2).fit(COUNTS).transform(sp.csr_matrix((np.ones(1), np.array([15]), np.array([0, 1])),
                                                                      shape=(1, 12))),
        DataError, r"malformed CSR matrix \(indices must be < 12\)"),
    "negative counts": (lambda t: LDA().fit(-COUNTS), DataError, r"Negative values in data passed to X"),
    "complex counts": (lambda t: LDA().fit(COUNTS.toarray() + 1j), DataError, r"Complex data not supported"),
    "one document as 1-D": (lambda t: LDA().fit(np.ones(5)), DataError, r"must be 2-D.*Reshape your data"),
    "strings in an array": (lambda t: LDA().fit(np.array([["a", "b"]], dtype=object)), DataTypeError,
                            r"argument must be a string holding a number.*CountVectorizer"),
    "no words": (lambda t: LDA().fit(np.zeros((3, 0))), DataError, r"0 feature\(s\) \(shape=\(3, 0\)\)"),
    "NaN counts": (lambda t: LDA().fit(np.array([[1.0, np.nan]])), DataError, r"NaN or infinite counts"),
    "empty documents refused on request": (
        lambda t: LDA().fit(sp.vstack([COUNTS, sp.csr_matrix((1, 12))]).tocsr(), empty="error"), DataError,
        r"1 empty document\(s\) .* rows \[30\].*empty='skip'"),
    "malformed CSR": (lambda t: LDA().fit(sp.csr_matrix((np.ones(2), np.array([0, -1]), np.array([0, 1, 2])),
                                                        shape=(2, 3))), DataError, r"malformed CSR matrix"),
    "token lists with numbers": (lambda t: as_bag_of_words([["a", 1]]), DataError, r"token lists hold strings"),
    "score with another vocabulary size": (lambda t: fitted_diln().score(COUNTS[:, :5]), ValueError,
                                           r"X has 5 features, but DILN is expecting 12 features"),
    "sampler on shards": (lambda t: HDPTopicModel(algorithm="gibbs").fit(shards_with(t, lambda d: None)),
                          DataError, r"keeps the whole corpus in memory and does not read shards"),
    "damaged shard": (lambda t: LDA(max_laps=2).fit(shards_with(t, nan_in_shard)), DataError,
                      r"shard_00001 .* is corrupt: it holds NaN.*ShardStore.write"),
    # readers
    "damaged gzip": (lambda t: read_corpus(write(t, "docword.x.txt.gz", gzip.compress(b"2\n2\n1\n1 1 1\n")[:-12]
                                                 + b"\x00" * 12)), DataError, r"cannot read .*damaged"),
    "not a zip archive": (lambda t: read_corpus(write(t, "bad.npz", b"PK\x03\x04" + bytes(60))), DataError,
                          r"bad.npz is not an npz \(zip\) archive"),
    "damaged npz": (lambda t: read_corpus(_damaged_npz(t)), DataError,
                    r"cannot read c.npz .*damaged, or not a bag-of-words npz"),
    "complex Matrix Market": (lambda t: read_corpus(write(t, "c.mtx", "%%MatrixMarket matrix coordinate complex "
                                                          "general\n1 1 1\n1 1 1 2\n")), DataError,
                              r"Complex data not supported: c.mtx"),
    "Matrix Market header of 10^15 documents": (
        lambda t: read_corpus(write(t, "h.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                                                "1000000000000000 5 1\n1 1 1\n")), DataError,
        r"h.mtx, whose header declares 1,000,000,000,000,000 documents, needs about .* GiB"),
    "UCI header of 10^15 documents": (lambda t: read_corpus(write(t, "docword.h.txt",
                                                                  "1000000000000000\n5\n1\n1 1 1\n")),
                                      DataError, r"docword.h.txt, whose header declares .* documents, needs about"),
    "UCI entries missing": (lambda t: read_corpus(write(t, "docword.m.txt", "2\n3\n3\n1 1 1\n2 3 1\n")), DataError,
                            r"declares NNZ=3 entries .* lists 2.*truncated"),
    "npz holding pickled objects": (lambda t: read_corpus(_pickled(t)), DataError,
                                    r"o.npz holds Python objects .* never loads: unpickling can run any code"),
    "sequence csv with a short row": (lambda t: read_sequences(write(t, "r.csv", "seq,x,y\n1,0.5,1\n1,2\n")),
                                      DataError, r"r.csv: lines \[3\] do not have 3 columns like the first"),
    "sequence csv with a number among the features": (
        lambda t: read_sequences(write(t, "n.csv", "seq,x\n1,0.5\n1,abc\n")), DataError,
        r"n.csv: line 3, column 'x' holds 'abc', not a number"),
    "sequence csv whose sequences interleave": (
        lambda t: read_sequences(write(t, "i.csv", "seq,x\n1,0.5\n2,1\n1,3\n")), DataError,
        r"frames of sequence 1 are not contiguous: it starts again at lines \[4\].*sort the rows"),
    "UCI header integer of 20 digits": (lambda t: read_corpus(write(t, "docword.d.txt", "9" * 20 + "\n5\n1\n1 1 1\n")),
                                        DataError, r"line 1 of docword.d.txt: the integer 9{20} has 20 digits, more "
                                                   r"than the 18"),
    "UCI line of a million fields": (lambda t: read_corpus(write(t, "docword.l.txt", "3\n4\n5\n" + "1 1 1 " * 10**6)),
                                     DataError, r"line 4 of docword.l.txt has 3000000 fields"),
    "UCI file of one line of 10^7 digits": (lambda t: read_corpus(write(t, "docword.o.txt", "9" * 10**7)), DataError,
                                            r"the integer 9{24}\.\.\. has 10000000 digits"),
    "Matrix Market size of 20 digits": (
        lambda t: read_corpus(write(t, "s.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                                                + "9" * 20 + " 5 1\n1 1 1\n")), DataError,
        r"line 2 of s.mtx: the integer 9{20} has 20 digits"),
    "LDA-C word id of 20 digits": (lambda t: read_corpus(write(t, "w.ldac", "1 " + "9" * 20 + ":1\n")), DataError,
                                   r"line 1 of w.ldac: the integer 9{20} has 20 digits"),
    "sequence npz that is not a zip": (lambda t: read_sequences(write(t, "q.npz", b"hello")), DataError,
                                       r"q.npz is not an npz \(zip\) archive; save the frames with np.savez"),
    "sequence csv not UTF-8": (lambda t: read_sequences(write(t, "l.csv", "seq,x\n1,caf\xe9\n".encode("latin-1"))),
                               DataError, r"l.csv is not UTF-8 text \(byte b'\\xe9' at offset 11\); re-encode it"),
    "truncated sequence npy": (lambda t: read_sequences(write(t, "f.npy", b"\x93NUMPY\x01\x00junk"), ids=[0]),
                               DataError, r"cannot read f.npy \(ValueError: .*\); the file is damaged, or not a .npy "
                                          r"file of sequences"),
    "damaged sequence csv.gz": (lambda t: read_sequences(write(t, "g.csv.gz", gzip.compress(b"seq,x\n1,2\n")[:-10])),
                                DataError, r"cannot read g.csv.gz \(EOFError: .*damaged"),
    "a held-out split of 1e10 tokens": (
        lambda t: LDA(n_topics=2, max_laps=2).fit(COUNTS).score(sp.csr_matrix(np.array([[1e10] + [1.0] * 11]))),
        DataError, r"splitting 1e\+10 word tokens at random needs about .* GiB .*mode='types'"),
    "scipy bsr npz": (lambda t: read_corpus(_bsr(t)), DataError, r"scipy 'bsr' matrix"),
    "damaged data npz (fit mixture)": (lambda t: read_data(str(write(t, "x.npz", b"PK\x03\x04" + bytes(50)))),
                                       DataError, r"cannot read x.npz \(BadZipFile"),
    "text in a numeric csv.gz": (lambda t: read_data(str(write(t, "x.csv.gz", gzip.compress(b"a,b\n1,x\n")))),
                                 DataError, r"x.csv.gz is not a numeric CSV table"),
    # saved models
    **{f"model file: {how}": (lambda t, how=how: stickbreak.load(tampered(t, how)), ModelFileError, message)
       for how, message in [("missing array", "changed since it was saved.*SHA-256"),
                            ("reshaped array", "changed since it was saved.*SHA-256"),
                            ("bad json", "metadata is not valid JSON"),
                            ("future version", "format version 99; this stickbreak reads up to version 2"),
                            ("edited parameter", "changed since it was saved")]},
}


def _damaged_npz(tmp_path):
    """A valid archive whose compressed member is overwritten (the zip directory stays intact)."""
    np.savez_compressed(tmp_path / "c.npz", data=COUNTS.data, indices=COUNTS.indices, indptr=COUNTS.indptr,
                        shape=np.array(COUNTS.shape))
    raw = bytearray((tmp_path / "c.npz").read_bytes())
    raw[60:90] = bytes(30)
    (tmp_path / "c.npz").write_bytes(bytes(raw))
    return tmp_path / "c.npz"


def tampered(tmp_path, how):
    """A saved mixture with one thing changed in the file, as an editor or a damaged disk would."""
    src = DPMixture(algorithm="vb", n_components=3, max_laps=3).fit(POINTS).save(tmp_path / "m.npz")
    z = dict(np.load(src, allow_pickle=False))
    meta = json.loads(str(z["__meta__"]))
    if how == "missing array":
        del z["uids"]
    elif how == "reshaped array":
        z["uids"] = z["uids"][:-1]
    elif how == "bad json":
        z["__meta__"] = np.array("{not json")
    elif how == "future version":
        meta["format_version"] = 99
    elif how == "edited parameter":
        meta["params"]["n_components"] = "many"
    if how in ("future version", "edited parameter"):
        z["__meta__"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "t.npz", **z)
    return tmp_path / "t.npz"


def _pickled(tmp_path):
    np.savez(tmp_path / "o.npz", data=np.array([object()], dtype=object), indices=np.array([0]),
             indptr=np.array([0, 1]), shape=np.array([1, 1]))
    return tmp_path / "o.npz"


def _bsr(tmp_path):
    sp.save_npz(tmp_path / "m.npz", COUNTS.tobsr())
    return tmp_path / "m.npz"


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_refused_by_name(case, tmp_path):
    call, error, message = CASES[case]
    with pytest.raises(error, match=message):
        call(tmp_path)


CLI_CASES = {
    "--out names an existing file": (lambda t: ["fit", "mixture", "old_faithful", "--out", str(write(t, "f", "x"))],
                                     r"--out .* is a file"),
    "an algorithm the mixture lacks": (lambda t: ["fit", "mixture", "old_faithful", "--algorithm", "gibbs"],
                                       r"argument --algorithm: invalid choice: 'gibbs'"),
    "an emission family the mixture lacks": (lambda t: ["fit", "mixture", "old_faithful", "--obs", "ar_gauss"],
                                             r"argument --obs: invalid choice: 'ar_gauss'"),
    "a data file that is not there": (lambda t: ["fit", "mixture", str(t / "missing.csv")],
                                      r"missing.csv' is neither a bundled data set .* nor an existing file"),
    "a damaged data file": (lambda t: ["fit", "mixture", str(write(t, "x.npz", b"PK\x03\x04" + bytes(50)))],
                            r"cannot read x.npz \(BadZipFile"),
    "a model file that is not one": (lambda t: ["eval", str(write(t, "m.npz", b"not a zip")), "ap"],
                                     r"m.npz is not a stickbreak model file: not an npz \(zip\) archive"),
}


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_the_command_line_refuses_bad_input_by_name(case, tmp_path, capsys):
    argv, message = CLI_CASES[case]
    try:
        code = main(argv(tmp_path))
    except SystemExit as stop:  # argparse's own refusals exit; the others return the status
        code = stop.code
    assert code == 2
    assert re.search(message, capsys.readouterr().err, re.S)
