"""Streaming VB with births (``partial_fit`` of the mixtures): coordinate ascent never lowers the
ELBO, a chunk's statistics are those of a valid q, a newborn's merge is scored exactly, and a class
that first appears late in a stream gets a cluster of its own (images; and texts, gathered by the
model's collapsed sampler)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import PCA

from stickbreak import DPMixture, FiniteMixture, ShortTextTopicModel, load, obs
from stickbreak.config import MovesConfig
from stickbreak.core.protocols import total_elbo
from stickbreak.core import sparse_resp
from stickbreak.core.sparse_resp import to_dense
from stickbreak.data import BagOfWords
from stickbreak.learn.streaming import _resampled, fit_chunk, fit_with_window, merged_entropy, refine

from conftest import load_digits_shared


@pytest.fixture(scope="module")
def digits_stream():
    """Digits in 10 PCA dimensions, ordered as a stream in which class 0 first appears in chunk 7
    (of 10; chunks of about 180 images)."""
    X, y = load_digits_shared()
    X = PCA(10, random_state=0).fit_transform(X)
    rng = np.random.default_rng(0)
    old, new = np.flatnonzero(y != 0), np.flatnonzero(y == 0)
    rng.shuffle(old), rng.shuffle(new)
    old_chunks, new_chunks = np.array_split(old, 10), np.array_split(new, 4)
    chunks = [old_chunks[c] if c < 6 else np.concatenate([old_chunks[c], new_chunks[c - 6]]) for c in range(10)]
    return X, y, chunks


def _first_chunks(X, chunks, n):
    model = DPMixture(obs_model="diag_gauss", random_state=0)
    for c in range(n):
        model.partial_fit(X[chunks[c]])
    return model


def test_refine_never_lowers_the_elbo(digits_stream):
    X, _, chunks = digits_stream
    model = _first_chunks(X, chunks, 2)
    data = obs.get("diag_gauss").check_data(X[chunks[2]], "X")
    elbo = [refine(model.model_, model.params_, model.stats_, data, tol=0.0, max_steps=steps).elbo
            for steps in range(1, 8)]
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:]))


def test_chunk_statistics_are_those_of_its_responsibilities(digits_stream):
    """What a chunk adds to the statistics seen is exactly its own q's statistics, births included,
    and the reported ELBO is the exact ELBO of the sum."""
    X, _, chunks = digits_stream
    model = _first_chunks(X, chunks, 6)
    data = obs.get("diag_gauss").check_data(X[chunks[6]], "X")
    seen = model.stats_
    fitted = fit_chunk(model.model_, model.params_, seen, data, MovesConfig(moves=("birth",)),
                       np.random.default_rng(0))
    assert fitted.moves["birth"]["accepted"] > 0  # the new class is born
    born = np.setdiff1d(fitted.local_uids, seen.uids)
    chunk_stats = model.model_.summarize(data, fitted.local, fitted.local_uids)
    expected = (seen.without_merge_terms().insert_empty(born) + chunk_stats).select(fitted.stats.uids)
    for key, value in expected.fields.items():
        np.testing.assert_allclose(fitted.stats.fields[key], value, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(fitted.stats.elbo_terms["entropy"], expected.elbo_terms["entropy"], atol=1e-9)
    np.testing.assert_allclose(total_elbo(fitted.terms), total_elbo(model.model_.score(fitted.stats)[1]), rtol=1e-12)


def test_newborn_merge_gain_equals_brute_force(digits_stream):
    """Merging a newborn into an old component: the ELBO from the merged statistics with the stream's
    pair entropy equals the ELBO of the merged responsibilities summarised from scratch."""
    X, _, chunks = digits_stream
    model = _first_chunks(X, chunks, 3)
    m = model.model_
    data = obs.get("diag_gauss").check_data(X[chunks[3]], "X")
    newborn = int(model.params_.uids.max()) + 1
    seen = model.stats_.without_merge_terms().insert_empty([newborn])
    resp = to_dense(m.local_step(model.params_, data).resp)
    resp = np.column_stack([resp, np.zeros(len(resp))])
    first = int(np.argmax(resp.sum(axis=0)))
    resp[::3, -1], resp[::3, first] = resp[::3, first] * 0.6, resp[::3, first] * 0.4  # the newborn takes a share
    uids = seen.uids
    params, _ = m.score(seen + m.summarize_resp(data, resp, uids))
    local = m.local_step(params, data)
    pairs = np.array([[uids[first], newborn]])
    stream = (seen + m.summarize(data, local, uids)).with_merge_terms(pairs, merged_entropy(m, seen, data, local, uids,
                                                                                          pairs))
    dense = to_dense(local.resp)
    merged_resp = np.delete(dense, -1, axis=1)
    merged_resp[:, first] += dense[:, -1]
    brute = seen.remove(newborn) + m.summarize_resp(data, merged_resp, uids[:-1])
    assert total_elbo(m.score(stream.merge(int(uids[first]), newborn))[1]) == pytest.approx(
        total_elbo(m.score(brute)[1]), rel=1e-12)


def test_a_class_first_seen_late_gets_a_new_cluster(digits_stream):
    """Class 0 appears from chunk 7 on: by the end of chunk 8 a cluster born after chunk 6 holds at
    least 80 % of the class-0 images streamed so far; later chunks keep K bounded."""
    X, y, chunks = digits_stream
    model = _first_chunks(X, chunks, 6)
    before = set(model.params_.uids.tolist())
    for c in (6, 7):
        model.partial_fit(X[chunks[c]])
    zeros = np.concatenate(chunks[6:8])[y[np.concatenate(chunks[6:8])] == 0]
    uids, counts = np.unique(model.params_.uids[model.predict(X[zeros])], return_counts=True)
    assert uids[np.argmax(counts)] not in before and counts.max() >= 0.8 * len(zeros)
    assert np.mean(model.labels_ == model.predict(X[chunks[7]])) > 0.95  # labels_: the last chunk's


def test_state_is_bounded_by_the_model_and_survives_save(digits_stream, tmp_path):
    """A long stream keeps K-sized statistics and a bounded window only, and a saved and loaded model
    (its window included) goes on exactly as the one that never stopped."""
    X, _, chunks = digits_stream
    rng = np.random.default_rng(1)
    stream = [rng.choice(len(X), 60, replace=False) for _ in range(40)]
    model = DPMixture(obs_model="diag_gauss", move_options={"stream_window": 300}, random_state=0)
    sizes = []
    for c, rows in enumerate(stream[:30]):
        model.partial_fit(X[rows])
        sizes.append(sum(np.asarray(v).nbytes for v in model.stats_.fields.values()) / model.stats_.n_components)
    assert max(sizes) == min(sizes)  # per component: nothing grows with the stream
    assert model._stream_window.items.n_items == 300 and model.n_components_ <= 100
    model.save(tmp_path / "stream.npz")
    loaded = load(tmp_path / "stream.npz")
    for rows in stream[30:]:
        model.partial_fit(X[rows])
        loaded.partial_fit(X[rows])
    np.testing.assert_array_equal(model.params_.uids, loaded.params_.uids)
    assert model.lower_bound_ == pytest.approx(loaded.lower_bound_, rel=1e-12)


def test_finite_mixture_streams_without_births(digits_stream):
    X, _, chunks = digits_stream
    model = FiniteMixture(n_components=5, obs_model="diag_gauss", random_state=0)
    for c in range(3):
        model.partial_fit(X[chunks[c]])
    assert model.n_components_ == 5 and model.trace_[-1]["moves"]["birth"]["tried"] == 0
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(X[chunks[3], :4])


def test_the_window_leaves_exactly_what_it_brought(digits_stream):
    """The window's items enter the next chunk's fit with their old share of the statistics taken out:
    while the window holds every item since the first chunk, the statistics less the window's are
    exactly the first chunk's (newborns: zero)."""
    X, _, chunks = digits_stream
    rng = np.random.default_rng(2)
    model = DPMixture(obs_model="diag_gauss", random_state=0).partial_fit(X[chunks[0]])
    first = model.stats_
    for _ in range(5):
        model.partial_fit(X[rng.choice(len(X), 60, replace=False)])
        rest = model.stats_ - model._stream_window.stats
        expected = first.insert_empty(np.setdiff1d(rest.uids, first.uids)).select(rest.uids)
        for name in rest.fields:
            np.testing.assert_allclose(rest.fields[name], expected.fields[name], atol=1e-9)
        np.testing.assert_allclose(rest.elbo_terms["entropy"], expected.elbo_terms["entropy"], atol=1e-9)
    fitted, window, rows = fit_with_window(model.model_, model.params_, model.stats_, None, obs.get("diag_gauss")
                                           .check_data(X[chunks[1]]), MovesConfig(moves=()), rng, size=50)
    assert window.items.n_items == 50 and np.array_equal(rows, np.arange(len(chunks[1])))
    assert fit_with_window(model.model_, fitted.params, fitted.stats, None, window.items, MovesConfig(moves=()), rng,
                           size=0)[1] is None  # stream_window=0: each chunk alone


# ---------------------------------------------------------------------------------------------- text streams
def _short_texts(rng, group: int, n_docs: int, n_generic: int = 20, n_specific: int = 30) -> sp.csr_matrix:
    """``n_docs`` documents of 3-5 words: at least two of ``group``'s own 30 words, the rest from 20
    words every group uses (4 groups)."""
    rows = []
    for _ in range(n_docs):
        length = rng.integers(3, 6)
        own = rng.integers(2, length + 1)
        words = np.concatenate([n_generic + group * n_specific + rng.integers(n_specific, size=own),
                                rng.integers(n_generic, size=length - own)])
        rows.append(np.bincount(words, minlength=n_generic + 4 * n_specific))
    return sp.csr_matrix(np.array(rows, dtype=float))


def test_the_sampler_gathers_a_new_kind_of_text_across_the_chunk():
    """Documents of a vocabulary first seen in this chunk, re-partitioned by the model's collapsed
    sampler among the components learned so far and new clusters (:func:`_resampled`): at least
    80 % of them land in new components, the other documents stay with their groups, the ELBO
    rises, and the statistics are those of a valid q (the reported ELBO is that of their sum)."""
    rng = np.random.default_rng(0)
    model = ShortTextTopicModel(random_state=0)
    for _ in range(6):
        model.partial_fit(sp.vstack([_short_texts(rng, g, 100) for g in range(3)]))
    assert model.n_topics_ == 3
    chunk = BagOfWords(sp.vstack([_short_texts(rng, 3, 60)] + [_short_texts(rng, g, 100) for g in range(3)]).tocsr())
    m, seen = model.model_, model.stats_.without_merge_terms()
    current = refine(m, model.params_, seen, chunk, tol=1e-6, max_steps=50)
    counts = {"birth": {"tried": 0, "accepted": 0}, "merge": {"tried": 0, "accepted": 0}}
    seen_after, after = _resampled(m, current, seen, chunk, counts, np.random.default_rng(0), 1e-6, 50)
    assert counts["birth"] == {"tried": 1, "accepted": 1} and after.elbo > current.elbo
    owner = after.chunk.uids[sparse_resp.row_argmax(after.local.resp)]
    assert np.mean(~np.isin(owner[:60], seen.uids)) >= 0.8 and np.all(np.isin(owner[60:], seen.uids))
    assert total_elbo(m.score(seen_after + after.chunk)[1]) == pytest.approx(after.elbo, rel=1e-12)
