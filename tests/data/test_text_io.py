"""Text-corpus readers, writers and adapters: exact round trips, real files, and every bad input."""

import gzip

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import shared_path
from stickbreak import datasets
from stickbreak.data import (BagOfWords, DataError, ShardStore, as_bag_of_words, corpus_format, drop_empty_documents,
                             iter_bag_of_words, read_corpus, read_ldac, read_matrix_market, read_npz, read_uci,
                             to_gensim_corpus, write_ldac, write_matrix_market, write_npz, write_uci)
from stickbreak.data import text_parse
from stickbreak.datasets import read_data


@pytest.fixture
def corpus() -> BagOfWords:
    rng = np.random.default_rng(7)
    X = sp.random(40, 60, density=0.15, format="csr", random_state=rng, data_rvs=lambda n: rng.integers(1, 9, n))
    X = (X + sp.csr_matrix((np.ones(40), (np.arange(40), rng.integers(0, 60, 40))), shape=(40, 60))).tolil()
    X[3, 59], X[5, 0] = 123456, 1  # a many-digit count; the first word id
    words = [f"w{i}" for i in range(57)] + ["café", "naïve words", "日本"]
    return BagOfWords.from_counts(X, words)


def assert_same(a: BagOfWords, b: BagOfWords) -> None:
    assert a.counts.shape == b.counts.shape and b.counts.dtype == np.float64
    assert (a.counts != b.counts).nnz == 0
    assert a.vocabulary == b.vocabulary


FORMATS = [  # writer, reader, corpus file, vocab file
    (write_uci, read_uci, "docword.toy.txt", "vocab.toy.txt"),
    (write_uci, read_uci, "docword.toy.txt.gz", "vocab.toy.txt.gz"),
    (write_ldac, read_ldac, "toy.dat", "vocab.txt"),
    (write_ldac, read_ldac, "toy.ldac.gz", "vocab.txt.gz"),
    (write_matrix_market, read_matrix_market, "toy.mtx", "vocab.txt"),
    (write_matrix_market, read_matrix_market, "toy.mm.gz", "vocab.txt"),
]


@pytest.mark.parametrize("writer, reader, name, vocab_name", FORMATS)
def test_round_trip_with_vocabulary(tmp_path, corpus, writer, reader, name, vocab_name):
    writer(corpus, tmp_path / name, tmp_path / vocab_name)
    assert_same(corpus, reader(tmp_path / name, tmp_path / vocab_name))
    assert_same(corpus, read_corpus(tmp_path / name))  # finds the sibling vocabulary by name
    assert ((tmp_path / name).read_bytes()[:2] == b"\x1f\x8b") == name.endswith(".gz")
    no_vocab = reader(tmp_path / name)
    assert no_vocab.vocabulary is None and (no_vocab.counts != corpus.counts).nnz == 0


def test_npz_round_trip_and_shared_layout(tmp_path, corpus):
    write_npz(corpus, tmp_path / "bow.npz")
    with np.load(tmp_path / "bow.npz", allow_pickle=False) as z:
        assert z["vocabulary"].dtype.kind == "U"
    assert_same(corpus, read_npz(tmp_path / "bow.npz"))
    assert_same(corpus, read_corpus(tmp_path))  # a directory holding bow.npz
    bare = BagOfWords(corpus.counts)
    (tmp_path / "bare").mkdir()
    write_npz(bare, tmp_path / "bare" / "bow.npz")
    with gzip.open(tmp_path / "bare" / "vocab.txt.gz", "wt", encoding="utf-8") as fh:
        fh.write("".join(w + "\n" for w in corpus.vocabulary))
    assert_same(corpus, read_npz(tmp_path / "bare" / "bow.npz"))  # sibling vocab.txt.gz, as in ../shared/data


def test_empty_documents_round_trip_with_keep(tmp_path, corpus):
    X = corpus.counts.tolil()
    X[[0, 7, 39], :] = 0
    bow = BagOfWords.from_counts(X, corpus.vocabulary, allow_empty=True)
    for writer, reader, name, _ in FORMATS[::2]:
        writer(bow, tmp_path / name)
        assert_same(BagOfWords(bow.counts), reader(tmp_path / name, empty="keep"))
    assert (tmp_path / "toy.dat").read_text().splitlines()[0] == "0"
    with pytest.raises(DataError, match=r"3 empty document\(s\).*rows \[0, 7, 39\].*empty='skip'"):
        read_ldac(tmp_path / "toy.dat", empty="error")
    assert read_ldac(tmp_path / "toy.dat").n_items == bow.n_items  # kept by default, as fit keeps them
    with pytest.warns(UserWarning, match=r"skipped 3 empty document\(s\).*rows \[0, 7, 39\]"):
        skipped = read_uci(tmp_path / "docword.toy.txt", empty="skip")
    kept_bow, kept = drop_empty_documents(read_uci(tmp_path / "docword.toy.txt", empty="keep"), warn=False)
    assert kept.tolist() == [i for i in range(40) if i not in (0, 7, 39)]
    assert (skipped.counts != bow.counts[kept]).nnz == 0 and (kept_bow.counts != skipped.counts).nnz == 0
    with pytest.raises(DataError, match="empty='maybe' is not an option"):
        read_ldac(tmp_path / "toy.dat", empty="maybe")
    with pytest.raises(DataError, match="all 2 documents of X are empty; there is nothing to fit"):
        as_bag_of_words(np.zeros((2, 3)), empty="skip")


def test_real_ap_ldac_and_shared_npz():
    bow = read_ldac(shared_path("ap", "ap.dat.gz"), shared_path("ap", "vocab.txt.gz"))
    assert bow.counts.shape == (2246, 10473) and bow.counts.nnz == 302031
    assert bow.vocabulary[:5] == ("i", "new", "percent", "people", "year")
    assert_same(bow, read_npz(shared_path("ap", "bow.npz")))
    assert_same(bow, read_corpus(shared_path("ap")))


def test_real_kos_uci():
    bow = read_corpus(shared_path("kos", "docword.kos.txt.gz"))
    assert bow.counts.shape == (3430, 6906) and bow.counts.nnz == 353160 and bow.total_counts.sum() == 467714
    assert bow.vocabulary is None


def test_irregular_spacing_takes_the_slow_path_with_the_same_result(tmp_path):
    (tmp_path / "a.dat").write_bytes(b"2 0:1 2:3\r\n\n1\t1:2.0\n")
    (tmp_path / "docword.a.txt").write_bytes(b"2\n3\n3\n\n1 1 1\r\n1  3 3\n2\t2 2.0\n")
    expected = [[1, 0, 3], [0, 2, 0]]
    assert read_ldac(tmp_path / "a.dat").counts.toarray().tolist() == expected
    assert read_uci(tmp_path / "docword.a.txt").counts.toarray().tolist() == expected


def test_fast_scanner_agrees_with_the_line_parser(corpus, tmp_path):
    write_ldac(corpus, tmp_path / "c.dat")
    write_uci(corpus, tmp_path / "docword.c.txt")
    raw = (tmp_path / "c.dat").read_bytes()
    (fast, n_fast), (slow, n_slow) = text_parse.ldac_entries(raw), text_parse.parse_ldac_lines(raw, "c.dat")
    assert n_fast == n_slow == 40 and all(np.array_equal(a, b) for a, b in zip(fast, slow))
    _, body, n_header = text_parse.split_uci_header((tmp_path / "docword.c.txt").read_bytes(), "docword.c.txt")
    fast, slow = text_parse.triple_entries(body,
                                           n_header + 1), text_parse.parse_uci_lines(body, "docword.c.txt", n_header)
    assert all(np.array_equal(a, b) for a, b in zip(fast, slow))
    assert text_parse.ldac_entries(raw.replace(b":", b":-", 1)) is None  # anything unusual goes to the line parser
    for unusual in (body.replace(b"\n", b"\n\n", 1), body.replace(b" ", b" x", 1), body + b"1 2\n",
                    body + b"1 2 3 4\n", body + b"99999999999999999999 1 1\n"):
        assert text_parse.triple_entries(unusual, n_header + 1) is None


def test_duplicate_entries_are_summed(tmp_path):
    (tmp_path / "d.dat").write_text("3 0:1 2:1 0:2\n")
    (tmp_path / "docword.d.txt").write_text("1\n3\n3\n1 1 1\n1 3 1\n1 1 2\n")
    assert read_ldac(tmp_path / "d.dat").counts.toarray().tolist() == [[3, 0, 1]]
    assert read_uci(tmp_path / "docword.d.txt").counts.toarray().tolist() == [[3, 0, 1]]
    assert as_bag_of_words([[(0, 1), (2, 1), (0, 2)]]).counts.toarray().tolist() == [[3, 0, 1]]


UCI_HEAD = "2\n3\n3\n"


@pytest.mark.parametrize("text, message", [
    (UCI_HEAD + "1 1 2\n1 2 -2\n2 3 1\n", r"count -2 at line 5 of docword.bad.txt is negative"),
    (UCI_HEAD + "1 1 2\n1 2 1.5\n2 3 1\n", r"count 1.5 at line 5 of docword.bad.txt is fractional.*tf-idf"),
    (UCI_HEAD + "1 1 2\n1 0 1\n2 3 1\n", r"word id 0 at line 5 .* out of range 1..3 \(ids in this file are 1-based\)"),
    (UCI_HEAD + "1 1 2\n1 4 1\n2 3 1\n", r"word id 4 at line 5 .* out of range 1..3"),
    (UCI_HEAD + "1 1 2\n3 2 1\n2 3 1\n", r"document id 3 at line 5 .* out of range 1..2"),
    (UCI_HEAD + "1 1 2\n2 3 1\n", r"declares NNZ=3 entries .* but lists 2.*truncated"),
    ("2\nthree\n3\n1 1 1\n", r"line 2 of docword.bad.txt is 'three'.*single integers D, W and NNZ"),
    ("2\n3\n", r"ends after 2 header line\(s\)"),
    (UCI_HEAD + "1 1 2\n1 2\n2 3 1\n", r"line 5 of docword.bad.txt has 2 fields.*docID wordID count"),
    (UCI_HEAD + "1 1 2\n1 x 1\n2 3 1\n", r"line 5 of docword.bad.txt: 'x' is not an integer word id"),
    (UCI_HEAD + "1 1 2\n1 2 1\n1 3 1\n", r"1 empty document\(s\).*rows \[1\]"),
])
def test_uci_errors(tmp_path, text, message):
    (tmp_path / "docword.bad.txt").write_text(text)
    with pytest.raises(DataError, match=message):
        read_uci(tmp_path / "docword.bad.txt", empty="error")


@pytest.mark.parametrize("text, message", [
    ("2 0:1 3-2\n", r"line 1 of bad.dat: malformed term '3-2'.*id:count"),
    ("2 0:1 1:\n", r"malformed term '1:'"),
    ("1 a:2\n", r"malformed term 'a:2'"),
    ("1 0:1\n3 1:1 2:2\n", r"line 2 of bad.dat declares N=3 terms but lists 2 id:count pairs"),
    ("x 0:1\n", r"line 1 of bad.dat: 'x' is not the integer term count N"),
    ("2 0:1 1:-1\n", r"count -1 at line 1 of bad.dat is negative"),
    ("1 0:1\n1 2:1.5\n", r"count 1.5 at line 2 of bad.dat is fractional"),
    ("1 -1:2\n", r"word id -1 at line 1 of bad.dat is out of range 0..0"),
    ("1 0:1\n0\n", r"1 empty document\(s\).*rows \[1\]"),
])
def test_ldac_errors(tmp_path, text, message):
    (tmp_path / "bad.dat").write_text(text)
    with pytest.raises(DataError, match=message):
        read_ldac(tmp_path / "bad.dat", empty="error")


def test_vocabulary_mismatches(tmp_path, corpus):
    (tmp_path / "vocab.txt").write_text("a\nb\n")
    (tmp_path / "docword.v.txt").write_text("1\n3\n1\n1 1 1\n")
    with pytest.raises(DataError, match="vocabulary has 2 words but docword.v.txt declares W=3"):
        read_uci(tmp_path / "docword.v.txt", tmp_path / "vocab.txt")
    (tmp_path / "v.dat").write_text("1 2:1\n")
    with pytest.raises(DataError, match=r"word id 2 at line 1 of v.dat is out of range 0..1"):
        read_ldac(tmp_path / "v.dat", tmp_path / "vocab.txt")
    with pytest.raises(DataError, match="vocabulary has 2 words but n_words=5"):
        read_ldac(tmp_path / "v.dat", ["a", "b"], n_words=5)
    write_matrix_market(corpus, tmp_path / "c.mtx")
    with pytest.raises(DataError, match="vocabulary has 2 words but c.mtx has 60 word columns"):
        read_matrix_market(tmp_path / "c.mtx", tmp_path / "vocab.txt")
    with pytest.raises(DataError, match="vocabulary has 3 words but X has 60 word columns"):
        as_bag_of_words(corpus.counts, vocabulary=["a", "b", "c"])
    with pytest.raises(DataError, match="vocab_path was given but the corpus has no vocabulary"):
        write_ldac(corpus.counts, tmp_path / "x.dat", tmp_path / "vocab2.txt")
    with pytest.raises(DataError, match="contain line breaks"):
        write_uci(BagOfWords.from_counts(np.ones((1, 2)), ["a\nb", "c"]), tmp_path / "docword.x.txt",
                  tmp_path / "vx.txt")


def test_matrix_market_orientation_and_errors(tmp_path, corpus):
    write_matrix_market(BagOfWords(corpus.counts.T.tocsr()), tmp_path / "terms_by_docs.mtx")
    assert (read_matrix_market(tmp_path / "terms_by_docs.mtx", transpose=True).counts != corpus.counts).nnz == 0
    (tmp_path / "neg.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 3\n2 1 -2\n")
    with pytest.raises(DataError, match=r"count -2 at line 4 of neg.mtx is negative"):
        read_matrix_market(tmp_path / "neg.mtx")
    (tmp_path / "junk.mtx").write_text("hello\n")
    with pytest.raises(DataError, match="junk.mtx does not start with a Matrix Market banner"):
        read_matrix_market(tmp_path / "junk.mtx")


def test_npz_and_dispatch_errors(tmp_path):
    np.savez(tmp_path / "x.npz", X=np.ones((2, 2)))
    with pytest.raises(DataError, match=r"x.npz lacks the CSR arrays \['data', 'indices', 'indptr', 'shape'\]"):
        read_npz(tmp_path / "x.npz")
    (tmp_path / "notes.txt").write_text("1 2 3\n")
    with pytest.raises(DataError, match="cannot tell the corpus format of .*notes.txt"):
        read_corpus(tmp_path / "notes.txt")
    with pytest.raises(DataError, match=r"notes.txt is not an npz \(zip\) archive"):
        read_npz(tmp_path / "notes.txt")
    with pytest.raises(DataError, match="cannot read .*missing.dat"):
        read_ldac(tmp_path / "missing.dat")
    assert [corpus_format(n) for n in ("a.npz", "a.MTX.gz", "docword.nips.txt.gz", "ap.dat", "r.ldac", "a.csv")] == [
        "npz", "mm", "uci", "ldac", "ldac", None]


def test_count_vectorizer_output_and_vectorizer_as_vocabulary():
    from sklearn.feature_extraction.text import CountVectorizer

    texts = ["the stick breaks the stick", "a topic of topics", "the topic breaks"]
    vectorizer = CountVectorizer()
    X = vectorizer.fit_transform(texts)
    bow = as_bag_of_words(X, vocabulary=vectorizer)
    assert bow.vocabulary == tuple(vectorizer.get_feature_names_out())
    assert (bow.counts != X).nnz == 0 and bow.counts.dtype == np.float64
    assert as_bag_of_words(X, vocabulary=vectorizer.vocabulary_).vocabulary == bow.vocabulary
    assert_same(bow, as_bag_of_words(bow))
    assert (as_bag_of_words(X.toarray().tolist()).counts != X).nnz == 0  # dense, even as nested lists
    with pytest.raises(DataError, match="cannot get the words from vocabulary=CountVectorizer"):
        as_bag_of_words(X, vocabulary=CountVectorizer())
    raw = as_bag_of_words(texts)  # counted as CountVectorizer(stop_words="english") counts them
    english = CountVectorizer(stop_words="english")
    assert raw.vocabulary == tuple(english.fit(texts).get_feature_names_out()) and "the" not in raw.vocabulary
    assert (raw.counts != english.transform(texts)).nnz == 0
    over = as_bag_of_words(["stick topic unknown", "breaks"], vocabulary=vectorizer)  # transform's way: others dropped
    assert (over.counts != vectorizer.transform(["stick topic unknown", "breaks"])).nnz == 0
    with pytest.raises(DataError, match="document 1 is int, among raw text"):
        as_bag_of_words(["a text", 3])
    with pytest.raises(DataError, match="cannot count the words of the raw text: empty vocabulary"):
        as_bag_of_words(["the", "a of the"])
    with pytest.raises(DataError, match="non-integer counts.*tf-idf"):
        as_bag_of_words(X * 0.5)


class FakeDictionary:
    """The parts of gensim.corpora.Dictionary that matter here (gensim itself is not a dependency)."""

    def __init__(self, words):
        self.token2id = {w: i for i, w in enumerate(words)}
        self.id2token = {}

    def __len__(self):
        return len(self.token2id)

    def __getitem__(self, token_id):
        if not self.id2token:
            self.id2token = {i: w for w, i in self.token2id.items()}
        return self.id2token[token_id]


def test_gensim_style_corpus_in_and_out(corpus):
    docs = to_gensim_corpus(corpus)
    assert all(isinstance(i, int) and isinstance(c, int) for doc in docs for i, c in doc)
    assert docs[5][0] == (0, 1)
    back = as_bag_of_words(docs, vocabulary=FakeDictionary(corpus.vocabulary))
    assert_same(corpus, back)
    small = as_bag_of_words([[(0, 2), (3, 1)], [(1, 1)]])
    assert small.counts.shape == (2, 4) and small.vocabulary is None  # V = largest id + 1
    assert as_bag_of_words([[(0, 2)], [(1, 1)]], n_words=9).counts.shape == (2, 9)
    with_empty = as_bag_of_words([[(0, 2)], [], [(1, 1)]], empty="keep")
    assert to_gensim_corpus(with_empty) == [[(0, 2)], [], [(1, 1)]]


@pytest.mark.parametrize("docs, kwargs, message", [
    ([[(0, 1)], [(1, 2, 3)]], {}, r"document 1 holds \(1, 2, 3\); gensim-style .* lists of \(word_id, count\)"),
    ([[(0, 1)], [(1, "x")]], {}, r"document 1 holds \(1, 'x'\)"),
    ([[(0, 1), (5, 1)]], {"n_words": 3}, r"word id 5 at document 0, pair 1 is out of range 0..2"),
    ([[(0, 1)], [(1.5, 1)]], {}, r"word id 1.5 at document 1, pair 0 is not an integer"),
    ([[(0, 1)], [(1, -1)]], {}, r"count -1 at document 1, pair 0 is negative"),
    ([[(0, 1)], [(1, 0.5)]], {}, r"count 0.5 at document 1, pair 0 is fractional"),
    ([[(0, 1)], []], {}, r"X has 1 empty document\(s\) .*rows \[1\]"),
])
def test_gensim_style_errors(docs, kwargs, message):
    with pytest.raises(DataError, match=message):
        as_bag_of_words(docs, **kwargs, empty="error")


def test_read_data_reads_text_corpora(tmp_path, corpus):
    write_ldac(corpus, tmp_path / "toy.dat.gz")
    write_uci(corpus, tmp_path / "docword.toy.txt")
    write_matrix_market(corpus, tmp_path / "toy.mtx")
    (tmp_path / "dir").mkdir()
    write_npz(corpus, tmp_path / "dir" / "bow.npz")
    for spec, name in [("toy.dat.gz", "toy"), ("docword.toy.txt", "toy"), ("toy.mtx", "toy"), ("dir", "dir")]:
        X, labels, got = read_data(str(tmp_path / spec))
        assert isinstance(X, BagOfWords) and labels is None and got == name
        assert (X.counts != corpus.counts).nnz == 0
    X, _, _ = read_data(str(tmp_path / "dir" / "bow.npz"))
    assert sp.issparse(X)  # a bare .npz keeps its old meaning: a sparse matrix


@pytest.mark.parametrize("text, message", [
    ("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n", "Complex data not supported"),
    ("%%MatrixMarket matrix array real general\n1 1\n1\n", "'array real general'.*coordinate real general"),
    ("%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n1 1 1\n", "'coordinate real symmetric'"),
    ("%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 3\n2 1 2\n", "declares 3 entries .* lists 2"),
    ("%%MatrixMarket matrix coordinate integer general\n% only comments\n", "ends before its size line"),
    ("%%MatrixMarket matrix coordinate integer general\n1000000000000000 5 1\n1 1 1\n",
     "declares 1,000,000,000,000,000 documents.* needs about .* GiB"),
    ("not a matrix\n", "does not start with a Matrix Market banner"),
])
def test_matrix_market_files_that_cannot_be_word_counts_are_refused_by_name(tmp_path, text, message):
    (tmp_path / "bad.mtx").write_text(text)
    with pytest.raises(DataError, match=message):
        read_matrix_market(tmp_path / "bad.mtx")


def test_scipy_save_npz_files_are_read_in_their_own_layout(tmp_path):
    counts = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]], dtype=float))
    for layout in ("csr", "csc", "coo"):
        sp.save_npz(tmp_path / f"{layout}.npz", counts.asformat(layout))
        np.testing.assert_array_equal(read_npz(tmp_path / f"{layout}.npz").counts.toarray(), counts.toarray())
    sp.save_npz(tmp_path / "bsr.npz", counts.tobsr())
    with pytest.raises(DataError, match="scipy 'bsr' matrix"):
        read_npz(tmp_path / "bsr.npz")


def test_a_malformed_sparse_matrix_is_refused():
    negative = sp.csr_matrix((np.ones(2), np.array([0, -1]), np.array([0, 1, 2])), shape=(2, 3))
    with pytest.raises(DataError, match="malformed CSR matrix .*indices must be >= 0"):
        BagOfWords.from_counts(negative)


class OnePassCorpus:
    """A gensim-style corpus read lazily, as gensim's MmCorpus is: it counts the documents it has
    handed out, and may be iterated once."""

    def __init__(self, docs):
        self.docs, self.read, self.iterated = docs, 0, False

    def __iter__(self):
        assert not self.iterated, "iterated twice"
        self.iterated = True
        for doc in self.docs:
            self.read += 1
            yield doc


def test_a_gensim_style_corpus_streams_in_chunks_without_being_held_whole():
    bow = as_bag_of_words(sp.random(250, 40, density=0.1, random_state=0, format="csr",
                                    data_rvs=lambda n: np.arange(1, n + 1)), empty="keep")
    docs = to_gensim_corpus(bow)
    corpus = OnePassCorpus(docs)
    chunks = iter_bag_of_words(corpus, 100, n_words=40)
    assert corpus.read == 1  # the first document is read to check the kind of documents, no more
    first = next(chunks)
    assert corpus.read == 100 and first.shape == (100, 40)  # one chunk at a time
    rest = list(chunks)
    assert [c.n_items for c in rest] == [100, 50] and all(c.n_features == 40 for c in rest)
    assert (sp.vstack([first.counts] + [c.counts for c in rest]) != bow.counts).nnz == 0
    whole = as_bag_of_words(OnePassCorpus(docs), n_words=40, empty="keep")  # read chunk by chunk into one CSR matrix
    assert (whole.counts != bow.counts).nnz == 0
    assert as_bag_of_words(OnePassCorpus(docs), empty="keep").n_features == max(i for d in docs for i, _ in d) + 1
    bad = [list(d) for d in docs]
    bad[230] = [(3, 1.0), (41, 2.0)]
    with pytest.raises(DataError, match="word id 41 at document 230, pair 1 is out of range"):
        list(iter_bag_of_words(bad, 100, n_words=40))


def test_streamed_token_lists_and_raw_text_need_a_vocabulary_and_are_refused_before_any_chunk():
    words = ["pie", "apple", "crust"]
    texts = ["apple pie", "pie pie crust", "", "crust of the apple"]
    chunks = list(iter_bag_of_words(texts, 3, vocabulary=words))
    assert [c.n_items for c in chunks] == [3, 1] and chunks[0].vocabulary == tuple(words)
    np.testing.assert_array_equal(chunks[0].counts.toarray(), [[1, 1, 0], [2, 0, 1], [0, 0, 0]])
    tokens = [t.split() for t in texts]
    np.testing.assert_array_equal(next(iter_bag_of_words(tokens, 3, vocabulary=words)).counts.toarray(),
                                  chunks[0].counts.toarray())
    for corpus, match in ((texts, "streaming raw text needs vocabulary="), (tokens, "streaming token lists needs"),
                          ([[(0, 1)]], "needs n_words= \\(gensim: corpus.num_terms\\)"),
                          (sp.eye(3, format="csr"), "a matrix is already in memory"),
                          ([[1.0, 2.0]], "yields rows of numbers")):
        with pytest.raises(DataError, match=match):
            iter_bag_of_words(corpus, 2)
    with pytest.raises(DataError, match="chunk_size must be a positive integer"):
        iter_bag_of_words(texts, 0, vocabulary=words)


def test_streamed_chunks_fit_by_partial_fit_and_into_shards(tmp_path):
    from stickbreak import LDA

    bow = datasets.load("ap").X[:600]
    docs = to_gensim_corpus(bow)
    streamed = LDA(n_topics=5, random_state=0)
    for chunk in iter_bag_of_words(OnePassCorpus(docs), 200, vocabulary=bow.vocabulary):
        streamed.partial_fit(chunk)
    assert streamed.vocabulary_ == bow.vocabulary and streamed.trace_[-1]["lap"] == 3
    store = ShardStore.from_chunks(iter_bag_of_words(OnePassCorpus(docs), 200, n_words=bow.n_features), tmp_path / "s",
                                   vocabulary=bow.vocabulary)
    assert store.n_items == 600 and len(store) == 3 and store.vocabulary == bow.vocabulary


def test_gensim_reads_our_matrix_market_files_and_we_stream_its_corpus(tmp_path):
    """gensim's MmCorpus reads only the "real" field: our writer uses it, and iter_bag_of_words
    streams the corpus gensim reads back (peer extra: skipped without gensim)."""
    gensim_corpora = pytest.importorskip("gensim.corpora")
    bow = datasets.load("ap").X[:300]
    write_matrix_market(bow, tmp_path / "ap.mm")
    corpus = gensim_corpora.MmCorpus(str(tmp_path / "ap.mm"))
    assert corpus.num_docs == 300 and corpus.num_terms == bow.n_features
    chunks = list(iter_bag_of_words(corpus, 128, n_words=corpus.num_terms))
    assert [c.n_items for c in chunks] == [128, 128, 44]
    assert (sp.vstack([c.counts for c in chunks]) != bow.counts).nnz == 0
    assert_same(read_matrix_market(tmp_path / "ap.mm"), BagOfWords(bow.counts))
