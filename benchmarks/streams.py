"""Streams (issue 49): ``DPMixture.partial_fit`` on labelled image streams in which one class first
appears late, against one batch fit on the same items, and memory over a long stream.

*New class.* Each class in turn is held back: 10 chunks of the other classes' images, the held-back
class joining from chunk 7 (of 10; 1-based). After chunk 8 the class's streamed images are predicted:
the share in their most common cluster, whether that cluster was born after chunk 6 (a new cluster),
the share in all clusters born after chunk 6, and K. The batch reference is ``DPMixture().fit`` on
chunks 1-8 at once (memory growing with the data): its share of the class in its most common
cluster and that cluster's purity. Both use ``obs_model="diag_gauss"`` and every other default.

*Memory.* 100 chunks of 200 MNIST images: the process's resident memory and Python's traced
allocations, and K, along the stream.

Data: scikit-learn's digits (1,797 images, 10 PCA dimensions) and MNIST's 10,000 test images
(30 PCA dimensions); the PCA is fitted on the first chunk only, as a stream would. With ``--sttm``
also a text stream: STTM's StackOverflow titles (16,406 with a word, 20 tags; github.com/qiang2100/STTM,
directory ``dataset``), counted over the whole corpus's vocabulary, each of the 20 tags held back in
turn, with ``ShortTextTopicModel`` (every default) for the stream and the batch.

Run:  .venv/bin/python benchmarks/streams.py [--sttm STTM/dataset]
Writes benchmarks/results/streams.{json,md}.
"""

from __future__ import annotations

import argparse
import gzip
import os
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
from sklearn.decomposition import PCA
from sklearn.feature_extraction.text import CountVectorizer

from _results import write_results
from stickbreak import DPMixture, ShortTextTopicModel

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OBS = "diag_gauss"


def digits() -> tuple[np.ndarray, np.ndarray, int]:
    table = np.loadtxt(DATA / "sklearn_digits" / "digits.csv.gz", delimiter=",")
    return table[:, :-1], table[:, -1].astype(int), 10


def mnist() -> tuple[np.ndarray, np.ndarray, int]:
    folder = DATA / "mnist_subsets"
    X = np.frombuffer(gzip.open(folder / "mnist-t10k-images-idx3-ubyte.gz").read(), np.uint8, offset=16)
    y = np.frombuffer(gzip.open(folder / "mnist-t10k-labels-idx1-ubyte.gz").read(), np.uint8, offset=8)
    return X.reshape(-1, 784).astype(float), y.astype(int), 30


def stream_chunks(y: np.ndarray, held_back: int, seed: int) -> list[np.ndarray]:
    """10 chunks of the other classes; the held-back class in chunks 7-10."""
    rng = np.random.default_rng(seed)
    old, new = np.flatnonzero(y != held_back), np.flatnonzero(y == held_back)
    rng.shuffle(old), rng.shuffle(new)
    old_chunks, new_chunks = np.array_split(old, 10), np.array_split(new, 4)
    return [old_chunks[c] if c < 6 else np.concatenate([old_chunks[c], new_chunks[c - 6]]) for c in range(10)]


def pca_features(n_dims: int):
    """Features of a stream of images: PCA fitted on the first chunk only, as a stream would."""
    return lambda X, first: PCA(n_dims, random_state=0).fit(X[first]).transform(X)


def new_class_row(X, y, held_back: int, features, make_model, seed: int = 0) -> dict:
    chunks = stream_chunks(y, held_back, seed)
    Z = features(X, chunks[0])
    model, start = make_model(seed), time.perf_counter()
    for c in range(8):
        model.partial_fit(Z[chunks[c]])
        if c == 5:
            before = set(model.params_.uids.tolist())
    stream_seconds = time.perf_counter() - start
    seen = np.concatenate(chunks[:8])
    held = seen[y[seen] == held_back]
    uids = model.params_.uids[model.predict(Z[held])]
    values, counts = np.unique(uids, return_counts=True)
    start = time.perf_counter()
    batch = make_model(seed).fit(Z[seen])
    batch_seconds = time.perf_counter() - start
    labels = batch.labels_[y[seen] == held_back]
    top = np.bincount(labels).argmax()
    return {"class": held_back, "K": int(model.n_active_components_),
            "top_share": float(counts.max() / len(held)), "top_is_new": bool(values[np.argmax(counts)] not in before),
            "share_in_new": float(np.mean([u not in before for u in uids])), "stream_seconds": stream_seconds,
            "batch_K": int(batch.n_active_components_), "batch_top_share": float(np.mean(labels == top)),
            "batch_top_purity": float(np.mean(y[seen][batch.labels_ == top] == held_back)),
            "batch_seconds": batch_seconds}


def stackoverflow(folder: Path) -> tuple:
    """STTM's StackOverflow titles (20 tags) as word counts over the whole corpus's vocabulary (a
    stream with a fixed vocabulary, as a hashing vectorizer would give), empty titles dropped."""
    texts = (folder / "StackOverflow.txt").read_text(encoding="utf-8").splitlines()
    tags = (folder / "StackOverflow_label.txt").read_text(encoding="utf-8").splitlines()
    X = CountVectorizer(stop_words="english", min_df=2).fit_transform(texts).tocsr()
    kept = np.flatnonzero(np.asarray(X.sum(axis=1)).ravel() > 0)
    return X[kept], np.unique(np.array([t.strip() for t in tags])[kept], return_inverse=True)[1]


def resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def memory_rows(X, n_dims: int, n_chunks: int = 100, size: int = 200) -> list[dict]:
    rng = np.random.default_rng(0)
    stream = [rng.choice(len(X), size, replace=False) for _ in range(n_chunks)]
    Z = PCA(n_dims, random_state=0).fit(X[stream[0]]).transform(X)
    model, rows = DPMixture(obs_model=OBS, random_state=0), []
    tracemalloc.start()
    for c, chunk in enumerate(stream, start=1):
        model.partial_fit(Z[chunk])
        if c in (1, 10, 25, 50, 75, 100):
            rows.append({"chunk": c, "items_seen": c * size, "K": int(model.n_components_),
                         "resident_mb": resident_mb(), "traced_mb": tracemalloc.get_traced_memory()[0] / 2 ** 20})
    tracemalloc.stop()
    return rows


def summary(out: dict) -> str:
    lines = ["# Streams: `DPMixture.partial_fit`, a class first seen in chunk 7 of 10 (`benchmarks/streams.py`)", "",
             f"load before: {out['load_before']:.2f}, after: {out['load_after']:.2f}; images: obs_model={OBS!r}; "
             "text: ShortTextTopicModel; every other setting the default.", ""]
    for name, rows in out["new_class"].items():
        met = sum(r["top_is_new"] and r["top_share"] >= 0.8 for r in rows)
        lines += [f"## {name}: after chunk 8, the held-back class's streamed items", "",
                  f"A new cluster holds at least 80 % of the class for {met} of {len(rows)} classes.", "",
                  "| class | stream K | top cluster's share | top cluster new | share in new clusters | stream s "
                  "| batch K | batch top share | its purity | batch s |", "|---|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| {r['class']} | {r['K']} | {r['top_share']:.2f} | {'yes' if r['top_is_new'] else 'no'} | "
                  f"{r['share_in_new']:.2f} | {r['stream_seconds']:.1f} | {r['batch_K']} | "
                  f"{r['batch_top_share']:.2f} | {r['batch_top_purity']:.2f} | {r['batch_seconds']:.1f} |"
                  for r in rows]
        lines.append("")
    lines += ["## Memory over 100 chunks of 200 MNIST images", "",
              "| chunk | items seen | K | resident MB | traced MB |", "|---|---|---|---|---|"]
    lines += [f"| {r['chunk']} | {r['items_seen']:,} | {r['K']} | {r['resident_mb']:.0f} | {r['traced_mb']:.1f} |"
              for r in out["memory"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sttm", type=Path, help="the STTM repository's dataset directory: adds its StackOverflow "
                                                  "titles as a text stream (ShortTextTopicModel)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    out: dict = {"load_before": os.getloadavg()[0], "new_class": {}}
    for name, loader in (("digits", digits), ("mnist_10k", mnist)):
        X, y, n_dims = loader()
        out["new_class"][name] = [new_class_row(X, y, c, pca_features(n_dims),
                                                lambda seed: DPMixture(obs_model=OBS, random_state=seed))
                                  for c in range(10)]
        print(name, [(r["class"], round(r["top_share"], 2), r["top_is_new"]) for r in out["new_class"][name]],
              flush=True)
    if args.sttm is not None:
        X, y = stackoverflow(args.sttm)
        out["new_class"]["stackoverflow_text"] = [
            new_class_row(X, y, c, lambda X, first: X, lambda seed: ShortTextTopicModel(random_state=seed))
            for c in range(20)]
        print([(r["class"], round(r["top_share"], 2), r["top_is_new"]) for r in out["new_class"]["stackoverflow_text"]])
    X, _, n_dims = mnist()
    out["memory"] = memory_rows(X, n_dims)
    out["load_after"] = os.getloadavg()[0]
    write_results("streams", out, summary(out))


if __name__ == "__main__":
    main()
