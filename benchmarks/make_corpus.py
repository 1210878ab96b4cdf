"""A synthetic bag-of-words corpus of any size with wiki's vocabulary, topics and document lengths,
written to on-disk shards chunk by chunk (issue 25's "a million documents").

Recipe: LDA with K=100 topics is fitted by batch VB on ``../shared/data/wiki`` (7,961 documents,
6,130 words); documents are then drawn from its generative process with the fitted topics
(posterior means), a symmetric Dirichlet(``--alpha``) over topics per document, and lengths drawn
from wiki's own document lengths. So the corpus has real word statistics and a known number of
topics (100) to recover, and its size is only bounded by the disk. Each chunk of ``--chunk``
documents is sampled with whole-array operations (a multinomial per document over topics, then
each topic's tokens at once) and written as one shard, so memory stays at one chunk.

Run:  .venv/bin/python benchmarks/make_corpus.py --docs 1000000 --out /tmp/wiki_synthetic_1m
Writes the shards (``ShardStore``) and ``recipe.json`` (the settings and the generating topics'
file) to ``--out``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from stickbreak import LDA
from stickbreak.data import BagOfWords, ShardStore

ROOT = Path(__file__).resolve().parents[1]
WIKI = ROOT.parent / "shared" / "data" / "wiki"


def wiki() -> tuple[sp.csr_matrix, list[str]]:
    z = np.load(WIKI / "bow.npz")
    counts = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
    vocabulary = gzip.open(WIKI / "vocab.txt.gz", "rt").read().split()
    keep = np.asarray(counts.sum(axis=1)).ravel() > 0
    return counts[keep], vocabulary


def fitted_topics(counts: sp.csr_matrix, n_topics: int, laps: int, seed: int) -> np.ndarray:
    """Posterior-mean topic-word probabilities (K, V) of LDA fitted by batch VB."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LDA(n_topics=n_topics, algorithm="vb", max_laps=laps, random_state=seed).fit(counts)
    return model.topic_word_


def sample_chunk(topics: np.ndarray, lengths: np.ndarray, alpha: float, rng: np.random.Generator) -> sp.csr_matrix:
    """Word counts (D, V) of ``len(lengths)`` documents drawn from LDA with ``topics``."""
    n_topics, n_words = topics.shape
    n_docs = len(lengths)
    theta = rng.gamma(alpha, 1.0, size=(n_docs, n_topics))
    theta /= theta.sum(axis=1, keepdims=True)
    per_topic = rng.multinomial(lengths, theta)  # (D, K) tokens of each document in each topic
    docs, words = [], []
    for k in range(n_topics):  # every token of topic k in the chunk at once
        column = per_topic[:, k]
        total = int(column.sum())
        if total:
            docs.append(np.repeat(np.arange(n_docs), column))
            words.append(rng.choice(n_words, size=total, p=topics[k]))
    doc, word = np.concatenate(docs), np.concatenate(words)
    return sp.csr_matrix((np.ones(len(doc)), (doc, word)), shape=(n_docs, n_words))  # duplicates are summed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=20_000, help="documents per shard")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--alpha", type=float, default=0.1, help="symmetric Dirichlet over topics per document")
    parser.add_argument("--fit-laps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    counts, vocabulary = wiki()
    topics = fitted_topics(counts, args.topics, args.fit_laps, args.seed)
    wiki_lengths = np.asarray(counts.sum(axis=1)).ravel().astype(np.int64)
    rng = np.random.default_rng(args.seed)
    sizes = [min(args.chunk, args.docs - s) for s in range(0, args.docs, args.chunk)]

    def chunks():
        for i, size in enumerate(sizes):
            yield BagOfWords(sample_chunk(topics, rng.choice(wiki_lengths, size=size), args.alpha, rng))
            print(f"shard {i + 1}/{len(sizes)}: {sum(sizes[:i + 1]):,} documents, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)

    store = ShardStore.from_chunks(chunks(), args.out, vocabulary=vocabulary)
    np.save(args.out / "generating_topics.npy", topics)
    recipe = {**{k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
              "source": "LDA fitted on ../shared/data/wiki by batch VB", "n_features": store.n_features,
              "generating_topics": "generating_topics.npy", "seconds": time.perf_counter() - start}
    (args.out / "recipe.json").write_text(json.dumps(recipe, indent=1))
    print(f"wrote {args.docs:,} documents in {len(sizes)} shards to {args.out} in {recipe['seconds']:.0f} s")


if __name__ == "__main__":
    main()
