"""c_v coherence against gensim's ``CoherenceModel(coherence="c_v")`` on three corpora (issue 49):
the same topics, the same tokenised texts, the same window (110 tokens), side by side.

Corpora: 20newsgroups and debian_descriptions (``../shared/data``, raw text re-tokenised as their
bag-of-words was: lowercase, tokens ``[a-z][a-z]+``), and gensim's own ``lee_background.cor``
(``gensim.utils.simple_preprocess``). Each: the first ``--docs`` documents; topics are the 10 top
words of the 20 topics of an LDA (batch VB, 10 laps, seed 0) fitted on those documents' counts.
gensim runs with ``processes=1`` (its single-process accumulator, the default on a 2-core
machine). Reports each corpus's largest per-topic difference, the mean c_v and both times.

Run:  .venv/bin/python benchmarks/coherence_cv.py [--docs 2000]
Writes benchmarks/results/coherence_cv.{json,md}.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import time
import warnings
from pathlib import Path

import gensim
import numpy as np
from gensim.corpora import Dictionary
from gensim.models.coherencemodel import CoherenceModel
from gensim.utils import simple_preprocess

from stickbreak import LDA
from stickbreak.data import as_bag_of_words
from stickbreak.evaluate import topic_coherence

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"
TOKEN = re.compile(r"[a-z][a-z]+")
N_TOPICS, N_TOP = 20, 10


def shared_texts(name: str, n_docs: int) -> list[list[str]]:
    """The corpus's raw text (last column of ``docs.tsv.gz``), tokenised as its bag of words was."""
    texts = []
    with gzip.open(SHARED / name / "docs.tsv.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            tokens = TOKEN.findall(line.rstrip("\n").split("\t")[-1].lower())
            if tokens:
                texts.append(tokens)
            if len(texts) == n_docs:
                break
    return texts


def lee_texts(n_docs: int) -> list[list[str]]:
    path = Path(gensim.__file__).parent / "test" / "test_data" / "lee_background.cor"
    return [simple_preprocess(line) for line in path.read_text(encoding="utf-8").splitlines()[:n_docs]]


CORPORA = {"20newsgroups": lambda n: shared_texts("20newsgroups", n),
           "debian_descriptions": lambda n: shared_texts("debian_descriptions", n), "lee_background": lee_texts}


def compare(name: str, texts: list[list[str]]) -> dict:
    bow = as_bag_of_words(texts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lda = LDA(n_topics=N_TOPICS, algorithm="vb", max_laps=10, random_state=0).fit(bow)
    top_ids = np.argsort(-lda.topic_word_, axis=1, kind="stable")[:, :N_TOP]
    start = time.perf_counter()
    ours = topic_coherence(top_ids, texts, measure="c_v", vocabulary=lda.vocabulary_)
    ours_seconds = time.perf_counter() - start
    topics = [[lda.vocabulary_[i] for i in row] for row in top_ids]
    start = time.perf_counter()
    theirs = np.array(CoherenceModel(topics=topics, texts=texts, dictionary=Dictionary(texts), coherence="c_v",
                                     topn=N_TOP, processes=1).get_coherence_per_topic())
    gensim_seconds = time.perf_counter() - start
    return {"corpus": name, "docs": len(texts), "tokens": sum(map(len, texts)), "topics": topics,
            "stickbreak": ours.tolist(), "gensim": theirs.tolist(),
            "max_abs_difference": float(np.abs(ours - theirs).max()),
            "mean_cv": float(ours.mean()), "stickbreak_seconds": ours_seconds, "gensim_seconds": gensim_seconds}


def summary(rows: list[dict]) -> str:
    lines = [f"# c_v coherence: stickbreak against gensim {gensim.__version__} (`benchmarks/coherence_cv.py`)", "",
             f"{N_TOPICS} LDA topics per corpus, top {N_TOP} words, window 110; gensim with processes=1.", "",
             "| corpus | documents | tokens | mean c_v | largest per-topic difference | stickbreak s | gensim s |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['corpus']} | {r['docs']:,} | {r['tokens']:,} | {r['mean_cv']:.6f} | {r['max_abs_difference']:.1e} "
              f"| {r['stickbreak_seconds']:.2f} | {r['gensim_seconds']:.2f} |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=2000)
    args = parser.parse_args(argv)
    rows = [compare(name, load(args.docs)) for name, load in CORPORA.items()]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "coherence_cv.json").write_text(json.dumps(rows, indent=1))
    (RESULTS / "coherence_cv.md").write_text(summary(rows))
    print(summary(rows))


if __name__ == "__main__":
    main()
