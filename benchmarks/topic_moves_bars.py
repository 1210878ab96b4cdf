"""Toy bars (Hughes 2016, §5.6): memoized HDP from K=50 (or any K), with and without moves.

10 bar topics (5 horizontal, 5 vertical) on a 30x30 vocabulary, 1,000 training documents of 200
tokens from 1-3 bars, 100 test documents. Prints K, the moves and the ELBO after every lap, then
the CPU time, topics used, held-out per-word log-likelihood (document completion, half of each
test document's tokens), the worst best-match cosine between a true bar and a learned topic and the
process's peak RSS (one run per process).

Usage: python benchmarks/topic_moves_bars.py [MOVES] [N_BATCHES] [LAPS] [K]
  e.g. `merge,delete 1 20`, `"" 1 20`, `birth,merge,delete 2 20 1`
"""
import sys
import time

import numpy as np

import stickbreak
from _rss import peak_rss_mib
from stickbreak.datasets.synthetic import make_bars_corpus
from stickbreak.evaluate import completion_from_split, split_documents

X, topics = make_bars_corpus(1100, seed=0)
train, test = X[:1000], X[1000:]
observed, heldout = split_documents(test, seed=1)
moves = tuple(m for m in (sys.argv[1] if len(sys.argv) > 1 else "merge,delete").split(",") if m)
n_batches = int(sys.argv[2]) if len(sys.argv) > 2 else 1
laps = int(sys.argv[3]) if len(sys.argv) > 3 else 20
n_topics = int(sys.argv[4]) if len(sys.argv) > 4 else 50


def report(record, params):
    r = record.as_dict()
    print(r["lap"], "K", params.n_components, r.get("moves"), round(r["elbo"]), flush=True)


model = stickbreak.HDPTopicModel(n_topics=n_topics, algorithm="memoized", n_batches=n_batches, max_laps=laps, tol=0,
                                 moves=moves or None, random_state=0, callbacks=[report])
start = time.process_time()
model.fit(train)
cpu = time.process_time() - start
used = model.topic_word_[model.topic_sizes_ >= 1]
cosine = topics @ used.T / np.linalg.norm(topics, axis=1)[:, None] / np.linalg.norm(used, axis=1)[None, :]
print(f"moves {moves or 'none'}: cpu {cpu:.2f} s, topics used {len(used)}, held-out "
      f"{completion_from_split(model.topic_word_, observed, heldout).per_word:.4f}, worst bar match (cosine) "
      f"{cosine.max(axis=1).min():.3f}, peak RSS {peak_rss_mib():.0f} MiB")
