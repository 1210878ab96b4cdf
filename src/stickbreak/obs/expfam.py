"""What every conjugate exponential-family observation model shares (Hughes 2016, §2.2-2.4).

Each family module (``gauss``, ``diag_gauss``, ``zero_mean_gauss``, ``mult``, ``bern``) writes its
likelihood as ``log p(x|phi) = sum_f <s_f(x), t_f(phi)> + log h(x)`` and its conjugate prior in the
same coordinates: ``log P(phi|eta) = sum_f <eta_f, t_f(phi)> + c(eta) + g(phi)``, where ``c`` is the
*log-normalizer* (the convention of the thesis's corrected Eq. 2.95 and of bnpy) and ``g`` a base
measure that cancels in every ELBO difference. Then, for every family alike:

* posterior natural parameters are ``eta_hat = eta_bar + inc(S)`` (Eq. 2.67), where ``inc`` maps
  summed statistics to natural-parameter increments;
* ``E_q[t(phi)] = -grad c(eta_hat)``;
* the observation ELBO is Eq. 2.95 (corrected):
  ``L_data = sum_n log h(x_n) + sum_k [c(eta_bar) - c(eta_hat_k)] + sum_k <inc(S_k) + eta_bar - eta_hat_k, E t_k>``;
* the posterior predictive is ``log p(x|eta) = c(eta) - c(eta + inc(s(x))) + log h(x)``.

This module holds those generic formulas and the protocol a family module implements.
"""

from __future__ import annotations

from typing import Callable, Mapping, Protocol

import numpy as np

Natural = dict[str, np.ndarray]


class ObsFamily(Protocol):
    """The functions every observation-model module defines (modules are used as the objects)."""

    name: str
    natural_keys: tuple[str, ...]
    stat_keys: tuple[str, ...]
    prior_options: tuple[str, ...]

    def check_data(self, data, what: str = "X"): ...  # -> data container, validated
    def frames_of(self, sequences): ...  # -> what the family scores in Sequences (HMM frames, admixture items)
    def default_prior(self, data, **options) -> Natural: ...
    def suff_stats(self, data, resp: np.ndarray, prior: Natural) -> dict[str, np.ndarray]: ...
    def log_base(self, data) -> float: ...
    def stats_to_natural(self, stats: Mapping[str, np.ndarray]) -> Natural: ...
    def log_normalizer(self, nat: Natural) -> np.ndarray: ...
    def expected_t(self, nat: Natural) -> Natural: ...
    def expected_loglik(self, nat: Natural, data) -> np.ndarray: ...
    def log_predictive(self, nat: Natural, data) -> np.ndarray: ...
    def bregman_divergence(self, data, prior: Natural, centers: Natural) -> np.ndarray: ...
    def summary(self, nat: Natural) -> dict[str, np.ndarray]: ...


class EmissionFamily(ObsFamily, Protocol):
    """An observation family an HMM can emit from (every HMM family: not the multinomial)."""

    def draw(self, nat: Natural, states: np.ndarray, rng: np.random.Generator, prev0=None) -> np.ndarray: ...


def stack_prior(prior: Natural, n_components: int = 1) -> Natural:
    """The prior repeated along a leading component axis."""
    return {k: np.broadcast_to(v, (n_components,) + np.shape(v)).copy() for k, v in prior.items()}


def posterior(family: ObsFamily, prior: Natural, stats: Mapping[str, np.ndarray]) -> Natural:
    """Conjugate update ``eta_hat_k = eta_bar + inc(S_k)`` (Hughes 2016, Eq. 2.67).

    Entries of the prior that are not natural parameters (a family's fixed ``origin``) are carried
    over unchanged, repeated per component.
    """
    inc = family.stats_to_natural(stats)
    out = {k: prior[k][None] + inc[k] for k in family.natural_keys}
    n_comp = len(stats["N"])
    for k in prior.keys() - set(family.natural_keys):
        out[k] = np.broadcast_to(prior[k], (n_comp,) + np.shape(prior[k])).copy()
    return out


def n_components(nat: Natural) -> int:
    return len(next(iter(nat.values())))


def kl_to_prior(family: ObsFamily, prior: Natural, post: Natural, expected: Natural | None = None) -> np.ndarray:
    """``KL(q(phi_k) || p(phi_k))`` per component, from log-normalizers and ``E t`` only."""
    prior_c = family.log_normalizer(stack_prior(prior))[0]
    expected = family.expected_t(post) if expected is None else expected
    cross = sum(
        np.sum((post[k] - prior[k][None]) * expected[k], axis=tuple(range(1, post[k].ndim)))
        for k in family.natural_keys
    )
    return cross + family.log_normalizer(post) - prior_c


def elbo_data(family: ObsFamily, prior: Natural, post: Natural, stats: Mapping[str, np.ndarray],
              log_base: float, expected: Natural | None = None) -> float:
    """Observation part of the ELBO for any ``q(phi)``, slack terms included (Eq. 2.95, corrected).

    Equals ``E_q[log p(x|z,phi)] - KL(q(phi)||p(phi))`` summed over components; after the global
    step the slack vanishes and this equals :func:`elbo_data_optimal`. ``expected``: ``E t`` under
    ``post`` when the caller already has it.
    """
    inc = family.stats_to_natural(stats)
    expected = family.expected_t(post) if expected is None else expected
    expected_loglik = sum(float(np.sum(inc[k] * expected[k])) for k in family.natural_keys)
    return log_base + expected_loglik - float(np.sum(kl_to_prior(family, prior, post, expected)))


def elbo_data_optimal(family: ObsFamily, prior: Natural, post: Natural, log_base: float,
                      normalizers: np.ndarray | None = None) -> float:
    """``sum_n log h(x_n) + sum_k [c(eta_bar) - c(eta_hat_k)]``, valid right after the global step;
    ``normalizers``: the ``c(eta_hat_k)`` when the caller has them."""
    prior_c = family.log_normalizer(stack_prior(prior))[0]
    return log_base + float(np.sum(prior_c - (family.log_normalizer(post) if normalizers is None else normalizers)))


def blend(old: Natural, target: Natural, step: float) -> Natural:
    """Natural-gradient step ``(1 - step) * old + step * target`` (Hoffman et al. 2013, Eq. 25)."""
    return {k: (1.0 - step) * old[k] + step * target[k] for k in old}


def select_components(nat: Natural, index) -> Natural:
    return {k: np.ascontiguousarray(v[index]) for k, v in nat.items()}


def concat_components(first: Natural, second: Natural) -> Natural:
    return {k: np.concatenate([first[k], second[k]]) for k in first}


def check_prior_options(family: ObsFamily, options: Mapping) -> None:
    unknown = sorted(set(options) - set(family.prior_options))
    if unknown:
        raise ValueError(
            f"unknown prior option(s) {unknown} for observation model {family.name!r}; "
            f"valid options are {list(family.prior_options)}"
        )


def positive_scalar(value, name: str) -> float:
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"prior option {name!r} must be a positive finite number, got {value}")
    return value


def _merged_log_normalizers(family, obs_prior, stats, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``c(eta_bar + inc(S_a + S_b))`` for each pair, in chunks to bound memory."""
    out = np.empty(len(first))
    for start in range(0, len(first), 256):
        a, b = first[start:start + 256], second[start:start + 256]
        merged = {k: v[a] + v[b] for k, v in stats.fields.items()}
        out[start:start + 256] = family.log_normalizer(posterior(family, obs_prior, merged))
    return out


def data_gain(family, obs_prior, post, stats, first: np.ndarray, second: np.ndarray,
              normalizers: Callable | None = None) -> np.ndarray:
    """``Delta L_data`` of merging each pair after the global step: ``c(a) + c(b) - c(prior) - c(a+b)``,
    added as ``(c(a) - c(a+b)) + (c(b) - c(prior))`` so that a pair with an empty topic gains exactly
    0. ``normalizers(first, second)``: ``c(eta_bar + inc(S_first + S_second))`` (an index of -1
    adds nothing) when the caller has a faster way to them (a family's own kernel, which then gives
    every term, so all are summed alike); else they are computed here."""
    if normalizers is None:
        post_c = family.log_normalizer(post)
        prior_c = family.log_normalizer(stack_prior(obs_prior))[0]
        merged = _merged_log_normalizers(family, obs_prior, stats, first, second)
    else:
        none = np.full(len(stats.uids), -1)
        post_c = normalizers(np.arange(len(stats.uids)), none)
        prior_c = normalizers(none[:1], none[:1])[0]
        merged = normalizers(first, second)
    return (post_c[first] - merged) + (post_c[second] - prior_c)
