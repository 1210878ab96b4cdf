"""Using a fitted mixture: :class:`FittedMixture`, the methods :class:`~stickbreak.DPMixture` and
:class:`~stickbreak.FiniteMixture` share once fitted (responsibilities, labels, densities) and their
save and load."""

from __future__ import annotations


import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import persist
from ..models.mixture.model import MixtureParams
from ..models import make_mixture_model
from ..core.sparse_resp import to_dense
from ..core.suffstats import SuffStats
from ..learn.streaming import window_arrays, window_from_arrays
from ..core.docstrings import composed
from ._common import SAVE_SECTIONS




class FittedMixture:
    """The fitted mixture's methods; the estimator sets ``model_``, ``params_``, ``stats_`` and the
    fitted attributes (``MixtureEstimator._set_fitted``)."""

    def predict_proba(self, X) -> np.ndarray:
        """Responsibilities ``q(z_n = k)`` of every item for every cluster.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or sparse matrix
            Items of the kind the model was fitted on.

        Returns
        -------
        resp : ndarray of shape (n_samples, n_components)
            Dense responsibilities; each row sums to 1 (with ``n_active``, at most that many
            non-zeros per row).
        """
        data = self._validated(X)
        return to_dense(self.model_.local_step(self.params_, data).resp)

    def predict(self, X) -> np.ndarray:
        """Most probable cluster of each item (the largest responsibility).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or sparse matrix
            Items of the kind the model was fitted on.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster index of each item, in ``range(n_components_)``.
        """
        return np.argmax(self.predict_proba(X), axis=1)

    def score_samples(self, X) -> np.ndarray:
        """Log posterior predictive density ``log p(x_n | training data)`` of each item, in nats.

        Each cluster's posterior predictive (Student-t for the Gaussians, Dirichlet-multinomial for
        ``"mult"``, Beta-Bernoulli for ``"bern"``) weighted by ``E[pi_k]``; for the DP the stick
        mass beyond the truncation goes to a fresh cluster at its prior.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or sparse matrix
            Items of the kind the model was fitted on.

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            ``log p(x_n | training data)`` of each item.
        """
        data = self._validated(X)
        return self.model_.log_predictive(self.params_, data)

    def score(self, X, y=None, *, total: bool = False) -> float:
        """Mean log posterior predictive density per item, in nats (higher is better).

        The same convention in every family of stickbreak: a mean per item (frame, held-out word).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or sparse matrix
            Items of the kind the model was fitted on.
        y : None
            Ignored; for scikit-learn's API.
        total : bool, default=False
            Return the sum over the items instead of their mean.

        Returns
        -------
        score : float
            Mean (or, with ``total``, summed) :meth:`score_samples`.
        """
        scores = self.score_samples(X)
        return float(np.sum(scores) if total else np.mean(scores))

    @composed(**SAVE_SECTIONS)
    def save(self, path):
        """Save the fitted model to one ``.npz`` file of arrays with JSON metadata (no pickle).

        The file holds the variational parameters, the priors, the training labels and statistics,
        after :meth:`partial_fit` the stream's last 2,000 items, the trace and the constructor
        parameters (callbacks, a Generator ``random_state`` and a live executor are not saved), with
        a SHA-256 digest; :func:`stickbreak.load` or :meth:`load` reads it back.

        $save_sections
        """
        check_is_fitted(self, "params_")
        params = self._saved_params()
        arrays = {**self._fitted_arrays(self.params_.weights, "weights."), "labels": self.labels_,
                  **window_arrays(self._stream_window)}  # partial_fit's recent items, to go on exactly
        extra = {"trace": self.trace_, "stop_reason": self.stop_reason_, "lower_bound": float(self.lower_bound_),
                 "move_log": self.move_log_, **self._input_extra()}
        return persist.save_model(path, type(self).__name__, params, arrays, extra)

    def _input_extra(self) -> dict:
        """What the fitted model knows of its input, the vocabulary of a text fit included."""
        vocabulary = vars(self).get("vocabulary_")
        return {**super()._input_extra(), "vocabulary": None if vocabulary is None else list(vocabulary)}

    def _restore_input(self, extra: dict) -> None:
        super()._restore_input(extra)
        vocabulary = extra.get("vocabulary")  # files saved before text input lack the key
        self.vocabulary_ = None if vocabulary is None else tuple(vocabulary)

    @classmethod
    def _from_saved(cls, meta, arrays):
        est = cls._from_params(meta["params"])
        mixture_cfg = est._configs()[0]
        model = make_mixture_model(mixture_cfg, obs_prior=persist.nested_arrays(arrays, "obs_prior."))
        params = MixtureParams(arrays["uids"], persist.nested_arrays(arrays, "obs."),
                               persist.nested_arrays(arrays, "weights."))
        extra = meta["extra"]
        est._restore_input(extra)
        est._set_fitted(model, params, SuffStats.from_arrays(arrays, "stats."), extra["trace"], extra["stop_reason"],
                        arrays["labels"], extra.get("lower_bound"),
                        extra.get("move_log", ()))  # older files kept neither
        est._stream_window = window_from_arrays(arrays)
        return est
