"""
Old Faithful: a DP mixture learns K
===================================

A Dirichlet process Gaussian mixture on the 272 Old Faithful eruptions (eruption length and
waiting time, in minutes). ``DPMixture`` fits it by memoized variational inference with birth,
merge and delete moves (Hughes 2016, Ch. 4): each move is kept only if the exact whole-data
ELBO rises, so the number of clusters is learned rather than fixed. We start three runs from 1,
10 and 25 clusters and draw the clusters of each run as 2-standard-deviation ellipses.
"""

# %%
# Fit from three starting values of K
# -----------------------------------
# ``n_components`` is only where the run starts: from one cluster births have to split it, from
# 10 or 25 merges and deletes have to remove the surplus. The first K printed is K after lap 1,
# which can already be below the start: clusters left empty are pruned (``move_log_`` records a
# ``"prune"``).
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Ellipse

from stickbreak import DPMixture, datasets

faithful = datasets.load("old_faithful")
X = faithful.X
print(faithful.description)

starts = (1, 10, 25)
models = {}
for k_start in starts:
    model = DPMixture(n_components=k_start, random_state=0).fit(X)
    models[k_start] = model
    path = [record["n_components"] for record in model.trace_]
    print(f"start K={k_start:2d}: K after each lap {path} -> {model.n_components_} clusters, "
          f"ELBO {model.lower_bound_:.2f}, {model.score(X):.3f} nats per eruption")

# %%
# Each run's clusters
# -------------------
# The ellipses are each cluster's posterior-mean covariance (``covariances_``) around its mean
# (``means_``) at two standard deviations; points are coloured by ``predict``.


def ellipse(mean, cov, colour):
    values, vectors = np.linalg.eigh(cov)
    angle = np.degrees(np.arctan2(vectors[1, 1], vectors[0, 1]))
    width, height = 2 * 2 * np.sqrt(values[::-1])
    return Ellipse(mean, width, height, angle=angle, facecolor="none", edgecolor=colour, linewidth=2)


fig, axes = plt.subplots(1, len(starts), figsize=(12, 4), sharex=True, sharey=True, layout="constrained")
for ax, k_start in zip(axes, starts):
    model = models[k_start]
    labels = model.predict(X)
    colours = plt.cm.tab10(np.arange(model.n_components_))
    ax.scatter(X[:, 0], X[:, 1], s=10, c=colours[labels], alpha=0.7)
    for k in range(model.n_components_):
        ax.add_patch(ellipse(model.means_[k], model.covariances_[k], colours[k]))
        ax.plot(*model.means_[k], marker="x", color="k")
    ax.set_title(f"start K={k_start}: {model.n_components_} clusters learned")
    ax.set_xlabel("eruption (minutes)")
axes[0].set_ylabel("waiting time (minutes)")
plt.show()
