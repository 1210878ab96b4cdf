"""scikit-learn style mixtures: :class:`DPMixture` and :class:`FiniteMixture` (thin shells over the
functional core), with their docstrings; what they share is :class:`.mixture_base.MixtureEstimator`.

>>> from stickbreak import DPMixture, datasets
>>> X = datasets.load("old_faithful").X
>>> model = DPMixture(n_components=10, random_state=0).fit(X)
>>> labels = model.predict(X)
"""

from __future__ import annotations

from .. import persist
from .mixture_base import MixtureEstimator, mixture_parameters


#: The parts of the shared mixture docstring (:func:`.mixture_base.mixture_parameters`) for a DP mixture.
DP_FIELDS = {
    "algorithm": "memoized",
    "init": "kmeans++",
    "max_laps": "200",
    "moves": "Default (None): all three under memoized VI, none under the other algorithms;",
    "learned": "gamma = argmax sum_k E log Beta(u_k | 1, gamma)",
    "weights": " (they sum to less than 1: the rest is the mass of the sticks beyond the truncation)",
}


@persist.register
class DPMixture(MixtureEstimator):
    __doc__ = ("""Dirichlet-process mixture fitted by variational inference (Hughes 2016, Ch. 3-4).

    The number of clusters is learned. By default memoized VI starts from more clusters than the
    data need (``n_components="auto"``: one per 100 items, between 1 and 100) and merges join
    them, deletes remove them and births split them, each only when the exact ELBO rises (Hughes
    2016, Ch. 4); ``n_components`` is then only the initial number of clusters. Under the other
    algorithms (no moves) it is the truncation level K, an upper bound: clusters the data do not
    need end up (nearly) empty. The truncation is on ``q(z)`` only (nested truncation, Hughes
    2016, Eq. 3.19-3.20): the sticks beyond K stay at their prior.

    Parameters
    ----------
    n_components : int or "auto", default="auto"
        Initial number of clusters (memoized VI with moves), or the truncation level K; "auto":
        ``n_samples // 100`` between 1 and 100.
    obs_model : {"gauss", "diag_gauss", "zero_mean_gauss", "mult", "bern"}, default="gauss"
        Likelihood of each cluster: full-covariance Gaussian (Normal-Wishart prior), diagonal
        Gaussian (Normal-Gamma), zero-mean Gaussian (Wishart), multinomial word counts (Dirichlet;
        a scipy sparse matrix is fine) or independent binary features (Beta).
    concentration : float, default=1.0
        DP concentration gamma of the stick prior ``u_k ~ Beta(1, gamma)``;
        larger favours more clusters.""" + mixture_parameters(**DP_FIELDS) + """
    See Also
    --------
    FiniteMixture : The same model with K fixed and a Dirichlet prior on the weights.
    sklearn.mixture.BayesianGaussianMixture : Batch VB of a truncated DP Gaussian mixture.

    Examples
    --------
    >>> from stickbreak import DPMixture, datasets
    >>> X = datasets.load("old_faithful").X  # 272 eruptions: duration, waiting time
    >>> model = DPMixture(random_state=0).fit(X)
    >>> model.n_active_components_ <= model.n_components_
    True
    >>> model.predict(X[:5]).shape, model.predict_proba(X[:5]).shape == (5, model.n_components_)
    ((5,), True)
    >>> bool(model.weights_.sum() < 1.0)
    True
    >>> model.stop_reason_
    'converged'
        """)

    _weight_model = "dp"
    _default_moves = ("birth", "merge", "delete")

    def __init__(self, n_components="auto", *, obs_model="gauss", concentration=1.0, obs_prior=None,
                 algorithm="memoized", algorithm_options=None, moves=None, move_options=None, init="kmeans++",
                 n_kmeans_iters=3, max_laps=200, min_laps=2, tol=1e-6, n_batches=1, n_jobs=1, executor=None,
                 n_active=None,
                 learn_concentration=False, random_state=None, verbose=0, callbacks=None):
        super().__init__(n_components, obs_model=obs_model, concentration=concentration, obs_prior=obs_prior,
                         algorithm=algorithm, algorithm_options=algorithm_options, moves=moves,
                         move_options=move_options, init=init, n_kmeans_iters=n_kmeans_iters, max_laps=max_laps,
                         min_laps=min_laps, tol=tol, n_batches=n_batches, n_jobs=n_jobs, executor=executor,
                         n_active=n_active,
                         learn_concentration=learn_concentration, random_state=random_state, verbose=verbose,
                         callbacks=callbacks)


@persist.register
class FiniteMixture(MixtureEstimator):
    __doc__ = ("""Finite Bayesian mixture with a symmetric Dirichlet prior on the weights (Hughes 2016, §2.6).

    ``pi ~ Dir(alpha, ..., alpha)`` over a fixed number K of components; the parameters are those
    of :class:`DPMixture` but for ``n_components``, ``concentration`` and the defaults (batch VB,
    no moves).

    Parameters
    ----------
    n_components : int or "auto", default=20
        The number of components K ("auto": ``n_samples // 100`` between 1 and 100). Moves, if
        asked for under memoized VI, change it.
    obs_model : {"gauss", "diag_gauss", "zero_mean_gauss", "mult", "bern"}, default="gauss"
        Likelihood of each component, as for :class:`DPMixture`.
    concentration : float, default=1.0
        The per-component Dirichlet parameter alpha of ``Dir(alpha, ..., alpha)`` (scikit-learn's
        ``weight_concentration_prior`` with ``"dirichlet_distribution"``; the thesis writes it
        gamma / K); smaller favours fewer occupied components.""" + mixture_parameters(**{
        "algorithm": "vb",
        "init": "kmeans++",
        "max_laps": "200",
        "moves": "Default (None): none under every algorithm;",
        "learned": "alpha = argmax E log Dir(pi | alpha, ..., alpha)",
        "weights": " (they sum to 1)",
    }) + """
    See Also
    --------
    DPMixture : The nonparametric version, which learns the number of clusters.

    Examples
    --------
    >>> from stickbreak import FiniteMixture, datasets
    >>> X = datasets.load("old_faithful").X
    >>> model = FiniteMixture(n_components=2, random_state=0).fit(X)
    >>> model.means_.shape, model.covariances_.shape
    ((2, 2), (2, 2, 2))
    >>> model.score_samples(X).shape
    (272,)
    >>> model.converged_
    True
        """)

    _weight_model = "finite"
