"""The DP mixture of multinomials for truncation-free SVI (Wang & Blei 2012, §2.3, S.2.2): each
minibatch's document clusters sampled from the locally collapsed ``q(z)``, opening new clusters as
it goes (kernels in :mod:`stickbreak.kernels.truncation_free`).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ...core.suffstats import SuffStats
from ...kernels.truncation_free.local import dp_minibatch_gibbs
from .base import TruncationFreeModel, check_positive_settings, check_sweeps
from .store import ComponentStore, LocalSample, TruncationFreeParams


# ---------------------------------------------------------------------------------------------------- the two models
@dataclass(frozen=True)
class TruncationFreeDPMixture(TruncationFreeModel):
    """DP mixture of multinomials: ``theta_k ~ Dir(topic_word_prior)``, sticks ``Beta(1, concentration)``,
    one component per document (Wang & Blei 2012, §2.3; paper's settings eta = 0.5, a = 1).
    ``n_sweeps`` Gibbs sweeps over the minibatch's labels follow the sequential initialisation (none
    with one document per minibatch: its conditional does not change)."""

    topic_word_prior: float = 0.5
    concentration: float = 1.0
    n_sweeps: int = 3

    def __post_init__(self):
        check_positive_settings(topic_word_prior=self.topic_word_prior, concentration=self.concentration)
        check_sweeps(self.n_sweeps)

    @property
    def stick_concentration(self) -> float:
        return self.concentration

    def sample_local(self, store: ComponentStore, counts, rows: np.ndarray, seed: int) -> LocalSample:
        """Labels by :func:`~stickbreak.kernels.truncation_free.local.dp_minibatch_gibbs`; ``loglik`` is the exact
        plug-in mixture likelihood ``log [sum_k E[pi_k] prod_w theta_kw^c_w + E[pi_rest] V^-|x|]``."""
        _, word_ids, word_stats, item_stats, loglik = dp_minibatch_gibbs(
            counts.indptr, counts.indices, counts.data, rows, store.M_t, store.M_sum, store.scale, store.eta,
            store.u, store.v, store.a, store.n_components, self.n_sweeps, seed)
        return LocalSample(word_ids, word_stats, item_stats, loglik)

    def keep_mask(self, store: ComponentStore) -> np.ndarray:
        """Keep components with at least one expected document, ``u_k - 1 >= 1`` (§3)."""
        return store.u[:store.n_components] - 1.0 >= 1.0

    def summary(self, store: ComponentStore) -> SuffStats:
        """``N`` = expected documents per component ``u_k - 1`` (corpus-scaled)."""
        return SuffStats(store.uids[:store.n_components], {"N": store.u[:store.n_components] - 1.0})

    def log_joint(self, params: TruncationFreeParams, batch) -> np.ndarray:
        """``log E[pi_k] + sum_w c_dw log theta_kw`` (D, T): the plug-in mixture (digest §5)."""
        return np.asarray(batch.counts @ np.log(params.topic_word).T) + params.log_weights

    def local_step(self, params: TruncationFreeParams, batch, warm=None, **_):
        """Plug-in responsibilities over the instantiated components (for label prediction)."""
        if params.n_components == 0:
            raise ValueError("these parameters have no components yet; fit on some documents first")
        joint = self.log_joint(params, batch)
        resp = np.exp(joint - joint.max(axis=1, keepdims=True))
        return SimpleNamespace(resp=resp / resp.sum(axis=1, keepdims=True))
