"""Initial global parameters for hidden Markov models (Hughes 2016, §6.6; bnpy ``randcontigblocks``).

``"contiguous_blocks"``: each of the K states is fitted (one global step) to a random contiguous
window of one sequence, so that every state starts from frames that really occur together;
transitions start at their prior. ``"kmeans++"``: the frames are clustered as a mixture would be
(Bregman k-means++ and k-means, :mod:`.init`), ignoring time. ``"labels"``: from given per-frame
states (e.g. a previous run, or the truth for checks).
"""

from __future__ import annotations

import numpy as np

from ...obs import expfam
from .model import HMMModel, HMMParams
from ...priors import mixture_finite as finite_mixture
from ..mixture.init import bregman_kmeans, kmeans_plus_plus
from ..mixture.model import MixtureModel

METHODS = ("contiguous_blocks", "kmeans++", "labels")


def params_from_resp(model: HMMModel, data, resp: np.ndarray) -> HMMParams:
    """Observation posteriors from per-frame responsibilities; transitions at their prior."""
    n_states = resp.shape[1]
    stats = {"N": resp.sum(axis=0), **model.obs.suff_stats(model.frames(data), resp, model.obs_prior)}
    obs = expfam.posterior(model.obs, model.obs_prior, stats)
    trans = model.transitions.global_step(model.transitions_prior, np.zeros(n_states), np.zeros((n_states, n_states)))
    return HMMParams(np.arange(n_states), obs, trans)


def contiguous_blocks(data, n_states: int, rng: np.random.Generator, block_fraction: float = 0.5) -> np.ndarray:
    """Per-frame one-hot responsibilities (T, K): state k owns one random window.

    Window lengths are uniform on ``[1, 2 L]`` with ``L = block_fraction * T / K`` frames, capped by
    the sequence's length; a sequence is picked with probability proportional to its length.
    """
    lengths = data.lengths
    mean = max(1.0, block_fraction * data.n_frames / n_states)
    resp = np.zeros((data.n_frames, n_states))
    for k in range(n_states):  # a loop over states, not over frames
        s = int(rng.choice(len(lengths), p=lengths / lengths.sum()))
        width = int(min(lengths[s], rng.integers(1, max(2, int(2 * mean)) + 1)))
        start = data.offsets[s] + int(rng.integers(0, lengths[s] - width + 1))
        resp[start:start + width] = 0.0
        resp[start:start + width, k] = 1.0
    return resp


def initial_params(model: HMMModel, data, n_states: int, method: str, rng: np.random.Generator,
                   labels=None) -> HMMParams:
    if method == "contiguous_blocks":
        return params_from_resp(model, data, contiguous_blocks(data, n_states, rng))
    if method == "kmeans++":

        frames = model.frames(data)
        mixture = MixtureModel(model.obs, model.obs_prior, finite_mixture, finite_mixture.default_prior())
        found = bregman_kmeans(mixture, frames, kmeans_plus_plus(mixture, frames, n_states, rng), 5)
        return params_from_resp(model, data, np.eye(n_states)[found])
    if method == "labels":
        labels = np.asarray(labels)
        if labels.shape != (data.n_frames,) or labels.min() < 0 or labels.max() >= n_states:
            raise ValueError(f"init labels must be one state in 0..{n_states - 1} per frame ({data.n_frames} frames)")
        return params_from_resp(model, data, np.eye(n_states)[labels])
    raise ValueError(f"unknown init method {method!r}; choose one of {list(METHODS)}")
