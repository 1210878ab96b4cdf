"""
Streams: new clusters for data unlike any seen
==============================================

``partial_fit`` fits a stream chunk by chunk. Each chunk is fitted against the statistics of
everything before it; the earlier items themselves are not kept, but for a window of the last 2,000
refitted with each chunk, so memory stays bounded however long the stream. Where a chunk holds data
unlike anything seen, births split the clusters its items fit worst, each kept only if the exact
ELBO rises (Hughes 2016, §4.2), and newborns that only duplicate a cluster are merged back.

The stream: the bundled digits in 10 principal components, 10 chunks of about 180 images, in
which the zeros first appear in chunk 7. We follow K and where the zeros go.
"""

# %%
# The stream
# ----------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.decomposition import PCA

from stickbreak import DPMixture, datasets

digits = datasets.load("digits")
X, y = PCA(10, random_state=0).fit_transform(digits.X), digits.labels
rng = np.random.default_rng(0)
others, zeros = rng.permutation(np.flatnonzero(y != 0)), rng.permutation(np.flatnonzero(y == 0))
chunks = [part for part in np.array_split(others, 10)]
for c, extra in zip(range(6, 10), np.array_split(zeros, 4)):
    chunks[c] = np.concatenate([chunks[c], extra])  # zeros from chunk 7 (index 6) on

# %%
# Fit it chunk by chunk
# ---------------------
model = DPMixture(obs_model="diag_gauss", random_state=0)
K, share = [], []
for c, rows in enumerate(chunks):
    model.partial_fit(X[rows])
    if c == 5:
        before = set(model.params_.uids.tolist())  # the clusters that existed before any zero
    K.append(model.n_active_components_)
    streamed = np.concatenate(chunks[: c + 1])
    seen_zeros = streamed[y[streamed] == 0]
    share.append(np.nan)
    if len(seen_zeros):  # the largest share of them in one cluster born after chunk 6
        uids = model.params_.uids[model.predict(X[seen_zeros])]
        share[-1] = max([np.mean(uids == uid) for uid in set(uids.tolist()) - before], default=0.0)
    births = model.trace_[-1]["moves"]["birth"]
    print(f"chunk {c + 1:2d}: K = {K[-1]:2d}, births accepted {births['accepted']} of {births['tried']}")

# %%
# K per chunk, and the zeros in a cluster born for them
# -----------------------------------------------------
fig, (ax_k, ax_share) = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
ax_k.step(range(1, 11), K, where="mid", color="k")
ax_k.axvline(6.5, color="tab:red", linestyle=":", label="zeros appear")
ax_k.set_xlabel("chunk")
ax_k.set_ylabel("clusters K")
ax_k.legend(fontsize=8)
ax_share.plot(range(1, 11), share, "o-", color="tab:blue")
ax_share.set_ylim(0, 1)
ax_share.set_xlabel("chunk")
ax_share.set_ylabel("share of the zeros seen so far")
ax_share.set_title("in the largest cluster born after chunk 6")
