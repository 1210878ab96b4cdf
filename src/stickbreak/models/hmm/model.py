"""Hidden Markov models: any observation family times finite or (sticky) HDP transitions
(Hughes 2016, Ch. 6; digest ``thesis_ch5-7.md`` §3).

:class:`HMMModel` implements :class:`~stickbreak.core.protocols.WholeDataBirths` (the verbs and every
move hook) over batches of sequences (:class:`~stickbreak.data.Sequences`). The local step is the exact optimum of the
structured ``q(z_d)`` (Eq. 6.48): scaled forward-backward on ``exp E log pi`` and
``exp E log p(x|phi)`` (:func:`stickbreak.kernels.hmm.forward_backward.forward_backward`), parallel over sequences.
Its statistics are the counts ``N_k``, the family's statistics, the start counts ``M_0k``, the
transition counts ``M_jk`` (a square field: it follows the states on both axes) and the entropy
of ``q(z)``, kept per state as its row of the entropy table plus its start entry
(``H_k = sum_l H_kl + H_0k``, Eq. 6.25 corrected), so that ``sum_k H_k`` is the exact entropy.

Merges (Eq. 6.49) add rows and columns of ``M``; the merged entropy of each planned pair is
gathered during the local step, exactly (``pair_gain``). Deletes re-run the local step without
the targets (:meth:`HMMModel.delete_round`); births split a state's pooled frames into newborns
and re-run the local step on every batch with the expanded states (:mod:`.hmm_birth`); both are
accepted on the whole-data ELBO.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from ... import obs
from ...core.local_parts import local_summary
from ...core.protocols import WholeDataBirths
from ...core.suffstats import SuffStats, fold
from ...kernels.hmm.forward_backward import forward_backward, viterbi
from ...obs import expfam
from ...obs.expfam import Natural, ObsFamily, data_gain
from ...priors import TRANSITIONS
from ...priors import top_sticks as sticks
from ..mixture.moves import birth_scores
from . import birth
from .params import ROUNDS_AFTER_CHANGE, HMMLocal, HMMParams


def frames_for(family: ObsFamily, sequences):
    """What an observation family scores in sequences (its ``frames_of``): dense frames, frames with
    their predecessors (autoregressive), or word-count rows (multinomial)."""
    return family.frames_of(sequences)


def _pair_columns(uids: np.ndarray, pairs) -> np.ndarray:
    if pairs is None or not len(pairs):
        return np.zeros((0, 2), dtype=np.int64)
    position = {int(u): i for i, u in enumerate(uids)}
    return np.array([[position[int(a)], position[int(b)]] for a, b in np.asarray(pairs).reshape(-1, 2)], dtype=np.int64)


@dataclass(frozen=True, eq=False)
class HMMModel(WholeDataBirths):
    """Observation family x transition model (``priors.transition_finite`` or ``priors.transition_hdp``) with priors;
    every move, births expanded on all batches at once (Hughes 2016, §6.5)."""

    obs: ObsFamily
    obs_prior: Natural
    transitions: ModuleType
    transitions_prior: dict

    monotone = True

    def n_items(self, batch) -> int:
        return batch.n_items

    def __reduce__(self):
        return (_rebuild, (self.obs.name, self.obs_prior, self.transitions.name, self.transitions_prior))

    # ---------------------------------------------------------------- data
    def frames(self, batch):
        return frames_for(self.obs, batch)

    # ---------------------------------------------------------------- the four verbs
    def _log_transitions(self, params: HMMParams):
        post = params.trans
        start = np.ascontiguousarray(self.transitions.expected_log_start(post))
        return start, np.ascontiguousarray(self.transitions.expected_log_trans(post))

    def local_step(self, params: HMMParams, batch, keep_loglik: bool = False, warm=None, merge_pairs=None) -> HMMLocal:
        """Forward-backward over every sequence of the batch (exact; ``warm`` is unused)."""
        loglik = np.ascontiguousarray(self.obs.expected_loglik(params.obs, self.frames(batch)))
        log_start, log_trans = self._log_transitions(params)
        pairs = _pair_columns(params.uids, merge_pairs)
        resp, start, trans, table, log_norm, gain = forward_backward(log_start, log_trans, loglik, batch.offsets, pairs)
        return HMMLocal(resp, start, trans, table, log_norm, gain, loglik if keep_loglik else None)

    def warm_start(self, local: HMMLocal) -> None:
        """Forward-backward is exact in one pass: nothing to warm-start."""
        return None

    def summarize(self, batch, local: HMMLocal, uids=None, merge_pairs=None) -> SuffStats:
        """Statistics of one batch; with ``merge_pairs`` ((M, 2) uids) also each pair's merged
        entropy ``H_a + H_b + pair_gain`` (what :meth:`SuffStats.merge` puts on the kept state)."""
        resp = local.resp
        uids = np.arange(resp.shape[1]) if uids is None else np.asarray(uids)
        entropy = local.state_entropy
        frames = self.frames(batch)
        fields = {"N": resp.sum(axis=0), **self.obs.suff_stats(frames, resp, self.obs_prior),
                  "start": local.start, "trans": local.trans}
        pairs = (np.zeros((0, 2), dtype=np.int64) if merge_pairs is None
                 else np.asarray(merge_pairs, dtype=np.int64).reshape(-1, 2))
        columns = _pair_columns(uids, pairs)
        pair_entropy = entropy[columns[:, 0]] + entropy[columns[:, 1]] + local.pair_gain if len(pairs) else np.zeros(0)
        return SuffStats(uids=uids, fields=fields, elbo_terms={"entropy": entropy},
                         scalars={"n_items": float(batch.n_items), "log_base": self.obs.log_base(frames)},
                         merge_pairs=pairs, merge_entropy=pair_entropy, square=("trans",))

    def _transitions_step(self, stats: SuffStats, previous: HMMParams | None):
        """The transition global step, its sticks started from ``previous`` (re-aligned, with more
        alternations, when the states changed: a move's candidate)."""
        prev, rounds = None, None
        if previous is not None and "rho" in previous.trans:
            prev = previous.trans
            if not np.array_equal(previous.uids, stats.uids):
                prev = {**previous.trans, "rho": _aligned_rho(previous, stats.uids)}
                rounds = ROUNDS_AFTER_CHANGE
        return self.transitions.global_step(self.transitions_prior, stats.fields["start"], stats.fields["trans"], prev,
                                            rounds=rounds)

    def global_step(self, stats: SuffStats, previous: HMMParams | None = None) -> HMMParams:
        return HMMParams(stats.uids, expfam.posterior(self.obs, self.obs_prior, stats.fields),
                         self._transitions_step(stats, previous))

    def _allocation_terms(self, params: HMMParams, stats: SuffStats) -> dict[str, float]:
        return self.transitions.elbo(self.transitions_prior, params.trans, stats.fields["start"], stats.fields["trans"])

    def score(self, stats: SuffStats, previous: HMMParams | None = None) -> tuple[HMMParams, dict[str, float]]:
        """``(global_step(stats), ELBO terms)`` using the data term's form right after a global step."""
        params = self.global_step(stats, previous)
        terms = {"data": expfam.elbo_data_optimal(self.obs, self.obs_prior, params.obs, stats.scalars["log_base"]),
                 **self._allocation_terms(params, stats),
                 "entropy": float(np.sum(stats.elbo_terms["entropy"]))}
        return params, terms

    def elbo_terms(self, params: HMMParams, stats: SuffStats) -> dict[str, float]:
        return {"data": expfam.elbo_data(self.obs, self.obs_prior, params.obs, stats.fields, stats.scalars["log_base"]),
                **self._allocation_terms(params, stats),
                "entropy": float(np.sum(stats.elbo_terms["entropy"]))}

    def blend(self, old: HMMParams, target: HMMParams, step: float) -> HMMParams:
        """Natural-gradient step on ``q(phi)`` and the Dirichlet rows; bnpy's blend of the sticks."""
        if not np.array_equal(old.uids, target.uids):
            raise ValueError("cannot blend parameters over different states")
        obs_blend = dict(old.obs)
        obs_blend.update(expfam.blend({k: old.obs[k] for k in self.obs.natural_keys}, target.obs, step))
        return HMMParams(old.uids, obs_blend, self.transitions.blend(old.trans, target.trans, step))

    # ---------------------------------------------------------------- moves
    def merge_scores(self, params: HMMParams, stats: SuffStats, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Screening score of merging state ``second[m]`` into ``first[m]`` (indices): the data gain
        plus the change of the transition terms at the current sticks (no entropy, no L-BFGS)."""
        gain = data_gain(self.obs, self.obs_prior, params.obs, stats, first, second)
        start, trans = stats.fields["start"], stats.fields["trans"]
        base = self._transition_only_elbo(start, trans, params.trans)
        for m, (a, b) in enumerate(zip(first, second)):
            merged_start = np.delete(fold(start, a, b), b)
            merged_trans = np.delete(np.delete(fold(trans, a, b, square=True), b, axis=0), b, axis=1)
            aligned = ({**params.trans, "rho": _aligned_rho(params, np.delete(stats.uids, b))}
                       if "rho" in params.trans else None)
            gain[m] += self._transition_only_elbo(merged_start, merged_trans, aligned) - base
        return gain

    #: Pairs scoring <= 0 are not tried: the score has the transition terms at the current sticks,
    #: though a merged chain's entropy can exceed the original's, so it is not a strict bound.
    merge_scores_bound_gain = True

    def _transition_only_elbo(self, start: np.ndarray, trans: np.ndarray, previous) -> float:
        post = self.transitions.global_step(self.transitions_prior, start, trans, previous, rounds=0)
        return float(sum(self.transitions.elbo(self.transitions_prior, post, start, trans).values()))

    def without_states(self, params: HMMParams, targets) -> HMMParams:
        """The global parameters with the states ``targets`` (uids) removed."""
        keep = np.flatnonzero(~np.isin(params.uids, np.atleast_1d(targets)))
        uids = params.uids[keep]
        trans = self.transitions.select(self.transitions_prior, params.trans, params.uids, uids)
        return HMMParams(uids, expfam.select_components(params.obs, keep), trans)

    def delete_params(self, params: HMMParams, targets) -> HMMParams:
        return self.without_states(params, targets)

    def delete_part(self, local, params: HMMParams, targets) -> None:
        """Nothing: forward-backward runs again over the other states in every round."""
        return None

    def delete_round(self, part: None, batch, current: HMMParams, step: int, last: bool, merge_pairs=None,
                     features=None, n_features: int = 0) -> tuple[SuffStats, None]:
        """Forward-backward over the other states (Hughes 2016, §6.5); the planned merge pairs'
        entropies (the costly part) only in the last round."""
        return local_summary(self, current, batch, None, merge_pairs if last else None)[0], None

    @property
    def birth_item_model(self) -> "HMMModel":
        """Pooled frames are clustered with this model's own emission family."""
        return self

    def birth_ownership(self, local: HMMLocal) -> np.ndarray:
        """The frames' state marginals ``r_tk``."""
        return local.resp

    def birth_scores(self, local: HMMLocal) -> np.ndarray:
        """The b-scores of the states' frames, as for mixtures
        (:func:`~stickbreak.models.mixture.moves.birth_scores`)."""
        return birth_scores(local.resp, local.loglik)

    def birth_row_items(self, batch) -> np.ndarray:
        """The sequence of every frame."""
        return batch.frame_sequence()

    def birth_pool_items(self, batch, local, params, column: int, members):
        """The frames (with predecessors, for AR families) a birth pools for clustering."""
        return self.frames(batch).subset(members)

    def birth_proposal(self, sweep, params: HMMParams, whole: SuffStats, target: int, centers, log_weights,
                       born, refine_steps: int, merge_pairs=None) -> list:
        """Every batch's statistics with state ``target`` split into ``born`` (see :mod:`.hmm_birth`):
        a chain cannot be split frame by frame, so the learner expands all batches at once."""
        return birth.proposal(self, sweep, params, whole, target, centers, log_weights, born, refine_steps, merge_pairs)

    # ---------------------------------------------------------------- prediction
    def viterbi(self, params: HMMParams, batch) -> np.ndarray:
        """The most probable state path of every sequence under ``E log`` parameters (column indices)."""
        return self.decode(params, batch)[0]

    def decode(self, params: HMMParams, batch) -> tuple[np.ndarray, float]:
        """:meth:`viterbi`'s path and the score it maximises: the sum along the path of ``E log``
        start, transition and emission terms (all sequences together)."""
        loglik = np.ascontiguousarray(self.obs.expected_loglik(params.obs, self.frames(batch)))
        log_start, log_trans = self._log_transitions(params)
        path = viterbi(log_start, log_trans, loglik, batch.offsets)
        starts = np.zeros(len(path), dtype=bool)
        starts[batch.offsets[:-1]] = True
        moves = ~starts[1:]  # frame t-1 -> t within a sequence
        score = (loglik[np.arange(len(path)), path].sum() + log_start[path[starts]].sum()
                 + log_trans[path[:-1][moves], path[1:][moves]].sum())
        return path, float(score)

    def log_predictive(self, params: HMMParams, batch) -> np.ndarray:
        """Plug-in predictive ``log p(x_d)`` per sequence: forward algorithm with the posterior-mean
        start and transition probabilities, renormalised over the K active states (the HDP's mass
        beyond the truncation is left out), and each state's posterior predictive density per frame."""
        loglik = np.ascontiguousarray(self.obs.log_predictive(params.obs, self.frames(batch)))
        with np.errstate(divide="ignore"):
            start = self.transitions.expected_start(params.trans)
            trans = self.transitions.expected_trans(params.trans)
            start, trans = np.log(start / start.sum()), np.log(trans / trans.sum(axis=1, keepdims=True))
        no_pairs = np.zeros((0, 2), dtype=np.int64)
        return forward_backward(start, np.ascontiguousarray(trans), loglik, batch.offsets, no_pairs)[4]

    def expected_transition_matrix(self, params: HMMParams) -> tuple[np.ndarray, np.ndarray]:
        return self.transitions.expected_start(params.trans), self.transitions.expected_trans(params.trans)


def _aligned_rho(previous: HMMParams, new_uids) -> np.ndarray:
    """The previous sticks re-aligned to ``new_uids`` (see :func:`.sticks.align`)."""
    return sticks.align({"rho": previous.trans["rho"], "omega": previous.trans["omega"]}, previous.uids,
                        new_uids)["rho"]


def _rebuild(obs_name, obs_prior, transitions_name, transitions_prior) -> HMMModel:
    return HMMModel(obs.get(obs_name), obs_prior, TRANSITIONS[transitions_name], transitions_prior)
