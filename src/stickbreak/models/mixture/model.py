"""Mixture models: any observation family times finite or DP weights (Hughes 2016, Ch. 2-3).

:class:`MixtureModel` declares :class:`~stickbreak.core.protocols.TrackedBirths` (the verbs and every
move hook, see :mod:`.moves`), :class:`~stickbreak.core.protocols.ItemResponsibilities` and
:class:`~stickbreak.core.protocols.ResampledItems` (for the DP mixture of multinomials). The local step is
``r_n = softmax_k(E log p(x_n|phi_k) + E log pi_k)`` (Eq. 3.46-3.49); its statistics are the counts
``N_k``, the family's statistics and the entropy ``H_k``.

With ``n_active = L < K`` the local step keeps only each item's L largest weights (Hughes 2016,
Sec. 7.1, Alg. 7.2): the exact optimum over responsibilities with at most L non-zeros, stored as an
L-sparse CSR matrix (:mod:`stickbreak.core.sparse_resp`). Every consumer (statistics, moves)
accepts either form; ``n_active`` None or >= K is the dense path, unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import ModuleType

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from ... import obs
from ...core import sparse_resp
from ...core.local_parts import local_summary
from ...core.protocols import ItemResponsibilities, ResampledItems, TrackedBirths
from ...core.suffstats import SuffStats
from ...core.validate import check_n_active
from ...data.bow import is_integral
from ...kernels import (
    RESP_FLOOR,
    normalize_log_resp,
    pair_merge_entropy,
    sparse_pair_merge_entropy,
    top_l_resp,
)
from ...obs import expfam
from ...obs.expfam import Natural, ObsFamily
from ...priors import MIXTURE_WEIGHTS
from . import moves
from .gibbs_start import RESAMPLE_SWEEPS, gibbs_sweeps, one_pseudo_count, start_clusters
from .params import MixtureLocal, MixtureParams


@dataclass(frozen=True, eq=False)
class MixtureModel(TrackedBirths, ItemResponsibilities, ResampledItems):
    """Observation family x weight model (``priors.mixture_dp`` or ``priors.mixture_finite``) with priors;
    ``n_active`` (None: dense) caps the non-zero responsibilities per item (Hughes 2016, Sec. 7.1).
    Its move hooks are those of :mod:`.moves`."""

    obs: ObsFamily
    obs_prior: Natural
    weights: ModuleType
    weights_prior: dict
    n_active: int | None = None

    #: Batch and memoized VI never lower the ELBO: the local step is exact in one pass.
    monotone = True

    def __post_init__(self):
        object.__setattr__(self, "n_active", check_n_active(self.n_active))

    def n_items(self, batch) -> int:
        return batch.n_items

    def __reduce__(self):
        # the families are modules; pickle them by name (sklearn and joblib pickle fitted estimators)
        return (_rebuild, (self.obs.name, self.obs_prior, self.weights.name, self.weights_prior, self.n_active))

    def sparse_for(self, n_components: int) -> bool:
        """Whether responsibilities over ``n_components`` are L-sparse (``n_active < K``)."""
        return self.n_active is not None and self.n_active < n_components

    @property
    def split_slots(self) -> int | None:
        """How many components one item's share of a split component may spread over while the item
        keeps at most ``n_active`` non-zeros: one, so that a split never adds a non-zero, whatever
        other births overlap it in the same lap (``L - K + 1`` slots per birth would overflow L when
        two births share items); None when unconstrained (dense)."""
        return None if self.n_active is None else 1

    # ---------------------------------------------------------------- the four verbs
    def log_weights(self, params: MixtureParams, batch) -> np.ndarray:
        """``W_nk = E log p(x_n|phi_k) + E log pi_k``, shape (N, K)."""
        loglik = self.obs.expected_loglik(params.obs, batch)
        return np.ascontiguousarray(loglik + self.weights.expected_log_weights(params.weights)[None, :])

    def local_step(self, params: MixtureParams, batch, keep_loglik: bool = False, warm=None,
                   merge_pairs=None) -> MixtureLocal:
        """Responsibilities in closed form; ``warm`` and ``merge_pairs`` are accepted for the common
        interface and unused (the pair entropies come from the responsibilities in :meth:`summarize`)."""
        loglik = self.obs.expected_loglik(params.obs, batch)
        logits = np.ascontiguousarray(loglik + self.weights.expected_log_weights(params.weights)[None, :])
        return self.resp_from_log_weights(logits, loglik if keep_loglik else None)

    def resp_from_log_weights(self, logits: np.ndarray, loglik: np.ndarray | None = None) -> MixtureLocal:
        """Local parameters from C-contiguous log-weights (N, K), which are overwritten: dense softmax,
        or top-L when ``n_active < K`` (Hughes 2016, Sec. 7.1, Alg. 7.2)."""
        n_comp = logits.shape[1]
        if self.sparse_for(n_comp):
            values, indices, log_norm, entropy = top_l_resp(logits, self.n_active, RESP_FLOOR)
            return MixtureLocal(sparse_resp.from_top_l(values, indices, n_comp), log_norm, entropy, loglik)
        log_norm, entropy = normalize_log_resp(logits, RESP_FLOOR)
        return MixtureLocal(logits, log_norm, entropy, loglik)

    def warm_start(self, local: MixtureLocal) -> None:
        """Mixtures need no warm start: the local step is exact in one pass."""
        return None

    def summarize(self, batch, local: MixtureLocal, uids=None, merge_pairs=None) -> SuffStats:
        """Statistics of one batch; with ``merge_pairs`` ((M, 2) uids) also each pair's merged entropy."""
        resp = local.resp
        uids = np.arange(resp.shape[1]) if uids is None else np.asarray(uids)
        fields = {"N": sparse_resp.column_sums(resp), **self.obs.suff_stats(batch, resp, self.obs_prior)}
        pairs, pair_entropy = np.zeros((0, 2), dtype=np.int64), np.zeros(0)
        if merge_pairs is not None and len(merge_pairs):
            pairs = np.asarray(merge_pairs, dtype=np.int64).reshape(-1, 2)
            position = {int(u): i for i, u in enumerate(uids)}
            first = np.array([position[int(a)] for a in pairs[:, 0]], dtype=np.int64)
            second = np.array([position[int(b)] for b in pairs[:, 1]], dtype=np.int64)
            pair_entropy = _pair_entropy(resp, first, second)
        return SuffStats(
            uids=uids,
            fields=fields,
            elbo_terms={"entropy": local.entropy},
            scalars={"n_items": float(batch.n_items), "log_base": self.obs.log_base(batch)},
            merge_pairs=pairs,
            merge_entropy=pair_entropy,
        )

    def summarize_resp(self, batch, resp, uids, merge_pairs=None) -> SuffStats:
        """Statistics of given responsibilities (e.g. a move's proposal; dense or sparse CSR), entropy
        included (sparse: over the non-zeros only); with ``merge_pairs`` also their merged entropies."""
        resp = sp.csr_matrix(resp) if sparse_resp.is_sparse(resp) else np.ascontiguousarray(resp)
        local = MixtureLocal(resp, np.zeros(batch.n_items), sparse_resp.entropy(resp, RESP_FLOOR))
        return self.summarize(batch, local, uids, merge_pairs=merge_pairs)

    def global_step(self, stats: SuffStats, previous: MixtureParams | None = None) -> MixtureParams:
        return MixtureParams(
            uids=stats.uids,
            obs=expfam.posterior(self.obs, self.obs_prior, stats.fields),
            weights=self.weights.global_step(self.weights_prior, stats.counts),
        )

    def score(self, stats: SuffStats, previous: MixtureParams | None = None) -> tuple[MixtureParams, dict[str, float]]:
        """``(global_step(stats), ELBO terms)`` with the cheaper formula valid right after a global
        step (slack terms vanish, Eq. 2.114): what every move's exact acceptance test evaluates."""
        params = self.global_step(stats)
        normalizers = self._log_normalizers(params, previous)
        params = replace(params, log_normalizers=normalizers)
        terms = {
            "data": expfam.elbo_data_optimal(self.obs, self.obs_prior, params.obs, stats.scalars["log_base"],
                                             normalizers),
            "weights": self.weights.elbo(self.weights_prior, params.weights, stats.counts),
            "entropy": float(np.sum(stats.elbo_terms["entropy"])),
        }
        return params, terms

    def _log_normalizers(self, params: MixtureParams, previous: MixtureParams | None) -> np.ndarray:
        """``c(eta_hat_k)`` of every component, those whose natural parameters equal ``previous``'s
        (same uid, same values) taken from it: a merge's candidate recomputes one row, not K."""
        out = np.full(params.n_components, np.nan)
        if previous is not None and previous.log_normalizers is not None:
            order = np.argsort(previous.uids)
            rows = np.flatnonzero(np.isin(params.uids, previous.uids))
            old_rows = order[np.searchsorted(previous.uids, params.uids[rows], sorter=order)]
            same = np.ones(len(rows), dtype=bool)
            for key in self.obs.natural_keys:
                new, old = params.obs[key][rows], previous.obs[key][old_rows]
                same &= np.all((new == old).reshape(len(rows), -1), axis=1)
            out[rows[same]] = previous.log_normalizers[old_rows[same]]
        todo = np.flatnonzero(np.isnan(out))
        if len(todo):
            out[todo] = self.obs.log_normalizer(expfam.select_components(params.obs, todo))
        return out

    def blend(self, old: MixtureParams, target: MixtureParams, step: float) -> MixtureParams:
        """Natural-gradient step ``(1 - step) old + step target`` (Hoffman et al. 2013, Eq. 25)."""
        if not np.array_equal(old.uids, target.uids):
            raise ValueError("cannot blend parameters over different components")
        obs_blend = dict(old.obs)
        obs_blend.update(expfam.blend({k: old.obs[k] for k in self.obs.natural_keys}, target.obs, step))
        return MixtureParams(old.uids, obs_blend, expfam.blend(old.weights, target.weights, step))

    def elbo_terms(self, params: MixtureParams, stats: SuffStats) -> dict[str, float]:
        return {
            "data": expfam.elbo_data(self.obs, self.obs_prior, params.obs, stats.fields, stats.scalars["log_base"]),
            "weights": self.weights.elbo(self.weights_prior, params.weights, stats.counts),
            "entropy": float(np.sum(stats.elbo_terms["entropy"])),
        }

    # ---------------------------------------------------------------- moves (Hughes 2016, Ch. 4)
    def merge_scores(self, params: MixtureParams, stats: SuffStats, first: np.ndarray,
                     second: np.ndarray) -> np.ndarray:
        """The m-score ``Delta L_data + Delta L_weights`` (§4.1): an upper bound on the gain."""
        return moves.pair_scores(self, params, stats, first, second)

    #: The m-score bounds the gain (merging only lowers the entropy term).
    merge_scores_bound_gain = True

    def delete_params(self, params: MixtureParams, targets) -> MixtureParams:
        return moves.without_component(params, targets)

    def delete_part(self, local: MixtureLocal, params: MixtureParams, targets) -> None:
        """Nothing: every item is re-assigned from the data in every round."""
        return None

    def delete_round(self, part: None, batch, current: MixtureParams, step: int, last: bool, merge_pairs=None,
                     features=None, n_features: int = 0) -> tuple[SuffStats, None]:
        """Every item re-assigned over the remaining components (§4.3, Eq. 4.25-4.27: ``r'_n =
        softmax_{k not in T}(W_nk)``, top-L with ``n_active``, so the proposal lies in the family the
        local step optimises); the ``last`` round gathers the merged entropies of ``merge_pairs``
        (none of them holds a target), so that the lap's merges can follow an accepted delete. No
        warm start."""
        return local_summary(self, current, batch, merge_pairs=merge_pairs if last else None)[0], None

    @property
    def birth_item_model(self) -> "MixtureModel":
        """Pooled items are data points of this model's own family."""
        return self

    def birth_ownership(self, local: MixtureLocal):
        """The responsibilities themselves (dense or L-sparse)."""
        return local.resp

    def birth_scores(self, local: MixtureLocal) -> np.ndarray:
        """The b-scores of :func:`.moves.birth_scores` (the local step must keep its log-likelihoods)."""
        return moves.birth_scores(local.resp, local.loglik)

    def birth_row_items(self, batch) -> np.ndarray:
        return np.arange(batch.n_items)

    def birth_pool_items(self, batch, local: MixtureLocal, params: MixtureParams, column: int, members):
        return batch.subset(members)

    def birth_expansion(self, batch, local: MixtureLocal, params: MixtureParams, column: int, centers,
                        log_weights: np.ndarray, uids) -> SuffStats:
        """The target's responsibilities split over [target, newborns] (:func:`.moves.split_expansion`)."""
        return moves.split_expansion(self, batch, local.resp, column, centers, log_weights, uids)

    # ---------------------------------------------------------------- prediction
    def sampler_priors(self) -> tuple[float, float] | None:
        """``(pseudo_count, concentration)`` of the collapsed sampler of a DP mixture of multinomials
        with one pseudo-count for every word (:mod:`.gibbs_start`); None for any other mixture."""
        pseudo_count = one_pseudo_count(self.obs, self.obs_prior)
        if self.weights.name != "dp" or pseudo_count is None:
            return None
        return pseudo_count, float(self.weights_prior["gamma0"])

    def resampled_labels(self, batch, held: SuffStats, rng: np.random.Generator) -> np.ndarray | None:
        """``batch``'s documents dealt at random among new clusters (one per ``GIBBS_START_ITEMS``, as
        ``init="gibbs"`` starts), then ``RESAMPLE_SWEEPS`` collapsed Gibbs sweeps of the DP mixture of
        multinomials in which every component also holds ``held``'s expected word counts and
        documents (:func:`.gibbs_start.gibbs_sweeps`): a document joins a component it fits, and
        documents that fit none keep the new clusters they gather in (Yin & Wang 2016's GSDPMM;
        MStream, Yin et al. 2018, opens clusters in a stream of short texts the same way). None
        unless the model has the sampler (:meth:`sampler_priors`) and ``batch`` holds whole counts."""
        priors = self.sampler_priors()
        if priors is None or not is_integral(batch.counts.data):
            return None
        n_docs = batch.counts.shape[0]
        labels = held.n_components + rng.integers(start_clusters(n_docs), size=n_docs)
        held_counts = (held.fields["word_counts"], held.counts)
        return gibbs_sweeps(batch, labels, *priors, RESAMPLE_SWEEPS, rng, held=held_counts)

    def log_predictive(self, params: MixtureParams, batch) -> np.ndarray:
        """Posterior predictive ``log p(x_n | data)`` per item (N,), mixing each component's predictive.

        For the DP the mass beyond the truncation, ``1 - sum_k E[pi_k]``, goes to a fresh
        component at its prior, as nested truncation implies.
        """
        weights = self.weights.expected_weights(params.weights)
        per_component = self.obs.log_predictive(params.obs, batch) + np.log(weights)[None, :]
        leftover = 1.0 - weights.sum()
        if leftover > 1e-12:
            fresh = self.obs.log_predictive(expfam.stack_prior(self.obs_prior), batch)[:, 0] + np.log(leftover)
            per_component = np.column_stack([per_component, fresh])
        return logsumexp(per_component, axis=1)


def _pair_entropy(resp, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Merged entropy of each pair; from sparse responsibilities only the non-zeros count."""
    if sparse_resp.is_sparse(resp):
        values, indices = sparse_resp.top_l_parts(resp)
        return sparse_pair_merge_entropy(np.ascontiguousarray(values), np.ascontiguousarray(indices), resp.shape[1],
                                         first, second, RESP_FLOOR)
    return pair_merge_entropy(resp, first, second, RESP_FLOOR)


def _rebuild(obs_name, obs_prior, weights_name, weights_prior, n_active=None) -> MixtureModel:
    return MixtureModel(obs.get(obs_name), obs_prior, MIXTURE_WEIGHTS[weights_name], weights_prior, n_active)
