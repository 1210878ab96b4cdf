"""Stochastic DILN against stochastic HDP and online LDA, held-out score over time (Paisley, Wang &
Blei 2012, §5.2, Figs. 8-11).

Protocol (the paper's Nature-corpus settings, scaled down to our corpora):

* Data: ``../shared/data/<corpus>`` (default ``20newsgroups``, 18,821 documents), empty documents
  dropped, permuted with ``RandomState(0)``; ``--n-test`` documents held out (the paper: 10,000), the
  vocabulary restricted to the words of the training documents (and to the ``--vocab`` of highest
  document frequency). Not ``gcide_definitions``, the largest corpus by documents: its documents have
  15 tokens, and there every topic model we tried scored below a unigram model held out (unigram
  -8.78 nats/word; online LDA-25 -9.62 after 40 steps; batch LDA-25 on 20,000 documents -8.87).
  Test documents with at least two
  tokens are split at random in half (seed 1); ``--n-eval`` of them are scored.
* Models, each trained by stochastic VI with minibatches of ``--batch-size`` documents (the paper's
  750) drawn without replacement, ``rho_t = (25 + t)^-kappa``, topic prior ``gamma0 = 0.01``, the
  k-means L1 start on the first minibatch: ``diln`` (T = 200, d = 20, c = 1/20; Alg. 2), ``hdp`` (the same
  with ``exp(-l'u) := 1``: the paper's stochastic HDP), ``ldaK`` (online LDA, K topics, ``alpha = 1/K``);
  ``diln_bX``/``hdp_bX`` start ``beta`` at X instead of 1, ``diln_paper``/``hdp_paper`` hold each
  document's ``q(Z)`` fixed in the ``beta`` and ``V`` steps as the paper (``--models``; not in the default set).
* Score every ``--eval-every`` minibatches: held-out per-word log-likelihood by Eq. 40 (Monte Carlo over
  ``q``, :func:`stickbreak.evaluate.model_completion`, ``--samples`` draws) against the training CPU time
  so far (scoring excluded). One fresh (spawned) process per model (one thread), ``--workers`` at a
  time; its peak RSS is the run's own (data, fit, scoring).

Run:  .venv/bin/python benchmarks/diln_stochastic.py [--corpus 20newsgroups] [--kappas 0.6,0.9] [--passes 3]
Writes benchmarks/results/diln_stochastic_<corpus>.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from concurrent.futures import as_completed
from datetime import datetime, timezone
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from _rss import fresh_pool, measured, rss_cell  # noqa: E402
from diln_batch import diln_settings  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"
MODELS = ("diln", "hdp", "lda25", "lda75", "lda125")


def load(corpus: str, n_test: int, n_eval: int, n_vocab: int = 0) -> dict:
    from stickbreak.evaluate import split_documents

    z = np.load(DATA / corpus / "bow.npz")
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"])).astype(np.float64)
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    order = np.random.RandomState(0).permutation(X.shape[0])
    train, test = X[order[:-n_test]], X[order[-n_test:]]
    doc_freq = np.asarray((train > 0).sum(axis=0)).ravel()
    keep = doc_freq > 0
    if n_vocab:  # the n_vocab words of highest document frequency, as in diln_batch.py
        keep &= np.isin(np.arange(len(keep)), np.argsort(-doc_freq, kind="stable")[:n_vocab])
    train, test = sp.csr_matrix(train[:, keep]), sp.csr_matrix(test[:, keep])
    train = train[np.asarray(train.sum(axis=1)).ravel() > 0]
    test = test[np.asarray(test.sum(axis=1)).ravel() > 1][:n_eval]
    observed, heldout = split_documents(test, mode="tokens", heldout_fraction=0.5, seed=1)
    return {"train": train, "observed": sp.csr_matrix(observed), "heldout": sp.csr_matrix(heldout),
            "describe": {"corpus": corpus, "train_docs": train.shape[0], "train_tokens": int(train.sum()),
                         "V": train.shape[1], "eval_docs": test.shape[0], "heldout_tokens": int(heldout.sum())}}


def make_estimator(name: str, kappa: float, n_docs: int, seed: int):
    from stickbreak import DILN, LDA

    common = dict(topic_word_prior=0.01, init="kmeans_l1", random_state=seed)
    schedule = dict(learning_rate_delay=25.0, learning_rate_decay=kappa, total_docs=n_docs)
    if name.startswith(("diln", "hdp")):  # "diln_b20": initial_beta = 20; "_paper": q(Z) fixed (diln_batch)
        settings = diln_settings(name)
        options = {**settings.pop("algorithm_options"), **schedule}
        return DILN(**settings, algorithm="svi", algorithm_options=options, **common)
    k = int(name[3:])
    return LDA(k, doc_topic_prior=1.0 / k, algorithm="svi", algorithm_options=schedule, **common)


def run_one(name: str, kappa: float, args) -> dict:
    from stickbreak.evaluate import model_completion

    warnings.simplefilter("ignore")
    data = load(args.corpus, args.n_test, args.n_eval, args.vocab)
    train = data["train"]
    est = make_estimator(name, kappa, train.shape[0], args.seed)
    rng = np.random.default_rng(args.seed)
    n_batches = train.shape[0] // args.batch_size
    trace, cpu, step = [], 0.0, 0
    for _ in range(args.passes):
        order = rng.permutation(train.shape[0])
        for b in range(n_batches):
            start = time.process_time()
            est.partial_fit(train[np.sort(order[b * args.batch_size:(b + 1) * args.batch_size])])
            cpu += time.process_time() - start
            step += 1
            if step % args.eval_every == 0 or step == args.passes * n_batches:
                score = model_completion(est, observed=data["observed"], heldout=data["heldout"],
                                         n_samples=args.samples, seed=1)
                trace.append({"step": step, "docs_seen": step * args.batch_size, "cpu_s": cpu,
                              "per_word": score.per_word, "n_topics_used": int(est.n_topics_)})
                print(f"{name} kappa={kappa} step {step}: {score.per_word:.4f} ({cpu:.0f} CPU s)", flush=True)
    row = {"model": name, "kappa": kappa, "trace": trace, "describe": data["describe"]}
    if name.startswith(("diln", "hdp")):
        row["alpha"], row["beta"] = est.alpha_, est.beta_
    return row


def markdown(payload: dict) -> str:
    rows = payload["rows"]
    d = next(iter(rows.values()))["describe"]
    lines = [f"# Stochastic DILN vs stochastic HDP vs online LDA on {d['corpus']} (Paisley et al. 2012, Fig. 8)", "",
             f"Generated {payload['generated']} by `{payload['command']}`.", "",
             f"{d['train_docs']:,} training documents ({d['train_tokens']:,} tokens, V = {d['V']:,}); "
             f"{d['eval_docs']:,} held-out documents scored, {d['heldout_tokens']:,} held-out tokens (half of each). "
             f"Minibatches of {payload['batch_size']}, rho_t = (25 + t)^-kappa, gamma0 = 0.01, one thread; "
             f"Eq. 40 with {payload['samples']} draws.", "",
             "Held-out per-word log-likelihood (nats) against training CPU seconds:", ""]
    kappas = sorted({r["kappa"] for r in rows.values()})
    for kappa in kappas:
        lines += [f"kappa = {kappa:g}:", "",
                  "| model | score after each evaluation (CPU s) | final | topics used | beta | peak RSS MiB |",
                  "|---|---|---:|---:|---:|---:|"]
        names = list(MODELS) + sorted({r["model"] for r in rows.values()} - set(MODELS))
        for name in names:
            r = rows.get(f"{name}|{kappa}")
            if r is None:
                continue
            t = r["trace"]
            points = ", ".join(f"{x['per_word']:.3f} ({x['cpu_s']:.0f})" for x in t[:: max(1, len(t) // 8)])
            beta = f"{r['beta']:.2f}" if "beta" in r else ""
            lines.append(f"| {name} | {points} | **{t[-1]['per_word']:.4f}** | {t[-1]['n_topics_used']} | {beta} | "
                         f"{rss_cell(r)} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="20newsgroups")
    ap.add_argument("--vocab", type=int, default=5000, help="keep the words of highest document frequency (0: all)")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--kappas", default="0.6")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=500)
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--n-eval", type=int, default=2000)
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    out_json = RESULTS / f"diln_stochastic_{args.corpus}.json"
    payload = json.loads(out_json.read_text()) if out_json.exists() else {"rows": {}}
    payload.update(batch_size=args.batch_size, samples=args.samples)
    jobs = [(m, float(k)) for k in args.kappas.split(",") for m in args.models.split(",")]
    with fresh_pool(args.workers) as pool:
        futures = {pool.submit(measured, run_one, m, k, args): (m, k) for m, k in jobs}
        for future in as_completed(futures):
            row = future.result()
            payload["rows"][f"{row['model']}|{row['kappa']}"] = row
            payload["generated"] = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            payload["command"] = "python benchmarks/diln_stochastic.py " + " ".join(argv or sys.argv[1:])
            out_json.write_text(json.dumps(payload, indent=1))
    (RESULTS / f"diln_stochastic_{args.corpus}.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
