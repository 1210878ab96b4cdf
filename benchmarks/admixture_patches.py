"""HDP admixture against a DP mixture on natural image patches (Hughes 2016, Ch. 5 §5.6: 8x8
patches grouped by image, zero-mean Gaussian topics; the HDP should score held-out patches higher,
since a group's own topic weights predict its patches better than corpus-wide weights).

Data: the 11 images of ``../shared/data/natural_images`` (grayscale: the mean of the channels,
pixels / 255). Each image is cut into 64x64 tiles; a tile is a group, its 64 non-overlapping 8x8
patches its items, each with its mean (DC) removed. 80 % of the tiles (by a seeded permutation) are
training groups, the rest held out.

Held-out score, the same patches for every row, mean nats per patch (64 dims):
* HDP admixture: group completion (:meth:`stickbreak.HDPAdmixture.score_samples`): each held-out
  tile's patches at even positions fit its topic weights and score those at odd positions, and
  the other way round.
* DP mixture: the posterior predictive density of each patch (:meth:`stickbreak.DPMixture.score_samples`).

One thread, CPU of the fit only; every row in a fresh process (peak RSS its own), after an
untimed small fit that loads numba's kernels. Run:

    .venv/bin/python benchmarks/admixture_patches.py [--ks 25,50] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from _rss import in_fresh_process, rss_cell  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "natural_images" / "natural_images.npz"
RESULTS = ROOT / "benchmarks" / "results"
TILE, PATCH = 64, 8


def tiles(seed: int = 0):
    """``(train X, train lengths, test X, test lengths, description)``: DC-removed 8x8 patches of
    64x64 tiles, a tile per group."""
    images = np.load(DATA)
    groups = []
    for name in images.files:
        image = images[name].astype(float) / 255.0
        gray = image.mean(axis=2) if image.ndim == 3 else image
        for top in range(0, gray.shape[0] - TILE + 1, TILE):
            for left in range(0, gray.shape[1] - TILE + 1, TILE):
                tile = gray[top:top + TILE, left:left + TILE]
                patches = tile.reshape(TILE // PATCH, PATCH, TILE // PATCH,
                                       PATCH).swapaxes(1, 2).reshape(-1, PATCH * PATCH)
                groups.append(patches - patches.mean(axis=1, keepdims=True))
    order = np.random.default_rng(seed).permutation(len(groups))
    n_train = int(round(0.8 * len(groups)))
    train, test = [groups[i] for i in order[:n_train]], [groups[i] for i in order[n_train:]]
    describe = (f"{len(images.files)} images, {len(groups)} tiles of {TILE}x{TILE} ({n_train} training, "
                f"{len(test)} held out), {TILE * TILE // PATCH ** 2} patches of {PATCH}x{PATCH} each (DC removed)")
    return np.concatenate(train), [len(g) for g in train], np.concatenate(test), [len(g) for g in test], describe


def run(method: str, K: int, seed: int) -> dict:
    from threadpoolctl import threadpool_limits

    from stickbreak import DPMixture, HDPAdmixture

    X, lengths, Xt, lengths_t, _ = tiles(seed)
    with threadpool_limits(limits=1):
        if method == "hdp_admixture":
            HDPAdmixture(n_topics=2, obs_model="zero_mean_gauss", max_laps=2).fit(X[:640], lengths=[64] * 10)
            model = HDPAdmixture(n_topics=K, obs_model="zero_mean_gauss", random_state=seed)
            start = time.process_time()
            model.fit(X, lengths=lengths)
            cpu = time.process_time() - start
            score = model.score(Xt, lengths=lengths_t)
            used = model.n_active_topics_
        else:
            options = {"dp_mixture_fixed": dict(moves=()), "dp_mixture_moves": dict()}[method]
            DPMixture(n_components=2, obs_model="zero_mean_gauss", max_laps=2).fit(X[:640])
            model = DPMixture(n_components=K, obs_model="zero_mean_gauss", random_state=seed, **options)
            start = time.process_time()
            model.fit(X)
            cpu = time.process_time() - start
            score = model.score(Xt)
            used = model.n_active_components_
    return {"method": method, "K": K, "seed": seed, "cpu_s": cpu, "laps": int(model.n_iter_), "used": int(used),
            "heldout_per_patch": float(score)}


def markdown(payload: dict) -> str:
    lines = ["# HDP admixture vs DP mixture on natural image patches (Hughes 2016, §5.6)", "",
             f"Generated {payload['generated']} by `{payload['command']}`; load average {payload['load']} "
             "at the start.",
             "", payload["describe"] + ".", "",
             "Held out: mean log density per held-out patch, nats (HDP: group completion, each half of a tile "
             "scored given the other; DP mixture: posterior predictive). CPU of the fit, one thread.", "",
             "| method | K (truncation) | laps | components used | CPU s | held-out per patch | peak RSS MiB |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in payload["rows"]:
        lines.append(f"| {r['method']} | {r['K']} | {r['laps']} | {r['used']} | {r['cpu_s']:.1f} | "
                     f"{r['heldout_per_patch']:.3f} | {rss_cell(r)} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ks", default="25,50")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", default="dp_mixture_moves,dp_mixture_fixed,hdp_admixture")
    ap.add_argument("--out", default="admixture_patches", help="results file name, without suffix")
    args = ap.parse_args(argv)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rows = []
    for K in (int(k) for k in args.ks.split(",")):
        for method in args.methods.split(","):
            row = in_fresh_process(run, method, K, args.seed)
            print(json.dumps(row), flush=True)
            rows.append(row)
    payload = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": "python benchmarks/admixture_patches.py " + " ".join(argv or sys.argv[1:]), "load": load,
               "describe": tiles(args.seed)[4], "rows": rows}
    (RESULTS / f"{args.out}.json").write_text(json.dumps(payload, indent=1))
    (RESULTS / f"{args.out}.md").write_text(markdown(payload))
    print(markdown(payload))


if __name__ == "__main__":
    main()
