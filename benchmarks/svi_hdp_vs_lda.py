"""SVI: the HDP against LDA of K in {25, 50, 100, 200} (Hoffman et al. 2013, Fig. 11).

Every model is trained by stochastic VI with the paper's settings (``tau = 1``, ``kappa = 0.9``,
``S = 500``; LDA ``alpha = 1/K``, ``eta = 0.01``; HDP two-level family ``K = 300``, ``T = 20``,
``omega = alpha = 1``, ``eta = 0.01``; the footnote-6 initialisation) for the same number of passes
over the training documents, each in a fresh subprocess with one thread (whose peak RSS is
recorded: data, fit and scoring). After every pass the topics are scored by document completion on
held-out documents split by disjoint word types (``benchmarks/svi_common.py``): the observed types
give each document's proportions (LDA's fixed point with the topics frozen, under the model's
document prior: ``1/K`` per topic for LDA, ``alpha E[sigma_k(V)]`` for the HDP), the held-out types
are scored.

Run:  .venv/bin/python benchmarks/svi_hdp_vs_lda.py --corpus gcide_definitions [--passes 2] [--only hdp,lda50]
Writes benchmarks/results/svi_hdp_vs_lda_<corpus>.{md,json} (``--only`` keeps the other rows).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import svi_common  # noqa: E402  (sets the BLAS thread variables before numpy loads)

import numpy as np  # noqa: E402

from _rss import measured, rss_cell  # noqa: E402

BATCH_SIZE = 500
SCHEDULE = dict(learning_rate_delay=1.0, learning_rate_decay=0.9)
CONFIGS = {f"lda{k}": ("lda", k) for k in (25, 50, 100, 200)} | {"hdp": ("hdp", 300)}


def make_estimator(kind: str, n_topics: int, n_batches: int, passes: int, seed: int, schedule=None):
    from stickbreak import LDA, HDPTopicModel

    options = dict(schedule or SCHEDULE)
    common = dict(algorithm="svi", n_batches=n_batches, max_laps=passes, tol=0.0, init="exponential",
                  random_state=seed)
    if kind == "lda":
        return LDA(n_topics, doc_topic_prior=1.0 / n_topics, topic_word_prior=0.01, algorithm_options=options, **common)
    return HDPTopicModel(n_topics, variational_family="two_level", concentration=1.0, doc_topic_prior=1.0,
                         topic_word_prior=0.01, algorithm_options={**options, "doc_truncation": 20}, **common)


def run_one(corpus: str, name: str, passes: int, seed: int = 0, batch_size: int = BATCH_SIZE,
            schedule=None) -> dict:
    """One fit of ``CONFIGS[name]`` (``batch_size`` and the ``schedule`` dict default to the paper's)."""
    data = svi_common.load_corpus(corpus)
    kind, n_topics = CONFIGS[name]
    n_batches = max(1, round(data["train"].shape[0] / batch_size))
    trace, clock = [], {"cpu": time.process_time(), "excluded": 0.0}

    def on_lap(record, params):
        start = time.process_time()
        est_prior = prior_of(kind, n_topics, params)
        score = svi_common.completion(data, params.topic_word, est_prior)
        trace.append({"pass": record.lap, "per_word": score, "K_eff": record.n_effective,
                      "cpu_s": start - clock["cpu"] - clock["excluded"]})
        clock["excluded"] += time.process_time() - start

    est = make_estimator(kind, n_topics, n_batches, passes, seed, schedule)
    est.set_params(callbacks=[on_lap])
    est.fit(data["train"])
    return {"name": name, "kind": kind, "K": n_topics, "batch_size": batch_size, "n_batches": n_batches,
            "trace": trace, "describe": data["describe"]}


def prior_of(kind: str, n_topics: int, params) -> np.ndarray:
    if kind == "lda":
        return np.full(n_topics, 1.0 / n_topics)
    from stickbreak.models.topics import two_level as hdp_sticks

    return hdp_sticks.expected_corpus_weights(params.weights)  # alpha = 1


def markdown(payload: dict) -> str:
    rows = payload["rows"]
    d = next(iter(rows.values()))["describe"]
    lines = [f"# SVI: HDP vs LDA on {d['corpus']} (Hoffman et al. 2013, Fig. 11)", "",
             f"Generated {payload['generated']} by `{payload['command']}`.", "",
             f"Train {d['train_docs']:,} documents ({d['train_tokens']:,} tokens, V={d['V']:,}); "
             f"{d['test_docs']:,} test documents, {d['heldout_tokens']:,} held-out tokens (10 % of each "
             "document's word types). S=500, tau=1, kappa=0.9; one thread.", "",
             "| model | per-word held-out log-lik. after each pass | final | K used | CPU s | peak RSS MiB |",
             "|---|---|---:|---:|---:|---:|"]
    for name, r in rows.items():
        t = r["trace"]
        passes = " ".join(f"{x['per_word']:.3f}" for x in t)
        lines.append(f"| {name} | {passes} | **{t[-1]['per_word']:.3f}** | {t[-1]['K_eff']} | {t[-1]['cpu_s']:.0f} | "
                     f"{rss_cell(r)} |")
    lda = {n: r["trace"][-1]["per_word"] for n, r in rows.items() if r["kind"] == "lda"}
    if "hdp" in rows and lda:
        best = max(lda, key=lda.get)
        gap = rows["hdp"]["trace"][-1]["per_word"] - lda[best]
        lines += ["", f"HDP minus the best LDA ({best}): **{gap:+.3f}** nats per word."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True, choices=svi_common.CORPORA)
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--only", default="", help="comma-separated subset of " + ",".join(CONFIGS))
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        Path(args.out).write_text(json.dumps(measured(run_one, args.corpus, args.one, args.passes)))
        return
    names = [n for n in args.only.split(",") if n] or list(CONFIGS)
    out_json = svi_common.RESULTS / f"svi_hdp_vs_lda_{args.corpus}.json"
    rows = json.loads(out_json.read_text())["rows"] if args.only and out_json.exists() else {}
    for name in names:
        with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
            env = dict(__import__("os").environ, NUMBA_NUM_THREADS="1")
            subprocess.run([sys.executable, __file__, "--corpus", args.corpus, "--passes", str(args.passes),
                            "--one", name, "--out", tmp.name], check=True, env=env)
            rows[name] = json.loads(Path(tmp.name).read_text())
        print(name, [round(x["per_word"], 3) for x in rows[name]["trace"]], flush=True)
    rows = {n: rows[n] for n in CONFIGS if n in rows}
    payload = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": "python benchmarks/svi_hdp_vs_lda.py " + " ".join(argv or sys.argv[1:]), "rows": rows}
    out_json.write_text(json.dumps(payload, indent=1))
    (svi_common.RESULTS / f"svi_hdp_vs_lda_{args.corpus}.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
