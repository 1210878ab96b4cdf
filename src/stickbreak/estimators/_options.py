"""``algorithm_options``: the one mapping that holds the knobs only some algorithms read, and the
old spellings of those knobs as constructor arguments (still accepted, with a FutureWarning).

An estimator names its options dataclass (:mod:`stickbreak.config`), the keys it reads and its
defaults; ``__init__(..., algorithm_options=None, **option_keywords)`` hands the keywords to
:meth:`AlgorithmOptionsMixin._with_legacy`, which folds them into ``algorithm_options`` (one
FutureWarning for the old names). The folded mapping is an ordinary parameter, so ``get_params``,
``clone`` and ``save``/``load`` carry it and warn no more; ``set_params`` folds the same way and the
old attribute names still read the options.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

from ..config import algorithm_options, option_names
from ..core.caller import stacklevel_outside


#: The name of the estimators' ``**option_keywords``. scikit-learn's
#: ``check_do_not_raise_errors_in_init_or_set_params`` passes every name of the signature, this one
#: included, to ``__init__`` and ``set_params``: it is kept like an option, for fit to report.
OPTION_KEYWORDS = "option_keywords"


def legacy_warning(owner: str, legacy: dict) -> None:
    """One FutureWarning naming every old keyword used and its new spelling."""
    new = ", ".join(f"{name!r}: {value!r}" for name, value in legacy.items())
    warnings.warn(f"{owner}({', '.join(f'{name}=...' for name in legacy)}) is deprecated: pass "
                  f"algorithm_options={{{new}}} instead", FutureWarning, stacklevel=stacklevel_outside())


class AlgorithmOptionsMixin:
    """Validated ``algorithm_options`` and the legacy keywords, reads and ``set_params`` of its keys."""

    #: The options dataclass of :mod:`stickbreak.config` and the keys this estimator reads.
    _options_class: type = None
    _option_keys: tuple = ()
    #: Keys it reads that never were constructor keywords (no legacy spelling to fold in).
    _new_option_keys: tuple = ()
    #: This estimator's defaults for the dataclass's fields.
    _option_defaults: dict = {}

    @classmethod
    def _legacy_names(cls) -> tuple:
        return cls._option_keys or option_names(cls._options_class)

    def _with_legacy(self, options, keywords: dict, warn: bool = True, where: str = ""):
        """``options`` with option ``keywords`` folded in (``options`` itself, untouched, when there
        are none); the old names warn once, other names are a TypeError as for any function. Bad
        values are reported at fit, like every other setting (scikit-learn's rule)."""
        unknown = sorted(set(keywords) - set(self._legacy_names()) - {OPTION_KEYWORDS})
        if unknown:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument {unknown[0]!r}")
        if not keywords or not (options is None or isinstance(options, Mapping)):
            return options
        twice = sorted(set(keywords) & set(options or {}))
        if twice:
            raise ValueError(f"{twice} given both as keyword and in algorithm_options; keep only algorithm_options")
        legacy = {k: v for k, v in keywords.items() if k in self._legacy_names()}
        if warn and legacy:
            legacy_warning(type(self).__name__ + where, legacy)
        return {**dict(options or {}), **keywords}

    @classmethod
    def _from_params(cls, params: dict):
        """The estimator of saved ``params``; older files' option keywords are folded in silently."""
        own = set(cls._get_param_names())
        est = cls(**{k: v for k, v in params.items() if k in own})
        est.algorithm_options = est._with_legacy(est.algorithm_options,
                                                 {k: v for k, v in params.items() if k not in own}, warn=False)
        return est

    def _options(self):
        """The validated options (a frozen dataclass of :mod:`stickbreak.config`)."""
        return algorithm_options(self._options_class, self.algorithm_options, type(self).__name__,
                                 self._legacy_names() + self._new_option_keys, self._option_defaults)

    def __getattr__(self, name):
        # only reached when normal lookup fails: the old attribute names of options read through
        if name.startswith("_") or name not in type(self)._legacy_names() or "algorithm_options" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        warnings.warn(f"{type(self).__name__}.{name} is deprecated: read algorithm_options[{name!r}]", FutureWarning,
                      stacklevel=2)
        return getattr(self._options(), name)

    def set_params(self, **params):
        """Set the estimator's parameters (scikit-learn's ``set_params``).

        The deprecated option keywords (the fields of ``algorithm_options`` given by name, e.g.
        ``learning_rate_decay=0.9``) are folded into ``algorithm_options`` with a FutureWarning,
        as in ``__init__``. Values are checked at the next :meth:`fit`, as for scikit-learn.

        Parameters
        ----------
        **params
            Constructor parameters and their new values, as ``name=value``.

        Returns
        -------
        self : object
            The estimator.
        """
        keywords = {k: v for k, v in params.items() if k in self._legacy_names() or k == OPTION_KEYWORDS}
        if keywords:
            params = {k: v for k, v in params.items() if k not in keywords}
            params["algorithm_options"] = self._with_legacy(params.get("algorithm_options", self.algorithm_options),
                                                            keywords, where=".set_params")
        return super().set_params(**params)
