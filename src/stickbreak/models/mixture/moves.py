"""A mixture's move hooks (Hughes 2016, Ch. 4), over per-item responsibilities.

Pure functions of a model with :class:`~stickbreak.core.protocols.ItemResponsibilities` (an
observation family ``obs`` with its prior, a weight model ``weights`` with its prior), which
:class:`~stickbreak.models.mixture.model.MixtureModel`'s move hooks call and the HMM's birth
hooks share (:func:`birth_scores`):

* merges: the m-score ``Delta L_data + Delta L_weights`` of each pair (§4.1), an upper bound on
  the true gain (merging can only lower the entropy; the thesis's "lower bound" is a typo, §10);
* deletes: each batch's items re-assigned over the remaining components and refined (§4.3);
* births: the b-score of each component (§4.2.4) and the restricted local step that splits a
  target's mass over [target, newborns] (Eq. 4.12-4.16; top-m with L-sparse responsibilities, Alg. 7.2).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from ...core import sparse_resp
from ...core.suffstats import SuffStats
from ...kernels import RESP_FLOOR, top_l_resp
from ...obs import expfam, mult
from ...obs.expfam import data_gain
from ..word_merges import screened_data_gain
from .params import MixtureParams


# ---------------------------------------------------------------------------------------------- merges
def pair_scores(model, params, stats, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """m-score of merging component ``second[m]`` into ``first[m]`` (indices, ``first < second``):
    the data's gain plus the weights' (the weight model's ``merge_gains``). Clusters of word counts
    score only each cluster's nearest (:mod:`stickbreak.models.word_merges`: O(V) per pair)."""
    gain = (screened_data_gain(model.obs_prior, params.obs, stats, first, second) if model.obs is mult
            else data_gain(model.obs, model.obs_prior, params.obs, stats, first, second))
    return gain + model.weights.merge_gains(model.weights_prior, stats.counts, first, second)


# ---------------------------------------------------------------------------------------------- deletes
def without_component(params: MixtureParams, targets) -> MixtureParams:
    """The global parameters with the components ``targets`` (uids; and their sticks) removed."""
    keep = np.flatnonzero(~np.isin(params.uids, np.atleast_1d(targets)))
    weights = {k: v[keep] for k, v in params.weights.items()}
    return MixtureParams(params.uids[keep], expfam.select_components(params.obs, keep), weights)


# ---------------------------------------------------------------------------------------------- births
def birth_scores(resp, loglik: np.ndarray) -> np.ndarray:
    """The b-score of each component: the average expected log-likelihood of its items,
    ``sum_n r_nk E log p(x_n | phi_k) / N_k`` (dense or L-sparse ``resp``)."""
    mass = sparse_resp.column_sums(resp)
    return sparse_resp.column_sums_of_product(resp, loglik) / np.maximum(mass, 1e-300)


def split_target(model, batch, owned: np.ndarray, centers, log_weights: np.ndarray, n_slots: int | None = None):
    """Restricted local step: each item's target mass ``owned`` spread over [target, newborns], (N, J+1).

    With ``n_slots`` < J+1 over the top ``n_slots`` of them only (Hughes 2016, Alg. 7.2; the exact
    optimum of the restricted objective with that many non-zeros), as an L-sparse CSR matrix.
    """
    logits = model.obs.expected_loglik(centers, batch) + log_weights
    if n_slots is None or n_slots >= logits.shape[1]:
        return owned[:, None] * np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    logits = np.ascontiguousarray(logits)
    values, indices, _, _ = top_l_resp(logits.copy(), n_slots, RESP_FLOOR)
    chosen = np.take_along_axis(logits, indices, axis=1)
    values = np.where(np.isneginf(chosen), 0.0, values * owned[:, None])  # a -inf weight gets nothing
    return sparse_resp.from_top_l(values, indices, logits.shape[1])


def split_expansion(model, batch, resp, column: int, centers, log_weights: np.ndarray, uids) -> SuffStats:
    """A batch's statistics over [target, newborns]: the target's column of ``resp`` split by
    :func:`split_target` (Eq. 4.17-4.19), with the merged entropy of every pair of newborns, so that
    the proposal can be cleaned up by exact merges before it is judged (:func:`stickbreak.moves.birth.cleaned`)."""
    split = split_target(model, batch, sparse_resp.column(resp, column), centers, log_weights, model.split_slots)
    uids = np.asarray(uids)
    first, second = np.triu_indices(len(uids) - 1, k=1)
    pairs = np.column_stack([uids[1:][first], uids[1:][second]])
    return model.summarize_resp(batch, split, uids, merge_pairs=pairs)
