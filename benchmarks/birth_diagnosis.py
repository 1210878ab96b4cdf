"""Why topic births lose (issue 45): which ELBO terms a newborn pays, on real text and on toy bars.

(a) **Real text.** The HDP from 10 random topics (``init="random"``, the default moves) on the
training split of ``benchmarks/topic_moves.py``; then, on the whole training corpus as one batch,
a birth of each of the four largest topics is proposed and judged exactly as memoized VI judges it
(after the clean-up merges, :func:`stickbreak.moves.birth.cleaned`), twice: with the birth move's
own newborns (Bregman k-means of the target's documents, refined on them) and with newborns from an
LDA fit (batch VB, ``J`` topics) on the target's tokens, each token weighted by its responsibility.
The change of each ELBO term (data, entropy, doc, top) is reported.

(b) **Toy bars.** 240 documents of 60 tokens from 10 bars (10 x 10 vocabulary); births, merges and
deletes from one random topic (``n_topics=1, init="random"``), for 1, 2 and 10 batches and 4
seeds: how many of the 10 bars are found (cosine > 0.95) and the final ELBO.

Run (one thread):

    .venv/bin/python benchmarks/birth_diagnosis.py [--corpus ap]

Writes ``benchmarks/results/birth_diagnosis.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
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
TERMS = ("data", "entropy", "doc", "top")
TARGETS = 4
LDA_NEWBORNS = (2, 4)
BATCHES = (1, 2, 10)
SEEDS = range(4)


def _judged(model, stats, terms, proposal) -> dict:
    """The cleaned proposal's exact gain, per term, and the sizes of [target, newborns]."""
    from stickbreak.core.protocols import total_elbo
    from stickbreak.moves import birth

    proposal = birth.cleaned(model, stats, proposal)
    _, _, after, _ = birth.best_order(model, birth.candidate(stats, proposal))
    parts = list(proposal.expansions.values())
    sizes = sum(parts[1:], parts[0]).counts
    return {"gain": total_elbo(after) - total_elbo(terms), "terms": {t: float(after[t] - terms[t]) for t in TERMS},
            "sizes": [float(v) for v in sizes]}


def real_text(corpus: str) -> dict:
    import stickbreak
    from stickbreak.config import MovesConfig
    from stickbreak.data import BagOfWords
    from stickbreak.moves import birth
    from stickbreak.obs import expfam

    train = corpus_split(corpus)["train"]
    fitted = stickbreak.HDPTopicModel(n_topics=10, init="random", random_state=0).fit(train)
    model, params = fitted.model_, fitted.params_
    data = BagOfWords.from_counts(train)
    local = model.local_step(params, data, None)
    params, _ = model.score(model.summarize(data, local, params.uids), params)
    local = model.local_step(params, data, local.doc_topic, keep_loglik=True)
    stats = model.summarize(data, local, params.uids)
    params, terms = model.score(stats, params)
    config = MovesConfig(moves=("birth",))
    rows = []
    for target in range(min(TARGETS, params.n_components)):
        uid = int(params.uids[target])
        own = birth.start(model, 0, data, local, params, uid, range(10**6, 10**6 + config.birth_max_new), 1,
                          config, np.random.default_rng(target))
        rows.append({"target": target, "newborns": "birth move's", **_judged(model, stats, terms, own)})
        part = model.birth_pool_items(data, local, params, target, np.arange(data.n_items)).counts
        part = part[np.asarray(part.sum(axis=1)).ravel() >= 0.5]  # the target's tokens, weighted
        for n_new in LDA_NEWBORNS:
            lda = stickbreak.LDA(n_topics=n_new, random_state=0, max_laps=50).fit(part)
            counts = lda.topic_word_ * (part.sum() / lda.topic_word_.sum())
            centers = expfam.concat_components(expfam.select_components(params.obs, [target]),
                                               {"lam": model.obs_prior["lam"][None, :] + counts})
            log_weights = np.concatenate([[-np.inf], np.log(counts.sum(axis=1) / counts.sum())])
            born = np.arange(2 * 10**6, 2 * 10**6 + n_new)
            expansion = model.birth_expansion(data, local, params, target, centers, log_weights,
                                              np.concatenate([[uid], born]))
            proposal = birth.TrackedBirth(uid, tuple(born), 1, born=born, centers=centers, log_weights=log_weights,
                                          expansions={0: expansion})
            rows.append({"target": target, "newborns": f"LDA, J={n_new}", **_judged(model, stats, terms, proposal)})
        print(rows[-3:], flush=True)
    return {"corpus": corpus, "K": int(params.n_components), "documents": int(data.n_items),
            "elbo": float(sum(terms.values())), "rows": rows}


def bars() -> list[dict]:
    import stickbreak
    from stickbreak.datasets.synthetic import make_bars_corpus

    counts, topics = make_bars_corpus(n_docs=240, doc_length=60, side=10, n_bars=10, seed=2)
    rows = []
    for n_batches in BATCHES:
        for seed in SEEDS:
            fitted = stickbreak.HDPTopicModel(n_topics=1, init="random", n_batches=n_batches, max_laps=60,
                                              random_state=seed).fit(counts)
            used = fitted.topic_word_[fitted.topic_sizes_ >= 1]
            cosine = topics @ used.T / np.linalg.norm(topics, axis=1)[:, None] / np.linalg.norm(used, axis=1)[None, :]
            births = [sum(r["moves"]["birth"][k] for r in fitted.trace_) for k in ("accepted", "tried")]
            rows.append({"batches": n_batches, "seed": seed, "K": len(used),
                         "found": int((cosine.max(axis=1) > 0.95).sum()),
                         "elbo": float(fitted.lower_bound_), "births": births, "laps": int(fitted.n_iter_)})
            print(rows[-1], flush=True)
    return rows


def markdown(text: dict, bar_rows: list[dict], meta: dict) -> str:
    lines = ["# Why topic births lose (issue 45)", "",
             f"Command: `{meta['command']}` (stickbreak {meta['stickbreak']}, git {meta['git']}, load average at "
             f"start {meta['load']}). Protocol: the docstring of `benchmarks/birth_diagnosis.py`.", "",
             f"## (a) {text['corpus']}: births from the fit of 10 random topics ({text['K']} topics, "
             f"{text['documents']} documents, ELBO {text['elbo']:.0f})", "",
             "| target | newborns | gain | data | entropy | doc | top | sizes after clean-up: target, newborns |",
             "|---:|---|---:|---:|---:|---:|---:|---|"]
    for r in text["rows"]:
        t = r["terms"]
        lines.append(f"| {r['target']} | {r['newborns']} | {r['gain']:.0f} | {t['data']:.0f} | {t['entropy']:.0f} | "
                     f"{t['doc']:.0f} | {t['top']:.0f} | {', '.join(f'{v:.0f}' for v in r['sizes'])} |")
    lines += ["", "## (b) Toy bars from one topic: bars found (cosine > 0.95) by batches", "",
              "| batches | seed | K | bars found | births accepted / tried | laps | ELBO |",
              "|---:|---:|---:|---:|---|---:|---:|"]
    for r in bar_rows:
        lines.append(f"| {r['batches']} | {r['seed']} | {r['K']} | {r['found']} | {r['births'][0]} / "
                     f"{r['births'][1]} | "
                     f"{r['laps']} | {r['elbo']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    import stickbreak

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="ap")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=ROOT).stdout.strip()
    meta = {"command": "python benchmarks/birth_diagnosis.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "stickbreak": stickbreak.__version__, "git": git, "load": " ".join(f"{v:.2f}" for v in os.getloadavg())}
    with threadpool_limits(limits=1):
        text = real_text(args.corpus)
        bar_rows = bars()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "birth_diagnosis.json").write_text(json.dumps({"meta": meta, "text": text, "bars": bar_rows}, indent=1))
    report = markdown(text, bar_rows, meta)
    (RESULTS / "birth_diagnosis.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
