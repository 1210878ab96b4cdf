"""The package version (one place; persist and the package root read it)."""

__version__ = "0.1.0"
