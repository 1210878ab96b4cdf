"""Every public name of stickbreak, as the API reference documents it and the docstring test checks it.

Public means: in the ``__all__`` of the package or of one of its user-facing modules, and, for a
class, each attribute it or a stickbreak base class defines without a leading underscore
(scikit-learn's inherited machinery, ``get_params`` and the metadata-routing setters, is
scikit-learn's to document).
"""

from __future__ import annotations

import importlib
import inspect

MODULES = ("stickbreak", "stickbreak.datasets", "stickbreak.evaluate", "stickbreak.plot",
           "stickbreak.report", "stickbreak.export")
EXPORT_NAMES = ("to_pyldavis", "to_gensim")  # stickbreak.export has no __all__ of its own


def module_names(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    names = EXPORT_NAMES if module_name == "stickbreak.export" else module.__all__
    return [name for name in names if not inspect.ismodule(getattr(module, name)) and not name.startswith("__")]


def _own_members(cls: type) -> list[str]:
    """Public attributes defined by ``cls`` or a stickbreak base (not scikit-learn's or object's)."""
    members = []
    for base in cls.__mro__:
        if not base.__module__.startswith("stickbreak"):
            continue
        for name, value in vars(base).items():
            if name.startswith("_") or name in members:
                continue
            if callable(value) or isinstance(value, (property, classmethod, staticmethod)):
                members.append(name)
    return sorted(members)


def public_objects() -> list[tuple[str, object, str]]:
    """``(qualified name, object, kind)`` with kind one of function, class, method, property, data."""
    found = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module_names(module_name):
            obj = getattr(module, name)
            qualified = f"{module_name}.{name}"
            if inspect.isclass(obj):
                found.append((qualified, obj, "class"))
                for member in _own_members(obj):
                    raw = inspect.getattr_static(obj, member)
                    kind = "property" if isinstance(raw, property) else "method"
                    found.append((f"{qualified}.{member}", getattr(obj, member), kind))
            elif callable(obj):
                found.append((qualified, obj, "function"))
            else:
                found.append((qualified, obj, "data"))
    return found
