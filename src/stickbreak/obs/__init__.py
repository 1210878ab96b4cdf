"""Observation models: one module per conjugate exponential family, the same functions each.

``OBS_MODELS`` maps a name to its module; :func:`get` resolves a name with a clear error.
"""

from types import ModuleType

from . import ar_gauss, bern, diag_gauss, gauss, mult, zero_mean_gauss
from .expfam import ObsFamily

OBS_MODELS: dict[str, ModuleType] = {
    m.name: m for m in (gauss, diag_gauss, zero_mean_gauss, ar_gauss, mult, bern)
}


def get(name) -> ObsFamily:
    if not isinstance(name, str):
        if hasattr(name, "natural_keys"):
            return name
        raise TypeError(f"observation model must be a name, got {type(name).__name__}")
    try:
        return OBS_MODELS[name]
    except KeyError:
        raise ValueError(f"unknown observation model {name!r}; choose one of {sorted(OBS_MODELS)}") from None


__all__ = ["OBS_MODELS", "ObsFamily", "get"]
