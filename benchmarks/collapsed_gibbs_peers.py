"""Collapsed Gibbs for LDA side by side: ours, tomotopy's ``LDAModel`` and the ``lda`` package.

Same data, same split, same evaluator, one thread, each library in a fresh subprocess:

* Data: ``wiki`` (or ``--corpus``) with 10 % of each document's tokens held out at random (seed 0,
  the split of ``collapsed_lda.py``); word types that never occur in the training part are dropped
  (tomotopy builds its vocabulary from the training tokens), with the held-out tokens they carry.
* Model: K = ``--topics`` (20), alpha = 0.1, beta = 0.01 (both libraries' defaults; ``peers.md``
  §3.2), no hyper-parameter optimisation, ``--sweeps`` sweeps. Ours runs SparseLDA's buckets
  (:mod:`stickbreak.kernels.gibbs.buckets`).
* Evaluator: after selected sweeps the held-out tokens are scored by the predictive of the current
  sample, ``log sum_k theta_jk phi_kw`` with ``theta_j = (N_jk + alpha) / (N_j + K alpha)`` and
  ``phi_k = (N_kw + beta) / (N_k + W beta)`` (Welling et al. 2008, Eq. 30 at one sample), per
  held-out token. Each library's own count-based estimates are used: tomotopy's
  ``get_topic_dist`` / ``get_topic_word_dist``, the ``lda`` package's ``ndz_`` / ``nzw_`` counts,
  our ``N_jk`` / ``N_wk``.
* Timing: process CPU of the library's training calls; scoring is excluded (the ``Clock`` of
  ``topic_peers.py``). With ``--rounds R`` the libraries run R times in alternation (ours,
  tomotopy, ..., ours, tomotopy, ...), so that a change of load hits them alike; each round's
  speed ratio is taken within the round and the table reports the median of the rounds. Tokens
  per CPU-second per sweep are taken over sweeps 2..N, so that the
  initialisation does not count. How each library is observed sweep by sweep:
  ours via the estimator's ``callbacks`` (called after every lap = sweep); tomotopy via
  ``train(1, workers=1)`` repeatedly (it continues its chain; ``topic_peers.py`` checks this);
  ``lda`` via a wrapper around the instance's ``_sample_topics`` (one call per sweep inside
  ``fit``; the wrapper only observes). ``lda``'s ``refresh`` is set beyond the last sweep so its
  own log-likelihood logging runs once, before the first sweep.

Run:  .venv/bin/python benchmarks/collapsed_gibbs_peers.py [--corpus wiki] [--sweeps 200] [--topics 20]
      [--libraries ours,tomotopy,lda] [--rounds 3]
Writes benchmarks/results/collapsed_gibbs_peers_<corpus>[_k<topics>].{md,json} (the suffix when
``--topics`` is not 20), with each library's peak resident memory and the load average at the start.
Needs the ``peers`` extra plus ``lda`` (``pip install -e '.[peers]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from collapsed_lda import load_split  # noqa: E402
from topic_peers import Clock  # noqa: E402
from _rss import peak_rss_mib  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
K, ALPHA, BETA = 20, 0.1, 0.01
LIBRARIES = ("ours", "tomotopy", "lda")


def training_vocabulary_split(corpus: str):
    """The token split of ``collapsed_lda.py`` restricted to word types seen in training."""
    train, test = load_split(corpus)
    seen = np.flatnonzero(np.asarray(train.sum(axis=0)).ravel() > 0)
    dropped = int(test.sum() - test[:, seen].sum())
    return sp.csr_matrix(train[:, seen]), sp.csr_matrix(test[:, seen]), dropped


def heldout_per_word(theta: np.ndarray, phi: np.ndarray, test: sp.csr_matrix) -> float:
    """Mean log predictive of the held-out tokens: ``theta`` (D, K), ``phi`` (K, W), rows normalised."""
    rows = np.repeat(np.arange(test.shape[0]), np.diff(test.indptr))
    probs = np.einsum("ik,ik->i", theta[rows], phi[:, test.indices].T)
    return float(test.data @ np.log(probs) / test.data.sum())


def _normalised(counts: np.ndarray, prior: float) -> np.ndarray:
    smoothed = np.asarray(counts, dtype=np.float64) + prior
    return smoothed / smoothed.sum(axis=1, keepdims=True)


def sweeps_to_score(sweeps: int) -> list[int]:
    return sorted({*range(1, min(sweeps, 10) + 1), *range(10, sweeps + 1, 10), sweeps})


def run_ours(train, test, sweeps: int, seed: int) -> list:
    from stickbreak import LDA

    grid, state = set(sweeps_to_score(sweeps)), {"sweep": 0, "counts": None}
    clock = Clock(lambda s, phi: heldout_per_word(_normalised(state["counts"][1], ALPHA), phi, test))

    def observe(record, params):  # called after every sweep
        state["sweep"] += 1
        if state["sweep"] in grid:
            state["counts"] = params.counts
            clock.snapshot(state["sweep"], lambda: _normalised(params.counts[0].T, BETA))

    est = LDA(K, doc_topic_prior=ALPHA, topic_word_prior=BETA, algorithm="gibbs", max_laps=sweeps, tol=0.0,
              random_state=seed, callbacks=[observe])
    clock.start()
    est.fit(train)
    return clock.snapshots


def run_tomotopy(train, test, sweeps: int, seed: int) -> list:
    import tomotopy as tp
    from topic_peers import _tp_add_docs

    model = tp.LDAModel(k=K, alpha=ALPHA, eta=BETA, seed=seed)
    model.optim_interval = 0
    _tp_add_docs(model, train)

    def topic_word():
        columns = np.array([int(w[1:]) for w in model.used_vocabs], dtype=np.int64)  # known once training began
        phi = np.zeros((K, train.shape[1]))
        for k in range(K):
            phi[k, columns] = model.get_topic_word_dist(k, normalize=True)
        return phi

    clock = Clock(lambda s, phi: heldout_per_word(np.array([d.get_topic_dist() for d in model.docs]), phi, test))
    grid = set(sweeps_to_score(sweeps))
    clock.start()
    for s in range(1, sweeps + 1):
        model.train(1, workers=1)
        if s in grid:
            clock.snapshot(s, topic_word)
    assert model.global_step == sweeps
    return clock.snapshots


def run_lda_package(train, test, sweeps: int, seed: int) -> list:
    import logging

    import lda

    logging.getLogger("lda").setLevel(logging.WARNING)
    model = lda.LDA(n_topics=K, n_iter=sweeps, alpha=ALPHA, eta=BETA, random_state=seed, refresh=sweeps + 1)
    clock = Clock(lambda s, phi: heldout_per_word(_normalised(model.ndz_, ALPHA), phi, test))
    grid, sample_topics, state = set(sweeps_to_score(sweeps)), model._sample_topics, {"sweep": 0}

    def sample_then_observe(rands):  # the same call, then (clock stopped) a snapshot
        sample_topics(rands)
        state["sweep"] += 1
        if state["sweep"] in grid:
            clock.snapshot(state["sweep"], lambda: _normalised(model.nzw_, BETA))

    model._sample_topics = sample_then_observe
    clock.start()
    model.fit(train.astype(np.int64))
    assert state["sweep"] == sweeps
    return clock.snapshots


RUNNERS = {"ours": run_ours, "tomotopy": run_tomotopy, "lda": run_lda_package}


def versions() -> dict:
    from importlib.metadata import version

    from importlib.metadata import PackageNotFoundError

    found = {}
    for name in ("stickbreak", "tomotopy", "lda", "numba", "numpy"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:  # a library left out by --libraries need not be installed
            found[name] = None
    return found


def one(corpus: str, library: str, sweeps: int, seed: int) -> dict:
    train, test, _ = training_vocabulary_split(corpus)
    if library == "ours":
        run_ours(train[:20], test[:20], 2, seed)  # compile the kernels outside the timings
    snapshots = RUNNERS[library](train, test, sweeps, seed)
    return {"sweep": [s[0] for s in snapshots], "cpu_s": [s[1] for s in snapshots],
            "wall_s": [s[2] for s in snapshots], "heldout_per_word": [s[3] for s in snapshots],
            "peak_rss_mib": peak_rss_mib()}


def tokens_per_cpu_second(run: dict, tokens: int) -> float:
    """Over sweeps 2..N: ``tokens * (N - 1) / (cpu_N - cpu_1)``."""
    sweeps, cpu = run["sweep"], run["cpu_s"]
    return tokens * (sweeps[-1] - sweeps[0]) / (cpu[-1] - cpu[0])


def score_at_cpu(run: dict, budget: float) -> float | None:
    """The held-out score of the last scored sweep finished within ``budget`` CPU seconds."""
    done = [h for c, h in zip(run["cpu_s"], run["heldout_per_word"]) if c <= budget]
    return done[-1] if done else None


def markdown(payload: dict) -> str:
    d, runs = payload["describe"], payload["runs"]
    budgets = payload["budgets"]
    lines = [f"# Collapsed Gibbs for LDA: ours vs tomotopy vs `lda` on {d['corpus']}", "",
             f"Generated {payload['generated']} by `{payload['command']}`; versions {payload['versions']}; "
             f"load average {payload.get('load', 'n/a')} at the start.", "",
             f"{d['docs']:,} documents, W={d['W']:,} training word types, {d['train_tokens']:,} training and "
             f"{d['test_tokens']:,} held-out tokens ({d['dropped_tokens']:,} held-out tokens of unseen types "
             f"dropped); K={K}, alpha={ALPHA}, beta={BETA}, {payload['sweeps']} sweeps, seed {payload['seed']}, "
             "one thread, each library in its own process. Held-out score: mean log predictive per held-out "
             "token at the current sample (higher is better). CPU excludes scoring.", "",
             "| library | tokens / CPU-s per sweep | vs ours | CPU s (all sweeps) | peak RSS MiB | "
             + " | ".join(f"score at sweep {s}" for s in payload["reported_sweeps"]) + " |",
             "|---|---:|---:|---:|---:|" + "---:|" * len(payload["reported_sweeps"])]
    round_rates = payload.get("round_rates", [payload["rates"]])
    for name, run in runs.items():
        rate = payload["rates"][name]
        ratio = float(np.median([r[name] / r["ours"] for r in round_rates]))
        at = dict(zip(run["sweep"], run["heldout_per_word"]))
        rss = run.get("peak_rss_mib")
        lines.append(f"| {name} | {rate:,.0f} | {ratio:.2f}x | {run['cpu_s'][-1]:.1f} | "
                     + ("n/a" if rss is None else f"{rss:.0f}") + " | "
                     + " | ".join(f"{at[s]:.4f}" for s in payload["reported_sweeps"]) + " |")
    if len(round_rates) > 1:
        lines += ["", f"{len(round_rates)} rounds, the libraries alternating (tokens / CPU-s per sweep in each; the "
                  "table above gives the medians, and the median of the rounds' ratios):", "",
                  "| round | " + " | ".join(runs) + " | " + " | ".join(f"{n} vs ours" for n in runs if n != "ours")
                  + " | load after each |", "|---:|" + "---:|" * (2 * len(runs))]
        for i, (r, loads) in enumerate(zip(round_rates, payload["round_loads"]), 1):
            lines.append(f"| {i} | " + " | ".join(f"{r[n]:,.0f}" for n in runs) + " | "
                         + " | ".join(f"{r[n] / r['ours']:.2f}x" for n in runs if n != "ours") + " | "
                         + " ".join(f"{loads[n]:.2f}" for n in runs) + " |")
    lines += ["", "Held-out score after equal CPU time (the last scored sweep finished within the budget):", "",
              "| library | " + " | ".join(f"{b:g} CPU-s" for b in budgets) + " |", "|---|" + "---:|" * len(budgets)]
    for name, run in runs.items():
        cells = [score_at_cpu(run, b) for b in budgets]
        lines.append(f"| {name} | " + " | ".join("–" if c is None else f"{c:.4f}" for c in cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="wiki")
    ap.add_argument("--sweeps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--topics", type=int, default=20)
    ap.add_argument("--libraries", default=",".join(LIBRARIES))
    ap.add_argument("--rounds", type=int, default=1, help="run the libraries this many times, alternating")
    ap.add_argument("--one", choices=LIBRARIES, help="run one library here and print its json (internal)")
    args = ap.parse_args(argv)
    global K
    K = args.topics
    if args.one:
        print(json.dumps(one(args.corpus, args.one, args.sweeps, args.seed)))
        return
    train, test, dropped = training_vocabulary_split(args.corpus)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    tokens, rounds = int(train.sum()), []
    for _ in range(args.rounds):
        runs = {}
        for name in args.libraries.split(","):
            out = subprocess.run([sys.executable, __file__, "--corpus", args.corpus, "--sweeps", str(args.sweeps),
                                  "--seed", str(args.seed), "--topics", str(K), "--one", name], check=True,
                                 capture_output=True, text=True)
            runs[name] = json.loads(out.stdout.strip().splitlines()[-1])
            runs[name]["load_after"] = os.getloadavg()[0]
            print(name, f"{runs[name]['cpu_s'][-1]:.1f} CPU-s", f"{runs[name]['heldout_per_word'][-1]:.4f}",
                  flush=True)
        rounds.append(runs)
    rates = [{name: tokens_per_cpu_second(run, tokens) for name, run in r.items()} for r in rounds]
    runs = rounds[0]  # the same seed each round: the same chains and scores
    slowest = max(run["cpu_s"][-1] for run in runs.values())
    fastest = min(run["cpu_s"][-1] for run in runs.values())
    budgets = sorted({round(fastest * f, 1) for f in (0.1, 0.25, 0.5, 1.0)} | {round(slowest, 1)})
    payload = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": "python benchmarks/collapsed_gibbs_peers.py " + " ".join(argv or sys.argv[1:]),
               "versions": versions(), "sweeps": args.sweeps, "seed": args.seed, "load": load,
               "describe": {"corpus": args.corpus, "docs": train.shape[0], "W": train.shape[1],
                            "train_tokens": tokens, "test_tokens": int(test.sum()), "dropped_tokens": dropped},
               "reported_sweeps": [s for s in (10, 50, 100, 200, 500) if s <= args.sweeps],
               "rates": {name: float(np.median([r[name] for r in rates])) for name in runs},
               "round_rates": rates, "round_loads": [{n: run["load_after"] for n, run in r.items()} for r in rounds],
               "budgets": budgets, "runs": runs}
    stem = f"collapsed_gibbs_peers_{args.corpus}" + ("" if K == 20 else f"_k{K}")
    (RESULTS / f"{stem}.json").write_text(json.dumps(payload))
    (RESULTS / f"{stem}.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
