"""Peak Python memory of reading a gensim ``MmCorpus`` into stickbreak (issue 27).

Three ways, on one corpus written as Matrix Market: ``list(corpus)`` (what ``as_bag_of_words`` did
before: every document as Python tuples), ``as_bag_of_words(corpus)`` (read a chunk at a time into
one CSR matrix) and ``iter_bag_of_words`` (one chunk of 1,000 documents at a time, for
``partial_fit`` or shards). Peaks are tracemalloc's (Python and NumPy allocations); each way runs in a
fresh process, whose peak RSS (imports, the reader, tracemalloc's own bookkeeping) is shown too.

    python benchmarks/gensim_stream_memory.py ../shared/data/debian_descriptions/bow.npz

Needs gensim (``pip install -e .[peers]``).
"""

import os
import sys
import tempfile
import time
import tracemalloc

from gensim.corpora import MmCorpus

from _rss import in_fresh_process, rss_cell
from stickbreak.data import as_bag_of_words, iter_bag_of_words, read_corpus, write_matrix_market

WAYS = {"list(corpus) (before)": lambda corpus: list(corpus),
        "as_bag_of_words(corpus)": lambda corpus: as_bag_of_words(corpus, n_words=corpus.num_terms, empty="keep"),
        "iter_bag_of_words(corpus, 1000)":
            lambda corpus: sum(c.n_items for c in iter_bag_of_words(corpus, 1000, n_words=corpus.num_terms))}


def read_one(mm: str, name: str) -> dict:
    """One way of reading the Matrix Market file (in a fresh process: :func:`main`)."""
    corpus = MmCorpus(mm)
    tracemalloc.start()
    start = time.perf_counter()
    result = WAYS[name](corpus)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    seconds = time.perf_counter() - start
    del result
    return {"peak": peak, "seconds": seconds}


def main(path: str) -> None:
    bow = read_corpus(path, empty="keep")
    mm = os.path.join(tempfile.mkdtemp(), "corpus.mm")
    write_matrix_market(bow, mm)
    csr = bow.counts
    print(f"{path}: {bow.shape[0]} documents x {bow.shape[1]} words, {csr.nnz} entries, CSR "
          f"{(csr.data.nbytes + csr.indices.nbytes + csr.indptr.nbytes) / 2**20:.0f} MiB; load {os.getloadavg()}")
    del bow, csr
    print("\n| how | peak memory | wall | peak RSS MiB |\n|---|---:|---:|---:|")
    for name in WAYS:
        row = in_fresh_process(read_one, mm, name)
        print(f"| {name} | peak {row['peak'] / 2**20:.0f} MiB | {row['seconds']:.1f} s | {rss_cell(row)} |")


if __name__ == "__main__":
    main(sys.argv[1])
