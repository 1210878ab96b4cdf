"""The HDP's direct-assignment collapsed Gibbs sampler against collapsed Gibbs for LDA at several K
(the baseline comparison of Teh et al. 2006, §6, and of the thesis's HDP experiments).

Same split and evaluation as ``collapsed_lda.py`` (10 % of each document's tokens held out, seed 0;
the predictive averaged over the sweeps after 10 burn-in sweeps, Welling et al. 2008, Eq. 31; for
the HDP the predictive includes the new-topic mass). LDA: alpha = beta = 0.1 (the reproduction's
settings); HDP: eta = 0.1, starting from no topics, with alpha = gamma = 1 fixed, and with alpha and
gamma starting there and resampled every sweep under Teh et al.'s priors (Gamma(1, 1), Gamma(1, 0.1)).
Reported: perplexity at a few sweeps (mean ± standard deviation over seeds), topics used by the HDP
at the end, CPU seconds per sweep (one thread), the peak RSS of the run's process (largest over seeds).
Each run (model, seed) in a fresh process after an untimed two-sweep warm-up fit of the same model on
50 documents (numba).

Run:  .venv/bin/python benchmarks/collapsed_hdp.py [--corpus kos] [--sweeps 300] [--seeds 0,1,2] [--lda-k 10,20,40,80]
Writes benchmarks/results/collapsed_hdp_<corpus>.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from collapsed_lda import RESULTS, load_split, reported_sweeps, run_row, summary_cells  # noqa: E402  (sets the one-thread variables first)

import numpy as np  # noqa: E402

from _rss import in_fresh_process, rss_cell  # noqa: E402

HDP = dict(concentration=1.0, doc_topic_prior=1.0, topic_word_prior=0.1)
#: Teh et al. (2006, §6): alpha ~ Gamma(1, 1), gamma ~ Gamma(1, 0.1), resampled every sweep.
TEH_PRIORS = ((1.0, 1.0), (1.0, 0.1))


def run_hdp(train, test, sweeps: int, seed: int, priors=None) -> dict:
    from stickbreak import HDPTopicModel

    cpu, topics = [], []
    start = time.process_time()

    def observe(record, params):
        cpu.append(time.process_time() - start)
        topics.append(int((params.Nk > 0).sum()))

    est = HDPTopicModel(algorithm="gibbs", max_laps=sweeps, tol=0.0, random_state=seed, callbacks=[observe],
                        algorithm_options={"concentration_priors": priors}, **HDP)
    est.fit(train, heldout=test)
    return {"perplexity": np.exp(-est.heldout_per_word_).tolist(), "cpu_s": cpu, "topics": topics}


def hdp_row(corpus: str, sweeps: int, seed: int, priors=None) -> dict:
    """One HDP run in a process of its own: the split, an untimed warm-up on 50 documents, :func:`run_hdp`."""
    train, test = load_split(corpus)
    run_hdp(train[:50], test[:50], 2, seed, priors)
    return run_hdp(train, test, sweeps, seed, priors)


def markdown(payload: dict) -> str:
    d = payload["describe"]
    marks = reported_sweeps(payload["sweeps"])
    lines = [f"# HDP (direct-assignment collapsed Gibbs) vs LDA (collapsed Gibbs) on {d['corpus']}", "",
             f"Generated {payload['generated']} by `{payload['command']}`.", "",
             f"{d['docs']:,} documents, V={d['V']:,}, {d['train_tokens']:,} training and {d['test_tokens']:,} held-out "
             f"tokens; seeds {payload['seeds']}; one thread. LDA alpha = beta = 0.1; HDP eta = 0.1 from no topics, "
             "alpha = gamma = 1 fixed or resampled under Gamma(1, 1) and Gamma(1, 0.1) priors. Perplexity (mean "
             "± standard deviation over seeds) by the predictive averaged after 10 burn-in sweeps; lower is better. "
             "Peak RSS: the run's own process, largest over seeds.", "",
             "| model | " + " | ".join(f"sweep {s}" for s in marks) + " | topics at the end | CPU s / "
                                                                      "sweep | peak RSS MiB |",
             "|---|" + "---:|" * (len(marks) + 3)]
    for name, runs in payload["rows"].items():
        cells, per_sweep = summary_cells(runs, marks)
        topics = " / ".join(str(r["topics"][-1]) for r in runs) if "topics" in runs[0] else name.split("=")[-1]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {topics} | {per_sweep:.3f} | {rss_cell(runs)} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="kos")
    ap.add_argument("--sweeps", type=int, default=300)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--lda-k", default="10,20,40,80")
    args = ap.parse_args(argv)
    train, test = load_split(args.corpus)
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = {"HDP, alpha = gamma = 1": [in_fresh_process(hdp_row, args.corpus, args.sweeps, seed) for seed in seeds],
            "HDP, Gamma priors": [in_fresh_process(hdp_row, args.corpus, args.sweeps, seed, TEH_PRIORS)
                                  for seed in seeds]}
    for name in list(rows):
        print(name, [(round(r["perplexity"][-1], 1), r["topics"][-1]) for r in rows[name]], flush=True)
    for K in (int(k) for k in args.lda_k.split(",")):
        rows[f"LDA K={K}"] = [in_fresh_process(run_row, args.corpus, "gibbs", K, args.sweeps, seed) for seed in seeds]
        print(K, [round(r["perplexity"][-1], 1) for r in rows[f"LDA K={K}"]], flush=True)
    payload = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": "python benchmarks/collapsed_hdp.py " + " ".join(argv or sys.argv[1:]),
               "describe": {"corpus": args.corpus, "docs": train.shape[0], "V": train.shape[1],
                            "train_tokens": int(train.sum()), "test_tokens": int(test.sum())},
               "sweeps": args.sweeps, "seeds": seeds, "hdp": HDP, "rows": rows}
    (RESULTS / f"collapsed_hdp_{args.corpus}.json").write_text(json.dumps(payload))
    (RESULTS / f"collapsed_hdp_{args.corpus}.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
