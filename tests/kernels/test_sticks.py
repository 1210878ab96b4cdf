"""The compiled top-level sticks (kernels/sticks.py) against their NumPy form (priors/top_sticks.py)
and SciPy: trigamma, the objective and gradient in one pass, and the L-BFGS search's optimum."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import fmin_l_bfgs_b
from scipy.special import expit, logit, polygamma

from stickbreak.kernels.special import trigamma
from stickbreak.kernels.sticks import minimize_sticks, negative_objective
from stickbreak.priors import top_sticks as sticks


def _problem(n, seed):
    rng = np.random.default_rng(seed)
    return dict(gamma=float(rng.gamma(2.0, 2.0)), omega=rng.gamma(2.0, 5.0, n) + 1.0, on=rng.gamma(2.0, 2.0, n),
                off=rng.gamma(2.0, 3.0, n), weights=-rng.gamma(2.0, 1.0, n), weight_rest=-2.0)


def test_trigamma_matches_scipy():
    x = np.concatenate([np.geomspace(1e-8, 1e5, 200), [5.999, 6.0, 9.999, 10.0]])
    values = np.array([trigamma(v) for v in x])
    np.testing.assert_allclose(values, polygamma(1, x), rtol=1e-12)
    assert trigamma(0.0) == np.inf


@pytest.mark.parametrize("n", [1, 4, 30])
def test_objective_and_gradient_in_one_pass_equal_the_numpy_form(n):
    p = _problem(n, n)
    c = np.random.default_rng(7).normal(0.0, 2.0, n)
    rho = np.clip(expit(c), sticks.RHO_EPS, 1.0 - sticks.RHO_EPS)
    grad = np.empty(n)
    value = negative_objective(c, p["gamma"], p["omega"], p["on"], p["off"], p["weights"], p["weight_rest"], 0.3,
                               sticks.RHO_EPS, grad)
    args = (p["gamma"], rho, p["omega"], p["on"], p["off"], p["weights"], p["weight_rest"])
    np.testing.assert_allclose(value, -0.3 * sticks.objective(*args), rtol=1e-11)
    np.testing.assert_allclose(grad, -0.3 * sticks.gradient(*args) * rho * (1.0 - rho), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("n", [1, 5, 40])
@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_search_reaches_scipys_optimum(n, seed):
    p = _problem(n, 10 * n + seed)
    constants = (p["gamma"], p["omega"], p["on"], p["off"], p["weights"], p["weight_rest"], 1.0 / n, sticks.RHO_EPS)
    start = logit(np.full(n, 0.5 / n))

    def negative(c):
        grad = np.empty(n)
        return negative_objective(np.ascontiguousarray(c), *constants, grad), grad

    _, scipy_value, _ = fmin_l_bfgs_b(negative, start, factr=10.0, pgtol=1e-10, maxiter=5000)
    c, value = minimize_sticks(start, *constants, 1e4 * np.finfo(float).eps, 1e-5, 500)
    assert value <= negative(start)[0]
    assert value == pytest.approx(scipy_value, rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(negative(c)[0], value)
