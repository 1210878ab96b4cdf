"""One self-contained static HTML page: inline CSS, figures as inline base64 PNG, every string
escaped, no reference to anything outside the file."""

from __future__ import annotations

import base64
import html
import io

from matplotlib.figure import Figure

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1em; max-width: 1200px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { padding: 2px 10px; text-align: left; }
tr:nth-child(even) { background: #f3f3f3; } th { background: #e4e4e4; }
.tables { display: flex; flex-wrap: wrap; gap: 2em; align-items: flex-start; }
figure { margin: 1em 0; } img { max-width: 100%; } figcaption { color: #555; font-size: 0.9em; }
"""


def png_base64(fig: Figure, dpi: int = 90) -> str:
    """The figure as a base64 PNG (no metadata, so no URL hidden in the bytes)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def table(title: str, facts: dict) -> str:
    rows = "".join(f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>" for k, v in facts.items())
    return f"<div><h2>{html.escape(title)}</h2><table>{rows}</table></div>"


def figure(caption: str, fig: Figure) -> str:
    alt = html.escape(caption)
    return (f'<figure><img alt="{alt}" src="data:image/png;base64,{png_base64(fig)}">'
            f"<figcaption>{alt}</figcaption></figure>")


def page(title: str, tables: dict[str, dict], figures: list) -> str:
    """The whole document: ``tables`` ({heading: {name: value}}) side by side, then the figures."""
    blocks = "".join(table(heading, facts) for heading, facts in tables.items() if facts)
    shown = "".join(figure(caption, fig) for caption, fig in figures)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1>"
            f'<div class="tables">{blocks}</div><h2>Figures</h2>{shown}</body></html>\n')
