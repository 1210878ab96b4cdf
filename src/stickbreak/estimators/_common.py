"""Helpers shared by the estimator shells."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import driver, obs
from ..config import MINIBATCH_ALGORITHMS
from ..core.suffstats import SuffStats
from ..data import DataError
from ..data.memory import check_memory
from ..data.shards import ShardStore
from ..learn import InMemoryMinibatches, StoredMinibatches
from ..learn.registry import LEARNERS, canonical
from ..parallel import check_executor, runs_here
from .. import persist
from ..report import write_report

#: Items sampled from an on-disk store for prior defaults and initialisation.
INIT_SAMPLE = 20_000


@contextmanager
def numba_threads(n_jobs: int):
    """Give the kernels ``n_jobs`` threads (-1: all cores) inside the block: numba's thread budget,
    which :func:`~stickbreak.kernels.chunked.over_chunks` honours."""
    available = numba.config.NUMBA_NUM_THREADS
    wanted = available if n_jobs == -1 else max(1, min(int(n_jobs), available))
    old = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(old)


def chunks_for(n_jobs) -> int:
    """How many chunks of documents (or groups) a local step splits into for ``n_jobs`` threads (-1: all cores)."""
    return numba.config.NUMBA_NUM_THREADS if n_jobs == -1 else int(n_jobs)


#: numpydoc sections of every estimator's ``save``, by its ``$save_sections`` in the docstring (:func:`composed`).
SAVE_SECTIONS = {"save_sections": """Parameters
        ----------
        path : str or path-like
            Where to write; ``.npz`` is appended when missing and missing directories are made.

        Returns
        -------
        path : pathlib.Path
            The path written (with the ``.npz`` suffix)."""}


def check_n_jobs(n_jobs) -> None:
    if not (n_jobs == -1 or (isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, bool) and n_jobs >= 1)):
        raise ValueError(f"n_jobs must be a positive integer or -1 (all cores), got {n_jobs!r}")


def check_fit_memory(owner: str, n_floats: float, fix: str) -> None:
    """Refuse a fit whose arrays (about ``n_floats`` float64 values in all, from the estimator's
    sizes) cannot fit in the available memory, before any work."""
    check_memory(8.0 * n_floats, f"{owner}'s fit", fix)


#: Float64 arrays of items x components a prediction holds at its peak (responsibilities, their
#: logs, the output; an HMM's forward and backward messages too).
PREDICTION_ARRAYS = 6


def check_prediction_memory(owner: str, n_items: int, n_components: int) -> None:
    """Refuse, before any work, a prediction whose items x components arrays cannot fit in memory."""
    check_memory(8.0 * PREDICTION_ARRAYS * n_items * n_components,
                 f"{owner}'s prediction for {n_items:,} items over {n_components:,} components",
                 "pass the items in chunks (e.g. 10,000 at a time) and concatenate the results.")


def as_generator(random_state) -> np.random.Generator:
    """A numpy Generator from None, an int, a Generator or a legacy RandomState."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(random_state)
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {type(random_state).__name__}")


def check_executor_for(algorithm: str, executor) -> None:
    """``executor`` names something usable, and ``algorithm`` can run its local steps there
    (a sequential algorithm runs in the driver's process only): checked before any work."""
    check_executor(executor)
    spec = LEARNERS.get(canonical(algorithm))
    if spec is not None and spec.sequential and not runs_here(executor):
        raise ValueError(f"algorithm={algorithm!r} runs in the driver's process only: {spec.sequential}. "
                         f"Use executor=None (threads), or algorithm='vb', 'stochastic' or 'memoized'")


def check_feature_names(estimator, X, *, reset: bool) -> None:
    """scikit-learn's feature-name bookkeeping: at fit (``reset``) ``feature_names_in_`` holds the string
    column names of a DataFrame (and goes for other input); later, other names are a ValueError and
    input without names a warning, as in scikit-learn."""
    validate_data(estimator, X, reset=reset, skip_check_array=True, ensure_2d=False)


def check_n_features(estimator, n_features: int) -> None:
    if n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_features} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input."
        )


@dataclass(frozen=True, eq=False)
class DataPlan:
    """What a fit needs from its input: an in-memory sample for the prior defaults and the
    initialisation, the batches (with item indices, for labels and exact passes), the source the
    learner iterates (the batches, or fresh minibatches for stochastic VI) and the whole validated
    data (or the store)."""

    sample: Any
    batches: driver.Batches
    source: Any
    n_features: int
    whole: Any = None


def _store_batches(store: ShardStore) -> driver.Batches:
    ends = np.cumsum(store.meta["sizes"])
    index = [np.arange(end - size, end) for end, size in zip(ends, store.meta["sizes"])]
    return driver.Batches(index, store)


def prepare_data(X, family, learn_cfg, rng: np.random.Generator) -> DataPlan:
    """Validate the input and lay it out for ``learn_cfg.algorithm`` (checks happen before any work)."""
    if isinstance(X, ShardStore):
        wants_counts = family.name == "mult"
        if wants_counts != (X.kind == "bow"):
            raise DataError(f"the shards hold {X.kind} data, which observation model {family.name!r} cannot use")
        batches = _store_batches(X)
        source = StoredMinibatches(X, learn_cfg.sampling) if learn_cfg.algorithm in MINIBATCH_ALGORITHMS else X
        return DataPlan(X.sample(INIT_SAMPLE, rng), batches, source, X.n_features, X)
    data = family.check_data(X, "X")
    # memoized VI keeps one cached summary per batch; SVI draws fresh minibatches every lap; the
    # executor splits each batch among its workers itself. Fewer items than n_batches: one per batch.
    batches = driver.split_batches(data, learn_cfg.n_batches, int(rng.integers(2**31)))
    source = (InMemoryMinibatches(data, min(learn_cfg.n_batches, data.n_items), learn_cfg.sampling)
              if learn_cfg.algorithm in MINIBATCH_ALGORITHMS else batches.data)
    return DataPlan(data, batches, source, data.n_features, data)


class SavableMixin:
    """``save``/``load`` plumbing shared by every estimator (the arrays are the estimator's own)."""

    def _saved_params(self) -> dict:
        """Constructor parameters that can go into the JSON metadata (callbacks and Generators cannot)."""
        params = self.get_params()
        params["callbacks"] = None
        if not (params.get("executor") is None or isinstance(params["executor"], str)):
            params["executor"] = None  # a Client or an open executor is this session's; the saved model needs neither
        if not (params["random_state"] is None or isinstance(params["random_state"], (int, np.integer))):
            params["random_state"] = None  # a Generator's state is not saved; the fitted model does not need it
        return params

    @staticmethod
    def _loaded_params(meta: dict) -> dict:
        """The saved constructor parameters, ``moves`` back to a tuple (JSON stores a list)."""
        params = dict(meta["params"])
        if isinstance(params.get("moves"), list):
            params["moves"] = tuple(params["moves"])
        return params

    def _fitted_arrays(self, allocation: dict, prefix: str) -> dict:
        """The arrays every fitted model saves: the observation prior and parameters, the allocation's
        parameters under ``prefix`` (``"weights."``, or an HMM's ``"trans."``), the components' uids
        and the whole-data statistics."""
        return {**persist.prefixed("obs_prior.", self.model_.obs_prior), **persist.prefixed("obs.", self.params_.obs),
                **persist.prefixed(prefix, allocation), "uids": self.params_.uids, **self.stats_.to_arrays("stats.")}

    def _input_extra(self) -> dict:
        """What the fitted model knows of its input, for the saved metadata."""
        names = vars(self).get("feature_names_in_")
        return {"n_features_in": self.n_features_in_, "feature_names_in": None if names is None else list(names)}

    def _restore_input(self, extra: dict) -> None:
        self.n_features_in_ = int(extra["n_features_in"])
        if extra.get("feature_names_in") is not None:  # files saved before names were kept lack the key
            self.feature_names_in_ = np.asarray(extra["feature_names_in"], dtype=object)

    def _restore_fitted(self, model, params, arrays: dict, extra: dict, *rest):
        """A model read back from a file: what it knew of its input (``extra``), then
        ``_set_fitted(model, params, statistics, trace, stop reason, *rest)`` with the saved ones."""
        self._restore_input(extra)
        self._set_fitted(model, params, SuffStats.from_arrays(arrays, "stats."), extra["trace"], extra["stop_reason"],
                         *rest)
        return self

    @classmethod
    def load(cls, path):
        """Load a model of this class saved by :meth:`save`.

        Nothing is unpickled; the file's SHA-256 digest is checked, so a damaged or edited file is
        refused. :func:`stickbreak.load` reads a model of any class.

        Parameters
        ----------
        path : str or path-like
            The ``.npz`` file written by :meth:`save`.

        Returns
        -------
        estimator : object
            The fitted estimator, an instance of this class, ready to predict, score, report and
            save (its ``callbacks`` are None).

        Raises
        ------
        FileNotFoundError
            If there is no file at ``path``.
        TypeError
            If the file holds a model of another class.
        stickbreak.persist.ModelFileError
            If the file is not a stickbreak model, was written by a newer format version, or was
            damaged or edited since it was saved.
        """

        est = persist.load(path)
        if not isinstance(est, cls):
            raise TypeError(f"{path} holds a {type(est).__name__}, not a {cls.__name__}")
        return est


class ReportMixin:
    """``report``: the estimator's HTML report; each base class declares its ``report_kind``
    (a key of :data:`stickbreak.report.KINDS`)."""

    report_kind: str

    def report(self, path, X=None, **data):
        """Write a self-contained HTML report of the fitted model to ``path``.

        The page shows the fit (stop reason, laps, K, final ELBO, timings), the data, the
        constructor parameters and the package versions, the ELBO trace and the figures of the
        model's kind (:func:`stickbreak.report.write_report`); the figures are embedded, so the
        file can be shared alone.

        Parameters
        ----------
        path : str or path-like
            The HTML file to write (missing directories are made).
        X : array-like, sparse matrix or Sequences, optional
            Data of the kind the model was fitted on, for the data table and the figures that
            need data (mixtures: the items by cluster; HMMs: state sequences and durations;
            admixtures: topic proportions per group).
        **data
            Keywords of :func:`stickbreak.report.write_report`: ``lengths`` (sequence or group
            lengths of ``X`` for HMMs and admixtures), ``Xprev`` (predecessors, for
            ``obs_model="ar_gauss"``), ``labels`` (true state labels, an aligned strip for HMMs),
            ``image_shape`` (mixtures: draw the cluster means as images of this shape instead of
            a PCA projection of ``X``), ``run`` (a dict of extra facts) and ``title``.

        Returns
        -------
        path : pathlib.Path
            The path written.
        """
        check_is_fitted(self, "trace_")
        return write_report(self, path, X, **data)


def checked_family(obs_model, obs_prior, allowed, why: str):
    """The observation family ``obs_model`` names, if it is one of ``allowed`` (else a ValueError
    saying ``why``), with ``obs_prior`` (None or a dict of the family's prior options) checked."""
    family = obs.get(obs_model)  # unknown names: a clear error
    if family.name not in allowed:
        raise ValueError(f"obs_model={family.name!r} {why}; choose one of {list(allowed)}")
    if not isinstance(obs_prior, (dict, type(None))):
        raise TypeError(f"obs_prior must be a dict of prior options, got {type(obs_prior).__name__}")
    obs.expfam.check_prior_options(family, obs_prior or {})
    return family
