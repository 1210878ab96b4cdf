"""A sphinx-gallery image scraper for the figures :mod:`stickbreak.plot` returns.

``stickbreak.plot`` builds each ``Figure`` without pyplot (so plotting never opens a window or
touches global state), which sphinx-gallery's matplotlib scraper, reading pyplot's figure list,
does not see. This one saves every ``Figure`` an example holds in a variable (alone, or in a
list, tuple or dict) that an earlier block has not shown.
"""

from __future__ import annotations

from matplotlib.figure import Figure

_shown: dict[str, list[Figure]] = {}  # per example file: the figures already saved


def _figures(value):
    if isinstance(value, Figure):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _figures(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _figures(item)


def stickbreak_figures(block, block_vars, gallery_conf):
    """Save the new ``stickbreak.plot`` figures of this block and return their reST."""
    from sphinx_gallery.scrapers import figure_rst

    shown = _shown.setdefault(block_vars["src_file"], [])
    paths = []
    for value in list(block_vars["example_globals"].values()):
        for figure in _figures(value):
            if figure.canvas.manager is not None or any(figure is seen for seen in shown):
                continue  # a pyplot figure (the matplotlib scraper's), or one already saved
            shown.append(figure)
            path = next(block_vars["image_path_iterator"])
            figure.savefig(path, dpi=100)
            paths.append(path)
    return figure_rst(paths, gallery_conf["src_dir"])


def _get_sg_image_scraper():
    return stickbreak_figures
