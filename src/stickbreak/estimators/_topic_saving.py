"""Save and load of the topic estimators (:class:`TopicSaving`, a mixin of ``_TopicEstimator``)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import persist
from ..core.suffstats import SuffStats
from ._common import documented
from ._topic_docs import SAVE


class TopicSaving:
    """``save`` and ``_from_saved`` of a topic estimator: its prior, topics, document-weight
    parameters, statistics, vocabulary, trace and ``partial_fit`` stream, as plain arrays and JSON."""

    @documented(SAVE)
    def save(self, path):
        check_is_fitted(self, "params_")
        params = self._saved_params()
        arrays = {
            **persist.prefixed("obs_prior.", self.model_.obs_prior),
            **persist.prefixed("obs.", self.params_.obs),
            **persist.prefixed("weights.", self.params_.weights),
            "uids": self.params_.uids,
            **self.stats_.to_arrays("stats."),
        }
        if self.vocabulary_ is not None:
            arrays["vocabulary"] = np.array(self.vocabulary_, dtype=str)
        extra = {"trace": self.trace_, "stop_reason": self.stop_reason_, **self._input_extra()}
        if "_stream" in vars(self):  # a partial_fit stream: a loaded model goes on with the next step
            extra["stream"] = {key: self._stream[key] for key in ("step", "seen", "stochastic_model")}
        return persist.save_model(path, type(self).__name__, params, arrays, extra)

    @classmethod
    def _from_saved(cls, meta, arrays):
        est = cls._from_params(meta["params"])
        stream = meta["extra"].get("stream")
        stochastic = None if stream is None else stream.get("stochastic_model", True)  # older files lack it
        model = est._make_model(0, obs_prior=persist.nested_arrays(arrays, "obs_prior."), stochastic=stochastic)
        params = model.make_params(arrays["uids"], persist.nested_arrays(arrays, "obs.")["lam"],
                                   persist.nested_arrays(arrays, "weights."))
        extra = meta["extra"]
        est._restore_input(extra)
        est.vocabulary_ = tuple(arrays["vocabulary"].tolist()) if "vocabulary" in arrays else None
        est._set_fitted(model, params, SuffStats.from_arrays(arrays, "stats."), extra["trace"], extra["stop_reason"])
        if stream is not None:
            est._stream = est._new_stream(int(stream["step"]), int(stream["seen"]), stochastic_model=stochastic)
        return est

