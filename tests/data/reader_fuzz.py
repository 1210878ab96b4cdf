"""Mutation fuzzing of the corpus readers: ``python tests/data/reader_fuzz.py [FORMAT ...] [--n N] [--seed S]``.

Each format's valid file (a small corpus written by its writer) is mutated N times (a byte
flipped, a run of bytes deleted, random bytes inserted, the file truncated, a chunk duplicated)
and read back with :func:`stickbreak.data.read_corpus`. Every outcome is one of: ``read`` (a valid
BagOfWords: finite, non-negative counts, indices in range), ``refused`` (the library's DataError),
or ``other`` (any other exception: a bug). A crash of the process (a signal) shows as the
subprocess's return code in the test. Prints one JSON line per format: the counts and up to five
examples of ``other``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from stickbreak.data import BagOfWords, DataError
from stickbreak.data.text_io import read_corpus, write_ldac, write_matrix_market, write_npz, write_uci

def write_plain_npz(bow: BagOfWords, path) -> None:
    """The CSR arrays in an uncompressed npz (``np.savez``), as other tools write them."""
    counts = bow.counts
    np.savez(path, data=counts.data, indices=counts.indices, indptr=counts.indptr, shape=np.array(counts.shape))


FORMATS = {
    "npz": ("bow.npz", write_npz),
    "npz-plain": ("corpus.npz", write_plain_npz),
    "uci": ("docword.toy.txt", write_uci),
    "uci.gz": ("docword.toy.txt.gz", write_uci),
    "ldac": ("toy.dat", write_ldac),
    "mm": ("toy.mm", write_matrix_market),
    "mm.gz": ("toy.mm.gz", write_matrix_market),
}


def corpus(seed: int = 0) -> BagOfWords:
    rng = np.random.default_rng(seed)
    counts = rng.poisson(0.8, size=(8, 12)).astype(float)
    counts[np.arange(8), rng.integers(0, 12, 8)] += 1  # no empty document
    return BagOfWords.from_counts(sp.csr_matrix(counts))


def mutate(payload: bytes, rng: np.random.Generator) -> bytes:
    data = bytearray(payload)
    kind = rng.integers(5)
    at = int(rng.integers(len(data)))
    if kind == 0:
        data[at] = int(rng.integers(256))
    elif kind == 1:
        del data[at:at + int(rng.integers(1, 16))]
    elif kind == 2:
        data[at:at] = rng.integers(0, 256, int(rng.integers(1, 8)), dtype=np.uint8).tobytes()
    elif kind == 3:
        del data[at:]
    else:
        span = int(rng.integers(1, 32))
        data[at:at] = data[at:at + span]
    return bytes(data)


def valid(bow: BagOfWords) -> bool:
    counts = bow.counts
    return bool(np.isfinite(counts.data).all() and (counts.data >= 0).all() and counts.indices.min(initial=0) >= 0
                and counts.indices.max(initial=-1) < counts.shape[1])


def fuzz(fmt: str, n: int, seed: int) -> dict:
    name, writer = FORMATS[fmt]
    rng = np.random.default_rng(seed)
    outcome = {"read": 0, "refused": 0, "other": 0, "invalid": 0}
    examples = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        writer(corpus(seed), path)
        payload = path.read_bytes()
        for i in range(n):
            path.write_bytes(mutate(payload, rng))
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    bow = read_corpus(path, empty="keep")
                outcome["read" if valid(bow) else "invalid"] += 1
            except DataError:
                outcome["refused"] += 1
            except Exception as exc:  # noqa: BLE001 - counting what escapes is the point
                outcome["other"] += 1
                if len(examples) < 5:
                    examples.append(f"{i}: {type(exc).__name__}: {str(exc)[:120]}")
    return {"format": fmt, **outcome, "examples": examples}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("formats", nargs="*", default=list(FORMATS))
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for fmt in args.formats:
        print(json.dumps(fuzz(fmt, args.n, args.seed)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
