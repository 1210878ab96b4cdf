"""Initial global parameters for hidden Markov models (Hughes 2016, §6.6; bnpy ``randcontigblocks``).

``"contiguous_blocks"``: each of the K states is fitted (one global step) to a random contiguous
window of one sequence, so that every state starts from frames that really occur together;
transitions start at their prior. ``"kmeans++"``: the frames are clustered as a mixture would be
(Bregman k-means++ and k-means, :mod:`.init`), ignoring time. ``"labels"``: from given per-frame
states (e.g. a previous run, or the truth for checks).
"""

from __future__ import annotations

import numpy as np

from ...core.validate import check_choice
from ...data import DataError
from ...obs import expfam
from .model import HMMModel, HMMParams
from ...priors import mixture_finite as finite_mixture
from ..mixture.init import bregman_kmeans, kmeans_plus_plus, one_hot
from ..mixture.model import MixtureModel

METHODS = ("contiguous_blocks", "kmeans++", "labels")
#: The starts chosen by name; ``init`` may instead be per-frame labels (:func:`check_init`).
NAMED = METHODS[:2]


def check_init(init, n_states: int, n_frames: int | None = None) -> tuple[str, np.ndarray | None]:
    """``(method, labels)`` of an estimator's ``init``: a name of :data:`NAMED`, or per-frame state
    labels (a 1-D integer array, one state in ``0 .. n_states - 1`` per frame of X, sequences in
    order; e.g. a sampler's ``sampled_states_``), checked against ``n_frames`` when given."""
    if isinstance(init, str):
        check_choice("init", init, NAMED)
        return init, None
    labels = np.asarray(init)
    if labels.ndim != 1 or len(labels) == 0 or labels.dtype.kind not in "iu":
        raise ValueError(f"init must be one of {list(NAMED)} or per-frame state labels (a 1-D array of integers, one "
                         f"per frame of X), got {type(init).__name__} of shape {labels.shape} and dtype {labels.dtype}")
    if labels.min() < 0 or labels.max() >= n_states:
        raise ValueError(f"init labels must be states 0 .. {n_states - 1} (n_states={n_states}), got values "
                         f"{labels.min()} .. {labels.max()}; relabel them or pass n_states={max(labels.max() + 1, 1)}")
    if n_frames is not None and len(labels) != n_frames:
        raise DataError(f"init holds {len(labels)} state labels but X has {n_frames} frames; give one state per "
                        "frame of X, sequences in order")
    return "labels", labels.astype(np.int64)


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
        return params_from_resp(model, data, one_hot(found, n_states))
    if method == "labels":
        labels = check_init(labels, n_states, data.n_frames)[1]
        return params_from_resp(model, data, one_hot(labels, n_states))
    raise ValueError(f"unknown init method {method!r}; choose one of {list(METHODS)}")
