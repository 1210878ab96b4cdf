"""HDPAdmixture: an HDP admixture of Gaussian topics over groups of items (Hughes 2016, Ch. 5)."""

import numpy as np
import pytest

from stickbreak import DataError, DPMixture, HDPAdmixture

COVARIANCES = [np.diag([4.0, 0.2, 1.0, 1.0]), np.diag([0.2, 4.0, 1.0, 1.0]),
               np.array([[2.0, 1.8, 0, 0], [1.8, 2.0, 0, 0], [0, 0, 0.3, 0], [0, 0, 0, 0.3]])]


def _groups(n_groups, size, seed):
    """Zero-mean items; each group mixes two of three covariances in its own proportions."""
    rng = np.random.default_rng(seed)
    groups = []
    for _ in range(n_groups):
        pair = rng.choice(3, 2, replace=False)
        z = rng.choice(pair, size=size, p=rng.dirichlet([1.0, 1.0]))
        chol = [np.linalg.cholesky(c) for c in COVARIANCES]
        groups.append(np.stack([chol[k] @ rng.normal(size=4) for k in z]))
    return np.concatenate(groups), [size] * n_groups


@pytest.fixture(scope="module")
def fitted():
    X, lengths = _groups(60, 80, seed=0)
    return HDPAdmixture(n_topics=10, random_state=0).fit(X, lengths=lengths)


def test_the_moves_find_the_three_topics_and_groups_use_their_own(fitted):
    assert fitted.n_topics_ == 3 and np.sort(fitted.topic_weights_).sum() > 0.9
    X, lengths = _groups(4, 80, seed=0)  # the first training groups again
    proportions = fitted.topic_proportions(X, lengths=lengths)
    assert proportions.shape == (4, 3) and np.all(proportions.sum(axis=1) < 1.0)
    assert np.all(np.sort(proportions, axis=1)[:, -2:].sum(axis=1) > 0.95)  # two true topics per group
    resp = fitted.transform(X, lengths=lengths)
    assert resp.shape == (320, 3) and np.allclose(resp.sum(axis=1), 1.0)
    assert np.array_equal(fitted.predict(X, lengths=lengths), resp.argmax(axis=1))


def test_births_grow_k_from_one_topic_and_keep_the_memoized_elbo_monotone():
    X, lengths = _groups(40, 60, seed=3)
    kwargs = dict(n_topics=1, n_batches=2, max_laps=15, tol=0.0, local_start="best", random_state=0)
    grown = HDPAdmixture(**kwargs).fit(X, lengths=lengths)
    births = sum(r["moves"]["birth"]["accepted"] for r in grown.trace_)
    assert births > 0 and grown.n_topics_ >= 3
    trace = np.array([r["elbo"] for r in grown.trace_])
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:]))
    fixed = HDPAdmixture(moves=(), **kwargs).fit(X, lengths=lengths)
    assert fixed.n_topics_ == 1 and grown.lower_bound_ > fixed.lower_bound_


def test_held_out_groups_score_higher_than_under_a_dp_mixture_of_the_same_family(fitted):
    X, lengths = _groups(30, 80, seed=1)
    train, _ = _groups(60, 80, seed=0)
    mixture = DPMixture(n_components=10, obs_model="zero_mean_gauss", random_state=0).fit(train)
    ours = fitted.score_samples(X, lengths=lengths)
    assert ours.shape == (len(X),) and np.all(np.isfinite(ours))
    assert fitted.score(X, lengths=lengths) > mixture.score(X) + 0.1
    assert np.isclose(fitted.score(X, lengths=lengths, total=True), ours.sum())   # total=True as every score


def test_bad_settings_and_groups_are_refused_before_any_work():
    X, lengths = _groups(3, 10, seed=2)
    with pytest.raises(ValueError, match="word counts"):
        HDPAdmixture(obs_model="mult").fit(X, lengths=lengths)
    with pytest.raises(DataError, match="lengths add up"):
        HDPAdmixture().fit(X, lengths=[10, 10])
    with pytest.raises(ValueError, match="n_batches=5 exceeds the number of groups"):
        HDPAdmixture(n_batches=5).fit(X, lengths=lengths)
    with pytest.raises(ValueError, match="local_start"):
        HDPAdmixture(local_start="middle").fit(X, lengths=lengths)


def test_threads_share_the_groups_and_fit_the_same_model():
    X, lengths = _groups(20, 40, seed=4)
    kwargs = dict(n_topics=4, moves=(), max_laps=5, tol=0.0, random_state=0)
    one = HDPAdmixture(n_jobs=1, **kwargs).fit(X, lengths=lengths)
    two = HDPAdmixture(n_jobs=2, **kwargs).fit(X, lengths=lengths)
    assert two.model_.local.n_chunks == 2
    assert two.lower_bound_ == pytest.approx(one.lower_bound_, rel=1e-9)
    np.testing.assert_allclose(two.topic_weights_, one.topic_weights_, rtol=1e-7)
