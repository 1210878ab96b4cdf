"""Batch DILN against the HDP and LDA at matched priors (Paisley, Wang & Blei 2012, §5.2, Table 1, Fig. 3).

Protocol (the paper's, where it is specific):

* Data: a corpus of ``../shared/data`` with empty documents dropped; split ``s`` draws ``n_train`` training
  and ``n_test`` test documents at random (``RandomState(s)``; Table 1: 5,000 / 2,000, or 3,000 / 1,000).
  The vocabulary is the ``--vocab`` words of highest document frequency in the training documents
  (Table 1: 3,000-6,300 words); documents left empty are dropped.
* Models, all with the topic prior ``gamma0`` of the grid (the paper's {0.1, 0.25, 0.5, 0.75, 1}), the same
  initialisation (three iterations of k-means with the L1 distance, clusters ordered by usage, §5.2) and
  the same stop (fractional ELBO change below ``--tol``; the paper's 1e-3 is also recorded on the way):
  ``diln`` (T = 200, d = 20, c = 1/20), ``hdp`` (the same code with ``exp(-l'u) := 1``, §4.3: the paper's
  HDP), ``ldaK`` (batch VB, K topics, ``alpha = 1/K``), ``ctmK`` (tomotopy's Gibbs CTM, :func:`run_ctm`).
  DILN and the HDP update ``V`` and ``beta`` jointly with the documents' ``q(Z)`` (the library's default);
  ``diln_paper``/``hdp_paper`` hold ``q(Z)`` fixed as the paper's Eqs. 26 and 29, ``_bX`` starts ``beta``
  at X (default 1).
* Score (§5.1): each test document's tokens are split at random in half (seed ``s``); the document's
  ``q`` is fitted to the first half with the corpus-level parameters fixed, and the second half is scored
  by Eq. 40, Monte Carlo over ``q(Z)`` (or ``q(pi)``) and ``q(eta)``
  (:func:`stickbreak.evaluate.model_completion`, ``--samples`` draws): per-word held-out log-likelihood,
  pooled over documents (= -log perplexity of Eq. 41). Also: the plug-in score of the project's one
  protocol (``completion_from_split``: topics only, proportions by the EM fixed point).
* One fresh (spawned) process per fit (``--workers`` at a time), one thread each, its peak RSS the
  fit's own (data, fit, scoring); a cell already in the JSON is skipped, so an interrupted run resumes.

Run:  .venv/bin/python benchmarks/diln_batch.py --corpus wiki [--splits 0,1] [--gammas 0.1,0.5] [--models diln,hdp]
Writes benchmarks/results/diln_batch_<corpus>.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from concurrent.futures import as_completed
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from _rss import fresh_pool, measured, rss_cell  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"
SIZES = {"wiki": (5000, 2000), "20newsgroups": (5000, 2000), "ap": (1746, 500)}
MODELS = ("diln", "hdp", "diln_paper", "hdp_paper", "lda20", "lda50", "lda150")
PAPER_TOL = 1e-3


def load_split(corpus: str, split: int, n_vocab: int) -> dict:
    from stickbreak.evaluate import split_documents

    z = np.load(DATA / corpus / "bow.npz")
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"])).astype(np.float64)
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    n_train, n_test = SIZES[corpus]
    order = np.random.RandomState(split).permutation(X.shape[0])
    train, test = X[order[:n_train]], X[order[n_train:n_train + n_test]]
    doc_freq = np.asarray((train > 0).sum(axis=0)).ravel()
    keep = np.sort(np.argsort(-doc_freq, kind="stable")[:n_vocab])
    keep = keep[doc_freq[keep] > 0]
    train, test = sp.csr_matrix(train[:, keep]), sp.csr_matrix(test[:, keep])
    train = train[np.asarray(train.sum(axis=1)).ravel() > 0]
    test = test[np.asarray(test.sum(axis=1)).ravel() > 1]
    observed, heldout = split_documents(test, mode="tokens", heldout_fraction=0.5, seed=split)
    vocab_file = DATA / corpus / "vocab.txt.gz"
    vocab = None
    if vocab_file.exists():
        import gzip

        words = gzip.open(vocab_file, "rt", encoding="utf-8").read().split("\n")[:-1]
        vocab = [words[i] for i in keep]
    return {"train": train, "observed": sp.csr_matrix(observed), "heldout": sp.csr_matrix(heldout), "vocab": vocab,
            "describe": {"train_docs": train.shape[0], "train_tokens": int(train.sum()), "V": train.shape[1],
                         "test_docs": test.shape[0], "heldout_tokens": int(heldout.sum())}}


def diln_settings(name: str) -> dict:
    """DILN's settings from a model name ``diln|hdp[_paper][_bX]``: ``_paper`` holds each document's
    ``q(Z)`` fixed in the ``V`` and ``beta`` updates (the paper's Eqs. 26, 29) instead of the joint update,
    ``_bX`` starts ``beta`` at X instead of 1."""
    base, _, beta = name.partition("_b")
    base, _, update = base.partition("_")
    return dict(n_topics=200, latent_dim=20, location_variance=1 / 20, correlated=base == "diln",
                initial_beta=float(beta or 1.0), algorithm_options={"concentration_update": update or "joint"})


def make_estimator(name: str, gamma0: float, tol: float, max_laps: int, seed: int):
    from stickbreak import DILN, LDA

    common = dict(topic_word_prior=gamma0, init="kmeans_l1", tol=tol, max_laps=max_laps, random_state=seed)
    if name.startswith(("diln", "hdp")):
        return DILN(**diln_settings(name), **common)
    k = int(name[3:])
    return LDA(k, doc_topic_prior=1.0 / k, algorithm="vb", **common)


@contextmanager
def fitted_as(est, params):
    """The estimator scoring with other global parameters (a snapshot taken during the fit)."""
    saved = est.params_, est.components_
    est.params_, est.components_ = params, params.obs["lam"]
    try:
        yield est
    finally:
        est.params_, est.components_ = saved


def scores(est, data: dict, samples: int, seed: int) -> dict:
    from stickbreak.evaluate import completion_from_split, model_completion

    mc = model_completion(est, observed=data["observed"], heldout=data["heldout"], n_samples=samples, seed=seed)
    plug = completion_from_split(est.components_, data["observed"], data["heldout"])
    return {"per_word_mc": mc.per_word, "per_word_mc_doc_mean": mc.per_word_doc_mean, "per_word_plugin": plug.per_word}


def run_ctm(corpus: str, split: int, gamma0: float, name: str, args) -> dict:
    """The correlated topic model baseline: tomotopy's ``CTModel`` (Gibbs sampling with Polya-Gamma
    augmentation; the paper used Blei and Lafferty's variational CTM), ``K`` topics, topic prior
    ``gamma0``, ``--ctm-iterations`` sweeps (ll per word recorded every 50). Scored by plug-in completion:
    each test document's proportions by ``infer`` on its observed half (100 sweeps, the CTM's own
    logistic-normal prior) and, as for every model, by the project's EM fixed point on the topics."""
    import tomotopy as tp

    from stickbreak.evaluate import completion_from_split
    from stickbreak.evaluate.topics import _loglik
    from topic_peers import _tp_add_docs, _tp_topic_word

    data = load_split(corpus, split, args.vocab)
    V, k = data["train"].shape[1], int(name[3:])
    model = tp.CTModel(k=k, eta=gamma0, seed=split)
    _tp_add_docs(model, data["train"])
    start, trace = time.process_time(), []
    for done in range(0, args.ctm_iterations, 50):
        model.train(min(50, args.ctm_iterations - done), workers=1)
        trace.append(model.ll_per_word)
    cpu = time.process_time() - start
    topic_word = _tp_topic_word(model, range(k), V)
    observed, heldout = data["observed"], data["heldout"]
    names = np.array([f"w{i}" for i in range(V)], dtype=object)
    docs = [model.make_doc(names[np.repeat(observed.indices[a:b], observed.data[a:b].astype(np.int64))].tolist())
            for a, b in zip(observed.indptr[:-1], observed.indptr[1:])]
    theta, _ = model.infer(docs, iterations=100, workers=1)
    total, n_tokens = _loglik(topic_word, np.asarray(theta), heldout)
    return {"corpus": corpus, "split": split, "gamma0": gamma0, "model": name, "laps": args.ctm_iterations,
            "cpu_s": cpu, "cpu_per_lap": cpu / args.ctm_iterations, "n_topics_used": k, "ll_per_word_trace": trace,
            "per_word_own": total / n_tokens,
            "per_word_plugin": completion_from_split(topic_word, observed, heldout).per_word,
            "describe": data["describe"]}


def run_cell(corpus: str, split: int, gamma0: float, name: str, args) -> dict:
    warnings.simplefilter("ignore")
    if name.startswith("ctm"):
        return run_ctm(corpus, split, gamma0, name, args)
    data = load_split(corpus, split, args.vocab)
    est = make_estimator(name, gamma0, args.tol, args.max_laps, split)
    paper = {}

    def on_lap(record, params):
        trace = on_lap.elbo
        trace.append(record.elbo)
        if not paper and len(trace) >= 2 and abs(trace[-1] - trace[-2]) <= PAPER_TOL * abs(trace[-1]):
            paper.update(lap=record.lap, seconds=record.seconds, params=params)
    on_lap.elbo = []
    est.set_params(callbacks=[on_lap])
    start = time.process_time()
    est.fit(data["train"])
    cpu = time.process_time() - start
    row = {"corpus": corpus, "split": split, "gamma0": gamma0, "model": name, "laps": est.n_iter_,
           "cpu_s": cpu, "cpu_per_lap": cpu / est.n_iter_, "n_topics_used": est.n_topics_, "elbo": est.lower_bound_,
           "stop": est.stop_reason_, **scores(est, data, args.samples, split), "describe": data["describe"]}
    if paper:
        with fitted_as(est, paper["params"]):
            row["paper_stop"] = {"lap": paper["lap"], **scores(est, data, args.samples, split)}
    if name.startswith(("diln", "hdp")):
        row["alpha"], row["beta"] = est.alpha_, est.beta_
    if name.startswith("diln"):
        row["pairs"] = correlated_pairs(est, data["vocab"])
    return row


def correlated_pairs(est, vocab, n: int = 10) -> dict:
    def words(k):
        ids = np.argsort(-est.topic_word_[k])[:8]
        return [vocab[i] if vocab else int(i) for i in ids]

    out = {}
    for label, negative in (("positive", False), ("negative", True)):
        pairs = est.top_correlated_pairs(n, negative=negative)
        out[label] = [{"topics": p["topics"], "correlation": p["correlation"],
                       "words": [words(k) for k in p["topics"]]} for p in pairs]
    return out


def key(row) -> str:
    return f"{row['split']}|{row['gamma0']}|{row['model']}"


def markdown(payload: dict) -> str:
    rows = payload["rows"]
    corpus = payload["corpus"]
    d = next(iter(rows.values()))["describe"]
    present = {r["model"] for r in rows.values()}
    models = [m for m in MODELS if m in present] + sorted(present - set(MODELS))
    gammas = sorted({r["gamma0"] for r in rows.values()})
    splits = sorted({r["split"] for r in rows.values()})
    lines = [f"# DILN vs HDP vs LDA, batch VI, on {corpus} (Paisley et al. 2012, Table 1 / Fig. 3 protocol)", "",
             f"Generated {payload['generated']} by `{payload['command']}`. {payload.get('notes', '')}", "",
             f"Split 0: {d['train_docs']:,} training documents ({d['train_tokens']:,} tokens, V = {d['V']:,}), "
             f"{d['test_docs']:,} test documents, {d['heldout_tokens']:,} held-out tokens (half of each). "
             f"Splits {splits}. Stop at fractional ELBO change {payload['tol']:g} (max {payload['max_laps']} laps); "
             f"Monte Carlo with {payload['samples']} draws.", "",
             "Held-out per-word log-likelihood by Eq. 40 (nats; higher is better), mean over splits "
             "(the plug-in score of the project protocol in brackets):", "",
             "| gamma0 | " + " | ".join(models) + " |", "|---|" + "---:|" * len(models)]
    for g in gammas:
        cells = []
        for m in models:
            got = [r for r in rows.values() if r["gamma0"] == g and r["model"] == m]
            if not got:
                cells.append("")
                continue
            plug = np.mean([r["per_word_plugin"] for r in got])
            if "per_word_mc" in got[0]:
                cell = f"{np.mean([r['per_word_mc'] for r in got]):.4f} ({plug:.4f})"
            else:  # the CTM: its own plug-in
                cell = f"{np.mean([r['per_word_own'] for r in got]):.4f}* ({plug:.4f})"
            cells.append(cell + ("" if len(got) == len(splits) else f" [{len(got)} splits]"))
        lines.append(f"| {g:g} | " + " | ".join(cells) + " |")
    if any(m.startswith("ctm") for m in models):
        lines += ["", "\\* the CTM (tomotopy's Gibbs `CTModel`, not the paper's variational CTM): plug-in completion "
                  "with each test document's proportions inferred by tomotopy on its observed half (its own "
                  "logistic-normal prior), not Eq. 40; ll per word of the training sweeps every 50: " + "; ".join(
                      f"{r['model']} gamma0={r['gamma0']:g}: " + ", ".join(f"{x:.3f}" for x in r["ll_per_word_trace"])
                      for r in rows.values() if r["model"].startswith("ctm") and r["split"] == splits[0])]
    lines += ["", "At the paper's stop (fractional change 1e-3), Eq. 40 score / lap:", "",
              "| gamma0 | " + " | ".join(models) + " |", "|---|" + "---:|" * len(models)]
    for g in gammas:
        cells = []
        for m in models:
            got = [r["paper_stop"] for r in rows.values() if r["gamma0"] == g and r["model"] == m and "paper_stop" in r]
            cells.append(f"{np.mean([p['per_word_mc'] for p in got]):.4f} / {np.mean([p['lap'] for p in got]):.0f}"
                         if got else "")
        lines.append(f"| {g:g} | " + " | ".join(cells) + " |")
    lines += ["", "Fits (split 0): laps, CPU s per lap, topics used, alpha, beta, peak RSS of the fit's process:", "",
              "| gamma0 | model | laps | CPU s/lap | topics used | alpha | beta | peak RSS MiB |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in sorted((r for r in rows.values() if r["split"] == splits[0]),
                    key=lambda r: (r["gamma0"], models.index(r["model"]))):
        lines.append(f"| {r['gamma0']:g} | {r['model']} | {r['laps']} | {r['cpu_per_lap']:.1f} | "
                     f"{r['n_topics_used']} | "
                     f"{r.get('alpha', float('nan')):.2f} | {r.get('beta', float('nan')):.2f} | {rss_cell(r)} |")
    diln = [r for r in rows.values() if r["model"] == "diln" and r["split"] == splits[0]]
    if diln:
        best = max(diln, key=lambda r: r["per_word_mc"])
        lines += ["", f"Most correlated topic pairs of DILN (split {splits[0]}, gamma0 = "
                      f"{best['gamma0']:g}; cosine of the "
                  "topic locations, top words):", ""]
        for label in ("positive", "negative"):
            for p in best["pairs"][label][:6]:
                a, b = (" ".join(w[:6]) for w in p["words"])
                lines.append(f"- {p['correlation']:+.2f}: [{a}] ~ [{b}]")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True, choices=sorted(SIZES))
    ap.add_argument("--splits", default="0")
    ap.add_argument("--gammas", default="0.1,0.25,0.5,0.75,1.0")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--vocab", type=int, default=5000, help="vocabulary size (most frequent by document frequency)")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--max-laps", type=int, default=100)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--ctm-iterations", type=int, default=500, help="Gibbs sweeps of the CTM baseline (ctmK models)")
    args = ap.parse_args(argv)
    out_json = RESULTS / f"diln_batch_{args.corpus}.json"
    payload = json.loads(out_json.read_text()) if out_json.exists() else {"rows": {}}
    payload.update(corpus=args.corpus, tol=args.tol, max_laps=args.max_laps, samples=args.samples)
    cells = [(int(s), float(g), m) for s in args.splits.split(",") for g in args.gammas.split(",")
             for m in args.models.split(",")]
    cells = [c for c in cells if f"{c[0]}|{c[1]}|{c[2]}" not in payload["rows"]]
    with fresh_pool(args.workers) as pool:
        futures = {pool.submit(measured, run_cell, args.corpus, s, g, m, args): (s, g, m) for s, g, m in cells}
        for future in as_completed(futures):
            row = future.result()
            row.pop("params", None)
            payload["rows"][key(row)] = row
            payload["generated"] = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            payload["command"] = "python benchmarks/diln_batch.py " + " ".join(argv or sys.argv[1:])
            out_json.write_text(json.dumps(payload, indent=1))
            print(f"{futures[future]}: mc {row.get('per_word_mc', row.get('per_word_own')):.4f} "
                  f"plug-in {row['per_word_plugin']:.4f} "
                  f"laps {row['laps']} cpu {row['cpu_s']:.0f}s peak RSS {rss_cell(row)} MiB", flush=True)
    (RESULTS / f"diln_batch_{args.corpus}.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
