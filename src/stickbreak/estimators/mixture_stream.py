"""``partial_fit`` for the mixtures: a stream fitted chunk by chunk, with new clusters born where a
chunk holds data unlike what came before (:mod:`stickbreak.learn.streaming`)."""

from __future__ import annotations

import time

import numpy as np

from .. import driver
from ..config import moves_config
from ..core.protocols import total_elbo
from ..core.sparse_resp import to_dense
from ..learn.streaming import fit_with_window
from ._common import as_generator, numba_threads


class StreamingMixture:
    """The mixtures' ``partial_fit``; the estimator provides ``fit``, ``_validated``, ``_set_fitted``,
    its ``moves`` settings and ``_default_moves`` (:class:`.mixture_base.MixtureEstimator`)."""

    def partial_fit(self, X, y=None):
        """Update the mixture with one chunk of a stream, creating clusters for data unlike any seen.

        The first call is :meth:`fit` on the chunk. Each later chunk is fitted once against the
        statistics of every earlier item, which are kept and never revisited, so memory is bounded
        by the model (K clusters), not by the stream (streaming VB, Broderick et al. 2013, in the
        form of Hughes 2016 §2.4). With births among the moves (the default of
        :class:`~stickbreak.DPMixture`, whatever ``algorithm`` fitted the first chunk), the chunk's
        worst-fitted clusters are split by births accepted on the exact ELBO (Hughes 2016, §4.2) and
        newborns that duplicate a cluster are merged back; clusters of earlier chunks are neither
        merged nor deleted (their items are gone). The last 2,000 items (``move_options``
        ``stream_window``) are kept and refitted with each chunk, their old share of the statistics
        taken out first, so that births are judged on more than one small chunk
        (:func:`stickbreak.learn.streaming.fit_with_window`; :meth:`save` keeps them). ``labels_``
        are then the chunk's labels, as for scikit-learn's ``MiniBatchKMeans``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), sparse matrix, raw text or token lists
            The chunk, of the kind the first chunk was (text is counted over the first chunk's
            vocabulary; words it lacks are dropped).
        y : None
            Ignored; for scikit-learn's API.

        Returns
        -------
        self : object
            The updated estimator.

        Examples
        --------
        >>> import numpy as np
        >>> from stickbreak import DPMixture
        >>> rng = np.random.default_rng(0)
        >>> model = DPMixture(random_state=0)
        >>> for chunk in range(4):  # a cluster at (8, 8) first appears in the third chunk
        ...     centers = [(0, 0), (8, 0)] + ([(8, 8)] if chunk >= 2 else [])
        ...     X = np.concatenate([rng.normal(c, 1.0, size=(150, 2)) for c in centers])
        ...     model = model.partial_fit(X)
        >>> model.n_active_components_
        3
        """
        if "params_" not in vars(self):
            return self.fit(X)
        start = time.perf_counter()
        data = self._validated(X)
        # a chunk is fitted as memoized VI fits a batch, whatever algorithm fitted the first chunk
        moves = moves_config(self.moves, self.move_options, owner=type(self).__name__, algorithm="memoized",
                             default_moves=self._default_moves)
        rng = np.random.default_rng([int(as_generator(self.random_state).integers(2 ** 63)), len(self.trace_)])
        with numba_threads(self.n_jobs):
            fitted, window, rows = fit_with_window(self.model_, self.params_, self.stats_, self._stream_window, data,
                                                   moves, rng, tol=self.tol, size=moves.stream_window)
        # the chunk's labels from its final local step, its columns mapped to the final components
        labels = fitted.stats.indices_of(fitted.local_uids[np.argmax(to_dense(fitted.local.resp[rows]), axis=1)])
        counts = fitted.stats.counts
        record = driver.LapRecord(lap=len(self.trace_) + 1, elbo=total_elbo(fitted.terms), terms=fitted.terms,
                                  n_components=len(counts), n_effective=int(np.sum(counts >= driver.EFFECTIVE_COUNT)),
                                  seconds=self.trace_[-1]["seconds"] + time.perf_counter() - start,
                                  moves=fitted.moves)
        self._set_fitted(self.model_, fitted.params, fitted.stats, self.trace_ + [record.as_dict()], "partial_fit",
                         labels, move_log=self.move_log_)
        self._stream_window = window
        return self
