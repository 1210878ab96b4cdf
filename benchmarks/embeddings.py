"""Embeddings (issue 49): ``DPMixture`` as the clustering step of an embedding pipeline (BERTopic's
``hdbscan_model``), against BERTopic's default HDBSCAN, on the same reduced embeddings.

Documents: the 11,292 non-empty 20newsgroups training posts (20 newsgroups). Embeddings that need
no download: tf-idf (``sublinear_tf``, English stop words, ``min_df=2``), ``TruncatedSVD`` to 100
dimensions, rows normalised to unit length. Reduction: BERTopic's default UMAP (15 neighbours, 5
dimensions, ``min_dist=0``, cosine), one run per seed, shared by the clusterers of that seed.
Clusterers, each on the same reduced embeddings: BERTopic's default ``hdbscan.HDBSCAN``
(``min_cluster_size=10``, euclidean, ``eom``) and ``DPMixture`` with full and diagonal Gaussians
(every default, ``random_state=seed``). (Without UMAP, ``DPMixture(obs_model="diag_gauss")`` on the
100 dimensions took 162 s for an AMI of 0.479 on seed 0, so it is not a row.) Metrics: K (outliers
not counted), the share of documents left unassigned (HDBSCAN's -1), adjusted mutual information
with the newsgroups (outliers as one more label, as BERTopic reports them) and the clusterer's own
fit seconds; over 5 seeds, K's coefficient of variation. Last, one BERTopic run of each on seed 0
(``fit_transform(docs, embeddings=...)``), to show the contract holds inside BERTopic.

The peers pin other versions than ours; they run with ours when installed without their pins:
``.venv/bin/pip install --no-deps bertopic==0.17.4 umap-learn==0.5.12 pynndescent hdbscan``.

Run:  .venv/bin/python benchmarks/embeddings.py [--seeds 5] [--docs N]
Writes benchmarks/results/embeddings.{json,md}.
"""

from __future__ import annotations

import argparse
import gzip
import os
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import adjusted_mutual_info_score
from sklearn.preprocessing import normalize

from _results import write_results
from stickbreak import DPMixture

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20newsgroups" / "docs.tsv.gz"


def posts(n_docs: int | None) -> tuple[list[str], np.ndarray]:
    with gzip.open(DATA, "rt", encoding="utf-8") as lines:
        rows = [line.rstrip("\n").split("\t") for line in lines]
    rows = [row for row in rows if row[0] == "train" and row[2].strip()]
    if n_docs is not None:
        rows = [rows[i] for i in np.sort(np.random.default_rng(0).choice(len(rows), n_docs, replace=False))]
    return [row[2] for row in rows], np.array([row[1] for row in rows])


def embed(docs: list[str]) -> np.ndarray:
    tfidf = TfidfVectorizer(stop_words="english", min_df=2, sublinear_tf=True).fit_transform(docs)
    return normalize(TruncatedSVD(100, random_state=0).fit_transform(tfidf))


def bertopic_umap(seed: int):
    from umap import UMAP  # an optional peer
    return UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine", random_state=seed)


def bertopic_hdbscan():
    from hdbscan import HDBSCAN  # an optional peer
    return HDBSCAN(min_cluster_size=10, metric="euclidean", cluster_selection_method="eom", prediction_data=True)


CLUSTERERS = {
    "HDBSCAN (BERTopic's default), UMAP 5-d": ("umap", lambda seed: bertopic_hdbscan()),
    "DPMixture gauss, UMAP 5-d": ("umap", lambda seed: DPMixture(obs_model="gauss", random_state=seed)),
    "DPMixture diag_gauss, UMAP 5-d": ("umap", lambda seed: DPMixture(obs_model="diag_gauss", random_state=seed)),
}


def row(name: str, seed: int, labels: np.ndarray, groups: np.ndarray, seconds: float) -> dict:
    return {"method": name, "seed": seed, "K": int(len(set(labels.tolist()) - {-1})),
            "unassigned": float(np.mean(labels == -1)), "ami": float(adjusted_mutual_info_score(groups, labels)),
            "seconds": seconds}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--docs", type=int, default=None)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    docs, groups = posts(args.docs)
    embeddings = embed(docs)
    out = {"documents": len(docs), "load_before": os.getloadavg()[0], "rows": [], "bertopic": []}
    bertopic_umap(0).fit_transform(embeddings[:300])  # numba compilation (UMAP's, pynndescent's), untimed
    for seed in range(args.seeds):
        start = time.perf_counter()
        reduced = {"umap": bertopic_umap(seed).fit_transform(embeddings)}
        out.setdefault("umap_seconds", []).append(time.perf_counter() - start)
        for name, (space, make) in CLUSTERERS.items():
            start = time.perf_counter()
            labels = make(seed).fit(reduced[space]).labels_
            out["rows"].append(row(name, seed, np.asarray(labels), groups, time.perf_counter() - start))
            print(out["rows"][-1], flush=True)
    from bertopic import BERTopic  # an optional peer
    for name, model in (("BERTopic()", None), ("BERTopic(hdbscan_model=DPMixture(obs_model='gauss'))",
                                                 DPMixture(obs_model="gauss", random_state=0))):
        start = time.perf_counter()
        settings = {"umap_model": bertopic_umap(0)} | ({} if model is None else {"hdbscan_model": model})
        topics, _ = BERTopic(**settings).fit_transform(docs, embeddings=embeddings)
        out["bertopic"].append(row(name, 0, np.asarray(topics), groups, time.perf_counter() - start))
        print(out["bertopic"][-1], flush=True)
    out["load_after"] = os.getloadavg()[0]
    write_results("embeddings", out, summary(out))


def summary(out: dict) -> str:
    lines = [f"# Embeddings: clustering {out['documents']:,} 20newsgroups posts (tf-idf + SVD-100) "
             "(`benchmarks/embeddings.py`)", "",
             f"load before: {out['load_before']:.2f}, after: {out['load_after']:.2f}. Mean (min-max) over "
             f"{len(out['umap_seconds'])} seeds; UMAP itself took {np.mean(out['umap_seconds']):.1f} s per seed.", "",
             "| clusterer | K | K's coefficient of variation | unassigned | AMI | fit seconds |",
             "|---|---|---|---|---|---|"]
    for name in CLUSTERERS:
        rows = [r for r in out["rows"] if r["method"] == name]
        ks = np.array([r["K"] for r in rows], dtype=float)
        cells = [f"{np.mean(ks):.0f} ({ks.min():.0f}-{ks.max():.0f})", f"{np.std(ks) / np.mean(ks):.1%}"]
        for key, fmt in (("unassigned", "{:.1%}"), ("ami", "{:.3f}"), ("seconds", "{:.1f}")):
            values = [r[key] for r in rows]
            cells.append(f"{fmt.format(np.mean(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Inside BERTopic (seed 0, `fit_transform(docs, embeddings=...)`, seconds of the whole call):", "",
              "| model | K | unassigned | AMI | seconds |", "|---|---|---|---|---|"]
    lines += [f"| {r['method']} | {r['K']} | {r['unassigned']:.1%} | {r['ami']:.3f} | {r['seconds']:.1f} |"
              for r in out["bertopic"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
