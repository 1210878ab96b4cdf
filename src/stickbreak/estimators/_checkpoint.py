"""Checkpoint and resume of an estimator's fit (``fit(..., checkpoint=DIR)``, :func:`resume`).

A checkpoint holds, after every completed lap, everything the run needs to go on exactly as if it
had not stopped: the learner's state, the state of the generator the learner draws from, the
trace, and what the fit was started from (the estimator's class and parameters, the generator's
state at the start of ``fit``, a fingerprint of the training data). :func:`resume` rebuilds the
estimator, repeats the fit's setup (the same batches), swaps in the saved state and runs the
remaining laps; the result equals the uninterrupted run's.
"""

from __future__ import annotations

import json
import os
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import driver, persist
from ..data import DataError
from ..learn.registry import LEARNERS, canonical
from ..persist import CheckpointError, checkpoint
from ..persist.lock import DirectoryLock

#: Parameters that may differ between a run and its resumption (they do not change the result).
FREE_PARAMS = ("callbacks", "verbose", "random_state", "executor", "max_laps")
#: Seconds between checkpoints within a long lap, by default.
EVERY = 600.0
SUPPORTED = ("checkpoint= is supported by algorithm='vb', 'stochastic' and 'memoized' of DPMixture, FiniteMixture, "
             "LDA, HDPTopicModel (variational_family='direct'), HDPHMM and FiniteHMM")


@dataclass(frozen=True)
class CheckpointDir:
    """Where and how often a fit writes its checkpoints: ``fit(X, checkpoint=CheckpointDir(DIR, every=60))``.

    A checkpoint (``DIR/checkpoint.npz``, replaced atomically each time) is written after every
    lap and, by the learners that can (memoized and stochastic VI), within a lap too once
    ``every`` seconds have passed since the last one; :func:`stickbreak.resume` continues the fit
    from it. Passing a plain directory path as ``checkpoint=`` is the same as
    ``CheckpointDir(path)``.

    Parameters
    ----------
    path : str or path-like
        The directory (made if missing); it must not already hold a checkpoint.
    extra : dict, optional
        JSON-able notes stored with every checkpoint (the command line keeps its arguments there).
    every : float or None, default=600.0
        Seconds between checkpoints within a lap (> 0); None writes them only after laps.

    See Also
    --------
    resume : Continue the checkpointed fit.

    Examples
    --------
    >>> import os
    >>> from stickbreak import CheckpointDir, DPMixture, datasets
    >>> X = datasets.load("old_faithful").X
    >>> model = DPMixture(algorithm="memoized", n_components=5, max_laps=3, tol=0, random_state=0)
    >>> model = model.fit(X, checkpoint=CheckpointDir("run", every=None))
    >>> os.listdir("run")  # (a running fit also holds the directory's lock, .lock)
    ['checkpoint.npz']
    """

    path: Path
    extra: dict = field(default_factory=dict)
    every: float | None = EVERY

    def __post_init__(self):
        if self.every is not None and not float(self.every) > 0:
            raise ValueError(f"every={self.every!r}: give the seconds between checkpoints within a lap (> 0), "
                             "or None to write them only after laps")


@dataclass(frozen=True, eq=False)
class Resuming:
    """A checkpoint read back, for a fit to continue from."""

    path: Path
    document: dict
    content: dict


def read(directory, trust: bool = False) -> Resuming:
    """The checkpoint in ``directory``, checked and decoded (a CheckpointError names any problem;
    ``trust``: resume one this user's stickbreak did not write, :mod:`stickbreak.persist.authenticity`)."""
    document, arrays = checkpoint.read(directory, trust)
    try:
        content = persist.decode(document["content"], arrays)
    except CheckpointError as exc:
        raise CheckpointError(f"{checkpoint.checkpoint_path(directory)}: {exc}") from exc
    except Exception as exc:  # a well-formed file whose content does not fit the state types
        raise CheckpointError(f"{checkpoint.checkpoint_path(directory)} holds a state this stickbreak cannot rebuild "
                              f"({type(exc).__name__}: {exc}); resume it with the version that wrote it "
                              f"({document.get('stickbreak_version')}) or start the fit again") from exc
    return Resuming(Path(directory), document, content)


def _normal(params: dict) -> dict:
    return json.loads(json.dumps(persist.to_jsonable({k: v for k, v in params.items() if k not in FREE_PARAMS})))


class CheckpointSession:
    """One fit's checkpoints: written after every lap (:meth:`save`), resumed from (:meth:`resumed`).
    A context manager: the directory's lock is held until the ``with`` block ends."""

    def __init__(self, est, target, rng: np.random.Generator, lock: DirectoryLock):
        self.lock = lock
        # the parameters as JSON now: a value that cannot be stored fails before any work, not at lap 1
        self.estimator, self.params = type(est).__name__, persist.to_jsonable(est._saved_params())
        self.rng, self.setup_rng = rng, rng.bit_generator.state
        self.resuming = target if isinstance(target, Resuming) else None
        self.directory = Path(target.path)
        self.extra = dict(target.extra) if isinstance(target, CheckpointDir) else {}
        self.every = target.every if isinstance(target, CheckpointDir) else EVERY
        self.data = None
        if self.resuming is not None:
            self.extra = self.resuming.document["extra"]
            self.every = self.resuming.document.get("every", EVERY)
            self._check_estimator()

    def __enter__(self) -> CheckpointSession:
        return self

    def __exit__(self, *exc) -> None:
        self.lock.release()

    def _check_estimator(self) -> None:
        document = self.resuming.document
        if document["estimator"] != self.estimator:
            raise CheckpointError(f"{self.directory} is a checkpoint of a {document['estimator']} fit, not of a "
                                  f"{self.estimator}; resume it with stickbreak.resume({str(self.directory)!r}, X)")
        saved, own = _normal(document["params"]), _normal(self.params)
        changed = sorted(k for k in saved.keys() | own.keys() if saved.get(k) != own.get(k))
        if changed:
            raise CheckpointError(f"{self.directory} was written by a {self.estimator} with other parameters "
                                  f"({', '.join(f'{k}={saved.get(k)!r}' for k in changed)}); resume it with the "
                                  "same parameters (stickbreak.resume rebuilds them from the checkpoint)")

    def check_data(self, data) -> CheckpointSession:
        """Fingerprint the validated training data; when resuming, it must be the checkpoint's."""
        self.data = checkpoint.fingerprint(data)
        if self.resuming is not None and self.resuming.document["data"] != self.data:
            saved = self.resuming.document["data"]
            raise CheckpointError(f"the data differ from those {self.directory} was written for ({saved['kind']} of "
                                  f"shape {saved['shape']}, sha256 {saved['sha256'][:12]}..., got {self.data['kind']} "
                                  f"of shape {self.data['shape']}, sha256 {self.data['sha256'][:12]}...); "
                                  "resume with the same training data")
        return self

    def resumed(self) -> driver.Resumed | None:
        """Where the run goes on (None for a new run); the generator is put back in its saved state."""
        if self.resuming is None:
            return None
        content = self.resuming.content
        self.rng.bit_generator.state = content["rng"]
        trace = tuple(driver.LapRecord(**record) for record in content["trace"])
        seconds = content.get("seconds")  # absent from checkpoints written before it was saved
        return driver.Resumed(content["state"], trace, self.resuming.document["stop_reason"],
                              None if seconds is None else float(seconds))

    def save(self, state, trace, stop_reason, seconds: float) -> None:
        """Write the checkpoint of the lap just completed, or of a lap in progress after ``trace``,
        ``seconds`` into the fit (the driver's ``on_lap``)."""
        content = {"state": state, "trace": [record.as_dict() for record in trace], "rng": self.rng.bit_generator.state,
                   "setup_rng": self.setup_rng, "seconds": float(seconds)}
        tree, arrays = persist.encode(content)
        document = checkpoint.new_document(estimator=self.estimator, params=self.params,
                                           data=self.data, lap=len(trace), stop_reason=stop_reason, extra=self.extra,
                                           every=self.every, content=tree)
        checkpoint.write(self.directory, document, arrays)


def open_checkpoint(est, target, rng: np.random.Generator, resumable: bool = True,
                    data=None) -> CheckpointSession | nullcontext[None]:
    """The checkpoint session of ``est.fit(..., checkpoint=target)``, opened before any work and
    used as ``with open_checkpoint(...) as session:`` (session None without a checkpoint; the
    directory stays locked until the block ends): ``rng`` is the fit's generator, not yet drawn
    from; ``resumable``: the estimator can checkpoint its current settings; ``data`` (or later
    :meth:`check_data`) the validated training data."""
    if target is None:
        return nullcontext()
    spec = LEARNERS.get(canonical(est.algorithm))
    if not resumable or spec is None or not spec.resumable:
        settings = {k: v for k, v in est.get_params().items() if k in ("algorithm", "variational_family")}
        described = ", ".join(f"{k}={v!r}" for k, v in settings.items())
        raise ValueError(f"{type(est).__name__}({described}) cannot write checkpoints: {SUPPORTED}")
    if isinstance(target, (str, os.PathLike)):
        target = CheckpointDir(Path(target))
    if not isinstance(target, (CheckpointDir, Resuming)):
        raise TypeError(f"checkpoint must be a directory path, got {type(target).__name__}")
    lock = DirectoryLock(target.path).acquire()  # before the checks: a second run is refused, never raced
    try:
        if isinstance(target, CheckpointDir) and checkpoint.checkpoint_path(target.path).exists():
            raise CheckpointError(f"{target.path} already holds a checkpoint; continue that run with "
                                  f"stickbreak.resume({str(target.path)!r}, X) (`stickbreak resume DIR`), or delete "
                                  "it or choose another directory to start a new one")
        session = CheckpointSession(est, target, rng, lock)
        return session if data is None else session.check_data(data)
    except BaseException:
        lock.release()
        raise


def resume(directory, X, *, callbacks=None, executor=None, max_laps=None, trust=False, **fit_inputs):
    """Continue the fit checkpointed in ``directory`` to its end, as if it had never stopped.

    The estimator is rebuilt from the checkpoint (its class and constructor parameters), the
    fit's setup is repeated with the generator's saved starting state (the same batches), the
    saved learner state is swapped in and the remaining laps run: the result equals the
    uninterrupted run's. The checkpoint is only replaced by later laps.

    Parameters
    ----------
    directory : str or path-like
        The directory the fit wrote its checkpoints to (``fit(X, checkpoint=directory)``).
    X : array-like, sparse matrix, Sequences or ShardStore
        The fit's training data, exactly as first given (they are checked against the
        checkpoint's SHA-256 fingerprint).
    callbacks : list of callable, optional
        Callbacks for the remaining laps (callbacks are not saved).
    executor : optional
        Where the remaining laps' local steps run (an ``executor`` value of the estimator);
        default: as the checkpointed fit said. A Dask client is not saved, so pass it again.
        The result does not depend on it.
    max_laps : int, optional
        A larger ``max_laps`` than the fit's extends a run that stopped at its ``max_laps`` by
        the laps the longer run would have made (a converged run stays as it is).
    trust : bool, default=False
        Resume a checkpoint this user's stickbreak did not write on this machine (another
        user's or machine's, or one edited since): its authentication code is then not checked
        (:mod:`stickbreak.persist.authenticity`). Only for files you trust: the estimator and
        state are rebuilt from what the file says.
    **fit_inputs
        The fit's other inputs, as first given, e.g. ``lengths=`` for HMMs.

    Returns
    -------
    estimator : object
        The fitted estimator, of the class that wrote the checkpoint.

    Raises
    ------
    stickbreak.CheckpointError
        If the checkpoint is missing, corrupt, not written by this user's stickbreak (unless
        ``trust``) or of an unknown estimator, or ``X`` is not the data it was written for (a
        ValueError).

    See Also
    --------
    CheckpointDir : How often checkpoints are written.

    Examples
    --------
    >>> import stickbreak
    >>> from stickbreak import DPMixture, datasets
    >>> X = datasets.load("old_faithful").X
    >>> short = DPMixture(algorithm="vb", n_components=5, max_laps=3, tol=0, random_state=0)
    >>> short = short.fit(X, checkpoint="run")  # as if the run had stopped after 3 laps
    >>> longer = stickbreak.resume("run", X, max_laps=6)
    >>> whole = DPMixture(algorithm="vb", n_components=5, max_laps=6, tol=0, random_state=0).fit(X)
    >>> longer.n_iter_, bool(longer.lower_bound_ == whole.lower_bound_)
    (6, True)
    """
    resuming = read(directory, trust)
    try:
        return _resumed_fit(resuming, X, callbacks, executor, max_laps, fit_inputs)
    except (CheckpointError, DataError):  # they name the problem
        raise
    except Exception as exc:
        if not trust:  # written by this user's stickbreak: anything else is for the caller to see
            raise
        raise CheckpointError(f"{directory}: the trusted checkpoint could not be resumed ({type(exc).__name__}: "
                              f"{str(exc)[:300]}); it was edited, or written by an incompatible stickbreak "
                              f"({resuming.document.get('stickbreak_version')}): start the fit again") from exc


def _resumed_fit(resuming: Resuming, X, callbacks, executor, max_laps, fit_inputs):
    name = resuming.document["estimator"]
    if name not in persist.ESTIMATORS:
        raise CheckpointError(f"{resuming.path} is a checkpoint of a {name!r}, which this stickbreak does not know")
    params = persist.from_jsonable(resuming.document["params"])
    est = persist.ESTIMATORS[name]._from_params(params)
    setup = resuming.content["setup_rng"]
    if not isinstance(params.get("random_state"), int):  # the generator of the original fit, as it started
        est.random_state = checkpoint.generator(setup)
    est.callbacks = callbacks
    if executor is not None:
        est.executor = executor
    if max_laps is not None:
        est.max_laps = max_laps
    return est.fit(X, checkpoint=resuming, **fit_inputs)
