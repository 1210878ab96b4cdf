"""Observation models: one module per conjugate exponential family, the same functions each.

``OBS_MODELS`` maps a name to its module; :func:`get` resolves a name with a clear error and
:func:`register` adds a family (ARCHITECTURE.md, "How to add an observation family").
"""

from types import ModuleType

from . import ar_gauss, bern, diag_gauss, gauss, mult, zero_mean_gauss
from .expfam import ObsFamily

#: The functions an observation family defines (the methods of :class:`ObsFamily`).
_FUNCTIONS = tuple(name for name, value in vars(ObsFamily).items() if callable(value) and not name.startswith("_"))

OBS_MODELS: dict[str, ModuleType | ObsFamily] = {
    m.name: m for m in (gauss, diag_gauss, zero_mean_gauss, ar_gauss, mult, bern)
}


def register(family: ObsFamily) -> ObsFamily:
    """Make ``family`` (a module or object with the :class:`ObsFamily` functions) available by its
    ``name`` to every model, estimator and saved-model loader in this process."""
    missing = [key for key in ObsFamily.__annotations__ if not hasattr(family, key)]
    missing += [fn for fn in _FUNCTIONS if not callable(getattr(family, fn, None))]
    if missing:
        raise TypeError(f"observation family {getattr(family, 'name', family)!r} lacks {missing} "
                        "(see stickbreak.obs.expfam.ObsFamily)")
    if family.name in OBS_MODELS and OBS_MODELS[family.name] is not family:
        raise ValueError(f"an observation model named {family.name!r} is already registered")
    OBS_MODELS[family.name] = family
    return family


def get(name) -> ObsFamily:
    if not isinstance(name, str):
        if hasattr(name, "natural_keys"):
            return name
        raise TypeError(f"observation model must be a name, got {type(name).__name__}")
    try:
        return OBS_MODELS[name]
    except KeyError:
        raise ValueError(f"unknown observation model {name!r}; choose one of {sorted(OBS_MODELS)}") from None


__all__ = ["OBS_MODELS", "ObsFamily", "get", "register"]
