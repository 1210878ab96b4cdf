"""Sphinx configuration: numpydoc API reference, MyST user guide, sphinx-gallery examples.

Built offline (no intersphinx, no remote assets) with warnings as errors: ``make docs``.
"""

import os
import sys
import warnings

import stickbreak

project = "stickbreak"
author = "the stickbreak developers"
copyright = "2026, " + author
version = release = stickbreak.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
templates_path = ["_templates"]
exclude_patterns = ["_build", "examples/README.txt", "**.ipynb_checkpoints", "sg_execution_times.rst"]
root_doc = "index"

# API reference: one page per public name; numpydoc renders the sections.
autosummary_generate = True
autodoc_default_options = {"inherited-members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
SKLEARN_MACHINERY = {"get_params", "set_params", "get_metadata_routing", "set_output",
                     "fit_predict", "fit_transform"}


def skip_foreign_members(app, what, name, obj, skip, options):
    """Document only what stickbreak defines: scikit-learn's inherited machinery is its own to document."""
    if skip or what != "class":
        return skip
    if name.startswith("set_") and name.endswith("_request"):
        return True
    module = getattr(obj, "__module__", "") or ""
    if isinstance(obj, property):
        module = getattr(obj.fget, "__module__", "") or ""
    if name in SKLEARN_MACHINERY and not module.startswith("stickbreak"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", skip_foreign_members)


# User guide in Markdown (MyST): heading anchors for links such as models.md#dp-mixtures.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

# The gallery runs every example when the docs build, so an example that breaks fails the build.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # for the gallery's image scraper
os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": "/plot_",
    "within_subsection_order": "sphinx_gallery.sorting.FileNameSortKey",  # numbered: a first fit to scaling out
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "min_reported_time": 1,
    "reference_url": {"stickbreak": None},
    "matplotlib_animations": False,
    "write_computation_times": False,
    "image_scrapers": ("matplotlib", "stickbreak_gallery_scraper"),
}

html_theme = "pydata_sphinx_theme"
html_title = "stickbreak"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
