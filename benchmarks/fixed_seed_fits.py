"""Fingerprints of fixed-seed fits of the topic estimators, for checking that a restructuring leaves
results bit-identical (issue 46).

Every case fits on the first 300 documents of the bundled ``ap`` corpus with a fixed seed and a few
laps: LDA by VB, SVI, memoized VI, CVB0 and collapsed Gibbs; the HDP with its defaults (a short
learned start), from K=20 by VB, L-sparse, two-level SVI and VB, truncation-free SVI, Gibbs and
learned concentrations; DILN by VB and SVI; ``partial_fit`` streams. Each fingerprint is the ELBO
trace, the final ELBO, K in use and a SHA-256 prefix of the final topics.

Run twice on the same machine, before and after a change, and compare:

    .venv/bin/python benchmarks/fixed_seed_fits.py --out before.json     # at the old commit
    .venv/bin/python benchmarks/fixed_seed_fits.py --compare before.json # at the new one

``--times FILE`` records each fit's CPU seconds (the same cases, for a side-by-side timing; run the
two commits interleaved, each on a warm cache). Compare runs whose numba cache is in the same state
(both warm, e.g. after ``make warm``): a run that compiles its kernels on a cold cache differed from a
warm-cache run of the same code in the last digits of the direct family's ELBOs (seen on 835de93,
noted in issue 46).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import warnings

import numpy as np


def cases() -> dict:
    from stickbreak import DILN, LDA, HDPTopicModel, datasets

    ap = datasets.load("ap").X[:300]

    def stream():
        est = LDA(n_topics=6, random_state=0, algorithm_options={"total_docs": 300})
        for i in range(3):
            est.partial_fit(ap.subset(np.arange(i * 100, (i + 1) * 100)))
        return est

    def fit_then_stream():
        est = HDPTopicModel(n_topics=10, algorithm="svi", init="random", batch_size=100, max_laps=2,
                            random_state=0).fit(ap)
        return est.partial_fit(ap.subset(np.arange(100)))

    return {
        "lda_vb": lambda: LDA(n_topics=8, max_laps=5, random_state=0).fit(ap),
        "lda_svi": lambda: LDA(n_topics=8, algorithm="svi", batch_size=60, max_laps=3, random_state=1).fit(ap),
        "lda_memo": lambda: LDA(n_topics=8, algorithm="memoized", n_batches=3, max_laps=3, random_state=2).fit(ap),
        "lda_cvb0": lambda: LDA(n_topics=8, algorithm="cvb0", max_laps=4, random_state=3).fit(ap),
        "lda_gibbs": lambda: LDA(n_topics=8, algorithm="gibbs", max_laps=4, tol=0, random_state=3).fit(ap),
        "hdp_default": lambda: HDPTopicModel(max_laps=4, random_state=0, algorithm_options={"init_sweeps": 10}).fit(ap),
        "hdp_k20_vb": lambda: HDPTopicModel(n_topics=20, algorithm="vb", init="random", max_laps=4,
                                            random_state=0).fit(ap),
        "hdp_k20_sparse": lambda: HDPTopicModel(n_topics=20, n_active=3, init="documents", max_laps=4,
                                                random_state=0).fit(ap),
        "hdp_two_level": lambda: HDPTopicModel(n_topics=20, variational_family="two_level", algorithm="svi",
                                               batch_size=100, init="exponential", max_laps=2, random_state=0).fit(ap),
        "hdp_two_level_vb": lambda: HDPTopicModel(n_topics=20, variational_family="two_level", algorithm="vb",
                                                  init="exponential", max_laps=2, random_state=0).fit(ap),
        "hdp_tf": lambda: HDPTopicModel(algorithm="truncation_free", batch_size=100, max_laps=2, tol=0,
                                        random_state=0).fit(ap),
        "hdp_gibbs": lambda: HDPTopicModel(algorithm="gibbs", max_laps=4, tol=0, random_state=0).fit(ap),
        "hdp_learn": lambda: HDPTopicModel(n_topics=15, init="random", learn_concentration=True, max_laps=3,
                                           random_state=0).fit(ap),
        "diln_vb": lambda: DILN(n_topics=10, latent_dim=3, max_laps=3, random_state=0).fit(ap),
        "diln_svi": lambda: DILN(n_topics=10, latent_dim=3, algorithm="svi", batch_size=100, max_laps=2,
                                 random_state=0).fit(ap),
        "lda_partial": stream,
        "hdp_fit_partial": fit_then_stream,
    }


def fingerprints(cpu: dict | None = None) -> dict:
    """Each case's fingerprint; ``cpu`` (if given) receives each fit's CPU seconds (fit only)."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, make in cases().items():
            began = time.process_time()
            est = make()
            if cpu is not None:
                cpu[name] = time.process_time() - began
            out[name] = {"elbo": [float(v) for v in est.elbo_trace_], "lower_bound": float(est.lower_bound_),
                         "topics": hashlib.sha256(np.ascontiguousarray(est.components_).tobytes()).hexdigest()[:16],
                         "k": int(est.n_topics_)}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="write the fingerprints to this JSON file")
    parser.add_argument("--compare", help="compare with the fingerprints in this JSON file")
    parser.add_argument("--times", help="write each fit's CPU seconds to this JSON file")
    args = parser.parse_args(argv)
    cpu: dict = {}
    now = fingerprints(cpu)
    if args.times:
        with open(args.times, "w") as f:
            json.dump(cpu, f, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(now, f, indent=1)
    if args.compare:
        with open(args.compare) as f:
            before = json.load(f)
        differ = sorted(name for name in now if before.get(name) != now[name])
        print(f"{len(now) - len(differ)} of {len(now)} fits bit-identical" + (f"; differ: {differ}" if differ else ""))
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
