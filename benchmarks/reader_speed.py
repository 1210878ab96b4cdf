"""Our text-corpus parsers against the library parsers issue 27 names as replacements:
scikit-learn's ``load_svmlight_file`` for LDA-C (each line "N id:count ...", N read as the label)
and pandas' ``read_csv`` for UCI bag-of-words (three header lines, then "doc word count").

Same files, best of 3 wall times (each reader in a fresh process, whose peak RSS is shown: imports
and the reader; the CSV rows time one call after an untimed one), and whether each parser refuses the damaged
variants our readers refuse (a negative count, a word id past the vocabulary, a line cut short).
"ours" is the whole reader: parsing, checks and the CSR matrix. The CSV rows time our sequence
and numeric CSV readers (pandas inside since issue 27; the csv module took 4.7 s and np.loadtxt
0.63 s on these files before) against pandas alone and np.loadtxt. Our LDA-C reader keeps its byte
scanner (faster than load_svmlight_file and stricter); our UCI and Matrix Market readers parse with
pandas' C reader since this comparison (our byte scanner took 0.072 s on AP, pandas 0.015 s).

    python benchmarks/reader_speed.py > benchmarks/results/reader_speed.md
"""

import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_svmlight_file

from _rss import in_fresh_process, rss_cell
from stickbreak.data import DataError, read_ldac, read_sequences, read_uci, write_ldac, write_uci
from stickbreak.datasets import load, read_data

ROOT = Path(__file__).resolve().parents[1]


def best_of(fn, n=3):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def uci_pandas(path):
    with open(path, "rb") as fh:
        head = [int(fh.readline()) for _ in range(3)]
        table = pd.read_csv(fh, sep=" ", header=None, names=["d", "w", "c"], dtype=np.int64, engine="c")
    return head, table


def timed(row: str, side: str, tmp: str, n_words: int) -> dict:
    """Best wall time of one reader (``side``: ours or the library's) of one row's file, in a fresh process."""
    tmp = Path(tmp)
    calls = {("ldac", "ours"): lambda: read_ldac(tmp / "ap.dat", n_words=n_words, empty="keep"),
             ("ldac", "library"): lambda: load_svmlight_file(str(tmp / "ap.dat"), n_features=n_words, zero_based=True),
             ("uci", "ours"): lambda: read_uci(tmp / "docword.ap.txt", empty="keep"),
             ("uci", "library"): lambda: uci_pandas(tmp / "docword.ap.txt"),
             ("seq", "ours"): lambda: read_sequences(tmp / "seq.csv"),
             ("seq", "library"): lambda: pd.read_csv(tmp / "seq.csv"),
             ("dense", "ours"): lambda: read_data(str(tmp / "dense.csv")),
             ("dense", "library"): lambda: np.loadtxt(tmp / "dense.csv", delimiter=",", skiprows=1)}
    repeats = 3 if row in ("ldac", "uci") else 1
    if repeats == 1:
        calls[row, side]()  # untimed: first-call set-up in this fresh process
    return {"seconds": best_of(calls[row, side], repeats)}


def compare(row: str, tmp: Path, n_words: int) -> tuple[dict, dict]:
    return tuple(in_fresh_process(timed, row, side, str(tmp), n_words) for side in ("ours", "library"))


def refuses(fn):
    try:
        fn()
    except (DataError, ValueError) as exc:
        return f"refused ({type(exc).__name__})"
    return "**accepted**"


def main():
    bow = load("ap").X
    tmp = Path(tempfile.mkdtemp())
    write_ldac(bow, tmp / "ap.dat")
    write_uci(bow, tmp / "docword.ap.txt")
    n_words = bow.n_features
    print(f"AP: {bow.shape[0]} documents, {bow.counts.nnz} entries; load {os.getloadavg()}\n")
    rng = np.random.default_rng(0)
    frames = pd.DataFrame(rng.normal(size=(300_000, 12)), columns=[f"f{j}" for j in range(12)])
    frames.to_csv(tmp / "dense.csv", index=False)
    frames.insert(0, "sequence", np.repeat(np.arange(300), 1000))
    frames.to_csv(tmp / "seq.csv", index=False)
    del frames
    print("| format | ours s | library s | library / ours | ours peak RSS MiB | library peak RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|")
    for row, title in (("ldac", "LDA-C: load_svmlight_file"), ("uci", "UCI: pandas read_csv"),
                       ("seq", "sequence CSV, 300,000 frames: read_sequences vs pandas read_csv"),
                       ("dense", "numeric CSV, 300,000 rows: the CLI's reader vs np.loadtxt (its reader before)")):
        ours, lib = compare(row, tmp, n_words)
        print(f"| {title} | {ours['seconds']:.3f} | {lib['seconds']:.3f} | {lib['seconds'] / ours['seconds']:.2f} | "
              f"{rss_cell(ours)} | {rss_cell(lib)} |")

    lines = (tmp / "ap.dat").read_text().splitlines()
    first = lines[0].split()
    damaged = {
        "negative count": " ".join(first[:1] + [first[1].split(":")[0] + ":-3"] + first[2:]),
        "word id past the vocabulary": " ".join(first[:1] + [f"{n_words + 5}:1"] + first[2:]),
        "line cut short (fewer pairs than N)": " ".join(first[:-1]),
        "pair without a count": " ".join(first[:1] + [first[1].split(":")[0] + ":"] + first[2:]),
    }
    print("\n| damaged LDA-C line | ours | load_svmlight_file |")
    print("|---|---|---|")
    for name, line in damaged.items():
        path = tmp / "bad.dat"
        path.write_text("\n".join([line] + lines[1:]) + "\n")
        print(f"| {name} | {refuses(lambda: read_ldac(path, n_words=n_words, empty='keep'))} | "
              f"{refuses(lambda: load_svmlight_file(str(path), n_features=n_words, zero_based=True))} |")


if __name__ == "__main__":
    main()
