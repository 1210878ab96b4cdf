"""Collapsed inference for LDA: the reproduction of Welling, Teh & Kappen (2008), §7.

Every algorithm (collapsed Gibbs, SVB, CVB, CVB0, SVB/CGS, CVB/CGS with r = 1) runs on the same
split (10 % of each corpus's tokens held out at random, seed 0; the held-out tokens belong to the
training documents), alpha = beta = 0.1, for ``--sweeps`` sweeps and several seeds, one thread, each
run (algorithm, seed) in a fresh process after an untimed two-sweep warm-up fit of the same
algorithm on 50 documents (numba). After every sweep the held-out tokens are scored by Eq. 30
(variational) or Eq. 31 (samplers, averaged after 10 burn-in sweeps). Reported: perplexity at a few
sweeps (mean and spread over seeds), the CPU seconds per sweep and the peak RSS of the run's process
(largest over seeds); the json has every curve.

The paper's extra studies (§7, Figs. 7-10): ``--vocabulary N`` keeps the N most frequent words of
the corpus (documents left empty are dropped); ``--singletons train`` drops the words counted once
in their document (in the whole corpus) from the training data, ``--singletons both`` from the
corpus before the split, so from the held-out data too; ``--singletons train-counts`` drops every
training pair counted once after the split (what the hybrids with r = 1 sample), so the hybrids
differ from their variational parents only by the sampled evaluation's averaging.

Run:  .venv/bin/python benchmarks/collapsed_lda.py --corpus kos -K 10 [--sweeps 300] [--seeds 0,1,2]
      [--vocabulary 3000] [--singletons train|both|train-counts]
Writes benchmarks/results/collapsed_lda_<corpus>[_v<N>][_singletons_<where>].{md,json,png} (the figure:
mean perplexity against sweeps and against CPU seconds). ``--replot`` redraws the table and figure from the json.
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


def load_split(corpus: str, vocabulary: int = 0, singletons: str = "keep"):
    """The training and held-out counts (10 % of the tokens, seed 0), with the study's changes:
    the ``vocabulary`` most frequent words only (0: all), singleton pairs dropped from the
    training data (``singletons="train"``) or from both (``"both"``)."""
    from stickbreak.evaluate import split_documents

    z = np.load(ROOT.parent / "shared" / "data" / corpus / "bow.npz")
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"])).astype(np.float64)
    if vocabulary:
        frequent = np.sort(np.argsort(-np.asarray(X.sum(axis=0)).ravel(), kind="stable")[:vocabulary])
        X = sp.csr_matrix(X[:, frequent])
    if singletons == "both":  # a word counted once in its document is in neither part
        X.data[X.data == 1] = 0
        X.eliminate_zeros()
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    train, test = split_documents(X, mode="tokens", heldout_fraction=0.1, seed=0)
    train, test = sp.csr_matrix(train), sp.csr_matrix(test)
    if singletons == "train":  # dropped from training only: the held-out part keeps its share of them
        single = sp.csr_matrix((X == 1).astype(np.float64))
        train = sp.csr_matrix(train - train.multiply(single))
        train.eliminate_zeros()
    if singletons == "train-counts":  # no training pair counted once: the hybrids (r = 1) sample nothing
        train.data[train.data == 1] = 0
        train.eliminate_zeros()
    keep = np.asarray(train.sum(axis=1)).ravel() > 0
    return train[keep], test[keep]


def results_name(corpus: str, vocabulary: int, singletons: str) -> str:
    return (f"collapsed_lda_{corpus}" + (f"_v{vocabulary}" if vocabulary else "")
            + ("" if singletons == "keep" else f"_singletons_{singletons}"))


def run(train, test, algorithm: str, n_topics: int, sweeps: int, seed: int) -> dict:
    from stickbreak import LDA

    cpu = []
    start = time.process_time()
    est = LDA(n_topics, doc_topic_prior=0.1, topic_word_prior=0.1, algorithm=algorithm, max_laps=sweeps, tol=0.0,
              random_state=seed, callbacks=[lambda record, params: cpu.append(time.process_time() - start)])
    est.fit(train, heldout=test)
    return {"perplexity": np.exp(-est.heldout_per_word_).tolist(), "cpu_s": cpu}


def run_row(corpus: str, algorithm: str, n_topics: int, sweeps: int, seed: int, vocabulary: int = 0,
            singletons: str = "keep") -> dict:
    """One run in a process of its own (:func:`_rss.in_fresh_process`): the split, an untimed warm-up fit of
    the same algorithm on 50 documents (numba's kernels), then :func:`run`."""
    train, test = load_split(corpus, vocabulary, singletons)
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
    study = d.get("study", "")
    lines = [f"# Collapsed LDA on {d['corpus']}{study} (Welling, Teh & Kappen 2008, §7)", "",
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
    by_sweep.set(xlabel="sweep", ylabel="held-out perplexity",
                 title=f"{payload['describe']['corpus']}, K={payload['K']}")
    by_cpu.set(xlabel="CPU seconds (one thread)", xscale="log", title="against CPU time")
    by_cpu.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(payload: dict, name: str) -> None:
    (RESULTS / f"{name}.md").write_text(markdown(payload) + "\n![perplexity against sweeps and CPU "
                                                            f"time]({name}.png)\n")
    plot(payload, RESULTS / f"{name}.png")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="kos")
    ap.add_argument("-K", type=int, default=10)
    ap.add_argument("--sweeps", type=int, default=300)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--only", default="")
    ap.add_argument("--vocabulary", type=int, default=0, help="keep the N most frequent words (0: all)")
    ap.add_argument("--singletons", choices=("keep", "train", "both", "train-counts"), default="keep",
                    help="drop the pairs counted once from the training data, or from both")
    ap.add_argument("--replot", action="store_true", help="redraw the table and figure from the json only")
    args = ap.parse_args(argv)
    name = results_name(args.corpus, args.vocabulary, args.singletons)
    if args.replot:
        write(json.loads((RESULTS / f"{name}.json").read_text()), name)
        return
    train, test = load_split(args.corpus, args.vocabulary, args.singletons)
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = {}
    for algorithm in [n for n in args.only.split(",") if n] or ALGORITHMS:
        rows[algorithm] = [in_fresh_process(run_row, args.corpus, algorithm, args.K, args.sweeps, seed, args.vocabulary,
                                            args.singletons) for seed in seeds]
        print(algorithm, [round(r["perplexity"][-1], 1) for r in rows[algorithm]], flush=True)
    payload = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": "python benchmarks/collapsed_lda.py " + " ".join(argv or sys.argv[1:]),
               "describe": {"corpus": args.corpus, "docs": train.shape[0], "V": train.shape[1],
                            "train_tokens": int(train.sum()), "test_tokens": int(test.sum()),
                            "study": (f", the {args.vocabulary} most frequent words" if args.vocabulary else "")
                            + {"keep": "", "train": ", singletons dropped from the training data",
                               "both": ", singletons dropped from training and held-out data",
                               "train-counts": ", training pairs counted once dropped"}[args.singletons]},
               "K": args.K, "sweeps": args.sweeps, "seeds": seeds, "rows": rows}
    (RESULTS / f"{name}.json").write_text(json.dumps(payload))
    write(payload, name)
    print(markdown(payload))


if __name__ == "__main__":
    main()
