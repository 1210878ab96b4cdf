"""Shared fixtures: small data and posteriors for every observation model."""

import gzip
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from stickbreak import obs
from stickbreak.data import BagOfWords, DenseData, LaggedData
from stickbreak.obs import expfam

# the checkpoints the tests write are signed with a key of their own, not the user's (subprocesses inherit it)
os.environ["STICKBREAK_KEY_FILE"] = str(Path(tempfile.mkdtemp(prefix="stickbreak-key-")) / "checkpoint.key")

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

    cached = [fast_forward(m, state.log[s:],
                           b).without_merge_terms() for b, (m, s) in enumerate(zip(state.memo, state.seen))]
    total = sum(cached[1:], cached[0])
    np.testing.assert_array_equal(total.uids, state.stats.uids)
    for key in total.fields:
        np.testing.assert_allclose(total.fields[key], state.stats.fields[key], rtol=1e-9, atol=1e-7)
    np.testing.assert_allclose(total.elbo_terms["entropy"], state.stats.elbo_terms["entropy"], rtol=1e-9, atol=1e-7)


def fit_memoized(X, name, moves, n_batches, n_components, max_laps, seed=0, n_active=None, executor=None,
                 **moves_options):
    """Memoized VI from k-means++ with every ELBO decrease (after each batch and move) an error;
    returns (model, batches, result), the result's state as saved (with the batches' caches)."""
    import dataclasses
    import warnings

    from stickbreak.models import make_mixture_model
    from stickbreak.config import LearnConfig, MixtureConfig, MovesConfig
    from stickbreak.driver import ELBODecreaseWarning, fit, split_batches
    from stickbreak.learn import MemoizedVI
    from stickbreak.models.mixture.init import initial_params

    data = obs.get(name).check_data(X)
    model = make_mixture_model(MixtureConfig(obs_model=name, n_components=n_components, n_active=n_active), data)
    params = initial_params(model, data, n_components, "kmeans++", np.random.default_rng(seed))
    batches = split_batches(data, n_batches, seed)
    learner = MemoizedVI(MovesConfig(moves=moves, **moves_options), np.random.default_rng(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ELBODecreaseWarning)
        result = fit(model, batches.data, params, learner, LearnConfig(algorithm="memoized", max_laps=max_laps, tol=0),
                     executor=executor)
    # the saved state: with the batches' caches fetched from the executor that holds them
    return model, batches, dataclasses.replace(result, state=learner.saved_state(result.state, batches.data,
                                                                                 executor))


def elbo_of(model, stats) -> float:
    """The whole-data ELBO of summed statistics."""
    from stickbreak.core.protocols import total_elbo

    return total_elbo(model.score(stats)[1])


def assert_same_stats(a, b, rtol=1e-10) -> None:
    """Two statistics agree: uids, every field and the entropy."""
    np.testing.assert_array_equal(a.uids, b.uids)
    assert set(a.fields) == set(b.fields)
    for key in a.fields:
        np.testing.assert_allclose(a.fields[key], b.fields[key], rtol=rtol, atol=1e-8, err_msg=key)
    np.testing.assert_allclose(a.elbo_terms["entropy"], b.elbo_terms["entropy"], rtol=rtol, atol=1e-8)


def check_delete_delta(model, data, params, reassign) -> None:
    """Summed per-batch delete proposals (one refinement step) of the smallest component equal the
    statistics of the explicit re-assignment ``reassign(log_weights without the target)``, and so
    does the ELBO change (Hughes 2016, Eq. 4.25-4.27)."""
    import pytest

    from stickbreak.driver import split_batches
    from stickbreak.models.mixture import moves as mixture_moves
    from stickbreak.moves.delete import proposal_here

    batches = split_batches(data, 3, seed=0)
    locals_ = [model.local_step(params, b) for b in batches.data]
    parts = [model.summarize(b, local, params.uids) for b, local in zip(batches.data, locals_)]
    whole = sum(parts[1:], parts[0])
    target = int(params.uids[np.argmin(whole.counts)])
    proposals = [proposal_here(model, params, b, local, (target,), whole, part, 1)[0]
                 for b, local, part in zip(batches.data, locals_, parts)]
    fast = sum(proposals[1:], proposals[0])
    without = mixture_moves.without_component(params, target)
    brute = None
    for batch in batches.data:
        part = model.summarize_resp(batch, reassign(model.log_weights(without, batch)), without.uids)
        brute = part if brute is None else brute + part
    assert_same_stats(fast, brute)
    before = elbo_of(model, whole)
    assert elbo_of(model, fast) - before == pytest.approx(elbo_of(model, brute) - before, rel=1e-9, abs=1e-7)


def check_merge_delta(model, data, params, pairs, as_family=lambda resp: resp) -> None:
    """Each merge of ``pairs`` (uids) on cached statistics equals the statistics, and the ELBO change,
    of the explicitly merged responsibilities ``as_family(dense merged resp)`` (Hughes 2016, Eq. 4.3)."""
    import pytest

    from stickbreak.core.sparse_resp import to_dense

    uids = params.uids
    local = model.local_step(params, data)
    stats = model.summarize(data, local, uids, merge_pairs=pairs)
    before = elbo_of(model, stats.without_merge_terms())
    for kept, removed in pairs:
        fast = stats.merge(kept, removed).without_merge_terms()
        resp = to_dense(local.resp).copy()
        a, b = int(np.flatnonzero(uids == kept)[0]), int(np.flatnonzero(uids == removed)[0])
        resp[:, a] += resp[:, b]
        brute = model.summarize_resp(data, as_family(np.delete(resp, b, axis=1)), np.delete(uids, b))
        assert_same_stats(fast, brute)
        assert elbo_of(model, fast) - before == pytest.approx(elbo_of(model, brute) - before, rel=1e-9, abs=1e-7)


def check_birth_delta(model, data, params, cfg, check_proposal=lambda resp, split: resp, merge_newborns=False):
    """A birth tracked over two batches (the second expanded at creation, then both re-expanded with
    known parameters) equals the statistics, and the ELBO change, of the explicit proposal
    responsibilities: the target's mass split by
    :func:`stickbreak.models.mixture.moves.split_target` (Hughes 2016, Eq. 4.12-4.19).
    ``check_proposal(full resp, split)`` may inspect and convert each batch's proposal. With
    ``merge_newborns`` the first two newborns are merged in every batch's expansion (the cleanup of
    :func:`stickbreak.moves.birth.cleaned`) and in the explicit responsibilities. Returns the
    whole-data candidate statistics."""
    from dataclasses import replace

    import pytest

    from stickbreak.core.sparse_resp import to_dense
    from stickbreak.driver import split_batches
    from stickbreak.models.mixture import moves as mixture_moves
    from stickbreak.moves import birth

    batches = split_batches(data, 2, seed=0)
    locals_ = [model.local_step(params, batch) for batch in batches.data]
    parts = [model.summarize(batch, loc, params.uids) for batch, loc in zip(batches.data, locals_)]
    whole = parts[0] + parts[1]
    target = int(params.uids[np.argmax(whole.counts)])
    rng = np.random.default_rng(0)
    proposal = birth.start(model, 0, batches.data[0], locals_[0], params, target, list(range(10, 20)), 2, cfg, rng)
    proposal = birth.extend(model, proposal, 1, batches.data[1], locals_[1], params, cfg, rng)  # pool complete
    assert proposal is not None and proposal.created and not proposal.complete and len(proposal.born) >= 2
    used = {}
    for b in (0, 1):  # batch 0 expanded for the first time, batch 1 again (a revisit)
        used[b] = (proposal.centers, proposal.log_weights)
        proposal = birth.extend(model, proposal, b, batches.data[b], locals_[b], params, cfg, rng)
    assert proposal.complete
    column = int(np.flatnonzero(params.uids == target)[0])
    uids = np.concatenate([params.uids, proposal.born])
    if merge_newborns:
        kept, removed = proposal.born[:2]
        proposal = replace(proposal, born=proposal.born[1:],
                           expansions={b: e.merge(kept, removed) for b, e in proposal.expansions.items()})
    fast = birth.candidate(whole, proposal)
    slots = getattr(model, "split_slots", None)
    brute = None
    for b, batch in enumerate(batches.data):
        resp = to_dense(locals_[b].resp).copy()
        split = to_dense(mixture_moves.split_target(model, batch, resp[:, column], *used[b], slots))
        resp[:, column] = split[:, 0]  # the target keeps part of its mass
        full = check_proposal(np.column_stack([resp, split[:, 1:]]), split)
        if merge_newborns:  # newborn 1 into newborn 0 (columns K and K + 1 of the full responsibilities)
            full = np.asarray(full).copy()
            full[:, len(params.uids)] += full[:, len(params.uids) + 1]
            full = np.delete(full, len(params.uids) + 1, axis=1)
        part = model.summarize_resp(batch, full, uids if not merge_newborns else np.delete(uids, len(params.uids) + 1))
        brute = part if brute is None else brute + part
    assert_same_stats(fast, brute)
    before = elbo_of(model, whole)
    assert elbo_of(model, fast) - before == pytest.approx(elbo_of(model, brute) - before, rel=1e-9, abs=1e-7)
    return fast


def chain_stats(model, params, data, merge=None):
    """Statistics of an HMM's exact q(z) (states ``merge = (a, b)``, column indices, merged) from the
    NumPy twin's full pairwise marginals (no kernel)."""
    from stickbreak.core.suffstats import SuffStats
    from stickbreak.kernels.hmm import _reference as hmm_twin

    frames = model.frames(data)
    loglik = model.obs.expected_loglik(params.obs, frames)
    log_start = model.transitions.expected_log_start(params.trans)
    log_trans = model.transitions.expected_log_trans(params.trans)
    resp_all, start, trans, table = [], 0.0, 0.0, 0.0
    for s in range(data.n_items):
        lo, hi = data.offsets[s], data.offsets[s + 1]
        resp, pairwise, _ = hmm_twin.sequence_posterior(log_start, log_trans, loglik[lo:hi])
        if merge is not None:
            resp, pairwise = hmm_twin.merge_states(resp, pairwise, *merge)
        resp_all.append(resp)
        start, trans = start + resp[0], trans + pairwise.sum(axis=0)
        table = table + hmm_twin.entropy_table(resp, pairwise)
    resp = np.concatenate(resp_all)
    fields = {"N": resp.sum(axis=0), **model.obs.suff_stats(frames, resp, model.obs_prior), "start": start,
              "trans": trans}
    uids = params.uids if merge is None else np.delete(params.uids, merge[1])
    return SuffStats(uids, fields, {"entropy": table[1:].sum(axis=1) + table[0]},
                     {"n_items": float(data.n_items), "log_base": model.obs.log_base(frames)}, square=("trans",))


@pytest.fixture(autouse=True, scope="session")
def _learned_starts_computed_once():
    """The HDP's default start (:func:`~stickbreak.models.topics.init.gibbs_topics`: a collapsed
    Gibbs sampler's 200 sweeps) is most of a small HDP fit's time, and many tests fit the same
    HDP to the same documents from the same seed (one fit on each executor, a fit killed and
    resumed at every lap). Within a test process each distinct call runs once: the answer and the
    generator's state after it are kept under the call's arguments and the generator's state
    before it, so a repeated call returns what it would have computed and leaves the generator
    where it would have left it; the fits are the same as without this. (The start's own tests call
    the function itself.)"""
    from stickbreak.models.topics import init

    compute, kept = init.gibbs_topics, {}

    def once(data, eta, n_topics, doc_concentration, concentration, rng, *args, **kwargs):
        call = (data.counts, eta, n_topics, doc_concentration, concentration, args, kwargs, rng.bit_generator.state)
        key = hashlib.sha256(pickle.dumps(call)).hexdigest()
        if key not in kept:
            lam = compute(data, eta, n_topics, doc_concentration, concentration, rng, *args, **kwargs)
            kept[key] = lam, rng.bit_generator.state
        lam, state = kept[key]
        rng.bit_generator.state = state
        return lam.copy()

    init.gibbs_topics = once
    yield
    init.gibbs_topics = compute
