"""Using a fitted HDP admixture: :class:`FittedAdmixture`, the methods of
:class:`~stickbreak.HDPAdmixture` once fitted (topic proportions, labels, held-out densities by
halves of each group) and its save and load."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import persist
from ..data import Sequences
from ..core.docstrings import composed
from ._common import (SAVE_SECTIONS, check_feature_names, check_n_features, check_prediction_memory,
                      numba_threads)
from .hmm_input import as_sequences



#: numpydoc text of the groups every method takes, by its ``$groups`` in the docstrings, and with the
#: ignored ``y`` of ``fit`` and ``fit_transform``, ``$groups_y`` (:func:`~stickbreak.core.docstrings.composed`).
_GROUPS = """X : array-like of shape (n_samples, n_features), list of arrays or Sequences
            The items of all groups stacked, in group order, with ``lengths``; or a list of 2-D
            arrays, one per group; or a :class:`~stickbreak.Sequences`.
        lengths : array-like of int of shape (n_groups,), optional
            Items per group, in order, summing to ``n_samples`` (with a stacked ``X`` only);
            default: one group."""
GROUPS = {"groups": _GROUPS, "groups_y": _GROUPS + """
        y : None
            Ignored; for scikit-learn's API."""}

class FittedAdmixture:
    """The fitted admixture's methods; the estimator sets ``model_``, ``params_``, ``stats_`` and the
    fitted attributes (``HDPAdmixture._set_fitted``)."""

    def _validated(self, X, lengths) -> Sequences:
        check_is_fitted(self, "params_")
        check_feature_names(self, X, reset=False)
        seqs = as_sequences(X, lengths, what="X")
        check_n_features(self, seqs.n_features)
        self.model_.obs.check_data(seqs.X)
        check_prediction_memory(type(self).__name__, seqs.n_frames, self.params_.n_components)
        return seqs

    def _local(self, seqs: Sequences):
        with numba_threads(self.n_jobs):
            return self.model_.local_step(self.params_, seqs)

    @composed(**GROUPS)
    def topic_proportions(self, X, lengths=None) -> np.ndarray:
        """Each group's expected topic proportions ``E[pi_dk]`` under the fitted topics.

        One local step per group (the topics fixed) gives its expected topic counts ``N_dk``;
        ``E[pi_dk] = (N_dk + alpha E[pi^G_k]) / (N_d + alpha)``.

        Parameters
        ----------
        $groups

        Returns
        -------
        proportions : ndarray of shape (n_groups, n_topics)
            Each group's proportions; the mass beyond the model's topics, ``alpha E[pi^G_>K]``,
            is left out, so rows sum to slightly below 1.
        """
        seqs = self._validated(X, lengths)
        prior, prior_rest = self.model_.weights.pseudo_counts(self.model_.weights_prior, self.params_.weights)
        theta = self._local(seqs).doc_topic + prior[None, :]
        return theta / (theta.sum(axis=1, keepdims=True) + prior_rest)

    @composed(**GROUPS)
    def transform(self, X, lengths=None) -> np.ndarray:
        """Each item's topic responsibilities within its group.

        Parameters
        ----------
        $groups

        Returns
        -------
        resp : ndarray of shape (n_samples, n_topics)
            ``q(z_n = k)`` of every item; rows sum to 1.
        """
        return self._local(self._validated(X, lengths)).word_topic

    @composed(**GROUPS)
    def fit_transform(self, X, y=None, *, lengths=None) -> np.ndarray:
        """Fit the admixture, then return :meth:`transform` of the same groups.

        Parameters
        ----------
        $groups_y

        Returns
        -------
        resp : ndarray of shape (n_samples, n_topics)
            ``q(z_n = k)`` of every item under the fitted model; rows sum to 1.
        """
        return self.fit(X, lengths=lengths).transform(X, lengths=lengths)

    @property
    def _n_features_out(self) -> int:
        """One output column per topic (``get_feature_names_out``: hdpadmixture0, ...)."""
        return self.params_.n_components

    @composed(**GROUPS)
    def predict(self, X, lengths=None) -> np.ndarray:
        """Each item's most responsible topic within its group.

        Parameters
        ----------
        $groups

        Returns
        -------
        topics : ndarray of shape (n_samples,)
            The topic index of each item, in ``range(n_topics_)``.
        """
        return np.argmax(self.transform(X, lengths), axis=1)

    @composed(**GROUPS)
    def score_samples(self, X, lengths=None) -> np.ndarray:
        """Held-out log predictive density of each item given the other half of its group, in nats.

        Document completion: each group's items at even positions (in the order given) fit its
        topic weights and score those at odd positions, and the other way round; an item's
        density mixes the topics' posterior predictives with the group's expected weights, plus
        the mass beyond the truncation at a fresh topic from the prior. A one-item group is
        scored under the corpus weights.

        Parameters
        ----------
        $groups

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            ``log p(x_n | the other half of its group, training data)`` of each item.
        """
        seqs = self._validated(X, lengths)
        out = np.empty(seqs.n_frames)
        for parity in (0, 1):
            observed, scored = _halves(seqs, parity)
            weights = np.zeros((seqs.n_items, self.params_.n_components))
            if len(observed.kept):
                weights[observed.kept] = self._local(observed.groups).doc_topic
            out[scored.index] = self.model_.log_predictive(self.params_, scored.groups, weights[scored.kept])
        return out

    def score(self, X, y=None, *, lengths=None, total: bool = False) -> float:
        """Mean held-out log predictive density per item, in nats (higher is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), list of arrays or Sequences
            The items of all groups stacked, in group order, with ``lengths``; or a list of 2-D
            arrays, one per group; or a :class:`~stickbreak.Sequences`.
        y : None
            Ignored; for scikit-learn's API.
        lengths : array-like of int of shape (n_groups,), optional
            Items per group, in order, summing to ``n_samples`` (with a stacked ``X`` only);
            default: one group.
        total : bool, default=False
            Return the sum over items instead of the mean, as every estimator's ``score`` does.

        Returns
        -------
        score : float
            The mean (or, with ``total``, the sum) of :meth:`score_samples`.
        """
        values = self.score_samples(X, lengths)
        return float(np.sum(values) if total else np.mean(values))

    @composed(**SAVE_SECTIONS)
    def save(self, path):
        """Save the fitted model to one ``.npz`` file of arrays with JSON metadata (no pickle).

        The file holds the variational parameters, the priors, the statistics, the trace, the
        accepted moves and the constructor parameters (callbacks and a Generator
        ``random_state`` are not saved), with a SHA-256 digest; :func:`stickbreak.load` or
        :meth:`load` reads it back.

        $save_sections
        """
        check_is_fitted(self, "params_")
        arrays = self._fitted_arrays(self.params_.weights, "weights.")
        extra = {"trace": self.trace_, "stop_reason": self.stop_reason_, "lower_bound": self.lower_bound_,
                 "moves": self.moves_, **self._input_extra()}
        return persist.save_model(path, type(self).__name__, self._saved_params(), arrays, extra)

    @classmethod
    def _from_saved(cls, meta, arrays):
        est = cls(**cls._loaded_params(meta))
        _, _, local = est._configs()
        model = est._make_model(None, local, obs_prior=persist.nested_arrays(arrays, "obs_prior."))
        fitted = model.make_params(arrays["uids"], persist.nested_arrays(arrays, "obs."),
                                   persist.nested_arrays(arrays, "weights."))
        extra = meta["extra"]
        return est._restore_fitted(model, fitted, arrays, extra, extra["lower_bound"], extra["moves"])


class _Part:
    """Some items of every group: ``groups`` (the non-empty ones, as :class:`Sequences`), which
    groups they are (``kept``) and the items' positions in the whole ``X`` (``index``)."""

    def __init__(self, seqs: Sequences, take: np.ndarray):
        group = np.repeat(np.arange(seqs.n_items), seqs.lengths)
        self.index = np.flatnonzero(take)
        sizes = np.bincount(group[self.index], minlength=seqs.n_items)
        self.kept = np.flatnonzero(sizes > 0)
        self.groups = Sequences(seqs.X[self.index], np.concatenate([[0], np.cumsum(sizes[self.kept])]))


def _halves(seqs: Sequences, parity: int) -> tuple[_Part, _Part]:
    """``(observed, scored)``: each group's items at positions of the other parity, and of ``parity``;
    a one-item group's item is scored with nothing observed."""
    position = np.arange(seqs.n_frames) - np.repeat(seqs.offsets[:-1], seqs.lengths)
    scored = position % 2 == parity
    return _Part(seqs, ~scored), _Part(seqs, scored)
