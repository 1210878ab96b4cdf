"""
Motion capture: HDP-HMM segmentation against the true exercises
================================================================

An HDP-HMM (Teh et al. 2006; sticky, Fox et al. 2011) with first-order autoregressive Gaussian
emissions (``obs_model="ar_gauss"``: each frame is predicted from the previous one) on the mocap6
data set: 6 motion-capture sequences, 2,058 frames of 12 joint angles, each frame labelled with
one of 12 exercise types. The model is fitted without the labels by memoized VI with birth, merge
and delete moves (Hughes 2016, Ch. 6), starting from 10 states, with stickiness ``kappa = 50``
(extra prior mass on staying in the same state).

We compare the Viterbi state sequence with the true exercise labels after the one-to-one
matching of states to labels that shares the most frames (Hungarian algorithm), and report the
Hamming distance: the fraction of frames whose matched label is wrong.
"""

# %%
# Fit and score
# -------------
import matplotlib.pyplot as plt

from stickbreak import HDPHMM, datasets, plot
from stickbreak.evaluate import align_states, hamming_distance

mocap = datasets.load("mocap6")
X, labels = mocap.X, mocap.labels  # X: Sequences; it also carries the previous frames the AR model needs
print(f"{len(X.lengths)} sequences of {X.lengths.tolist()} frames; {len(set(labels))} exercise labels")

hmm = HDPHMM(obs_model="ar_gauss", stickiness=50.0, random_state=0).fit(X)
states = hmm.predict(X)  # Viterbi path, one state per frame
print(f"{hmm.n_states_} states learned from 10, {len(hmm.trace_)} laps ({hmm.stop_reason_})")
print(f"Hamming distance after alignment: {hamming_distance(labels, states):.3f}")

names = mocap.extras["label_names"]  # label 1 is names[0]
for state, label in sorted(align_states(labels, states).items()):
    print(f"state {state:2d} -> {names[label - 1] if label is not None else 'no label'}")

# %%
# The segmentation as strips
# --------------------------
# :func:`stickbreak.plot.plot_state_sequences` draws each sequence's Viterbi states (top strip)
# and its true labels (bottom strip), each label in the colour of the state matched to it; grey
# marks labels left without a state.
fig = plot.plot_state_sequences(hmm, X, labels=labels, n_sequences=6)
plt.show()
