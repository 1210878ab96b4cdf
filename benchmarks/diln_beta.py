"""Where DILN's and the HDP's document concentration ``beta`` ends, from two starts, under the paper's
update (each document's ``q(Z)`` held fixed in the ``V`` and ``beta`` steps, Eqs. 26, 29) and the
library's joint update (``V`` and ``beta`` maximised together with every ``q(Z)``).

Protocol: :mod:`diln_batch`'s split 0 of ``--corpus`` (5,000 training and 2,000 test documents, the
``--vocab`` most frequent words), T = 200, d = 20, c = 1/20, topic prior ``--gamma0``, the k-means L1
start, batch VI to a fractional ELBO change of 1e-4 (at most 100 laps). Per fit: laps, CPU seconds,
final ELBO, ``beta`` (and its trace every 5 laps), ``alpha``, topics used, held-out per-word
log-likelihood by Eq. 40 (100 draws) and the project's plug-in score. One fit per process line; a row
already in the JSON is skipped, so an interrupted run resumes.

Run:  .venv/bin/python benchmarks/diln_beta.py [--corpus 20newsgroups] [--models hdp,diln] [--starts 1,20]
Writes benchmarks/results/diln_beta_<corpus>.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from datetime import datetime, timezone

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from diln_batch import RESULTS, diln_settings, load_split, scores  # noqa: E402

UPDATES = ("paper", "joint")


def fit_row(corpus: str, vocab: int, gamma0: float, model: str, update: str, start: float, dim: int = 20) -> dict:
    from stickbreak import DILN

    warnings.simplefilter("ignore")
    data = load_split(corpus, 0, vocab)
    betas = []
    settings = {**diln_settings(f"{model}_{update}"), "initial_beta": start}
    if dim != 20:
        settings.update(latent_dim=dim, location_variance=1 / max(dim, 2))
    est = DILN(**settings, topic_word_prior=gamma0, init="kmeans_l1", tol=1e-4,
               max_laps=100, random_state=0, callbacks=[lambda record, params: betas.append(float(params.beta))])
    began = time.process_time()
    est.fit(data["train"])
    cpu = time.process_time() - began
    s = scores(est, data, 100, 0)
    return dict(model=model, update=update, beta0=start, d=dim, laps=est.n_iter_, cpu=round(cpu), elbo=est.lower_bound_,
                beta=est.beta_, alpha=est.alpha_, used=est.n_topics_, mc=s["per_word_mc"], plug=s["per_word_plugin"],
                beta_trace=[round(b, 3) for b in betas[::5]])


def markdown(payload: dict) -> str:
    lines = [f"# DILN's beta from two starts, paper vs joint update, on {payload['corpus']}", "",
             f"Generated {payload['generated']} by `{payload['command']}`. {payload.get('notes', '')}", "",
             "| model | d | update | beta start | laps | CPU s | ELBO | final beta | beta every 5 laps | "
             "alpha | topics used "
             "| held out, Eq. 40 | plug-in |", "|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    for r in sorted(payload["rows"].values(), key=lambda r: (r["model"], -r.get("d", 20), r["update"], r["beta0"])):
        lines.append(f"| {r['model']} | {r.get('d', 20) if r['model'] == 'diln' else ''} | {r['update']} "
                     f"| {r['beta0']:g} | {r['laps']} | {r['cpu']} | {r['elbo']:,.0f} | "
                     f"{r['beta']:.2f} | {', '.join(map(str, r['beta_trace']))} | {r['alpha']:.1f} | {r['used']} | "
                     f"{r['mc']:.4f} | {r['plug']:.4f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="20newsgroups")
    ap.add_argument("--vocab", type=int, default=5000)
    ap.add_argument("--gamma0", type=float, default=0.1)
    ap.add_argument("--models", default="hdp,diln")
    ap.add_argument("--starts", default="1,20")
    ap.add_argument("--latent-dims", default="20", help="DILN's d (c = 1/max(d, 2)); the paper's 20")
    args = ap.parse_args(argv)
    path = RESULTS / f"diln_beta_{args.corpus}.json"
    payload = json.loads(path.read_text()) if path.exists() else {"rows": {}}
    payload.update(corpus=args.corpus, command="python benchmarks/diln_beta.py " + " ".join(argv or sys.argv[1:]))
    cells = [(model, update, float(start), int(dim)) for model in args.models.split(",") for update in UPDATES
             for start in args.starts.split(",") for dim in (args.latent_dims.split(",") if model == "diln" else [20])]
    for model, update, start, dim in cells:
        key = f"{model}|{update}|{start:g}" + ("" if dim == 20 else f"|d{dim}")
        if key in payload["rows"]:
            continue
        row = fit_row(args.corpus, args.vocab, args.gamma0, model, update, start, dim)
        print(json.dumps(row), flush=True)
        payload["rows"][key] = row
        payload["generated"] = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        path.write_text(json.dumps(payload, indent=1))
    (RESULTS / f"diln_beta_{args.corpus}.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
