"""A fitted model's report: one self-contained static HTML file (``write_report``, also
``estimator.report(path, X)`` and ``stickbreak report RUN_DIR``)."""

from __future__ import annotations

from pathlib import Path

from .html import page
from .sections import KINDS, ReportData, data_facts, figures, fit_facts, kind_tables, versions

__all__ = ["KINDS", "ReportData", "data_facts", "write_report"]


def write_report(estimator, path, X=None, *, labels=None, lengths=None, Xprev=None, image_shape=None,
                 run: dict | None = None, title: str | None = None) -> Path:
    """Write ``estimator``'s report to ``path`` (HTML) and return the path.

    Shows the fit (stop reason, laps, K, final ELBO, timings), the data, the settings and the
    versions, and the figures of the model's kind; ``X`` (with ``lengths``/``Xprev`` for HMMs) adds
    the figures that need data, true ``labels`` an aligned strip for HMMs, ``image_shape`` draws
    mixture means as images instead of a PCA projection. ``run``: extra facts (e.g. the command line's).
    """
    data = ReportData(X, labels, lengths, Xprev, None if image_shape is None else tuple(image_shape))
    params = {k: v for k, v in estimator.get_params().items() if k != "callbacks"}
    run = dict(run or {})
    tables = {"Fit": fit_facts(estimator), "Data": {**run.pop("data", {}), **(data_facts(X, lengths) if X is not None else {})},
              **kind_tables(estimator), "Run": run, "Settings": params, "Versions": versions()}
    shown = figures(estimator, data)
    text = page(title or f"stickbreak report: {type(estimator).__name__}", tables, shown)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
