"""Every bad input raises a clear error naming the problem and the fix, before any work starts."""

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak import DPMixture
from stickbreak.data import BagOfWords, DataError, DenseData, Sequences, batch_indices
from stickbreak.data.documents import as_bag_of_words


@pytest.mark.parametrize(
    "X, message",
    [
        (np.array([[1.0, np.nan], [2.0, 3.0]]), r"NaN values in rows \[0\].*impute"),
        (np.array([[1.0, 2.0], [np.inf, 3.0]]), r"infinite values in rows \[1\]"),
        (np.array([["a", "b"], ["c", "d"]]), r"dtype <U1.*numeric"),
        (np.array([1.0, 2.0, 3.0]), r"1-D.*reshape\(-1, 1\)"),
        (np.zeros((2, 2, 2)), r"3 dimensions"),
        (np.zeros((0, 3)), r"0 items \(shape=\(0, 3\)\) while a minimum of 1 is required"),
        (np.zeros((4, 0)), r"0 feature\(s\)"),
        (np.array([[1.0, {"a": 1}]], dtype=object), r"not numbers.*encode"),
        (np.array([[1 + 2j]]), r"Complex data not supported"),
        (sp.csr_matrix(np.eye(3)), r"sparse matrix.*toarray"),
        ([[1.0, 2.0], [3.0]], r"could not be read"),
    ],
)
def test_dense_data_errors(X, message):
    with pytest.raises(DataError, match=message):
        DenseData.from_array(X)


@pytest.mark.parametrize(
    "X, message",
    [
        (np.array([[1, -2], [0, 3]]), r"documents \[0\] have negative counts"),
        (np.array([[1.5, 2], [0, 3]]), r"non-integer counts.*tf-idf"),
        (np.array([[1, 2], [0, 0], [0, 0]]), r"empty documents.*rows \[1, 2\].*drop them"),
        (np.array([[np.nan, 1.0]]), r"NaN or infinite"),
        (np.array([["x"]]), r"numeric"),
        (np.zeros(3), r"2-D"),
    ],
)
def test_bag_of_words_errors(X, message):
    with pytest.raises(DataError, match=message):
        BagOfWords.from_counts(X)


def test_vocabulary_mismatch_and_success():
    with pytest.raises(DataError, match="vocabulary has 2 words but X has 3 columns"):
        BagOfWords.from_counts(np.ones((2, 3)), vocabulary=["a", "b"])
    bow = BagOfWords.from_counts(sp.csr_matrix(np.array([[0, 2, 1], [3, 0, 0]])), vocabulary=["a", "b", "c"])
    assert bow.n_items == 2 and bow.n_features == 3 and bow.total_counts.tolist() == [3, 3]
    assert bow.subset([1]).counts.toarray().tolist() == [[3, 0, 0]]


def test_sequences_validation_and_subset():
    X = np.arange(12.0).reshape(6, 2)
    seqs = Sequences.from_arrays(X, [0, 2, 6])
    assert seqs.n_items == 2 and seqs.lengths.tolist() == [2, 4]
    sub = seqs.subset([1, 0])
    np.testing.assert_array_equal(sub.X, np.concatenate([X[2:6], X[0:2]]))
    assert sub.offsets.tolist() == [0, 4, 6]
    assert seqs.subset([False, True]).lengths.tolist() == [4]       # a mask selects, not sequences 0 and 1
    assert seqs.subset(slice(1, None)).lengths.tolist() == [4]
    with pytest.raises(DataError, match="boolean mask of sequences needs 2 entries"):
        seqs.subset([True])
    with pytest.raises(DataError, match="integer numbers, a slice or a boolean mask"):
        seqs.subset([0.5])
    with pytest.raises(DataError, match="start at 0 and end at the number of frames"):
        Sequences.from_arrays(X, [0, 2, 5])
    with pytest.raises(DataError, match="strictly increasing"):
        Sequences.from_arrays(X, [0, 3, 3, 6])
    with pytest.raises(DataError, match="same number of features"):
        Sequences.from_list([np.zeros((2, 2)), np.zeros((3, 3))])
    assert Sequences.from_list([np.zeros((2, 2)), np.ones((3, 2))]).offsets.tolist() == [0, 2, 5]


def test_batches_are_a_deterministic_partition():
    parts = batch_indices(103, 7, seed=5)
    assert len(parts) == 7 and sorted(np.concatenate(parts).tolist()) == list(range(103))
    assert max(map(len, parts)) - min(map(len, parts)) <= 1
    assert all(np.array_equal(a, b) for a, b in zip(parts, batch_indices(103, 7, seed=5)))
    assert not all(np.array_equal(a, b) for a, b in zip(parts, batch_indices(103, 7, seed=6)))
    with pytest.raises(DataError, match="exceeds the number of items"):
        batch_indices(3, 4)
    with pytest.raises(DataError, match="positive integer"):
        batch_indices(3, 0)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"obs_model": "gaussian"}, ValueError,
         r"unknown observation model 'gaussian'.*\['ar_gauss', 'bern', 'diag_gauss'"),
        ({"obs_prior": {"covarance": 1.0}}, ValueError, r"unknown prior option\(s\) \['covarance'\].*valid options"),
        ({"concentration": -1.0}, ValueError, r"concentration must be > 0"),
        ({"n_components": 0}, ValueError, r"n_components must be >= 1"),
        ({"n_components": 2.5}, TypeError, r"n_components must be an integer"),
        ({"init": "kmeans"}, ValueError,
         r"init='kmeans' is not valid; choose one of \['kmeans\+\+', 'random', 'gibbs'\]"),
        ({"tol": -1e-3}, ValueError, r"tol must be >= 0"),
        ({"obs_prior": {"covariance": -1.0}}, ValueError, r"'covariance' must be positive"),
        ({"obs_prior": {"dof": 1.0}}, ValueError, r"'dof' must exceed n_features - 1"),
    ],
)
def test_bad_options_fail_before_work(kwargs, error, message):
    X = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.raises(error, match=message):
        DPMixture(**kwargs).fit(X)


def test_model_specific_data_errors():
    X = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.raises(DataError, match=r"must be binary \(0/1\).*Threshold"):
        DPMixture(obs_model="bern").fit(X)
    with pytest.raises(DataError, match="non-integer counts"):
        DPMixture(obs_model="mult").fit(np.abs(X))
    model = DPMixture(algorithm="vb", n_components=2, max_laps=3, tol=0.1).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but DPMixture is expecting 3 features"):
        model.predict(X[:, :2])
    with pytest.raises(DataError, match="NaN"):
        model.predict(np.full((2, 3), np.nan))


@pytest.mark.parametrize("obs_model", ["gauss", "diag_gauss"])
def test_data_far_from_zero_fit_like_centred_data(obs_model):
    """Statistics are taken from the prior mean, so a huge offset costs no precision."""
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(size=(100, 2)), rng.normal(size=(100, 2)) + 8.0])
    near = DPMixture(algorithm="vb", n_components=4, obs_model=obs_model, random_state=0).fit(X)
    far = DPMixture(algorithm="vb", n_components=4, obs_model=obs_model, random_state=0).fit(X + 1e8)
    np.testing.assert_allclose(far.means_ - 1e8, near.means_, atol=1e-6)
    np.testing.assert_allclose(far.lower_bound_, near.lower_bound_, rtol=1e-9)
    np.testing.assert_array_equal(far.predict(X + 1e8), near.predict(X))


@pytest.mark.parametrize(
    "obs_model, prior, message",
    [
        ("gauss", {"mean": [1.0, 2.0, 3.0]}, r"'mean' must be a scalar or have n_features=2 values"),
        ("diag_gauss", {"covariance": np.eye(2)}, r"one variance per feature, not a matrix"),
        ("mult", {"pseudo_count": [0.1, 0.2]}, r"'pseudo_count' must be a scalar or have n_features=3"),
        ("bern", {"pseudo_count_one": -1.0}, r"must be positive"),
    ],
)
def test_prior_option_shapes_are_checked(obs_model, prior, message):
    X = {"gauss": np.ones((4, 2)) + np.eye(4, 2), "diag_gauss": np.ones((4, 2)) + np.eye(4, 2),
         "mult": np.ones((4, 3)), "bern": np.eye(4, 3)}[obs_model]
    with pytest.raises(ValueError, match=message):
        DPMixture(obs_model=obs_model, obs_prior=prior).fit(X)


def test_constant_data_warn_and_fall_back():
    with pytest.warns(UserWarning, match="no spread"):
        model = DPMixture(algorithm="vb", n_components=2, max_laps=5, tol=0.1).fit(np.full((10, 3), 7.0))
    assert np.isfinite(model.lower_bound_)


def test_empty_documents_have_zero_base_measure():
    from stickbreak.obs import mult

    bow = BagOfWords.from_counts(np.array([[2, 0, 1], [0, 0, 0], [3, 1, 0], [0, 0, 0]]), allow_empty=True)
    from scipy.special import gammaln

    expected = [gammaln(4) - gammaln(3), 0.0, gammaln(5) - gammaln(4), 0.0]
    np.testing.assert_allclose(mult.log_base_per_item(bow), expected)


def test_bag_of_words_behaves_like_its_sparse_matrix():
    counts = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 0], [4, 0, 0], [0, 0, 5]], dtype=float))
    bow = BagOfWords.from_counts(counts, vocabulary=["a", "b", "c"])
    assert bow.shape == (4, 3) and len(bow) == 4 and bow.ndim == 2 and bow.nnz == 5 and bow.sum() == 15
    head = bow[:2]
    assert isinstance(head, BagOfWords) and head.shape == (2, 3) and head.vocabulary == ("a", "b", "c")
    np.testing.assert_array_equal(bow[1].toarray(), [[0, 3, 0]])
    np.testing.assert_array_equal(bow[np.array([True, False, False, True])].toarray(), counts[[0, 3]].toarray())
    cut = bow[1:, [2, 0]]
    assert cut.vocabulary == ("c", "a") and cut.toarray().tolist() == [[0, 0], [0, 4], [5, 0]]
    assert [doc.shape for doc in bow] == [(1, 3)] * 4 and list(bow)[3].toarray().tolist() == [[0, 0, 5]]
    np.testing.assert_array_equal(bow.sum(axis=1).A1, [3, 3, 4, 5])


def test_token_lists_are_counted_over_their_words_or_a_given_vocabulary():
    docs = [["apple", "pie", "pie"], ["banana"], []]
    bow = as_bag_of_words(docs, empty="keep")
    assert bow.vocabulary == ("apple", "banana", "pie") and bow.toarray().tolist() == [[1, 0, 2], [0, 1, 0], [0, 0, 0]]
    over = as_bag_of_words([["pie", "cherry"]], tokens_over=("apple", "pie"))
    assert over.vocabulary == ("apple", "pie") and over.toarray().tolist() == [[0, 1]]  # cherry: not a column
    with pytest.raises(DataError, match=r"document 0 holds 1 among its words"):
        as_bag_of_words([["a", 1]])


def test_a_gzipped_csv_with_a_header_is_read_without_it(tmp_path):
    import gzip

    from stickbreak.datasets import read_data

    (tmp_path / "t.csv.gz").write_bytes(gzip.compress(b"a,b\n1,2\n3,4\n"))
    X, labels, name = read_data(str(tmp_path / "t.csv.gz"))
    assert X.tolist() == [[1.0, 2.0], [3.0, 4.0]] and labels is None and name == "t"


def test_on_words_refuses_words_that_miss_a_documents_word():
    bow = BagOfWords.from_counts(np.array([[1, 0, 2, 0], [0, 0, 1, 3]]))
    kept = bow.on_words(bow.words_used())
    assert kept.counts.toarray().tolist() == [[1, 2, 0], [0, 1, 3]]
    with pytest.raises(DataError, match="not in `words`"):
        bow.on_words(np.array([0, 2]))          # word 3 is used by the second document
