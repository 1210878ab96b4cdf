"""Shared fixtures: small data and posteriors for every observation model."""

import gzip
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak import obs
from stickbreak.data import BagOfWords, DenseData, LaggedData
from stickbreak.obs import expfam

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def shared_path(*parts) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"shared data set missing: {path} (CI places ../shared beside the clone)")
    return path


def load_shared_bow(name: str, max_docs: int | None = None) -> BagOfWords:
    z = np.load(shared_path(name, "bow.npz"))
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
    if max_docs is not None:
        X = X[:max_docs]
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    vocab_path = SHARED_DATA / name / "vocab.txt.gz"
    vocab = gzip.open(vocab_path, "rt", encoding="utf-8").read().split("\n")[:-1] if vocab_path.exists() else None
    return BagOfWords.from_counts(X, vocab)


def small_data(name: str, rng: np.random.Generator, n_items: int = 40, dim: int = 3):
    """A small random data set of the kind the family expects."""
    if name == "mult":
        X = rng.poisson(2.0, size=(n_items, 7)).astype(float)
        X[:, 0] += 1  # no empty documents
        return BagOfWords.from_counts(X)
    if name == "bern":
        return DenseData.from_array((rng.random((n_items, dim)) < 0.3).astype(float))
    if name == "ar_gauss":  # two simulated AR(1) sequences, as frames with their predecessors
        coefs = np.array([[0.8, 0.3, 0.0], [-0.2, 0.7, 0.1], [0.0, 0.2, 0.9]])[:dim, :dim]
        X = np.empty((n_items, dim))
        x = rng.normal(size=dim) * 2.0
        for t in range(n_items):
            x = coefs @ x + rng.normal(size=dim) * [1.0, 2.0, 0.5][:dim]
            X[t] = x
        return LaggedData.from_sequences(X, [0, n_items // 2, n_items])
    return DenseData.from_array(rng.normal(size=(n_items, dim)) * [1.0, 2.0, 0.5][:dim] + 1.5)


def family_case(name: str, seed: int = 0, n_components: int = 3, n_items: int = 40):
    """(family, data, prior, posterior, resp) with a posterior from random soft responsibilities."""
    rng = np.random.default_rng(seed)
    family = obs.get(name)
    data = small_data(name, rng, n_items)
    prior = family.default_prior(data)
    resp = rng.dirichlet(np.ones(n_components), size=data.n_items)
    stats = family.suff_stats(data, resp, prior)
    stats["N"] = resp.sum(axis=0)
    post = expfam.posterior(family, prior, stats)
    return family, data, prior, post, resp, stats


ALL_FAMILIES = sorted(obs.OBS_MODELS)


# Hypothesis runs derandomized: the same examples every run, so no test is flaky.
from hypothesis import settings  # noqa: E402

settings.register_profile("stickbreak", derandomize=True, deadline=None, max_examples=30, print_blob=True)
settings.load_profile("stickbreak")


def load_digits_shared() -> tuple[np.ndarray, np.ndarray]:
    d = np.loadtxt(shared_path("sklearn_digits", "digits.csv.gz"), delimiter=",")
    return d[:, :-1], d[:, -1].astype(int)


def load_image_patches(n_patches: int = 2000, side: int = 5, seed: int = 0) -> np.ndarray:
    """Zero-mean (DC removed) grey patches of the China photo, the thesis's image-patch setting."""
    from sklearn.feature_extraction.image import extract_patches_2d

    imgs = np.load(shared_path("natural_images", "natural_images.npz"))
    grey = imgs["sklearn_china"].mean(axis=2) / 255.0
    patches = extract_patches_2d(grey, (side, side), max_patches=n_patches, random_state=seed).reshape(n_patches, -1)
    return patches - patches.mean(axis=1, keepdims=True)


def real_data_for(name: str, n_items: int = 500):
    """A real data set suited to each observation model (from ../shared/data)."""
    if name in ("gauss", "diag_gauss"):
        return load_digits_shared()[0][:n_items]
    if name == "zero_mean_gauss":
        return load_image_patches(n_items)
    if name == "bern":
        return (load_digits_shared()[0][:n_items] > 8).astype(float)
    if name == "mult":
        return load_shared_bow("reuters_lda").counts
    if name == "ar_gauss":  # bnpy's mocap6 with its explicit predecessors (packaged with stickbreak.datasets)
        z = np.load(Path(__file__).resolve().parents[1] / "src" / "stickbreak" / "datasets" / "files" / "mocap6.npz")
        return LaggedData(z["X"][:n_items], z["Xprev"][:n_items])
    raise AssertionError(name)


def assert_cache_consistent(state) -> None:
    """Memoized VI's invariant: every batch's cached statistics, fast-forwarded through the move log,
    sum to the whole-data statistics (fields and entropies)."""
    from stickbreak.moves.records import fast_forward

    cached = [fast_forward(m, state.log[s:], b).without_merge_terms() for b, (m, s) in enumerate(zip(state.memo, state.seen))]
    total = sum(cached[1:], cached[0])
    np.testing.assert_array_equal(total.uids, state.stats.uids)
    for key in total.fields:
        np.testing.assert_allclose(total.fields[key], state.stats.fields[key], rtol=1e-9, atol=1e-7)
    np.testing.assert_allclose(total.elbo_terms["entropy"], state.stats.elbo_terms["entropy"], rtol=1e-9, atol=1e-7)
