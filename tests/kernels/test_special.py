"""The vectorisable special functions of :mod:`stickbreak.kernels.special` against NumPy/SciPy,
called the way the kernels call them (from a loop compiled with fastmath and ``error_model="numpy"``)."""

import numpy as np
import pytest
from numba import njit
from scipy.special import digamma as scipy_digamma

from stickbreak.kernels.special import digamma, digamma_positive, exp_bounded, log_positive
from stickbreak.kernels.topics.dense import FAST


def _vectorised(function):
    @njit(fastmath=FAST, error_model="numpy")
    def apply(x):
        out = np.empty_like(x)
        for i in range(x.size):
            out[i] = function(x[i])
        return out
    return apply


def _ulps(got, expected):
    return np.abs(got - expected) / np.spacing(np.abs(expected))


def test_log_positive_is_within_one_ulp_over_every_binade():
    rng = np.random.default_rng(0)
    x = np.concatenate([np.exp(rng.uniform(-707, 709, 200_000)), 1.0 + rng.uniform(-1e-6, 1e-6, 20_000),
                        rng.uniform(0.5, 2.0, 20_000), [np.finfo(float).tiny, np.finfo(float).max, 1.0, 2.0, 0.5]])
    got = _vectorised(log_positive)(x)
    assert got[-3] == 0.0 and got[-2] == np.log(2.0) and got[-1] == np.log(0.5)
    assert _ulps(got[:-3], np.log(x[:-3])).max() <= 1.0


def test_exp_bounded_is_within_two_ulps_on_its_range():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-708, 709, 200_000), rng.uniform(-1e-3, 1e-3, 20_000), [0.0, -708.0, 709.0]])
    got = _vectorised(exp_bounded)(x)
    assert got[-3] == 1.0
    assert _ulps(got, np.exp(x)).max() <= 2.0


@pytest.mark.parametrize("scale", ["tiny", "unit", "large"])
def test_digamma_positive_matches_scipy_and_the_scalar_digamma(scale):
    rng = np.random.default_rng(2)
    x = {"tiny": np.exp(rng.uniform(-690, -5, 50_000)), "unit": rng.uniform(1e-3, 20.0, 50_000),
         "large": np.exp(rng.uniform(3, 40, 50_000))}[scale]
    got, expected = _vectorised(digamma_positive)(x), scipy_digamma(x)
    assert np.max(np.abs(got - expected) / np.maximum(1.0, np.abs(expected))) < 1e-11
    scalar = np.array([digamma(v) for v in x[:200]])
    assert np.max(np.abs(got[:200] - scalar) / np.maximum(1.0, np.abs(scalar))) < 1e-11


def test_digamma_positive_at_zero_is_minus_infinity():
    assert digamma_positive(0.0) == -np.inf
