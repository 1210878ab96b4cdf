"""A fitted model's report: one self-contained static HTML file (``write_report``, also
``estimator.report(path, X)`` and ``stickbreak report RUN_DIR``)."""

from __future__ import annotations

from pathlib import Path

from .html import page
from .sections import KINDS, ReportData, data_facts, figures, fit_facts, kind_tables, versions

__all__ = ["KINDS", "ReportData", "data_facts", "write_report"]


def write_report(estimator, path, X=None, *, labels=None, lengths=None, Xprev=None, image_shape=None,
                 run: dict | None = None, title: str | None = None) -> Path:
    """Write ``estimator``'s report to ``path``, one self-contained static HTML file, and return the path.

    Shows the fit (stop reason, laps, K, final ELBO, timings), the data, the settings and the
    versions, and the figures of the model's kind (``estimator.report_kind``): the ELBO and K over
    laps for every model, then cluster sizes and a PCA projection or mean images (mixtures), top
    words, topic sizes and DILN's correlations (topic models), the transition matrix, state
    sequences and durations (HMMs), or topic sizes and proportions per group (admixtures). Figures
    are embedded as images, so the file needs nothing else.

    Parameters
    ----------
    estimator : fitted estimator
        Any fitted stickbreak model.
    path : str or path-like
        Where to write the HTML file (parent directories are created).
    X : array-like, sparse matrix, BagOfWords or Sequences, optional
        The data, for the figures that need it and the "Data" table.
    labels : array-like of shape (n_frames,), optional
        True labels per frame: an HMM's state strip gets an aligned strip of them.
    lengths : array-like of int of shape (n_sequences,), optional
        Frames per sequence (or items per group) when ``X`` is one concatenated array.
    Xprev : array-like of shape (n_frames, n_features), optional
        Each frame's predecessor, for autoregressive HMMs.
    image_shape : tuple of int, optional
        Draw a mixture's cluster means as images of this shape instead of a PCA projection.
    run : dict, optional
        Extra facts shown in a "Run" table (e.g. the command line's); its ``"data"`` entry, a
        dict, is merged into the "Data" table instead.
    title : str, optional
        The page title; default ``"stickbreak report: <class name>"``.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> from stickbreak import DPMixture, datasets
    >>> from stickbreak.report import write_report
    >>> X = datasets.load("old_faithful").X
    >>> model = DPMixture(n_components=5, max_laps=5, random_state=0).fit(X)
    >>> path = write_report(model, "faithful.html", X)
    >>> path.name, path.read_text().startswith("<!DOCTYPE html>")
    ('faithful.html', True)
    """
    data = ReportData(X, labels, lengths, Xprev, None if image_shape is None else tuple(image_shape))
    params = {k: v for k, v in estimator.get_params().items() if k != "callbacks"}
    run = dict(run or {})
    facts = data_facts(X, lengths) if X is not None else {}
    tables = {"Fit": fit_facts(estimator), "Data": {**run.pop("data", {}), **facts},
              **kind_tables(estimator), "Run": run, "Settings": params, "Versions": versions()}
    shown = figures(estimator, data)
    text = page(title or f"stickbreak report: {type(estimator).__name__}", tables, shown)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
