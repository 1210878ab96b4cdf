"""Docstrings composed from shared numpydoc text: the one place of text several functions or
methods document alike (evaluation functions here, the estimators' methods)."""

from __future__ import annotations

from string import Template


def composed(**parts: str):
    """A decorator filling the ``$name`` placeholders of the decorated function's docstring with
    ``parts``: numpydoc text that several methods share, composed beside each method."""

    def decorate(function):
        function.__doc__ = Template(function.__doc__).substitute(parts)
        return function

    return decorate
