"""The weak-limit sticky HDP-HMM of the blocked Gibbs sampler (Fox, Sudderth, Jordan & Willsky 2011,
"A sticky HDP-HMM with application to speaker diarization", §3.2 and Alg. 3): L states,
``beta ~ Dir(gamma/L, ..., gamma/L)``, ``pi_0 ~ Dir(alpha_0 beta)``, ``pi_j ~ Dir(alpha beta + kappa
e_j)``, emissions from the observation family's conjugate prior. The hyperparameters are those of
the variational HDP-HMM (:func:`stickbreak.priors.transition_hdp.default_prior`), so the sampler and
VI share a prior up to the weak limit. The sampler is :mod:`stickbreak.learn.blocked_gibbs`.

Also here: the statistics of hard state labels (:func:`labels_local`), what a sampler's output
becomes when variational inference takes over from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from ...core.protocols import ChainSweeps
from ...kernels.hmm.sampling import transition_counts
from ...obs import expfam
from ...obs.expfam import Natural, ObsFamily
from ..mixture.init import one_hot
from .params import HMMLocal

#: Observation families whose parameters the sampler can draw (``sample_params`` and ``params_loglik``).
SAMPLED_FAMILIES = ("gauss",)


def labels_local(states: np.ndarray, offsets: np.ndarray, n_states: int) -> HMMLocal:
    """The local parameters of a ``q(z)`` that is certain of ``states``: one-hot marginals, their
    start and transition counts, zero entropy (what memoized VI's statistics of a sampler's output are)."""
    states = np.ascontiguousarray(states, dtype=np.int64)
    start, trans = transition_counts(states, np.asarray(offsets, dtype=np.int64), n_states)
    return HMMLocal(one_hot(states, n_states), start, trans, np.zeros((n_states + 1, n_states)),
                    np.zeros(len(offsets) - 1), np.zeros(0))


def dirichlet_rows(rng: np.random.Generator, concentrations: np.ndarray) -> np.ndarray:
    """One Dirichlet draw per row of ``concentrations`` (zeros allowed) by normalised Gamma draws; a
    row whose draws all underflow to 0 puts its mass on its largest concentration."""
    draws = rng.standard_gamma(concentrations)
    total = draws.sum(axis=-1, keepdims=True)
    empty = total[..., 0] <= 0.0
    if np.any(empty):
        draws[empty] = one_hot(np.argmax(concentrations[empty], axis=-1), concentrations.shape[-1])
        total[empty] = 1.0
    return draws / total


def _log_dirichlet_multinomial(counts: np.ndarray, prior: np.ndarray) -> float:
    """``sum_rows log [Gamma(A) / Gamma(A + n) prod_k Gamma(a_k + n_k) / Gamma(a_k)]`` (terms with
    ``n_k = 0`` are 0 and skipped, so a vanishing ``a_k`` costs nothing)."""
    used = counts > 0
    rows = gammaln(prior.sum(axis=-1)) - gammaln(prior.sum(axis=-1) + counts.sum(axis=-1))
    return float(rows.sum() + np.sum(gammaln(prior[used] + counts[used]) - gammaln(prior[used])))


@dataclass(frozen=True, eq=False)
class ChainSample:
    """One state of the sampler: every frame's state, ``beta``, the start and transition
    probabilities, the drawn emission parameters, and ``log p(x | pi, theta)`` of the filter that
    drew the states (NaN before the first sweep)."""

    states: np.ndarray
    beta: np.ndarray
    start_probs: np.ndarray
    trans_probs: np.ndarray
    emissions: dict
    log_evidence: float = float("nan")


@dataclass(frozen=True, eq=False)
class WeakLimitHMM(ChainSweeps):
    """The sticky HDP-HMM at weak limit ``n_states`` with an observation family and its prior."""

    obs: ObsFamily
    obs_prior: Natural
    n_states: int
    transition_concentration: float = 0.5
    start_concentration: float = 5.0
    stickiness: float = 0.0
    concentration: float = 10.0

    monotone = False  # a sampler's log joint goes up and down

    def __post_init__(self):
        if self.obs.name not in SAMPLED_FAMILIES:
            raise ValueError(f"the blocked Gibbs sampler draws emissions of obs_model in {list(SAMPLED_FAMILIES)}, "
                             f"not {self.obs.name!r}; use a variational algorithm for it")

    @classmethod
    def of(cls, obs: ObsFamily, obs_prior: Natural, transitions_prior: dict, n_states: int) -> "WeakLimitHMM":
        """From the variational HDP-HMM's priors (:func:`stickbreak.priors.transition_hdp.default_prior`)."""
        if transitions_prior.get("learn"):
            raise ValueError("the blocked Gibbs sampler keeps the concentrations fixed; use learn_concentration=False")
        return cls(obs, obs_prior, int(n_states), transitions_prior["alpha"], transitions_prior["start_alpha"],
                   transitions_prior["kappa"], transitions_prior["gamma"])

    def row_concentrations(self, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``alpha_0 beta`` and the rows ``alpha beta + kappa e_j`` of the transition prior."""
        rows = self.transition_concentration * np.broadcast_to(beta, (self.n_states, self.n_states)).copy()
        rows[np.diag_indices(self.n_states)] += self.stickiness
        return self.start_concentration * beta, rows

    def emission_posterior(self, data, states: np.ndarray) -> Natural:
        resp = one_hot(states, self.n_states)
        stats = {"N": resp.sum(axis=0), **self.obs.suff_stats(self.obs.frames_of(data), resp, self.obs_prior)}
        return expfam.posterior(self.obs, self.obs_prior, stats)

    def sample_emissions(self, posterior: Natural, rng: np.random.Generator) -> dict:
        return self.obs.sample_params(posterior, rng)

    def emission_loglik(self, emissions: dict, data) -> np.ndarray:
        return self.obs.params_loglik(emissions, self.obs.frames_of(data))

    def log_joint(self, data, posterior: Natural, start_counts: np.ndarray, trans_counts: np.ndarray,
                  beta: np.ndarray) -> dict[str, float]:
        """``log p(x | z)`` (each state's marginal likelihood, Eq. 2.95 at hard labels) and
        ``log p(z | beta)`` (Dirichlet-multinomial rows)."""
        start_prior, row_prior = self.row_concentrations(beta)
        log_x = expfam.elbo_data_optimal(self.obs, self.obs_prior, posterior,
                                         self.obs.log_base(self.obs.frames_of(data)))
        log_z = (_log_dirichlet_multinomial(start_counts, start_prior)
                 + _log_dirichlet_multinomial(trans_counts, row_prior))
        return {"log_p_x_given_z": float(log_x), "log_p_z_given_beta": log_z}
