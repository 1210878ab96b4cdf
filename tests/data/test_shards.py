"""Out-of-core batches: memory-mapped shards give the same fit as the same batches in memory."""

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak import DPMixture, obs
from stickbreak.models import make_mixture_model
from stickbreak.config import LearnConfig, MixtureConfig, MovesConfig
from stickbreak.data import DataError, DenseData
from stickbreak.data.shards import ShardStore
from stickbreak.driver import fit, split_batches
from stickbreak.learn import MemoizedVI
from stickbreak.models.mixture.init import initial_params

from conftest import real_data_for


@pytest.mark.parametrize("name", ["gauss", "mult"])
def test_memoized_on_shards_equals_memoized_in_memory(tmp_path, name):
    data = obs.get(name).check_data(real_data_for(name, 300))
    store = ShardStore.write(data, tmp_path / "shards", n_batches=4, seed=7)
    in_memory = split_batches(data, 4, seed=7)
    assert len(store) == 4 and store.n_items == data.n_items and store.n_features == data.n_features
    mapped = store[0].X if name == "gauss" else store[0].counts.data
    assert not mapped.flags.owndata  # a view of the memory-mapped file, not a copy
    model = make_mixture_model(MixtureConfig(obs_model=name, n_components=2), data)
    params = initial_params(model, data, 2, "kmeans++", np.random.default_rng(0))
    runs = []
    for batches in (store, in_memory.data):
        learner = MemoizedVI(MovesConfig(moves=("birth", "merge", "delete")), np.random.default_rng(1))
        runs.append(fit(model, batches, params, learner, LearnConfig(algorithm="memoized", max_laps=4, tol=0)))
    np.testing.assert_allclose([r.elbo for r in runs[0].trace], [r.elbo for r in runs[1].trace], rtol=1e-12)
    np.testing.assert_array_equal(runs[0].stats.uids, runs[1].stats.uids)


@pytest.mark.parametrize("algorithm", ["memoized", "stochastic", "vb"])
def test_estimator_fits_a_shard_store(tmp_path, algorithm):
    X = real_data_for("diag_gauss", 400)
    store = ShardStore.write(DenseData.from_array(X), tmp_path / "s", n_batches=4)
    moves = ("birth", "merge") if algorithm == "memoized" else None
    model = DPMixture(n_components=2, obs_model="diag_gauss", algorithm=algorithm, moves=moves, max_laps=5,
                      random_state=0).fit(store)
    assert model.labels_.shape == (400,) and model.n_features_in_ == 64
    assert np.isfinite(model.lower_bound_) and model.component_counts_.sum() == pytest.approx(400)
    reopened = ShardStore.open(tmp_path / "s")
    assert reopened.n_items == 400 and len(reopened) == 4


def test_streaming_chunks_and_errors(tmp_path):
    rng = np.random.default_rng(0)
    chunks = [sp.csr_matrix(rng.poisson(1.0, size=(20, 6)) + np.eye(20, 6, dtype=int)) for _ in range(3)]
    store = ShardStore.from_chunks(iter(chunks), tmp_path / "bow", vocabulary=list("abcdef"))
    assert store.kind == "bow" and store.n_items == 60 and store[2].vocabulary == tuple("abcdef")
    np.testing.assert_array_equal(store[1].counts.toarray(), chunks[1].toarray())
    with pytest.raises(DataError, match="already holds shards"):
        ShardStore.from_chunks(iter(chunks), tmp_path / "bow")
    with pytest.raises(DataError, match="chunk 1 is dense with 6 features; earlier chunks were bow"):
        ShardStore.from_chunks([chunks[0], np.ones((3, 6))], tmp_path / "mixed")
    with pytest.raises(DataError, match="NaN"):
        ShardStore.from_chunks([np.array([[np.nan, 1.0]])], tmp_path / "nan")
    with pytest.raises(DataError, match="not a shard directory"):
        ShardStore.open(tmp_path)
    with pytest.raises(DataError, match="cannot use"):
        DPMixture(obs_model="gauss").fit(store)
    with pytest.raises(IndexError):
        store[3]


def test_shards_keep_the_vocabulary_and_refuse_a_damaged_shard(tmp_path):
    from stickbreak import LDA
    from stickbreak.data import BagOfWords, DataError, ShardStore

    rng = np.random.default_rng(0)
    counts = sp.csr_matrix(rng.poisson(1.0, size=(60, 12)).astype(float))
    bow = BagOfWords.from_counts(counts, vocabulary=[f"w{i}" for i in range(12)], allow_empty=True)
    store = ShardStore.write(bow, tmp_path / "s", n_batches=3)
    assert store.vocabulary == bow.vocabulary and store[1].vocabulary == bow.vocabulary
    model = LDA(n_topics=2, max_laps=2, tol=0, random_state=0).fit(store)
    assert model.vocabulary_ == bow.vocabulary and isinstance(model.top_words(2)[0]["words"][0][0], str)
    with pytest.raises(DataError, match="does not read shards"):
        LDA(n_topics=2, algorithm="gibbs").fit(store)
    data = np.load(tmp_path / "s" / "shard_00001.data.npy")
    data[0] = np.nan
    np.save(tmp_path / "s" / "shard_00001.data.npy", data)
    with pytest.raises(DataError, match=r"shard_00001 .* is corrupt: it holds NaN"):
        LDA(n_topics=2, max_laps=2).fit(ShardStore.open(tmp_path / "s"))
    indices = np.load(tmp_path / "s" / "shard_00002.indices.npy")
    indices[0] = 99
    np.save(tmp_path / "s" / "shard_00002.indices.npy", indices)
    with pytest.raises(DataError, match=r"shard_00002 .* is corrupt: its arrays do not match"):
        ShardStore.open(tmp_path / "s")[2]
