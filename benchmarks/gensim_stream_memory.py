"""Peak Python memory of reading a gensim ``MmCorpus`` into stickbreak (issue 27).

Three ways, on one corpus written as Matrix Market: ``list(corpus)`` (what ``as_bag_of_words`` did
before: every document as Python tuples), ``as_bag_of_words(corpus)`` (read a chunk at a time into
one CSR matrix) and ``iter_bag_of_words`` (one chunk of 1,000 documents at a time, for
``partial_fit`` or shards). Peaks are tracemalloc's (Python and NumPy allocations).

    python benchmarks/gensim_stream_memory.py ../shared/data/debian_descriptions/bow.npz

Needs gensim (``pip install -e .[peers]``).
"""

import os
import sys
import tempfile
import time
import tracemalloc

from gensim.corpora import MmCorpus

from stickbreak.data import as_bag_of_words, iter_bag_of_words, read_corpus, write_matrix_market


def main(path: str) -> None:
    bow = read_corpus(path, empty="keep")
    mm = os.path.join(tempfile.mkdtemp(), "corpus.mm")
    write_matrix_market(bow, mm)
    corpus = MmCorpus(mm)
    csr = bow.counts
    print(f"{path}: {bow.shape[0]} documents x {bow.shape[1]} words, {csr.nnz} entries, CSR "
          f"{(csr.data.nbytes + csr.indices.nbytes + csr.indptr.nbytes) / 2**20:.0f} MiB; load {os.getloadavg()}")
    ways = (("list(corpus) (before)", lambda: list(corpus)),
            ("as_bag_of_words(corpus)", lambda: as_bag_of_words(corpus, n_words=corpus.num_terms, empty="keep")),
            ("iter_bag_of_words(corpus, 1000)",
             lambda: sum(c.n_items for c in iter_bag_of_words(corpus, 1000, n_words=corpus.num_terms))))
    print("\n| how | peak memory | wall |\n|---|---:|---:|")
    for name, read in ways:
        tracemalloc.start()
        start = time.perf_counter()
        result = read()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"| {name} | peak {peak / 2**20:.0f} MiB | {time.perf_counter() - start:.1f} s |")
        del result


if __name__ == "__main__":
    main(sys.argv[1])
