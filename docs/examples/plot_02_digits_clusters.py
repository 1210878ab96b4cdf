"""
Handwritten digits: cluster means and the ten labels
====================================================

A DP mixture with diagonal-covariance Gaussian clusters (``obs_model="diag_gauss"``) on the 1,797
8x8 handwritten digits. The number of clusters is learned by memoized VI with birth, merge and
delete moves (Hughes 2016, Ch. 4); the digit labels are not used by the fit. We draw the
clusters' mean images, compare the clustering with the labels by the adjusted Rand index, and show
which digits fall in which cluster.
"""

# %%
# Fit two observation models
# --------------------------
# The full-covariance Gaussian (the default ``"gauss"``) and the diagonal one learn different
# numbers of clusters on the same data; neither is told that there are ten digits.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import adjusted_rand_score

from stickbreak import DPMixture, datasets, plot

digits = datasets.load("digits")
X, y = digits.X, digits.labels

models = {}
for obs_model in ("gauss", "diag_gauss"):
    model = DPMixture(obs_model=obs_model, random_state=0).fit(X)
    models[obs_model] = model
    ari = adjusted_rand_score(y, model.predict(X))
    print(f"{obs_model:10s}: {model.n_components_} clusters learned, adjusted Rand index {ari:.3f} "
          f"against the 10 labels, {len(model.trace_)} laps")

model = models["diag_gauss"]

# %%
# The cluster means as images
# ---------------------------
# :func:`stickbreak.plot.plot_cluster_means` draws the mean of each cluster's digits, largest
# cluster first, titled ``cluster id: items``. It returns a matplotlib ``Figure`` (built without
# pyplot): ``fig.savefig(...)`` writes it, and in a notebook it displays itself.
fig = plot.plot_cluster_means(model, X, image_shape=(8, 8))

# %%
# Which digits each cluster holds
# -------------------------------
# Rows are the true labels, columns the learned clusters (largest first); each cell is the
# fraction of that digit's images assigned to the cluster. Several clusters can share one digit
# (different writing styles) and some clusters mix two digits.
labels = model.predict(X)
order = np.argsort(-np.bincount(labels, minlength=model.n_components_))
order = order[np.bincount(labels, minlength=model.n_components_)[order] > 0]
table = np.array([[np.mean(labels[y == d] == k) for k in order] for d in range(10)])

fig, ax = plt.subplots(figsize=(10, 4.5), layout="constrained")
image = ax.imshow(table, cmap="viridis", vmin=0, vmax=1, aspect="auto")
ax.set_xticks(np.arange(len(order)), [str(k) for k in order], fontsize=8)
ax.set_yticks(np.arange(10))
ax.set_xlabel("learned cluster (largest first)")
ax.set_ylabel("true digit")
ax.set_title(f"Fraction of each digit in each of the {len(order)} clusters "
             f"(ARI {adjusted_rand_score(y, labels):.3f})")
fig.colorbar(image, ax=ax, label="fraction of the digit's images")
plt.show()
