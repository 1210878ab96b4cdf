"""Headless Chromium renders every report: a screenshot that is not blank (CI installs chromium
in ``.ci/run``; elsewhere the test says it is missing and skips)."""

import shutil
import subprocess

import numpy as np
import pytest
from matplotlib import image as mpimg

from fitted_models import fit

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def screenshot(html, png, profile, size=(1200, 3000)) -> np.ndarray:
    """The page as Chromium draws it, as an (height, width, channels) array of floats in [0, 1]."""
    profile.mkdir()
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={png}",
                    f"--window-size={size[0]},{size[1]}", html.resolve().as_uri()],
                   check=True, capture_output=True)
    return mpimg.imread(png)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; CI's .ci/run "
                                             "installs it): the reports are not rendered in a browser here")
@pytest.mark.parametrize("kind", ["mixture", "diln", "hmm"])
def test_chromium_renders_the_report(tmp_path, kind):
    est, data = fit(kind)
    html = est.report(tmp_path / "report.html", **data)
    pixels = screenshot(html, tmp_path / "shot.png", tmp_path / "profile")
    assert pixels.shape[:2] == (3000, 1200)
    grey = pixels[..., :3].mean(axis=2)
    assert grey.var() > 1e-3, "the screenshot is blank"
    rows_drawn = (grey < 0.95).any(axis=1)
    assert rows_drawn[1000:].any(), "nothing drawn below the tables: the figures did not render"
