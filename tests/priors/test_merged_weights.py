"""The weights' ELBO change of every merge pair at once equals refitting the weights for each pair
(Hughes 2016, §4.1): the DP's closed form (prefix sums over the sticks), with fixed and learned
concentrations, and the finite Dirichlet's refit."""

import numpy as np
import pytest

from stickbreak.priors import mixture_dp, mixture_finite
from stickbreak.priors.merged_weights import refitted_gains


@pytest.mark.parametrize("n_components", [2, 3, 9, 40])
@pytest.mark.parametrize("module, prior", [(mixture_dp, mixture_dp.default_prior(0.5, 1.0)),
                                           (mixture_dp, mixture_dp.default_prior(4.0, 2.0)),
                                           (mixture_dp, mixture_dp.default_prior(1.0, 1.0, learn=True)),
                                           (mixture_finite, mixture_finite.default_prior(0.7))])
def test_every_pair_at_once_equals_a_refit_per_pair(module, prior, n_components):
    rng = np.random.default_rng(n_components)
    counts = rng.gamma(0.5, 50.0, size=n_components)
    counts[rng.random(n_components) < 0.25] = 0.0  # empty components merge too
    first, second = np.triu_indices(n_components, k=1)
    fast = module.merge_gains(prior, counts, first, second)
    reference = refitted_gains(module.global_step, module.elbo, prior, counts, first, second)
    np.testing.assert_allclose(fast, reference, rtol=1e-10, atol=1e-9)
