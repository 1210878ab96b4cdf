"""The AR Gaussian HDP-HMM in other units (issue 27): mocap6 fitted with the defaults as given and
scaled by 1e-2 and 1e2, the states compared with the unscaled fit's (adjusted Rand index; 1.0:
the same segmentation), and the README's mocap6 settings scored against the true actions
(Hamming distance after the best one-to-one matching; lower is better).

    python benchmarks/hmm_units.py > benchmarks/results/hmm_units.md

Before the default prior scaled with the data (coef_precision fixed at 1.0), the ARIs were 0.241
and 0.421 and the Hamming distances 0.522 (stickiness 0) and 0.488 (stickiness 50).
"""

import os
import warnings

from sklearn.metrics import adjusted_rand_score

from stickbreak import HDPHMM, datasets
from stickbreak.evaluate import hamming_distance


def main():
    warnings.simplefilter("ignore")
    mocap = datasets.load("mocap6")
    seqs = mocap.X
    print(f"mocap6: {seqs.n_items} sequences, {seqs.n_frames} frames; load {os.getloadavg()}\n")
    print("| scale | K | ARI against the unscaled fit | Hamming to the true actions |")
    print("|---:|---:|---:|---:|")
    states = {}
    for scale in (1.0, 1e-2, 1e2):
        hmm = HDPHMM(obs_model="ar_gauss", random_state=0).fit(scale * seqs.X, lengths=seqs.lengths)
        states[scale] = hmm.predict(scale * seqs.X, seqs.lengths)
        print(f"| {scale:g} | {hmm.n_active_states_} | {adjusted_rand_score(states[1.0], states[scale]):.3f} | "
              f"{hamming_distance(mocap.labels, states[scale]):.3f} |")
    print("\n| README settings | K | Hamming |")
    print("|---|---:|---:|")
    for stickiness in (0.0, 50.0):
        hmm = HDPHMM(obs_model="ar_gauss", stickiness=stickiness, random_state=0).fit(seqs)
        print(f"| stickiness {stickiness:g} | {hmm.n_active_states_} | "
              f"{hamming_distance(mocap.labels, hmm.predict(seqs)):.3f} |")


if __name__ == "__main__":
    main()
