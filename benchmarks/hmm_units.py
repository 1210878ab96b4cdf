"""The AR Gaussian HDP-HMM in other units (issue 27): mocap6 fitted with the defaults as given and
scaled by 1e-2 and 1e2, the states compared with the unscaled fit's (adjusted Rand index; 1.0:
the same segmentation), and the README's mocap6 settings scored against the true actions
(Hamming distance after the best one-to-one matching; lower is better).

    python benchmarks/hmm_units.py > benchmarks/results/hmm_units.md

Each fit runs in a fresh process; its peak RSS (data, fit, prediction) is in the tables.

Before the default prior scaled with the data (coef_precision fixed at 1.0), the ARIs were 0.241
and 0.421 and the Hamming distances 0.522 (stickiness 0) and 0.488 (stickiness 50).
"""

import os
import warnings

from sklearn.metrics import adjusted_rand_score

from _rss import in_fresh_process, rss_cell
from stickbreak import HDPHMM, datasets
from stickbreak.evaluate import hamming_distance


def scaled(scale: float) -> dict:
    """The defaults on mocap6 times ``scale`` (in a fresh process: :func:`main`)."""
    warnings.simplefilter("ignore")
    seqs = datasets.load("mocap6").X
    hmm = HDPHMM(obs_model="ar_gauss", random_state=0).fit(scale * seqs.X, lengths=seqs.lengths)
    return {"K": hmm.n_active_states_, "states": hmm.predict(scale * seqs.X, seqs.lengths)}


def readme(stickiness: float) -> dict:
    """The README's settings (in a fresh process: :func:`main`)."""
    warnings.simplefilter("ignore")
    mocap = datasets.load("mocap6")
    hmm = HDPHMM(obs_model="ar_gauss", stickiness=stickiness, random_state=0).fit(mocap.X)
    return {"K": hmm.n_active_states_, "hamming": hamming_distance(mocap.labels, hmm.predict(mocap.X))}


def main():
    warnings.simplefilter("ignore")
    mocap = datasets.load("mocap6")
    seqs = mocap.X
    print(f"mocap6: {seqs.n_items} sequences, {seqs.n_frames} frames; load {os.getloadavg()}\n")
    print("| scale | K | ARI against the unscaled fit | Hamming to the true actions | peak RSS MiB |")
    print("|---:|---:|---:|---:|---:|")
    states = {}
    for scale in (1.0, 1e-2, 1e2):
        row = in_fresh_process(scaled, scale)
        states[scale] = row["states"]
        print(f"| {scale:g} | {row['K']} | {adjusted_rand_score(states[1.0], states[scale]):.3f} | "
              f"{hamming_distance(mocap.labels, states[scale]):.3f} | {rss_cell(row)} |")
    print("\n| README settings | K | Hamming | peak RSS MiB |")
    print("|---|---:|---:|---:|")
    for stickiness in (0.0, 50.0):
        row = in_fresh_process(readme, stickiness)
        print(f"| stickiness {stickiness:g} | {row['K']} | {row['hamming']:.3f} | {rss_cell(row)} |")


if __name__ == "__main__":
    main()
