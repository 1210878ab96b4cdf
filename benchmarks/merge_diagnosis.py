"""Why topic merges were refused (issue 45): every pair of a fitted HDP's topics, its merge screen
against its exact ELBO gain, with and without re-fitting the documents.

For each (corpus, start) the HDP topic model is fitted with its defaults from that start
(``init="random"``: the previous default; ``init="gibbs"``: the learned start), on the training
split of ``benchmarks/topic_moves.py``. Then, on the whole training corpus as one batch:

* the **screen** of every pair: the exact change of the data term ``Delta L_data`` (what merge
  planning ranked pairs by, and required to be positive before issue 45);
* the **cached** exact gain: the whole-data ELBO after the merge, with the pair's merged entropy and
  document terms gathered by a local step (Hughes 2016, §5.5.1), minus the ELBO before; the change
  of each term (data, entropy, doc, top) is kept;
* the **re-fitted** gain of the pairs with the best cached gains and of a few median ones: the ELBO
  after merging and then ``REFIT_STEPS`` full local and global steps, minus the ELBO after the same
  steps without the merge.

Run (one thread):

    .venv/bin/python benchmarks/merge_diagnosis.py

Writes ``benchmarks/results/merge_diagnosis.{json,md}``.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from k_learning import corpus_split  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
CASES = (("we8there", 100, "random"), ("we8there", 10, "gibbs"), ("we8there", 100, "gibbs"),
         ("short20", 100, "gibbs"))
REFIT_STEPS = 3
TERMS = ("data", "entropy", "doc", "top")


def _steps(model, params, data, steps: int):
    """``steps`` local steps (from scratch) and global steps: ``(params, terms)``."""
    for _ in range(steps):
        local = model.local_step(params, data, None)
        params, terms = model.score(model.summarize(data, local, params.uids), params)
    return params, terms


def diagnose(corpus: str, start: int, init: str) -> dict:
    import stickbreak
    from stickbreak.core.protocols import total_elbo
    from stickbreak.data import BagOfWords
    from stickbreak.obs import mult
    from stickbreak.obs.expfam import data_gain

    warnings.simplefilter("ignore", ConvergenceWarning)
    train = corpus_split(corpus)["train"]
    with threadpool_limits(limits=1):
        fitted = stickbreak.HDPTopicModel(n_topics=start, init=init, random_state=0).fit(train)
        model, params = fitted.model_, fitted.params_
        data = BagOfWords.from_counts(train)
        params, _ = _steps(model, params, data, 1)
        first, second = np.triu_indices(len(params.uids), 1)
        pairs = np.stack([params.uids[first], params.uids[second]], axis=1)
        local = model.local_step(params, data, None, merge_pairs=pairs)
        stats = model.summarize(data, local, params.uids, merge_pairs=pairs)
        params, terms = model.score(stats.without_merge_terms(), params)
        base = total_elbo(terms)
        screen = data_gain(mult, model.obs_prior, params.obs, stats, first, second)
        cached, by_term = np.empty(len(pairs)), np.empty((len(pairs), len(TERMS)))
        for m, (kept, removed) in enumerate(pairs):
            merged_terms = model.score(stats.merge(int(kept), int(removed)), params)[1]
            cached[m] = total_elbo(merged_terms) - base
            by_term[m] = [merged_terms[t] - terms[t] for t in TERMS]
        _, refit_terms = _steps(model, params, data, REFIT_STEPS)
        refit_base = total_elbo(refit_terms)
        order = np.argsort(-cached)
        median = order[len(order) // 2: len(order) // 2 + 3]
        refits = []
        for m in [*order[:5], *median]:
            merged = model.score(stats.merge(int(pairs[m][0]), int(pairs[m][1])), params)[0]
            refits.append({"pair": pairs[m].tolist(), "rank": "best cached" if m in order[:5] else "median cached",
                           "sizes": [float(stats.counts[first[m]]), float(stats.counts[second[m]])],
                           "screen": float(screen[m]), "cached": float(cached[m]),
                           "refit": float(total_elbo(_steps(model, merged, data, REFIT_STEPS)[1]) - refit_base)})
    return {"corpus": corpus, "start": start, "init": init, "K": len(params.uids), "pairs": len(pairs),
            "elbo": base, "screen_positive": int((screen > 0).sum()), "cached_positive": int((cached > 0).sum()),
            "median_screen": float(np.median(screen)), "median_cached": float(np.median(cached)),
            "mean_term_change": dict(zip(TERMS, by_term.mean(axis=0).tolist())), "refits": refits}


def markdown(rows: list[dict], meta: dict) -> str:
    lines = ["# Why topic merges were refused (issue 45)", "", f"Command: `{meta['command']}` (stickbreak "
             f"{meta['stickbreak']}, git {meta['git']}, load average at start {meta['load']}). Protocol: the "
             "docstring of `benchmarks/merge_diagnosis.py`.", "",
             "| corpus | fit (start, init) | K | pairs | screen > 0 | cached gain > 0 | median screen | "
             "median cached gain | mean change per merge: data / entropy / doc / top |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        change = " / ".join(f"{r['mean_term_change'][t]:.0f}" for t in TERMS)
        lines.append(f"| {r['corpus']} | {r['start']}, {r['init']} | {r['K']} | {r['pairs']} | "
                     f"{r['screen_positive']} | "
                     f"{r['cached_positive']} | {r['median_screen']:.0f} | {r['median_cached']:.0f} | {change} |")
    lines += ["", f"Re-fitted gains ({REFIT_STEPS} full local and global steps after the merge, against the same "
              "steps without it), nats:", "", "| corpus | fit | pair | which | sizes | screen | cached gain | "
              "re-fitted gain |", "|---|---|---|---|---|---:|---:|---:|"]
    for r in rows:
        for f in r["refits"]:
            lines.append(f"| {r['corpus']} | {r['start']}, {r['init']} | {f['pair']} | {f['rank']} | "
                         f"{f['sizes'][0]:.0f}, {f['sizes'][1]:.0f} | {f['screen']:.0f} | {f['cached']:.0f} | "
                         f"{f['refit']:.0f} |")
    return "\n".join(lines) + "\n"


def main():
    import subprocess

    import stickbreak

    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=ROOT).stdout.strip()
    meta = {"command": "python benchmarks/merge_diagnosis.py", "stickbreak": stickbreak.__version__, "git": git,
            "load": " ".join(f"{v:.2f}" for v in os.getloadavg())}
    rows = []
    for case in CASES:
        rows.append(diagnose(*case))
        print({k: v for k, v in rows[-1].items() if k != "refits"}, flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "merge_diagnosis.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    text = markdown(rows, meta)
    (RESULTS / "merge_diagnosis.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
