"""scikit-learn style hidden Markov models: :class:`HDPHMM` (sticky HDP-HMM) and :class:`FiniteHMM`
(thin shells over :class:`stickbreak.models.hmm.model.HMMModel`; Hughes 2016, Ch. 6).

The signatures follow hmmlearn: ``fit(X, lengths=...)``, ``predict(X, lengths)``,
``predict_proba``, ``decode``, ``sample`` and ``score(X, lengths=...)``, where ``X`` holds the
frames of all sequences one after the other and ``lengths`` the number of frames of each
(``fit`` and ``score`` take it by keyword: their second argument is scikit-learn's ignored ``y``).
A list of 2-D arrays (one per sequence) or a :class:`~stickbreak.data.Sequences` works as well.
The docstrings are in :mod:`._hmm_docs`.

>>> from stickbreak import HDPHMM, datasets
>>> mocap = datasets.load("mocap6")
>>> model = HDPHMM(n_states=30, obs_model="ar_gauss", stickiness=50.0, random_state=0)
>>> n_states = model.fit(mocap.X, Xprev=mocap.extras["Xprev"]).n_states_
>>> states = model.predict(mocap.X, Xprev=mocap.extras["Xprev"])
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .. import driver, persist
from ..config import HMMOptions, LearnConfig, check_choice, check_int, moves_config
from ..core.suffstats import SuffStats
from ..data import DataError, Sequences
from ..data.dense import as_float_matrix
from ..data.errors import describe_rows
from ..obs.expfam import EmissionFamily
from ..learn import LEARNERS, InMemoryMinibatches, check_moves, learner_spec
from ..models.hmm.init import check_init, initial_params
from ..models.hmm.model import HMMModel
from ..models.hmm.params import HMMParams
from ..parallel import open_executor
from ..priors import top_sticks as sticks
from ..priors import transition_finite as finite_hmm
from ..priors import transition_hdp as hdp_hmm
from ._checkpoint import open_checkpoint
from ._common import (ReportMixin, SavableMixin, as_generator, check_executor_for, check_feature_names, checked_family,
                      check_fit_memory, check_n_features, check_n_jobs, documented, numba_threads)
from ._fitting import run_plan, variational_plan
from ._hmm_docs import (DECODE, FINITE_HMM_DOC, FIT, HDPHMM_DOC, PREDICT, PREDICT_PROBA, SAMPLE, SAVE, SCORE,
                        SCORE_SEQUENCES)
from ._hmm_sampler import gibbs_plan
from ._options import AlgorithmOptionsMixin

#: Observation models of a frame (``"mult"``: each frame a vector of word counts).
HMM_OBS_MODELS = ("gauss", "diag_gauss", "zero_mean_gauss", "ar_gauss", "bern", "mult")
HMM_ALGORITHMS = ("memoized", "vb", "stochastic", "svi")
HMM_INITS = ("contiguous_blocks", "kmeans++")
#: Moves memoized VI can make on HMM states.
HMM_MOVES = ("birth", "merge", "delete")


# ---------------------------------------------------------------------- input
def _lengths_offsets(lengths, n_frames: int) -> np.ndarray:
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or len(lengths) == 0 or lengths.dtype.kind not in "iuf" or \
            not np.array_equal(lengths, np.round(lengths)):
        raise DataError(f"lengths must be a 1-D list of whole numbers (frames per sequence), got {lengths!r}; "
                        "pass e.g. lengths=[len(x) for x in sequences].")
    short = np.flatnonzero(lengths < 1)
    if len(short):
        raise DataError(f"lengths {describe_rows(short)} are below 1 frame; every sequence needs at least one "
                        "frame: drop the empty sequences from X and lengths.")
    if lengths.sum() != n_frames:
        raise DataError(f"lengths add up to {int(lengths.sum())} frames but X has {n_frames}; lengths must count "
                        "every frame of X, sequences in order.")
    return np.concatenate([[0], np.cumsum(lengths.astype(np.int64))])


def as_sequences(X, lengths=None, Xprev=None, what: str = "X") -> Sequences:
    """Validated :class:`Sequences` from hmmlearn-style ``(X, lengths)``, a list of 2-D arrays (one
    per sequence) or a :class:`Sequences`; ``Xprev`` (same layout as ``X``) gives each frame's
    predecessor for autoregressive models. Raises :class:`DataError` naming the problem and the fix."""
    if isinstance(X, Sequences):
        if lengths is not None:
            raise DataError(f"{what} is a Sequences, which already marks where each sequence starts; drop lengths=.")
        if Xprev is not None and X.Xprev is not None:
            raise DataError(f"Xprev is given twice (as {what}.Xprev and as Xprev=); drop one of them.")
        return Sequences.from_arrays(X.X, X.offsets, what, Xprev=X.Xprev if Xprev is None else Xprev)
    if isinstance(X, (list, tuple)) and len(X) and all(np.ndim(x) == 2 for x in X):
        if lengths is not None:
            raise DataError(f"{what} is a list of sequences, so lengths= is not needed; drop it (lengths go with "
                            "one 2-D array holding the frames of all sequences).")
        seqs = Sequences.from_list(X, what)
        if Xprev is not None:
            if not isinstance(Xprev, (list, tuple)) or len(Xprev) != len(X):
                raise DataError(f"{what} is a list of {len(X)} sequences, so Xprev must be a list of as many arrays "
                                "(each sequence's predecessor frames).")
            Xprev = np.concatenate([as_float_matrix(p, f"Xprev[{i}]") for i, p in enumerate(Xprev)])
        return Sequences.from_arrays(seqs.X, seqs.offsets, what, Xprev=Xprev)
    frames = as_float_matrix(X, what)
    offsets = np.array([0, len(frames)]) if lengths is None else _lengths_offsets(lengths, len(frames))
    return Sequences.from_arrays(frames, offsets, what, Xprev=Xprev)


def without_targets(y, seqs: Sequences, method: str) -> Sequences:
    """``seqs``, after checking ``y``: scikit-learn passes targets as the second argument of ``fit``
    and ``score``, which an HMM ignores (unsupervised), one per frame; the frames per sequence go by
    keyword, ``lengths=``. A second argument of another length is lengths passed by position
    (hmmlearn's ``fit(X, lengths)``), refused rather than read as one long sequence."""
    if y is not None and np.ndim(y) >= 1 and len(y) != seqs.n_frames:
        raise DataError(f"the second argument of {method} is y (targets, ignored as in scikit-learn), but it has "
                        f"{len(y)} entries for {seqs.n_frames} frames; pass the frames per sequence by keyword: "
                        f"{method}(X, lengths=...).")
    return seqs


def _checked_frames(family, seqs: Sequences, what: str = "X"):
    """What ``family`` scores (frames, with predecessors for AR models, word counts for the
    multinomial), validated by the family."""
    return family.check_data(family.frames_of(seqs), what)


# ---------------------------------------------------------------------- the estimators
class _HMMEstimator(AlgorithmOptionsMixin, SavableMixin, ReportMixin, BaseEstimator):
    """Shared shell of :class:`HDPHMM` and :class:`FiniteHMM`; subclasses set the transition module,
    its prior and the moves memoized VI makes by default."""

    report_kind = "hmm"

    _transitions = None  # the transition module, priors.transition_hdp or priors.transition_finite
    _default_moves: tuple = ()
    _options_class = HMMOptions
    _algorithms = HMM_ALGORITHMS

    def __init__(self, n_states=50, *, obs_model="gauss", obs_prior=None, transition_concentration=0.5,
                 start_concentration=5.0, stickiness=0.0, algorithm="memoized", algorithm_options=None, n_batches=1,
                 moves=None, move_options=None, init="contiguous_blocks", max_laps=100, min_laps=2, tol=1e-6,
                 random_state=None, verbose=0, n_jobs=1, executor=None, callbacks=None, **option_keywords):
        self._set_constructor_params(locals())

    def _set_constructor_params(self, values: dict) -> None:
        """Every constructor parameter from the ``__init__``'s ``locals()`` (option keywords folded in)."""
        for name in self._get_param_names():
            setattr(self, name, values[name])
        self.algorithm_options = self._with_legacy(values["algorithm_options"], values["option_keywords"])

    # ------------------------------------------------------------------ configuration
    def _family(self):
        return checked_family(self.obs_model, self.obs_prior, HMM_OBS_MODELS,
                              "is not an emission family of HMM frames")

    def _transitions_prior(self) -> dict:
        return self._transitions.default_prior(self.transition_concentration, self.start_concentration,
                                               self.stickiness)

    def _configs(self):
        """``(learn config, moves config)``, checking every setting (before any data are read)."""
        check_int("n_states", self.n_states, 1)
        self._family()
        self._transitions_prior()  # checks the concentrations
        check_choice("algorithm", self.algorithm, self._algorithms)
        check_init(self.init, self.n_states)
        check_n_jobs(self.n_jobs)
        check_executor_for("blocked_gibbs" if self.algorithm == "gibbs" else self.algorithm, self.executor)
        options = self._options()
        learn = LearnConfig(algorithm=self.algorithm, max_laps=self.max_laps, min_laps=self.min_laps, tol=self.tol,
                            n_batches=self.n_batches, learning_rate_delay=options.learning_rate_delay,
                            learning_rate_decay=options.learning_rate_decay)
        moves = moves_config(self.moves, self.move_options, HMM_MOVES, type(self).__name__,
                             algorithm=self.algorithm, default_moves=self._default_moves)
        check_moves(learn.algorithm, moves.moves)
        return learn, moves

    def _make_model(self, frames=None, obs_prior=None) -> HMMModel:
        family = self._family()
        if obs_prior is None:
            obs_prior = family.default_prior(frames, **dict(self.obs_prior or {}))
        return HMMModel(family, obs_prior, self._transitions, self._transitions_prior())

    # ------------------------------------------------------------------ fitting
    @documented(FIT)
    def fit(self, X, y=None, *, lengths=None, Xprev=None, checkpoint=None):
        learn_cfg, moves_cfg = self._configs()
        check_feature_names(self, X, reset=True)
        seqs = without_targets(y, as_sequences(X, lengths, Xprev), "fit")
        frames = _checked_frames(self._family(), seqs)
        n_seq = seqs.n_items
        n_states, dim = int(self.n_states), seqs.n_features  # K x K transitions per chunk, K per frame, K x D x D
        check_fit_memory(type(self).__name__, n_states * (n_states * 70 + 4 * seqs.n_frames + 6 * dim * dim),
                         f"lower n_states (now {n_states}).")
        if learn_cfg.n_batches > n_seq:
            raise ValueError(f"n_batches={learn_cfg.n_batches} exceeds the number of sequences ({n_seq}): batches "
                             f"hold whole sequences; use n_batches <= {n_seq} (or split long sequences)")
        minibatches = learner_spec(learn_cfg.algorithm, list(LEARNERS)).minibatches
        if minibatches and n_seq < 2:
            raise ValueError(f"algorithm={self.algorithm!r} draws minibatches of whole sequences, and X holds one "
                             "sequence; use algorithm='memoized' or 'vb', or pass several sequences (lengths=)")
        rng = as_generator(self.random_state)
        session = open_checkpoint(self, checkpoint, rng, data=seqs)
        model = self._make_model(frames)
        batches = driver.split_batches(seqs, learn_cfg.n_batches, int(rng.integers(2**31)))
        source = InMemoryMinibatches(seqs, learn_cfg.n_batches) if minibatches else batches.data
        method, labels = check_init(self.init, self.n_states, seqs.n_frames)
        start = initial_params(model, seqs, self.n_states, method, rng, labels)
        plan = (gibbs_plan(model, seqs, start, int(self.n_states)) if learn_cfg.algorithm == "gibbs" else
                variational_plan(learn_cfg.algorithm, model, source, start, batches.data))
        with numba_threads(self.n_jobs), open_executor(self.executor, self.n_jobs, kernel_threads=True) as executor:
            fitted = run_plan(plan, learn_cfg, moves_cfg, rng, owner=type(self).__name__, callbacks=self.callbacks,
                              verbose=self.verbose, executor=executor, checkpoint=session)
        self.n_features_in_ = seqs.n_features
        self._set_fitted(fitted.model, fitted.params, fitted.stats, fitted.trace, fitted.result.stop_reason,
                         fitted.lower_bound, fitted.accepted_moves)
        for name, value in fitted.attributes.items():
            setattr(self, name, value)
        return self

    def _set_fitted(self, model: HMMModel, params: HMMParams, stats: SuffStats, trace, stop_reason: str,
                    elbo: float, moves):
        self.model_, self.params_, self.stats_ = model, params, stats
        self.trace_, self.stop_reason_, self.moves_ = trace, stop_reason, moves
        self.converged_ = stop_reason == "converged"
        self.n_iter_ = len(trace)
        self.elbo_ = self.lower_bound_ = float(elbo)
        self.elbo_trace_ = np.array([r["elbo"] for r in trace])
        self.n_states_ = params.n_components
        self.state_counts_ = stats.counts.copy()
        self.n_active_states_ = int(np.sum(stats.counts >= driver.EFFECTIVE_COUNT))
        start, trans = model.expected_transition_matrix(params)
        self.startprob_ = start / start.sum()
        self.transmat_ = trans / trans.sum(axis=1, keepdims=True)
        self.state_weights_ = self._state_weights(params)
        for name, value in model.obs.summary(params.obs).items():
            setattr(self, f"{name}_", value)

    def _state_weights(self, params: HMMParams) -> np.ndarray:
        return sticks.stick_weights(params.trans["rho"])[0]

    # ------------------------------------------------------------------ using the model
    def _validated(self, X, lengths, Xprev) -> Sequences:
        check_is_fitted(self, "params_")
        check_feature_names(self, X, reset=False)
        seqs = as_sequences(X, lengths, Xprev)
        check_n_features(self, seqs.n_features)
        _checked_frames(self.model_.obs, seqs)
        return seqs

    @documented(PREDICT)
    def predict(self, X, lengths=None, *, Xprev=None) -> np.ndarray:
        seqs = self._validated(X, lengths, Xprev)
        with numba_threads(self.n_jobs):
            return self.model_.viterbi(self.params_, seqs)

    @documented(DECODE)
    def decode(self, X, lengths=None, *, Xprev=None) -> tuple[float, np.ndarray]:
        seqs = self._validated(X, lengths, Xprev)
        with numba_threads(self.n_jobs):
            path, score = self.model_.decode(self.params_, seqs)
        return score, path

    @documented(SAMPLE)
    def sample(self, n_samples: int = 1, random_state=None, *, prev0=None) -> tuple[np.ndarray, np.ndarray]:
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

    @documented(PREDICT_PROBA)
    def predict_proba(self, X, lengths=None, *, Xprev=None) -> np.ndarray:
        seqs = self._validated(X, lengths, Xprev)
        with numba_threads(self.n_jobs):
            return self.model_.local_step(self.params_, seqs).resp

    @documented(SCORE_SEQUENCES)
    def score_sequences(self, X, lengths=None, *, Xprev=None) -> np.ndarray:
        seqs = self._validated(X, lengths, Xprev)
        with numba_threads(self.n_jobs):
            return self.model_.log_predictive(self.params_, seqs)

    @documented(SCORE)
    def score(self, X, y=None, *, lengths=None, Xprev=None, total: bool = False) -> float:
        seqs = without_targets(y, self._validated(X, lengths, Xprev), "score")  # feature names checked as in predict
        with numba_threads(self.n_jobs):
            value = float(np.sum(self.model_.log_predictive(self.params_, seqs)))
        return value if total else value / seqs.n_frames

    # ------------------------------------------------------------------ persistence
    @documented(SAVE)
    def save(self, path):
        check_is_fitted(self, "params_")
        arrays = {
            **persist.prefixed("obs_prior.", self.model_.obs_prior),
            **persist.prefixed("obs.", self.params_.obs),
            **persist.prefixed("trans.", self.params_.trans),
            "uids": self.params_.uids,
            **self.stats_.to_arrays("stats."),
        }
        extra = {"trace": self.trace_, "stop_reason": self.stop_reason_, **self._input_extra(),
                 "elbo": self.elbo_, "moves": self.moves_}
        return persist.save_model(path, type(self).__name__, self._saved_params(), arrays, extra)

    @classmethod
    def _from_saved(cls, meta, arrays):
        est = cls._from_params(cls._loaded_params(meta))
        model = est._make_model(obs_prior=persist.nested_arrays(arrays, "obs_prior."))
        fitted = HMMParams(arrays["uids"], persist.nested_arrays(arrays, "obs."), persist.nested_arrays(arrays, "trans."))
        extra = meta["extra"]
        est._restore_input(extra)
        est._set_fitted(model, fitted, SuffStats.from_arrays(arrays, "stats."), extra["trace"], extra["stop_reason"],
                        extra["elbo"], extra["moves"])
        return est


@persist.register
class HDPHMM(_HMMEstimator):
    __doc__ = HDPHMM_DOC

    _transitions = hdp_hmm
    _default_moves = ("birth", "merge", "delete")
    _algorithms = HMM_ALGORITHMS + ("gibbs",)

    def __init__(self, n_states=10, *, obs_model="gauss", obs_prior=None, transition_concentration=0.5,
                 start_concentration=5.0, stickiness=0.0, concentration=10.0, learn_concentration=False,
                 algorithm="memoized", algorithm_options=None, n_batches=1, moves=None, move_options=None,
                 init="contiguous_blocks", max_laps=100, min_laps=2, tol=1e-6, random_state=None, verbose=0, n_jobs=1,
                 executor=None, callbacks=None, **option_keywords):
        self._set_constructor_params(locals())

    def _transitions_prior(self) -> dict:
        return hdp_hmm.default_prior(self.transition_concentration, self.start_concentration, self.stickiness,
                                     self.concentration, learn=self.learn_concentration)

    def _set_fitted(self, model: HMMModel, params: HMMParams, *rest):
        super()._set_fitted(model, params, *rest)
        self.concentrations_ = hdp_hmm.concentrations(model.transitions_prior, params.trans)


@persist.register
class FiniteHMM(_HMMEstimator):
    __doc__ = FINITE_HMM_DOC

    _transitions = finite_hmm
    _default_moves = ()

    def _state_weights(self, params: HMMParams) -> np.ndarray:
        return np.full(params.n_components, 1.0 / params.n_components)
