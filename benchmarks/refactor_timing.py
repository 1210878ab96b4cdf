"""CPU seconds of four medium fits on the whole bundled AP corpus, for timing a change side by side
with the commit before it (issues 46, 47): LDA by collapsed Gibbs (K = 100, 50 sweeps), LDA by batch
VB (K = 50, 20 laps), the HDP with its defaults (20 laps) and the HDP's direct-assignment sampler
(100 sweeps from no topics: what the defaults' learned start runs). Each line also prints the final
ELBO (the sampler: its log joint) and K, which must not change unless the change alters the draws.

Run each commit's library in turn, interleaved, on a warm numba cache (a first fit compiles first:
it is not timed), e.g. with the old commit checked out in a worktree at ``/tmp/old``:

    for i in 1 2; do
      PYTHONPATH=/tmp/old/src .venv/bin/python benchmarks/refactor_timing.py old
      PYTHONPATH=src .venv/bin/python benchmarks/refactor_timing.py new
    done
"""

from __future__ import annotations

import sys
import time
import warnings


def main(label: str) -> None:
    from stickbreak import LDA, HDPTopicModel, datasets

    warnings.simplefilter("ignore")
    ap = datasets.load("ap").X
    cases = {
        "lda_gibbs_k100_50_sweeps": lambda: LDA(n_topics=100, algorithm="gibbs", max_laps=50, tol=0, random_state=0),
        "lda_vb_k50_20_laps": lambda: LDA(n_topics=50, max_laps=20, tol=0, random_state=0),
        "hdp_defaults_20_laps": lambda: HDPTopicModel(max_laps=20, random_state=0),
        "hdp_gibbs_100_sweeps": lambda: HDPTopicModel(algorithm="gibbs", max_laps=100, tol=0, random_state=0),
    }
    for name, make in cases.items():
        make().set_params(max_laps=1).fit(ap[:50])  # compiled before the clock starts
        began = time.process_time()
        est = make().fit(ap)
        print(f"{label} {name}: {time.process_time() - began:.2f} CPU s, ELBO {est.lower_bound_!r}, "
              f"K {est.n_topics_}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "this")
