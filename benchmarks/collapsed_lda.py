"""Collapsed inference for LDA: the reproduction of Welling, Teh & Kappen (2008), §7.

Every algorithm (collapsed Gibbs, SVB, CVB, CVB0, SVB/CGS, CVB/CGS with r = 1) runs on the same
split (10 % of each corpus's tokens held out at random, seed 0; the held-out tokens belong to the
training documents), alpha = beta = 0.1, for ``--sweeps`` sweeps and several seeds, one thread,
each run (algorithm, seed) in a fresh process after an untimed two-sweep warm-up fit of the same
algorithm on 50 documents (numba). After every sweep the held-out tokens are scored by Eq. 30 (variational) or Eq. 31 (samplers,
averaged after 10 burn-in sweeps). Reported: perplexity at a few sweeps (mean and spread over
seeds), the CPU seconds per sweep and the peak RSS of the run's process (largest over seeds); the
json has every curve.

Run:  .venv/bin/python benchmarks/collapsed_lda.py --corpus kos -K 10 [--sweeps 300] [--seeds 0,1,2]
Writes benchmarks/results/collapsed_lda_<corpus>.{md,json,png} (the figure: mean perplexity against
sweeps and against CPU seconds). ``--replot`` redraws the table and figure from the json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from _rss import in_fresh_process, rss_cell  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
ALGORITHMS = ("gibbs", "svb", "cvb", "cvb0", "hybrid_vb_gibbs", "hybrid_cvb_gibbs")
REPORTED_SWEEPS = (10, 50, 100, 200, 300, 500)


def load_split(corpus: str):
    from stickbreak.evaluate import split_documents

    z = np.load(ROOT.parent / "shared" / "data" / corpus / "bow.npz")
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"])).astype(np.float64)
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    train, test = split_documents(X, mode="tokens", heldout_fraction=0.1, seed=0)
    train, test = sp.csr_matrix(train), sp.csr_matrix(test)
    keep = np.asarray(train.sum(axis=1)).ravel() > 0
    return train[keep], test[keep]


def run(train, test, algorithm: str, n_topics: int, sweeps: int, seed: int) -> dict:
    from stickbreak import LDA

    cpu = []
    start = time.process_time()
    est = LDA(n_topics, doc_topic_prior=0.1, topic_word_prior=0.1, algorithm=algorithm, max_laps=sweeps, tol=0.0,
              random_state=seed, callbacks=[lambda record, params: cpu.append(time.process_time() - start)])
    est.fit(train, heldout=test)
    return {"perplexity": np.exp(-est.heldout_per_word_).tolist(), "cpu_s": cpu}


def run_row(corpus: str, algorithm: str, n_topics: int, sweeps: int, seed: int) -> dict:
    """One run in a process of its own (:func:`_rss.in_fresh_process`): the split, an untimed warm-up fit of
    the same algorithm on 50 documents (numba's kernels), then :func:`run`."""
    train, test = load_split(corpus)
    run(train[:50], test[:50], algorithm, n_topics, 2, seed)
    return run(train, test, algorithm, n_topics, sweeps, seed)


def reported_sweeps(sweeps: int) -> list[int]:
    return sorted({s for s in REPORTED_SWEEPS if s <= sweeps} | {sweeps})


def summary_cells(runs: list, marks) -> tuple[list[str], float]:
    """Perplexity ``mean ± sd`` over seeds at each sweep of ``marks``, and the mean CPU s per sweep."""
    curves = np.array([r["perplexity"] for r in runs])
    per_sweep = float(np.mean([r["cpu_s"][-1] / len(r["cpu_s"]) for r in runs]))
    return [f"{curves[:, s - 1].mean():.1f} ± {curves[:, s - 1].std():.1f}" for s in marks], per_sweep


def markdown(payload: dict) -> str:
    d = payload["describe"]
    marks = reported_sweeps(payload["sweeps"])
    lines = [f"# Collapsed LDA on {d['corpus']} (Welling, Teh & Kappen 2008, §7)", "",
             f"Generated {payload['generated']} by `{payload['command']}`.", "",
             f"{d['docs']:,} documents, V={d['V']:,}, {d['train_tokens']:,} training and {d['test_tokens']:,} held-out "
             f"tokens; K={payload['K']}, alpha = beta = 0.1, seeds {payload['seeds']}; one thread. Perplexity "
             "(mean ± standard deviation over seeds) after each number of sweeps; lower is better. Peak RSS: "
             "the run's own process, largest over seeds.", "",
             "| algorithm | " + " | ".join(f"sweep {s}" for s in marks) + " | CPU s / sweep | peak RSS MiB |",
             "|---|" + "---:|" * (len(marks) + 2)]
    for name, runs in payload["rows"].items():
        cells, per_sweep = summary_cells(runs, marks)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {per_sweep:.3f} | {rss_cell(runs)} |")
    return "\n".join(lines) + "\n"


def plot(payload: dict, path: Path) -> None:
    """Mean perplexity over seeds against sweeps (left) and against mean cumulative CPU seconds (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (by_sweep, by_cpu) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for name, runs in payload["rows"].items():
        curve = np.mean([r["perplexity"] for r in runs], axis=0)
        cpu = np.mean([r["cpu_s"] for r in runs], axis=0)
        by_sweep.plot(np.arange(1, len(curve) + 1), curve, label=name)
        by_cpu.plot(cpu, curve, label=name)
    final = [np.mean([r["perplexity"][-1] for r in runs]) for runs in payload["rows"].values()]
    by_sweep.set_ylim(min(final) * 0.97, max(final) * 1.25)
    by_sweep.set(xlabel="sweep", ylabel="held-out perplexity", title=f"{payload['describe']['corpus']}, K={payload['K']}")
    by_cpu.set(xlabel="CPU seconds (one thread)", xscale="log", title="against CPU time")
    by_cpu.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(payload: dict, corpus: str) -> None:
    (RESULTS / f"collapsed_lda_{corpus}.md").write_text(
        markdown(payload) + f"\n![perplexity against sweeps and CPU time](collapsed_lda_{corpus}.png)\n")
    plot(payload, RESULTS / f"collapsed_lda_{corpus}.png")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="kos")
    ap.add_argument("-K", type=int, default=10)
    ap.add_argument("--sweeps", type=int, default=300)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--only", default="")
    ap.add_argument("--replot", action="store_true", help="redraw the table and figure from the json only")
    args = ap.parse_args(argv)
    if args.replot:
        write(json.loads((RESULTS / f"collapsed_lda_{args.corpus}.json").read_text()), args.corpus)
        return
    train, test = load_split(args.corpus)
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = {}
    for name in [n for n in args.only.split(",") if n] or ALGORITHMS:
        rows[name] = [in_fresh_process(run_row, args.corpus, name, args.K, args.sweeps, seed) for seed in seeds]
        print(name, [round(r["perplexity"][-1], 1) for r in rows[name]], flush=True)
    payload = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": "python benchmarks/collapsed_lda.py " + " ".join(argv or sys.argv[1:]),
               "describe": {"corpus": args.corpus, "docs": train.shape[0], "V": train.shape[1],
                            "train_tokens": int(train.sum()), "test_tokens": int(test.sum())},
               "K": args.K, "sweeps": args.sweeps, "seeds": seeds, "rows": rows}
    (RESULTS / f"collapsed_lda_{args.corpus}.json").write_text(json.dumps(payload))
    write(payload, args.corpus)
    print(markdown(payload))


if __name__ == "__main__":
    main()
