"""``algorithm_options``: the one mapping that holds the knobs only some algorithms read.

An estimator names its options dataclass (:mod:`stickbreak.config`), the keys it reads and its
defaults; :meth:`AlgorithmOptionsMixin._options` validates the mapping at fit (scikit-learn's rule:
constructors only assign). The option names are not constructor arguments (the old spellings were
removed after 0.1.0, see ``CHANGELOG.md``).
"""

from __future__ import annotations

from ..config import algorithm_options, option_names


class AlgorithmOptionsMixin:
    """The validated ``algorithm_options`` of an estimator."""

    #: The options dataclass of :mod:`stickbreak.config` and the keys this estimator reads (empty:
    #: every field).
    _options_class: type = None
    _option_keys: tuple = ()
    #: This estimator's defaults for the dataclass's fields.
    _option_defaults: dict = {}

    @classmethod
    def _option_names(cls) -> tuple:
        return cls._option_keys or option_names(cls._options_class)

    @classmethod
    def _from_params(cls, params: dict):
        """The estimator of saved constructor ``params``; files written by 0.1.0 kept options as
        constructor arguments, which go into ``algorithm_options``."""
        own = set(cls._get_param_names())
        est = cls(**{k: v for k, v in params.items() if k in own})
        older = {k: v for k, v in params.items() if k not in own and k in cls._option_names()}
        if older:
            est.algorithm_options = {**dict(est.algorithm_options or {}), **older}
        return est

    def _options(self):
        """The validated options (a frozen dataclass of :mod:`stickbreak.config`)."""
        return algorithm_options(self._options_class, self.algorithm_options, type(self).__name__,
                                 self._option_names(), self._option_defaults)
