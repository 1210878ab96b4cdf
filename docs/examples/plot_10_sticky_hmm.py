"""
Sticky against non-sticky HDP-HMM: state durations
==================================================

The sticky HDP-HMM (Fox et al. 2011) adds a mass ``kappa`` (``stickiness``) to each state's
self-transition in the prior of the transition rows, which favours staying in a state and so
longer segments. We fit the same autoregressive HDP-HMM to mocap6 with ``stickiness=0`` (the plain
HDP-HMM) and ``stickiness=50``, both by memoized VI with moves (Hughes 2016, Ch. 6), and compare
how long the Viterbi path stays in a state per visit with how long the true exercise segments
last.
"""

# %%
# Fit both models
# ---------------
import matplotlib.pyplot as plt
import numpy as np

from stickbreak import HDPHMM, datasets, plot
from stickbreak.evaluate import hamming_distance

mocap = datasets.load("mocap6")
X, labels = mocap.X, mocap.labels


def run_lengths(frame_labels, offsets):
    """Lengths of the runs of one label, cut at the sequence boundaries."""
    lengths = []
    for start, end in zip(offsets[:-1], offsets[1:]):
        change = np.flatnonzero(np.diff(frame_labels[start:end])) + 1
        lengths.extend(np.diff(np.concatenate([[0], change, [end - start]])))
    return np.array(lengths)


durations = {"true labels": run_lengths(labels, X.offsets)}
models = {}
for kappa in (0.0, 50.0):
    hmm = HDPHMM(obs_model="ar_gauss", stickiness=kappa, random_state=0).fit(X)
    states = hmm.predict(X)
    name = f"stickiness={kappa:g}"
    models[name] = hmm
    durations[name] = run_lengths(states, X.offsets)
    print(f"{name:15s}: {hmm.n_states_} states, {len(durations[name])} segments, median "
          f"{np.median(durations[name]):.0f} frames; Hamming distance {hamming_distance(labels, states):.3f}")
print(f"{'true labels':15s}: {len(durations['true labels'])} segments, median "
      f"{np.median(durations['true labels']):.0f} frames")

# %%
# Segment lengths
# ---------------
# Each box shows the frames per visit of every segment of the Viterbi paths (or of the true
# labels), on a log scale. The counts and medians are printed above: here stickiness gives
# fewer, slightly longer segments, and both Viterbi paths still switch state far more often than
# the exercises change.
fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
ax.boxplot(list(durations.values()), tick_labels=list(durations))
ax.set_yscale("log")
ax.set_ylabel("frames per segment")
ax.set_title("Segment lengths on mocap6 (10 frames per second)")

# %%
# Per state, for the sticky model
# -------------------------------
# :func:`stickbreak.plot.plot_durations` breaks the durations down by state.
fig = plot.plot_durations(models["stickiness=50"], X)
plt.show()
