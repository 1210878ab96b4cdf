"""
A self-contained HTML report of a fit
=====================================

Every fitted estimator writes one HTML page with ``model.report(path, X)``: the ELBO and K over
the laps with the laps of accepted moves marked, the figures of its kind, the fit's summary (stop
reason, laps, K, final ELBO, timings), the data, the settings and the package versions. Figures
are inline PNG and nothing is fetched, so the file opens from disk. Each figure of the report is
also a function of :mod:`stickbreak.plot`.

Here a DP mixture of diagonal Gaussians on the digits (K learned by memoized VI with moves,
Hughes 2016, Ch. 4) writes its report, with the cluster means drawn as 8x8 images; we list what
the page holds and then draw two of its figures.
"""

# %%
# Fit and write the report
# ------------------------
import re
import tempfile
from pathlib import Path


from stickbreak import DPMixture, datasets, plot

X = datasets.load("digits").X
model = DPMixture(obs_model="diag_gauss", random_state=0).fit(X)

workdir = tempfile.TemporaryDirectory()
path = Path(workdir.name) / "digits_report.html"
model.report(path, X, image_shape=(8, 8))
html = path.read_text()
print(f"{path.name}: {len(html) / 1e3:.0f} kB, {html.count('<img')} embedded images")
print("section headings:", [re.sub("<[^>]+>", "", h).strip() for h in re.findall(r"<h2[^>]*>.*?</h2>", html)])
workdir.cleanup()

# %%
# Two of the report's figures
# ---------------------------
# :func:`stickbreak.plot.plot_cluster_sizes` and :func:`stickbreak.plot.plot_projection` (the
# digits on their first two principal components, coloured by cluster).
figures = [plot.plot_cluster_sizes(model), plot.plot_projection(model, X)]
