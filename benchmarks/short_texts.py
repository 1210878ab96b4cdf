"""Short texts (issue 49): ``ShortTextTopicModel`` against tweetopic's DMM (Gibbs sampling of the
Dirichlet-multinomial mixture, K given) and bitermplus's biterm topic model, same documents, same
metric, one process.

Data: the first 15 words of each 20newsgroups training post (11,293 posts, 20 newsgroups), counted
by scikit-learn's ``CountVectorizer(stop_words="english", min_df=2)``; posts left without a word are
dropped. Metric: normalised mutual information (NMI) between each post's topic (its most probable
one) and its newsgroup; for our rows also the fit's ELBO (``lower_bound_``, the exact whole-data
ELBO of the fitted ``q`` under every algorithm: the objective they all maximise) and, under memoized
VI, its births accepted of those tried over every lap and seed. Rows: ours with K
learned (every default: a collapsed Gibbs start from the documents dealt among ``n // 10`` clusters,
then memoized VI with moves; the same with ``topic_word_prior=1`` instead of 0.1, the setting for
coarser topics; and the Gibbs start with one VB lap), by truncation-free SVI from no
topics (the default until 31c6b2c), by memoized VI with moves from a k-means++ start, and with K
given (memoized VI, ``n_topics=K, moves=()``); tweetopic's ``DMM`` and bitermplus's ``BTM`` given K
(the number of labels), with their documented settings. Every library first fits 200 documents
untimed (numba compilation, tweetopic's too, is left out of the times); seconds are wall time of
``fit`` plus the labelling.

The peers pin old numpy and scikit-learn; they run with ours when installed without their pins:
``.venv/bin/pip install --no-deps tweetopic==0.4.0 bitermplus==1.0.0`` (rows of a missing peer are
left out).

Other corpora: the short-text benchmarks of the DMM literature in the STTM repository (``git clone
https://github.com/qiang2100/STTM``): ``--corpus stackoverflow|googlenews|tweet|searchsnippets --sttm
STTM/dataset``, counted the same way, K given to the peers = the number of labels.

Run:  .venv/bin/python benchmarks/short_texts.py [--seeds 3] [--corpus NAME --sttm DIR]
Writes benchmarks/results/short_texts.{json,md} (short_texts_NAME for an STTM corpus).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import os
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import normalized_mutual_info_score

from _results import write_results
from stickbreak import ShortTextTopicModel

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "20newsgroups" / "docs.tsv.gz"
WORDS = 15


def openings() -> tuple[list[str], np.ndarray]:
    with gzip.open(DATA, "rt", encoding="utf-8") as lines:
        rows = [line.rstrip("\n").split("\t") for line in lines]
    rows = [row for row in rows if row[0] == "train"]
    return [" ".join(row[2].split()[:WORDS]) for row in rows], np.array([row[1] for row in rows])


#: The short-text benchmarks of the DMM literature in the STTM repository (Qiang et al. 2020,
#: github.com/qiang2100/STTM, directory ``dataset``): texts and label files, one line per document.
STTM = {"stackoverflow": ("StackOverflow.txt", "StackOverflow_label.txt"),
        "googlenews": ("GoogleNews.txt", "GoogleNews_LABEL.txt"), "tweet": ("Tweet.txt", "Tweet_LABEL.txt"),
        "searchsnippets": ("SearchSnippets.txt", "SearchSnippets_label.txt")}


def sttm(folder: Path, name: str) -> tuple[list[str], np.ndarray]:
    texts, labels = ((folder / f).read_text(encoding="utf-8").splitlines() for f in STTM[name])
    return texts, np.array([label.strip() for label in labels])


def ours(X, texts, seed, **settings):
    model = ShortTextTopicModel(random_state=seed, **settings).fit(X)
    births = [record["moves"].get("birth", {"tried": 0, "accepted": 0}) for record in model.trace_]
    return model.labels_, model.n_topics_, model.lower_bound_, [sum(b["accepted"] for b in births),
                                                                sum(b["tried"] for b in births)]


def tweetopic_dmm(X, texts, seed, true_k):
    from tweetopic import DMM  # an optional peer
    model = DMM(n_components=true_k, n_iterations=50, alpha=0.1, beta=0.1, random_state=seed).fit(X)
    labels = model.transform(X).argmax(axis=1)
    return labels, len(np.unique(labels)), None, None


def bitermplus_btm(X, texts, seed, true_k):
    import bitermplus  # an optional peer
    counts, vocabulary, _ = bitermplus.get_words_freqs(texts, stop_words="english", min_df=2)
    documents = bitermplus.get_vectorized_docs(texts, vocabulary)
    model = bitermplus.BTM(counts, vocabulary, seed=seed, T=true_k, M=20, alpha=50 / true_k, beta=0.01)
    model.fit(bitermplus.get_biterms(documents), iterations=50, verbose=False)
    labels = np.nan_to_num(model.transform(documents, verbose=False)).argmax(axis=1)
    return labels, len(np.unique(labels)), None, None


ROWS = {
    "stickbreak ShortTextTopicModel, K learned (defaults: collapsed Gibbs start, memoized VI with moves)":
        lambda X, t, s, k: ours(X, t, s),
    "stickbreak ShortTextTopicModel, K learned, topic_word_prior=1 (coarser topics)":
        lambda X, t, s, k: ours(X, t, s, topic_word_prior=1.0),
    "stickbreak ShortTextTopicModel, K learned, the Gibbs start and one VB lap":
        lambda X, t, s, k: ours(X, t, s, algorithm="vb", max_laps=1, min_laps=1),
    "stickbreak ShortTextTopicModel, K learned by truncation-free SVI (20 laps)":
        lambda X, t, s, k: ours(X, t, s, algorithm="truncation_free"),
    "stickbreak ShortTextTopicModel, K learned by memoized VI with moves from k-means++":
        lambda X, t, s, k: ours(X, t, s, init="kmeans++"),
    "stickbreak ShortTextTopicModel, K given (memoized VI, no moves, k-means++)":
        lambda X, t, s, k: ours(X, t, s, init="kmeans++", n_topics=k, moves=()),
    "tweetopic 0.4.0 DMM, K given (50 Gibbs sweeps)": tweetopic_dmm,
    "bitermplus 1.0.0 BTM, K given (50 Gibbs sweeps)": bitermplus_btm,
}
NEEDS = {"tweetopic": "tweetopic", "bitermplus": "bitermplus"}


def available(name: str) -> bool:
    needed = [module for key, module in NEEDS.items() if name.startswith(key)]
    return all(importlib.util.find_spec(module) is not None for module in needed)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--corpus", choices=["20newsgroups", *STTM], default="20newsgroups")
    parser.add_argument("--sttm", type=Path, help="the STTM repository's dataset directory (for its corpora)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.corpus != "20newsgroups" and args.sttm is None:
        parser.error(f"--corpus {args.corpus} needs --sttm DIR (git clone https://github.com/qiang2100/STTM; DIR: its "
                     "dataset directory)")
    texts, groups = openings() if args.corpus == "20newsgroups" else sttm(args.sttm, args.corpus)
    X = CountVectorizer(stop_words="english", min_df=2).fit_transform(texts).tocsr()
    kept = np.flatnonzero(np.asarray(X.sum(axis=1)).ravel() > 0)
    X, texts, groups = X[kept], [texts[i] for i in kept], groups[kept]
    true_k = len(np.unique(groups))
    out = {"corpus": args.corpus, "documents": X.shape[0], "words": X.shape[1], "groups": true_k,
           "load_before": os.getloadavg()[0], "rows": []}
    for name, run in ROWS.items():
        if not available(name):
            print(f"skipped (not installed): {name}")
            continue
        run(X[:200], texts[:200], 0, true_k)  # compilation and imports, untimed
        for seed in range(args.seeds):
            start = time.perf_counter()
            labels, k, elbo, births = run(X, texts, seed, true_k)
            seconds = time.perf_counter() - start
            out["rows"].append({"method": name, "seed": seed, "K": int(k), "seconds": seconds, "elbo": elbo,
                                "births": births,
                                "nmi": float(normalized_mutual_info_score(groups, labels))})
            print(out["rows"][-1], flush=True)
    out["load_after"] = os.getloadavg()[0]
    write_results("short_texts" if args.corpus == "20newsgroups" else f"short_texts_{args.corpus}", out, summary(out))


def summary(out: dict) -> str:
    what = (f"the first {WORDS} words of {out['documents']:,} 20newsgroups posts" if out["corpus"] == "20newsgroups"
            else f"{out['documents']:,} documents of STTM's {out['corpus']}")
    lines = [f"# Short texts: {what} ({out['words']:,} words, {out['groups']} labels; `benchmarks/short_texts.py "
             f"--corpus {out['corpus']}`)", "",
             f"load before: {out['load_before']:.2f}, after: {out['load_after']:.2f}. Mean (min-max) over seeds.", "",
             "| method | K | NMI | seconds | ELBO | births accepted / tried (all seeds) |", "|---|---|---|---|---|---|"]
    for name in dict.fromkeys(row["method"] for row in out["rows"]):
        rows = [row for row in out["rows"] if row["method"] == name]
        cells = []
        for key, fmt in (("K", "{:.0f}"), ("nmi", "{:.3f}"), ("seconds", "{:.1f}")):
            values = [row[key] for row in rows]
            cells.append(f"{fmt.format(np.mean(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})")
        elbos = [row["elbo"] for row in rows if row.get("elbo") is not None]
        cells.append(f"{np.mean(elbos):,.0f}" if elbos else "-")
        births = [row["births"] for row in rows if row.get("births") is not None]
        cells.append(f"{sum(b[0] for b in births)} / {sum(b[1] for b in births)}" if births else "-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
