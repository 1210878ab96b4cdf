"""
Checkpoint, resume, save and load
=================================

``fit(X, checkpoint=DIR)`` saves the whole state of the fit after every lap (for memoized VI:
every batch's cached statistics, the move log, the generator's state and the trace), and
:func:`stickbreak.resume` continues from the last lap written, to the same result as a run that
never stopped. Here we stand in for a crash by stopping a fit early (``max_laps=8``), resume it
with the full lap budget, and check lap by lap that the resumed trace continues the uninterrupted
run's. Last, a fitted model goes through ``save`` and :func:`stickbreak.load`.

The model is a DP mixture of diagonal Gaussians on the digits, started from a single cluster so
that births grow K (memoized VI with moves, Hughes 2016, Ch. 4), with 4 batches per lap.
"""

# %%
# An uninterrupted run, and one stopped after 8 laps
# --------------------------------------------------
import tempfile
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

import stickbreak
from stickbreak import DPMixture, datasets

X = datasets.load("digits").X
settings = dict(n_components=1, obs_model="diag_gauss", n_batches=4, random_state=0)

full = DPMixture(max_laps=100, **settings).fit(X)
print(f"uninterrupted: {len(full.trace_)} laps ({full.stop_reason_}), {full.n_components_} clusters")

workdir = tempfile.TemporaryDirectory()
checkpoint = Path(workdir.name) / "digits_ckpt"
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # stopping early is the point here
    stopped = DPMixture(max_laps=8, **settings).fit(X, checkpoint=checkpoint)
print(f"stopped:       {len(stopped.trace_)} laps, {stopped.n_components_} clusters; "
      f"checkpoint files: {sorted(p.name for p in checkpoint.iterdir())}")

# %%
# Resume from the checkpoint
# --------------------------
# ``resume`` rebuilds the estimator from the checkpoint and goes on; ``max_laps=100`` extends the
# run that stopped at its lap limit to the uninterrupted run's budget.
resumed = stickbreak.resume(checkpoint, X, max_laps=100)
elbo_full = np.array([r["elbo"] for r in full.trace_])
elbo_resumed = np.array([r["elbo"] for r in resumed.trace_])
print(f"resumed:       {len(resumed.trace_)} laps ({resumed.stop_reason_}), {resumed.n_components_} clusters")
same_length = len(elbo_full) == len(elbo_resumed)
print("same number of laps:", same_length)
if same_length:
    print(f"largest ELBO difference over the laps: {np.max(np.abs(elbo_full - elbo_resumed)):.3g} nats")
print("same predictions:", np.array_equal(full.predict(X), resumed.predict(X)))

# %%
# Save and load
# -------------
# ``save`` writes a ``.npz`` with JSON metadata (no pickle); ``stickbreak.load`` reads it back.
path = Path(workdir.name) / "digits_model.npz"
resumed.save(path)
loaded = stickbreak.load(path)
print(f"loaded a {type(loaded).__name__} with {loaded.n_components_} clusters; same scores: "
      f"{np.isclose(loaded.score(X), resumed.score(X))}")
workdir.cleanup()

# %%
# The traces
# ----------
# K and ELBO after every lap: the uninterrupted run (grey line), the 8 laps before the stop (circles)
# and the laps after the resume (crosses).
fig, (ax_k, ax_elbo) = plt.subplots(1, 2, figsize=(12, 3.8), layout="constrained")
for ax, key, first in ((ax_k, "n_components", 1), (ax_elbo, "elbo", 2)):
    def draw(trace, *style, **kw):
        trace = [r for r in trace if r["lap"] >= first]
        ax.plot([r["lap"] for r in trace], [r[key] for r in trace], *style, **kw)

    draw(full.trace_, "-", color="grey", linewidth=3, label="uninterrupted")
    draw(stopped.trace_, "o", color="tab:blue", label="before the stop")
    draw(resumed.trace_[len(stopped.trace_):], "x", color="tab:red", label="after resume")
    ax.axvline(len(stopped.trace_) + 0.5, color="k", linestyle=":", linewidth=1)
    ax.set_xlabel("lap")
    ax.legend(fontsize=8)
ax_k.set_ylabel("clusters K")
ax_k.set_title("K over the laps")
ax_elbo.set_ylabel("ELBO (nats)")
ax_elbo.set_title("ELBO over the laps (from lap 2)")
plt.show()
