"""The one fit path of every estimator: a :class:`FitPlan` (chosen by table lookup on the
algorithm) is run by :func:`run_plan`: learner from the registry, the driver's loop, the exact final
pass and the convergence warning, written once here for the mixtures, topic models, DILN and HMMs."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from .. import driver
from ..core.protocols import total_elbo
from ..core.suffstats import SuffStats
from ..learn import learner_spec, make_learner
from ..learn.memo_state import MemoState
from ..learn.registry import LEARNERS
from ..parallel import summarize_batches


@dataclass(frozen=True, eq=False)
class FitPlan:
    """How one estimator trains under one algorithm.

    ``learner`` is a name of :data:`stickbreak.learn.registry.LEARNERS` built with
    ``learner_options``; the driver trains ``trained`` on ``source`` from ``start`` (None: the
    learner starts from nothing). ``as_fitted(params)`` turns the trained parameters into ``(model,
    params)`` as the estimator keeps them (default: unchanged), ``for_callbacks(params)`` what
    callbacks see (default: unchanged). The final statistics are the learner's own, or
    ``stats_of(trained params)``, or those of an exact ``final_pass`` over the given batches;
    ``rescore``: the final ELBO is then recomputed (the trace of a stochastic learner holds
    estimates). ``attributes(result)``: extra fitted attributes (e.g. a held-out trace).
    """

    learner: str
    trained: Any
    source: Any
    start: Any = None
    learner_options: Mapping = field(default_factory=dict)
    as_fitted: Callable | None = None
    for_callbacks: Callable | None = None
    stats_of: Callable | None = None
    final_pass: Sequence | None = None
    rescore: bool = False
    attributes: Callable | None = None


@dataclass(frozen=True, eq=False)
class Fitted:
    """What a fit hands to the estimator: its model, parameters and statistics, the driver's result
    and the final ELBO (the last lap's, or the exact one after a rescoring final pass)."""

    model: Any
    params: Any
    stats: SuffStats
    result: driver.FitResult
    lower_bound: float
    attributes: dict = field(default_factory=dict)
    #: The moves memoized VI accepted, in order (none for the other learners).
    accepted_moves: list = field(default_factory=list)

    @property
    def trace(self) -> list[dict]:
        return [r.as_dict() for r in self.result.trace]



def variational_plan(algorithm: str, model, source, start, batches: Sequence) -> FitPlan:
    """Train ``model`` itself on ``source`` from ``start`` by ``algorithm`` ("vb", "stochastic",
    "memoized"); a learner whose trace is not the exact ELBO ends with an exact pass over ``batches``."""
    exact = learner_spec(algorithm, list(LEARNERS)).exact
    return FitPlan(algorithm, model, source, start, final_pass=None if exact else batches, rescore=not exact)


def lookup_plan(plans: Mapping, key, owner: str, describe: Callable[[Any], str] = repr) -> Callable:
    """``plans[key]``, or a ValueError naming the algorithm's registry entry and the supported keys."""
    try:
        return plans[key]
    except (KeyError, TypeError):  # TypeError: an unhashable algorithm
        pass

    def algorithm(k):
        return k[0] if isinstance(k, tuple) else k

    offered = any(algorithm(k) == algorithm(key) for k in plans)
    why = f" ({LEARNERS[algorithm(key)].summary})" if algorithm(key) in LEARNERS and not offered else ""
    raise ValueError(f"{owner} does not support {describe(key)}{why}; choose one of: "
                     f"{', '.join(describe(k) for k in plans)}")


def final_pass(model, params, batches: Sequence, executor=None) -> SuffStats:
    """Exact whole-data statistics of ``params``: one local step and summary per batch."""
    with threadpool_limits(limits=1, user_api="blas"):
        return summarize_batches(model, params, batches, executor)[0]


def unless_interrupted(work: Callable, fallback: Callable, what: str) -> tuple[Any, bool]:
    """``(work(), False)``, or ``(fallback(), True)`` with a RuntimeWarning after a Ctrl-C during
    ``work``: a second Ctrl-C, in the pass after the laps, keeps the laps the first one kept."""
    try:
        return work(), False
    except KeyboardInterrupt:
        warnings.warn(f"interrupted during {what}", RuntimeWarning, stacklevel=3)
        return fallback(), True


#: A run that ends at ``max_laps`` is still moving K if the mean number of components in use over
#: its last :func:`_window` laps differs from the mean over the laps before by more than this share
#: (and at least one): a sampler's K wanders by a few topics at stationarity, a trend is more.
K_MOVING_SHARE = 0.05


def _window(n_laps: int) -> int:
    """The laps of each of the two means :func:`still_moving` compares: a fifth of the run, 2 to 10."""
    return max(2, min(10, n_laps // 5))


def still_moving(trace, exact: bool, tol: float) -> str | None:
    """Why a run that ended at ``max_laps`` had not settled, or None: the relative change of an exact
    ELBO above ``tol`` (the driver's own test), or K in use still changing (every learner; samplers
    and stochastic VI have no exact ELBO to test)."""
    reasons = []
    if exact and tol > 0:
        reasons.append(f"relative ELBO change above tol={tol}")
    window = _window(len(trace))
    if len(trace) >= 2 * window:
        k = np.array([record["n_effective"] for record in trace[-2 * window:]], dtype=float)
        before, last = k[:window].mean(), k[window:].mean()
        if abs(last - before) > max(1.0, K_MOVING_SHARE * before):
            reasons.append(f"K in use still moving: {before:.3g} -> {last:.3g} on average over the last "
                           f"{window} laps and the {window} before")
    return "; ".join(reasons) or None


def warn_if_not_converged(owner: str, result: driver.FitResult, learn_cfg, exact: bool) -> None:
    """ConvergenceWarning when a run ran out of laps while it was still moving (:func:`still_moving`)."""
    if result.stop_reason != "max_laps":
        return
    reason = still_moving(result.trace, exact, learn_cfg.tol)
    if reason is not None:
        warnings.warn(f"{owner} did not converge in {learn_cfg.max_laps} laps ({reason}); raise max_laps"
                      + (" or tol." if exact else "."), ConvergenceWarning, stacklevel=4)


def run_plan(plan: FitPlan, learn_cfg, moves_cfg, rng, *, owner: str, callbacks=None, verbose: int = 0,
             executor=None, checkpoint=None) -> Fitted:
    """Train by ``plan``, then the final statistics and ELBO and the convergence warning; with a
    ``checkpoint`` session (:mod:`._checkpoint`) every lap is saved and a resumed run goes on from
    its last saved lap."""
    learner = make_learner(learn_cfg, moves_cfg, rng, plan.learner, **plan.learner_options)
    callbacks = list(callbacks or ())
    if plan.for_callbacks is not None:
        callbacks = [lambda record, params, cb=cb: cb(record, plan.for_callbacks(params)) for cb in callbacks]
    resumed = None if checkpoint is None else checkpoint.resumed()
    result = driver.fit(plan.trained, plan.source, plan.start, learner, learn_cfg, callbacks=callbacks, verbose=verbose,
                        executor=executor, desc=owner, resume=resumed,
                        on_lap=None if checkpoint is None else checkpoint.save,
                        every=None if checkpoint is None else checkpoint.every)
    model, params = plan.as_fitted(result.params) if plan.as_fitted is not None else (plan.trained, result.params)
    rescore = plan.rescore
    if plan.final_pass is not None:
        stats, cut = unless_interrupted(lambda: final_pass(model, params, plan.final_pass, executor),
                                        lambda: result.stats, "the exact pass after the laps: keeping the last "
                                        "lap's statistics and its ELBO estimate")
        if cut:
            result, rescore = replace(result, stop_reason="interrupted"), False
    else:
        stats = result.stats if plan.stats_of is None else plan.stats_of(result.params)
    lower_bound = (total_elbo(model.elbo_terms(params, stats)) if rescore
                   else result.elbo if result.trace else float("nan"))
    warn_if_not_converged(owner, result, learn_cfg, learner_spec(plan.learner, list(LEARNERS)).exact)
    attributes = plan.attributes(result) if plan.attributes is not None else {}
    accepted = list(result.state.accepted) if isinstance(result.state, MemoState) else []
    return Fitted(model, params, stats, result, float(lower_bound), attributes, accepted)
