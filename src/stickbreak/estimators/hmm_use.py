"""Using a fitted HMM: :class:`FittedHMM`, the methods :class:`~stickbreak.HDPHMM` and
:class:`~stickbreak.FiniteHMM` share once fitted (Viterbi paths, marginals, predictive scores,
sampling) and their save and load."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import persist
from ..config import check_int
from ..data import Sequences
from ..models.hmm.params import HMMParams
from ..obs.expfam import EmissionFamily
from ..core.docstrings import composed
from ._common import (SAVE_SECTIONS, as_generator, check_feature_names, check_n_features,
                      check_prediction_memory, numba_threads)
from .hmm_input import INPUT_PARAMETERS, as_sequences, checked_frames, without_targets


class FittedHMM:
    """The fitted HMM's methods; the estimator sets ``model_``, ``params_``, ``stats_``,
    ``startprob_``, ``transmat_`` and the other fitted attributes (``HMMEstimator._set_fitted``)."""

    def _validated(self, X, lengths, Xprev) -> Sequences:
        check_is_fitted(self, "params_")
        check_feature_names(self, X, reset=False)
        seqs = as_sequences(X, lengths, Xprev)
        check_n_features(self, seqs.n_features)
        checked_frames(self.model_.obs, seqs)
        check_prediction_memory(type(self).__name__, seqs.n_frames, self.params_.n_components)
        return seqs

    @composed(**INPUT_PARAMETERS)
    def predict(self, X, lengths=None, *, Xprev=None) -> np.ndarray:
        """The most probable state path of every sequence (Viterbi).

        Under the ``E log`` start, transition and emission parameters of the fitted ``q``.

        Parameters
        ----------
        $input

        Returns
        -------
        ndarray of int, shape (n_frames,)
            The state of every frame, sequences concatenated, a position ``0 .. n_states_ - 1`` of
            this model's states.
        """
        seqs = self._validated(X, lengths, Xprev)
        with numba_threads(self.n_jobs):
            return self.model_.viterbi(self.params_, seqs)

    @composed(**INPUT_PARAMETERS)
    def decode(self, X, lengths=None, *, Xprev=None) -> tuple[float, np.ndarray]:
        """The Viterbi path of :meth:`predict` and the score it maximises (hmmlearn's ``decode``).

        Parameters
        ----------
        $input

        Returns
        -------
        score : float
            The sum along the path of the ``E log`` start, transition and emission terms, over all
            sequences.
        states : ndarray of int, shape (n_frames,)
            The state of every frame, as :meth:`predict` gives it.
        """
        seqs = self._validated(X, lengths, Xprev)
        with numba_threads(self.n_jobs):
            path, score = self.model_.decode(self.params_, seqs)
        return score, path

    def sample(self, n_samples: int = 1, random_state=None, *, prev0=None) -> tuple[np.ndarray, np.ndarray]:
        """Draw one sequence from the fitted model (hmmlearn's ``sample``).

        A Markov chain from the posterior means ``startprob_`` and ``transmat_``, each frame from its
        state's posterior-mean emission. Not for ``obs_model="mult"`` (a frame's token count is not
        part of the model).

        Parameters
        ----------
        n_samples : int, default=1
            Frames to draw.
        random_state : int, numpy.random.Generator or None
            Seed of the draw.
        prev0 : array-like of shape (n_features,), optional
            ``obs_model="ar_gauss"`` only: the predecessor of the first frame (default zeros).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            The frames.
        states : ndarray of int, shape (n_samples,)
            The state of every frame.
        """
        check_is_fitted(self, "params_")
        check_int("n_samples", n_samples, 1)
        if self.model_.obs.name == "mult":
            raise ValueError("sample() cannot draw multinomial frames: how many tokens a frame holds is not part of "
                             "the model; draw each state's words from word_probs_ with the counts you need")
        rng = as_generator(random_state)
        states = np.empty(n_samples, dtype=np.int64)
        states[0] = rng.choice(len(self.startprob_), p=self.startprob_)
        cumulative, uniform = np.cumsum(self.transmat_, axis=1), rng.random(n_samples)
        for t in range(1, n_samples):  # a Markov chain: each state draws the next
            states[t] = min(np.searchsorted(cumulative[states[t - 1]], uniform[t] * cumulative[states[t - 1], -1]),
                            len(cumulative) - 1)
        family: EmissionFamily = self.model_.obs
        return family.draw(self.params_.obs, states, rng, prev0), states

    @composed(**INPUT_PARAMETERS)
    def predict_proba(self, X, lengths=None, *, Xprev=None) -> np.ndarray:
        """Posterior state marginals ``q(z_t = k)`` of every frame, by forward-backward.

        Parameters
        ----------
        $input

        Returns
        -------
        ndarray of shape (n_frames, n_states)
            The probability of each state at each frame; rows sum to 1.
        """
        seqs = self._validated(X, lengths, Xprev)
        with numba_threads(self.n_jobs):
            return self.model_.local_step(self.params_, seqs).resp

    @composed(**INPUT_PARAMETERS)
    def score_sequences(self, X, lengths=None, *, Xprev=None) -> np.ndarray:
        """Log predictive density of each sequence, ``log p(x_d)`` in nats.

        A *plug-in* predictive: the forward algorithm run with the posterior-mean start and
        transition probabilities (renormalised over the K states) and each state's posterior
        predictive density per frame (:meth:`stickbreak.models.hmm.model.HMMModel.log_predictive`),
        not the exact Bayesian predictive, which integrates over the transition parameters jointly
        along the sequence. The values sum to ``score(X, lengths=lengths, total=True)``.

        Parameters
        ----------
        $input

        Returns
        -------
        ndarray of shape (n_sequences,)
            The log-likelihood of each sequence, in order (higher is better).
        """
        seqs = self._validated(X, lengths, Xprev)
        with numba_threads(self.n_jobs):
            return self.model_.log_predictive(self.params_, seqs)

    @composed(**INPUT_PARAMETERS)
    def score(self, X, y=None, *, lengths=None, Xprev=None, total: bool = False) -> float:
        """Log predictive density per frame, in nats (higher is better).

        The sum over sequences of :meth:`score_sequences` (the plug-in predictive ``log p(x_d)``),
        divided by the number of frames, as every family scores a mean per item; ``total=True`` gives
        the sum, hmmlearn's ``score``.

        Parameters
        ----------
        $x
        y : None
            Ignored (as in :meth:`fit`); ``lengths`` goes by keyword.
        $lengths
        total : bool, default=False
            Return the total log-likelihood of all sequences instead of the mean per frame.

        Returns
        -------
        float
            Mean log-likelihood per frame (or, with ``total=True``, the total).
        """
        seqs = without_targets(y, self._validated(X, lengths, Xprev), "score")  # feature names checked as in predict
        with numba_threads(self.n_jobs):
            value = float(np.sum(self.model_.log_predictive(self.params_, seqs)))
        return value if total else value / seqs.n_frames


    @composed(**SAVE_SECTIONS)
    def save(self, path):
        """Save the fitted model to ``path`` (.npz with JSON metadata; no pickle).

        The file holds the constructor parameters, the priors, the variational parameters, the
        statistics, the trace and the accepted moves; :meth:`load` (or :func:`stickbreak.load`) reads
        it back.

        $save_sections
        """
        check_is_fitted(self, "params_")
        arrays = self._fitted_arrays(self.params_.trans, "trans.")
        extra = {"trace": self.trace_, "stop_reason": self.stop_reason_, **self._input_extra(),
                 "elbo": self.elbo_, "moves": self.moves_}
        return persist.save_model(path, type(self).__name__, self._saved_params(), arrays, extra)

    @classmethod
    def _from_saved(cls, meta, arrays):
        est = cls._from_params(cls._loaded_params(meta))
        model = est._make_model(obs_prior=persist.nested_arrays(arrays, "obs_prior."))
        fitted = HMMParams(arrays["uids"], persist.nested_arrays(arrays, "obs."),
                           persist.nested_arrays(arrays, "trans."))
        extra = meta["extra"]
        return est._restore_fitted(model, fitted, arrays, extra, extra["elbo"], extra["moves"])
