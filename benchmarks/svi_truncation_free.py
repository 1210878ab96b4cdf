"""Truncation-free SVI against truncated stochastic mean-field over minibatch sizes (Wang & Blei 2012, Figs. 3-4).

For each minibatch size S in {1, 10, 50, 100, 500}: truncation-free SVI (starts with no components,
``rho_t = S / n_t`` floored at ``S / n``) and truncated stochastic mean-field at truncation 300
(``rho_t = (1 + t)^-0.6`` floored at ``S / n``, the paper's baseline: Blei & Jordan's DP mixture,
the online HDP of Wang et al. 2011 with 20 atoms per document), both on the same lazy component
store and learner (``stickbreak.learn.truncation_free``; the baseline is ``mean_field_dp.py``), for the same number of
passes over the training documents (the paper gave each run 10 hours instead). Settings of the
paper: DP ``eta = 0.5``, ``a = 1``; HDP ``eta = 0.01``, ``a = b = 1``; prune every 20,000 documents.

Scores on whole held-out documents (``benchmarks/svi_common.py``), with the posterior means of the
used components plugged in: DP, the exact mixture likelihood; HDP, the importance-sampling estimate
of S.3 (200 Gibbs sweeps, 100 proposal draws). ``K`` = components holding at least one document (DP)
or one word (HDP), the paper's pruning rule applied to both methods. Each run in a fresh process given
the split (peak RSS: that process's; fit and scoring), after an untimed small run there (numba's kernels).

Run:  .venv/bin/python benchmarks/svi_truncation_free.py --corpus gcide_definitions --model dp [--passes 1]
Writes benchmarks/results/svi_truncation_free_<model>_<corpus>.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import svi_common  # noqa: E402  (sets the BLAS thread variables before numpy loads)

import numpy as np  # noqa: E402

from _rss import in_fresh_process, rss_cell  # noqa: E402

BATCH_SIZES = (1, 10, 50, 100, 500)
TRUNCATION = 300
KAPPA, TAU = 0.6, 1.0


def make(model: str, method: str, n_vocab: int):
    from mean_field_dp import StochasticMeanFieldDP
    from stickbreak.models.sampled import TruncationFreeDPMixture, TruncationFreeHDP
    from stickbreak.models.topics.two_level import TwoLevelHDP

    if model == "dp":
        return TruncationFreeDPMixture(0.5, 1.0) if method == "tf" else StochasticMeanFieldDP(0.5, 1.0, TRUNCATION)
    if method == "tf":
        return TruncationFreeHDP(0.01, 1.0, 1.0)
    return TwoLevelHDP({"lam": np.full(n_vocab, 0.01)}, 1.0, 1.0, doc_truncation=20)  # SVI on its Sampled side


def plug_in_weights(params, method: str) -> np.ndarray:
    """``E[pi_k]``; the truncated family fixes its last stick at 1, so its weights sum to one."""
    from stickbreak.models.sampled.base import sticks_fixed_last

    return params.weights if method == "tf" else sticks_fixed_last(params.u, params.v)


def used(model: str, params) -> np.ndarray:
    if model == "dp":
        return params.u - 1.0 >= 1.0
    return (params.lam - params.topic_word_prior).sum(axis=1) >= 1.0


def run(data, model: str, method: str, batch_size: int, passes: int, seed: int = 0) -> dict:
    from stickbreak.data import BagOfWords
    from stickbreak.evaluate import dp_heldout_loglik, hdp_importance_loglik
    from stickbreak.learn.schedules import RobbinsMonro
    from stickbreak.learn.stochastic import InMemoryMinibatches
    from stickbreak.learn.truncation_free import TruncationFreeSVI

    rng = np.random.default_rng(seed)
    train = BagOfWords.from_counts(data["train"])
    n = train.n_items
    minibatches = InMemoryMinibatches(train, max(1, n // batch_size))
    sampler = make(model, method, train.n_features)
    if method == "tf":
        learner = TruncationFreeSVI(rng)
        state = learner.start(sampler, minibatches)
    else:
        learner = TruncationFreeSVI(rng, schedule=RobbinsMonro(TAU, KAPPA))
        start = (sampler.store_params(sampler.initial_params(TRUNCATION, n, rng)) if model == "hdp"
                 else sampler.initial_params(train.n_features, n, rng))
        state = learner.start(sampler, minibatches, start)
    cpu = time.process_time()
    for _ in range(passes):
        state = learner.lap(sampler, minibatches, state).state
    cpu = time.process_time() - cpu
    params = state.params
    keep = used(model, params)
    weights = plug_in_weights(params, method)
    if model == "dp":
        score = dp_heldout_loglik(params.topic_word[keep], weights[keep], data["test"])
    else:
        score = hdp_importance_loglik(params.topic_word[keep], weights[keep], data["test"], 1.0, seed=seed)
    return {"model": model, "method": method, "S": batch_size, "K": int(keep.sum()), "stored": params.n_components,
            "per_word": float(score.per_word), "cpu_s": cpu, "docs": passes * n}


def run_row(data, model: str, method: str, batch_size: int, passes: int) -> dict:
    """:func:`run` in a fresh process (:func:`main`), after an untimed pass over 200 training documents
    scored on 10 test documents (numba's kernels)."""
    run({"train": data["train"][:200], "test": data["test"][:10]}, model, method, batch_size, 1)
    return run(data, model, method, batch_size, passes)


def markdown(payload: dict) -> str:
    d, rows, model = payload["describe"], payload["rows"], payload["model"]
    title = "DP mixture of multinomials" if model == "dp" else "HDP topic model"
    metric = "exact held-out log-lik." if model == "dp" else "held-out log-lik. (importance sampling, S.3)"
    lines = [f"# Truncation-free vs truncated SVI, {title}, on {d['corpus']} (Wang & Blei 2012, Fig. "
             f"{3 if model == 'dp' else 4})",
             "", f"Generated {payload['generated']} by `{payload['command']}`.", "",
             f"Train {d['train_docs']:,} documents (V={d['V']:,}), {payload['passes']} pass(es) per run; "
             f"{d['test_docs']:,} whole test documents ({d['test_tokens']:,} tokens). Per word, nats.", "",
             f"| S | TF-SVI {metric} | truncated (K=300) | TF-SVI K | truncated K | TF-SVI CPU s | truncated CPU s "
             "| TF-SVI peak RSS MiB | truncated peak RSS MiB |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    by = {(r["method"], r["S"]): r for r in rows}
    for S in sorted({r["S"] for r in rows}):
        tf, tr = by.get(("tf", S)), by.get(("trunc", S))
        if tf and tr:
            lines.append(f"| {S} | {tf['per_word']:.4f} | {tr['per_word']:.4f} | {tf['K']} | {tr['K']} | "
                         f"{tf['cpu_s']:.1f} | {tr['cpu_s']:.1f} | {rss_cell(tf)} | {rss_cell(tr)} |")
    for method in ("tf", "trunc"):
        scores = [by[(method, S)]["per_word"] for S in BATCH_SIZES if (method, S) in by]
        if scores:
            lines.append(f"\n{'TF-SVI' if method == 'tf' else 'truncated'}: spread over S (max - min) "
                         f"{max(scores) - min(scores):.4f} nats/word, worst {min(scores):.4f}.")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True, choices=svi_common.CORPORA)
    ap.add_argument("--model", required=True, choices=("dp", "hdp"))
    ap.add_argument("--passes", type=int, default=1)
    ap.add_argument("--sizes", default=",".join(map(str, BATCH_SIZES)))
    args = ap.parse_args(argv)
    data = svi_common.load_corpus(args.corpus)
    rows = []
    for S in [int(s) for s in args.sizes.split(",")]:
        for method in ("tf", "trunc"):
            rows.append(in_fresh_process(run_row, data, args.model, method, S, args.passes))
            print(rows[-1], flush=True)
    payload = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": "python benchmarks/svi_truncation_free.py " + " ".join(argv or sys.argv[1:]),
               "describe": data["describe"], "model": args.model, "passes": args.passes, "rows": rows}
    stem = f"svi_truncation_free_{args.model}_{args.corpus}"
    (svi_common.RESULTS / f"{stem}.json").write_text(json.dumps(payload, indent=1))
    (svi_common.RESULTS / f"{stem}.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
