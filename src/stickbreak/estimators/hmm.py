"""scikit-learn style hidden Markov models: :class:`HDPHMM` (sticky HDP-HMM) and :class:`FiniteHMM`
(thin shells over :class:`stickbreak.models.hmm.model.HMMModel`; Hughes 2016, Ch. 6), with their
docstrings; what they share is :class:`.hmm_base.HMMEstimator`.

>>> from stickbreak import HDPHMM, datasets
>>> mocap = datasets.load("mocap6")
>>> model = HDPHMM(n_states=30, obs_model="ar_gauss", stickiness=50.0, random_state=0)
>>> n_states = model.fit(mocap.X, Xprev=mocap.extras["Xprev"]).n_states_
>>> states = model.predict(mocap.X, Xprev=mocap.extras["Xprev"])
"""

from __future__ import annotations

import numpy as np

from .. import persist
from ..models.hmm.params import HMMParams
from ..models.hmm.model import HMMModel
from ..priors import transition_finite as finite_hmm
from ..priors import transition_hdp as hdp_hmm
from .hmm_base import HMM_ALGORITHMS, HMMEstimator, hmm_parameters

_HDP_PARAMETERS = """
    concentration : float, default=10.0
        gamma of the top-level sticks ``u_k ~ Beta(1, gamma)``, ``pi^G = stick(u)``, shared by
        every row; larger favours more states.
    learn_concentration : bool, default=False
        Set alpha (``transition_concentration``), gamma and, when sticky, kappa (``stickiness``) by
        empirical Bayes: every global step alternates them with ``q`` on the ELBO's surrogate bound
        (Hughes 2016, Eqs. 6.28 and 6.33), so the ELBO still never falls and moves stay exact; the
        values given are where they start, ``alpha_0`` stays fixed. The values used are in
        ``concentrations_``. Off by default: on mocap6 it lowered the final ELBO and, by shrinking
        kappa, the segmentation (``benchmarks/results/empirical_bayes.md``)."""

_GIBBS = """
        ``"gibbs"``: the weak-limit blocked Gibbs sampler of Fox et al. (2011, Alg. 3) with
        ``n_states`` as the weak limit L, one sweep of all sequences per lap for ``max_laps`` laps
        (emissions: ``obs_model="gauss"`` only; ``n_batches`` unused; concentrations fixed). The
        fit is the variational posterior of the last sample (``elbo_`` its exact ELBO; ``trace_`` the
        log joint of every sweep; ``sampled_states_`` the last states, largest first: ``init=`` for
        memoized VI; see ``stickbreak.estimators._hmm_sampler``)."""

_HDP_ATTRIBUTES = """
    concentrations_ : dict
        The concentrations the final ELBO uses, by parameter name (learned ones as learned).
    sampled_states_ : ndarray of int, shape (n_frames,)
        ``algorithm="gibbs"`` only: the last sample's state of every frame.
    log_evidence_ : float
        ``algorithm="gibbs"`` only: the log joint of the last sample."""

_HDP_EXAMPLES = """
    See Also
    --------
    FiniteHMM : The same interface with a fixed number of states.

    Examples
    --------
    >>> from stickbreak import HDPHMM, datasets
    >>> mocap = datasets.load("mocap6")    # 6 sequences, 2,058 frames of 12 joint angles
    >>> Xprev = mocap.extras["Xprev"]      # each frame's predecessor, for the AR emissions
    >>> hmm = HDPHMM(n_states=5, obs_model="ar_gauss", stickiness=50.0, tol=1e-3, random_state=0)
    >>> hmm = hmm.fit(mocap.X, Xprev=Xprev)
    >>> hmm.transmat_.shape == (hmm.n_states_, hmm.n_states_)
    True
    >>> hmm.predict(mocap.X, Xprev=Xprev).shape      # the Viterbi state of every frame
    (2058,)
    >>> hmm.score_sequences(mocap.X, Xprev=Xprev).shape    # log p(x_d) of each sequence
    (6,)
"""

_FINITE_EXAMPLES = """
    See Also
    --------
    HDPHMM : The HDP-HMM, which learns the number of states.

    Examples
    --------
    hmmlearn's layout: the frames of all sequences stacked, with the frames per sequence.

    >>> import numpy as np
    >>> from stickbreak import FiniteHMM, datasets
    >>> mocap = datasets.load("mocap6")
    >>> X, lengths = mocap.X.X, np.diff(mocap.X.offsets)
    >>> X.shape, lengths.shape
    ((2058, 12), (6,))
    >>> hmm = FiniteHMM(n_states=4, obs_model="diag_gauss", tol=1e-3, random_state=0)
    >>> hmm = hmm.fit(X, lengths=lengths)
    >>> proba = hmm.predict_proba(X, lengths=lengths)
    >>> proba.shape, bool(np.allclose(proba.sum(axis=1), 1))
    ((2058, 4), True)
    >>> frames, states = hmm.sample(10, random_state=0)
    >>> frames.shape, states.shape
    ((10, 12), (10,))
"""


@persist.register
class HDPHMM(HMMEstimator):
    __doc__ = ("""The (sticky) HDP hidden Markov model by variational inference (Hughes 2016, Ch. 6).

    The number of states is learned: ``n_states`` is only the initial number of states. Births,
    merges and deletes (memoized VI, on by default) add the states the data support and remove
    those they do not, each only when the exact ELBO rises. ``stickiness=0`` is the HDP-HMM of
    Teh et al. (2006), ``stickiness > 0`` the sticky HDP-HMM of Fox et al. (2011). The methods
    follow hmmlearn: ``fit(X, lengths=...)``, ``predict``, ``predict_proba``, ``decode``,
    ``score`` and ``sample``.
    """ + hmm_parameters(
        n_states_default=10, n_states="Initial number of states (the moves change it).",
        row="alpha pi^G + kappa e_j", row_ref=" (Hughes 2016, Ch. 6)", start="alpha_0 pi^G",
        hdp_parameters=_HDP_PARAMETERS, default_moves="('birth', 'merge', 'delete') with memoized VI, none otherwise",
        algorithms='{"memoized", "vb", "stochastic", "svi", "gibbs"}', gibbs=_GIBBS,
        renormalised=" (the HDP leaves some mass on states beyond the truncation; it is dropped)",
        state_weights="Top-level state probabilities ``E[pi^G]`` (their sum is below 1).",
        extra_attributes=_HDP_ATTRIBUTES) + _HDP_EXAMPLES)

    _transitions = hdp_hmm
    _default_moves = ("birth", "merge", "delete")
    _algorithms = HMM_ALGORITHMS + ("gibbs",)

    def __init__(self, n_states=10, *, obs_model="gauss", obs_prior=None, transition_concentration=0.5,
                 start_concentration=5.0, stickiness=0.0, concentration=10.0, learn_concentration=False,
                 algorithm="memoized", algorithm_options=None, n_batches=1, moves=None, move_options=None,
                 init="contiguous_blocks", max_laps=100, min_laps=2, tol=1e-6, random_state=None, verbose=0, n_jobs=1,
                 executor=None, callbacks=None):
        self._set_constructor_params(locals())

    def _transitions_prior(self) -> dict:
        return hdp_hmm.default_prior(self.transition_concentration, self.start_concentration, self.stickiness,
                                     self.concentration, learn=self.learn_concentration)

    def _set_fitted(self, model: HMMModel, params: HMMParams, *rest):
        super()._set_fitted(model, params, *rest)
        self.concentrations_ = hdp_hmm.concentrations(model.transitions_prior, params.trans)


@persist.register
class FiniteHMM(HMMEstimator):
    __doc__ = ("""A Bayesian hidden Markov model with a fixed number of states, by variational inference.

    Dirichlet transition rows, the weak-limit form of the sticky HDP-HMM (Hughes 2016, §6.1). The
    methods follow hmmlearn: ``fit(X, lengths=...)``, ``predict``, ``predict_proba``, ``decode``,
    ``score`` and ``sample``.
    """ + hmm_parameters(
        n_states_default=50, n_states="Number of states K.", row="alpha / K + kappa e_j", row_ref="",
        start="alpha_0 / K", hdp_parameters="",
        default_moves="none (K stays fixed); ('birth', 'merge', 'delete') let the ELBO choose K",
        algorithms='{"memoized", "vb", "stochastic", "svi"}', gibbs="",
        renormalised=" (they already sum to one)",
        state_weights="Uniform ``1 / K`` (a finite HMM has no top level).", extra_attributes="") + _FINITE_EXAMPLES)

    _transitions = finite_hmm
    _default_moves = ()

    def _state_weights(self, params: HMMParams) -> np.ndarray:
        return np.full(params.n_components, 1.0 / params.n_components)
