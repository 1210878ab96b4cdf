"""Throughput of SVI for the two-level HDP: ours against gensim's ``HdpModel`` (the same algorithm,
Wang, Paisley & Blei 2011 / Hoffman et al. 2013 Fig. 9), side by side on the same corpus.

Ours runs with its default local step (relative ELBO change 1e-3 for SVI); ``ours_local_tol_1e-4``
uses onlinehdp's 1e-4, the value of gensim's ``var_converge``. Both run gensim's defaults: corpus
truncation 150, document truncation 15, ``alpha = gamma = 1``, ``eta = 0.01``, ``kappa = 1``,
``tau = 64``, minibatches of 256 documents, for the same number of passes, in fresh subprocesses
with one thread (``ours_2threads``: the local step on two threads; CPU time then counts both, so its
rate is also given per wall-clock second). After every pass the topics are scored by the one
protocol of ``benchmarks/svi_common.py`` (document completion on disjoint word types, document
prior ``alpha E[sigma_k(V)]`` from each library's own corpus sticks). Snapshot scoring is excluded
from the times. Reported: documents per CPU second, the held-out score and the peak RSS of the run's
process so far (that pass's scoring included) after each pass; the
ratio "at equal held-out score" is gensim's time for its final score over ours to the first pass
that scores at least as well (pass granularity, so a lower bound).

Run:  .venv/bin/python benchmarks/svi_hdp_throughput.py --corpus 20newsgroups [--passes 3]
Writes benchmarks/results/svi_hdp_throughput_<corpus>.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
import svi_common  # noqa: E402
import topic_peers  # noqa: E402
from _rss import peak_rss_mib, rss_cell  # noqa: E402
from stickbreak.priors.beta_sticks import expected_sticks as stick_means  # noqa: E402

CORPUS_TRUNCATION, DOC_TRUNCATION, CHUNK = 150, 15, 256
KAPPA, TAU, ETA, ALPHA, GAMMA = 1.0, 64.0, 0.01, 1.0, 1.0


class Timer:
    """Process CPU time of the fit, with snapshot scoring taken out."""

    def __init__(self):
        self.start, self.excluded = time.process_time(), 0.0
        self.start_wall, self.excluded_wall = time.perf_counter(), 0.0

    def now(self) -> float:
        return time.process_time() - self.start - self.excluded

    def wall(self) -> float:
        return time.perf_counter() - self.start_wall - self.excluded_wall


def run_ours(data, passes: int, seed: int, n_jobs: int = 1, local_tol=None) -> list[dict]:
    from stickbreak import HDPTopicModel

    trace, timer = [], Timer()

    def on_lap(record, params):
        cpu = timer.now()
        t0, w0 = time.process_time(), time.perf_counter()
        prior = ALPHA * stick_means(params.weights["a"], params.weights["b"])
        trace.append({"pass": record.lap, "cpu_s": cpu, "wall_s": timer.wall(),
                      "per_word": svi_common.completion(data, params.topic_word, prior),
                      "peak_rss_mib": peak_rss_mib()})
        timer.excluded += time.process_time() - t0
        timer.excluded_wall += time.perf_counter() - w0

    n_batches = math.ceil(data["train"].shape[0] / CHUNK)
    options = dict(doc_truncation=DOC_TRUNCATION, learning_rate_delay=TAU, learning_rate_decay=KAPPA,
                   local_tol=local_tol)
    est = HDPTopicModel(CORPUS_TRUNCATION, variational_family="two_level", concentration=GAMMA, doc_topic_prior=ALPHA,
                        topic_word_prior=ETA, algorithm="svi", algorithm_options=options, n_batches=n_batches,
                        max_laps=passes, tol=0.0, init="exponential", random_state=seed, callbacks=[on_lap],
                        n_jobs=n_jobs)
    timer.start, timer.start_wall = time.process_time(), time.perf_counter()
    est.fit(data["train"])
    return trace


def run_gensim(data, passes: int, seed: int) -> list[dict]:
    import logging

    from gensim.models import HdpModel

    logging.getLogger("gensim").setLevel(logging.WARNING)
    X = data["train"]
    corpus = topic_peers.gensim_corpus(X)
    id2word = {i: f"w{i}" for i in range(X.shape[1])}
    per_pass = math.ceil(X.shape[0] / CHUNK)
    trace, timer = [], Timer()

    class Snapshots(HdpModel):
        done = 0

        def update_chunk(self, chunk, update=True, opt_o=True):
            out = super().update_chunk(chunk, update, opt_o)
            self.done += 1
            if self.done % per_pass == 0:
                cpu = timer.now()
                t0, w0 = time.process_time(), time.perf_counter()
                lam = topic_peers.gensim_hdp_topics(self)
                prior = ALPHA * stick_means(self.m_var_sticks[0], self.m_var_sticks[1])
                trace.append({"pass": self.done // per_pass, "cpu_s": cpu, "wall_s": timer.wall(),
                              "per_word": svi_common.completion(data, lam / lam.sum(axis=1, keepdims=True), prior),
                              "peak_rss_mib": peak_rss_mib()})
                timer.excluded += time.process_time() - t0
                timer.excluded_wall += time.perf_counter() - w0
            return out

    timer.start, timer.start_wall = time.process_time(), time.perf_counter()
    Snapshots(corpus, id2word, max_chunks=passes * per_pass, chunksize=CHUNK, kappa=KAPPA, tau=TAU, K=DOC_TRUNCATION,
              T=CORPUS_TRUNCATION, alpha=ALPHA, gamma=GAMMA, eta=ETA, random_state=seed)
    return trace


RUNNERS = {"ours": run_ours, "ours_2threads": lambda data, passes, seed: run_ours(data, passes, seed, 2),
           "ours_local_tol_1e-4": lambda data, passes, seed: run_ours(data, passes, seed, local_tol=1e-4),
           "gensim": run_gensim}
#: Threads of each runner's subprocess (gensim's HdpModel has no parallel mode).
THREADS = {"ours_2threads": 2}


def markdown(payload: dict) -> str:
    d = payload["describe"]
    lines = [f"# SVI HDP throughput on {d['corpus']}: ours vs gensim HdpModel", "",
             f"Generated {payload['generated']} by `{payload['command']}`.", "",
             f"Train {d['train_docs']:,} documents, V={d['V']:,}; {d['heldout_tokens']:,} held-out tokens. "
             f"K={CORPUS_TRUNCATION}, T={DOC_TRUNCATION}, S={CHUNK}, kappa={KAPPA}, tau={TAU}; one thread each.", "",
             "| run | pass | CPU s | wall s | documents / CPU s | documents / wall s | held-out per word "
             "| peak RSS MiB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, trace in payload["rows"].items():
        for t in trace:
            docs = t["pass"] * d["train_docs"]
            lines.append(f"| {name} | {t['pass']} | {t['cpu_s']:.1f} | {t['wall_s']:.1f} | {docs / t['cpu_s']:,.0f} | "
                         f"{docs / t['wall_s']:,.0f} | {t['per_word']:.4f} | {rss_cell(t)} |")
    gensim = payload["rows"].get("gensim")
    for name in ("ours", "ours_2threads", "ours_local_tol_1e-4"):
        ours = payload["rows"].get(name)
        if ours and gensim:
            lines += ["", f"{name} after {ours[-1]['pass']} passes: {ours[-1]['per_word']:.4f} vs gensim "
                          f"{gensim[-1]['per_word']:.4f} nats/word; wall-clock ratio gensim/ours "
                          f"**{gensim[-1]['wall_s'] / ours[-1]['wall_s']:.1f}x** (CPU "
                          f"{gensim[-1]['cpu_s'] / ours[-1]['cpu_s']:.1f}x)."]
            reached = [t for t in ours if t["per_word"] >= gensim[-1]["per_word"]]
            if reached:
                first = reached[0]
                lines.append(f"{name} reaches gensim's final score after pass {first['pass']}: "
                             f"**{gensim[-1]['wall_s'] / first['wall_s']:.1f}x** less wall-clock time "
                             f"({gensim[-1]['cpu_s'] / first['cpu_s']:.1f}x less CPU).")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="20newsgroups", choices=svi_common.CORPORA)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        data = svi_common.load_corpus(args.corpus)
        Path(args.out).write_text(json.dumps({"trace": RUNNERS[args.one](data, args.passes, 0),
                                              "describe": data["describe"]}))
        return
    rows, describe = {}, None
    for name in [n for n in args.only.split(",") if n] or list(RUNNERS):
        with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
            env = dict(os.environ, NUMBA_NUM_THREADS=str(THREADS.get(name, 1)))
            subprocess.run([sys.executable, __file__, "--corpus", args.corpus, "--passes", str(args.passes),
                            "--one", name, "--out", tmp.name], check=True, env=env)
            res = json.loads(Path(tmp.name).read_text())
        rows[name], describe = res["trace"], res["describe"]
        print(name, rows[name], flush=True)
    payload = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": "python benchmarks/svi_hdp_throughput.py " + " ".join(argv or sys.argv[1:]),
               "describe": describe, "rows": rows}
    (svi_common.RESULTS / f"svi_hdp_throughput_{args.corpus}.json").write_text(json.dumps(payload, indent=1))
    (svi_common.RESULTS / f"svi_hdp_throughput_{args.corpus}.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
