"""What the HMM benchmarks share: the data sets, the model, one fit with a Hamming distance per lap (and
:func:`fit_row`, that fit in a process of its own for ``_rss.in_fresh_process``: its peak RSS)."""

from __future__ import annotations

import io
import lzma
import time
from pathlib import Path

import numpy as np
from scipy.fft import dct
from scipy.io import wavfile

from stickbreak import driver, obs
from stickbreak.models.hmm.model import HMMModel
from stickbreak.priors import transition_finite as finite_hmm, transition_hdp as hdp_hmm
from stickbreak.models.hmm.model import frames_for
from stickbreak.config import LearnConfig, MovesConfig
from stickbreak.data import Sequences
from stickbreak.evaluate import hamming_distance
from stickbreak.models.hmm.init import initial_params
from stickbreak.learn.memoized import MemoizedVI

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"


def toy(seed: int = 0):
    """The thesis's toy: 32 sequences x 1000 frames, 8 sticky 2-D Gaussian states."""
    from stickbreak.datasets.synthetic import make_sticky_hmm_toy

    X, offsets, labels = make_sticky_hmm_toy(seed=seed)
    return Sequences.from_arrays(X, offsets), labels


def mocap6():
    """``../shared/data/mocap6``: 6 sequences, 12 joint angles, bnpy's Xprev, 12 exercise labels."""
    m = np.load(SHARED / "mocap6" / "mocap6.npz")
    offsets = np.concatenate([[0], np.cumsum(m["lengths"])])
    return Sequences.from_arrays(m["X"], offsets, Xprev=m["Xprev"]), m["Z"].astype(int)


def ami_clips():
    """``../shared/data/ami_diarization_debug``: 15 clips of 19 MFCCs at 100 Hz, speaker per frame
    (<0: none/overlap)."""
    z = np.load(SHARED / "ami_diarization_debug" / "mfcc19_100hz.npz")
    cuts = np.cumsum(z["lengths"])[:-1]
    return [(str(uri), Sequences.from_arrays(x, [0, len(x)]), lab.astype(int))
            for uri, x, lab in zip(z["uris"], np.split(z["X"], cuts), np.split(z["labels"], cuts))]


def ami_clip(uri: str):
    """The AMI clip ``uri``: (data, labels)."""
    return next((data, labels) for name, data, labels in ami_clips() if name == uri)


def ami_mfcc(uri: str, window_ms: float = 25.0) -> np.ndarray:
    """19 MFCCs (c1..c19) every 10 ms of ``wav/<uri>.wav.xz``, by the recipe of the staged
    ``mfcc19_100hz.npz`` (shared/data/README.md): pre-emphasis 0.97, Hamming window of ``window_ms``,
    512-point FFT, 40 mel filters, log, DCT-II. ``window_ms=25`` gives the staged features again
    (to 1e-6); ``window_ms=30`` is Fox et al.'s window. As many frames as the staged labels."""
    packed = SHARED / "ami_diarization_debug" / "wav" / f"{uri}.wav.xz"
    rate, signal = wavfile.read(io.BytesIO(lzma.open(packed).read()))
    signal = signal / 32768.0 if signal.dtype == np.int16 else signal.astype(float)  # `sample` is int16
    signal = np.append(signal[0], signal[1:] - 0.97 * signal[:-1])
    width, hop, n_fft = int(rate * window_ms / 1000), rate // 100, 512
    frames = np.lib.stride_tricks.sliding_window_view(signal, width)[::hop][:2998] * np.hamming(width)
    power = np.abs(np.fft.rfft(frames, n_fft)) ** 2 / n_fft
    mel = 2595 * np.log10(1 + np.array([0.0, rate / 2]) / 700)
    edges = 700 * (10 ** (np.linspace(*mel, 42) / 2595) - 1)
    freqs = np.fft.rfftfreq(n_fft, 1 / rate)
    filters = np.array([np.clip(np.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid)), 0, None)
                        for lo, mid, hi in zip(edges, edges[1:], edges[2:])])
    return dct(np.log(power @ filters.T + 1e-10), type=2, norm="ortho", axis=1)[:, 1:20]


def speech_blocks(X: np.ndarray, labels: np.ndarray, block: int = 25):
    """Fox et al.'s observations from frames: the frames of one speaker only (label >= 0; no speech
    and overlap dropped, oracle speech activity), run together and averaged over consecutive
    non-overlapping ``block``-frame blocks (25 x 10 ms = 250 ms; an incomplete last block is dropped).
    Returns ``(block means, block labels = majority speaker, block purity = frames of that speaker /
    block)``."""
    speech = labels >= 0
    n = int(speech.sum()) // block
    means = X[speech][:n * block].reshape(n, block, X.shape[1]).mean(axis=1)
    counts = np.array([np.bincount(b,
                                   minlength=labels.max() + 1) for b in labels[speech][:n * block].reshape(n, block)])
    return means, counts.argmax(axis=1), counts.max(axis=1) / block


def make_model(data: Sequences, family: str, stickiness: float, obs_prior=None, finite: bool = False,
               transition_concentration: float = 0.5, start_concentration: float = 5.0, concentration: float = 10.0):
    fam = obs.get(family)
    prior = fam.default_prior(frames_for(fam, data), **dict(obs_prior or {}))
    if finite:
        return HMMModel(fam, prior, finite_hmm,
                        finite_hmm.default_prior(transition_concentration, start_concentration, stickiness))
    return HMMModel(fam, prior, hdp_hmm,
                    hdp_hmm.default_prior(transition_concentration, start_concentration, stickiness, concentration))


def sequence_batches(data: Sequences, n_batches: int):
    """Batches of whole sequences (sequence s in batch s mod B) and the frame order they imply."""
    groups = [np.arange(b, data.n_items, n_batches) for b in range(n_batches)]
    frames = np.concatenate([np.arange(data.offsets[s], data.offsets[s + 1]) for g in groups for s in g])
    return [data.subset(g) for g in groups], frames


def fit(model, data: Sequences, labels, n_states: int, moves, n_batches: int, seed: int, max_laps: int,
        foreground_only: bool = False, tol: float = 1e-6, init: str = "contiguous_blocks") -> dict:
    """One memoized run from a contiguous-block init; the trace holds the Hamming distance per lap."""
    batches, frames = sequence_batches(data, n_batches)
    truth = labels[frames]
    params = initial_params(model, data, n_states, init, np.random.default_rng(seed))
    lap_hamming, scoring = [], [0.0]

    def track(record, params):  # the time spent scoring is left out of the reported fit time
        t0 = time.perf_counter()
        states = np.concatenate([model.viterbi(params, b) for b in batches])
        lap_hamming.append(hamming_distance(truth, states, foreground_only=foreground_only))
        scoring[0] += time.perf_counter() - t0

    learner = MemoizedVI(MovesConfig(moves=tuple(moves)), np.random.default_rng(seed + 1000))
    start, cpu = time.perf_counter(), time.process_time()
    result = driver.fit(model, batches, params, learner, LearnConfig(max_laps=max_laps, n_batches=n_batches, tol=tol),
                        callbacks=[track])
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    trace = [{"lap": r.lap, "elbo": r.elbo, "K": r.n_components, "K_eff": r.n_effective, "seconds": r.seconds,
              "hamming": h} for r, h in zip(result.trace, lap_hamming)]
    zero = next((t["lap"] for t in trace if t["hamming"] == 0.0), None)
    return {"n_states": n_states, "moves": list(moves), "seed": seed, "laps": result.n_laps, "stop": result.stop_reason,
            "final_K": result.trace[-1].n_components, "elbo": result.elbo, "hamming": lap_hamming[-1],
            "first_lap_hamming_zero": zero, "wall_s": wall, "cpu_s": cpu,
            "fit_wall_s": wall - scoring[0], "trace": trace}


def fit_row(load, load_args: tuple, model_options: dict, **fit_options) -> dict:
    """:func:`fit` on ``load(*load_args)`` (``toy``, ``mocap6``, ``ami_clip``) and ``make_model(data,
    **model_options)``, after an untimed one-lap fit (numba's kernels): a row run in a fresh process."""
    data, labels = load(*load_args)
    model = make_model(data, **model_options)
    fit(model, data, labels, **{**fit_options, "max_laps": 1})
    return fit(model, data, labels, **fit_options)
