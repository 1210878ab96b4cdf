"""The model contract (DESIGN.md, "The one idea"; ARCHITECTURE.md).

A model is an allocation model times an observation model. Learners and moves never look inside
it: they call the members below, and they state which protocol they need. A model says which
protocols it satisfies by inheriting from them; the contract test (``tests/contract``) checks
every model against every protocol it claims.

* :class:`Model`: the verbs of batch VB and stochastic VI (Hughes 2016, Alg. 3.1-3.2).
* :class:`Memoizable`: memoized VI over cached, additive statistics (Alg. 3.3).
* :class:`Movable`: what birth, merge and delete moves call (Ch. 4), refined by how a birth's
  statistics are expanded: :class:`TrackedBirths` (batch by batch, §4.2) or
  :class:`WholeDataBirths` (all batches at once: Markov chains, §6.5).
* :class:`ItemResponsibilities`: local parameters that are per-item responsibilities (mixtures),
  what their default move hooks are built from.
* :class:`Sampled`: truncation-free SVI's sampled local steps on a component store (Wang & Blei 2012).
* :class:`Swept`, :class:`LDASweeps`, :class:`HDPSweeps`: count sweeps of collapsed methods
  (Welling, Teh & Kappen 2008; Teh et al. 2006).
* :class:`ChainSweeps`: blocked Gibbs sampling of a Markov chain's states and parameters (Fox et al. 2011).

Design. The protocols are :class:`typing.Protocol` classes, so a type checker can check a model
against them, but they are *declared*, not inferred: a model inherits from each protocol it
satisfies, and :func:`declares` asks its class's MRO. ``@runtime_checkable`` is deliberately not
used: its ``isinstance`` is structural (any object with the right names passes, a declared model
missing a member still passes) and, for protocols with data members, probes every member with
``hasattr`` on each call. Methods are ``abstractmethod``: a model that inherits a protocol and
forgets one cannot be instantiated. Data members (``monotone``, configuration fields) are plain
annotations, which a dataclass field or class attribute of the model provides.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Callable, ClassVar, Protocol

import numpy as np

from .suffstats import SuffStats


def total_elbo(terms: dict[str, float]) -> float:
    """The ELBO from its named terms."""
    return float(sum(terms.values()))


class CapabilityError(TypeError):
    """A learner or move was given a model that does not declare the protocol it needs."""


def declares(model: Any, protocol: type) -> bool:
    """Whether ``model``'s class declares ``protocol`` (inherits from it): nominal, never structural."""
    return protocol in type(model).__mro__


def require(model: Any, protocol: type, needed_by: str) -> None:
    """Raise :class:`CapabilityError` unless ``model`` declares ``protocol``."""
    if not declares(model, protocol):
        summary = (protocol.__doc__ or "").strip().splitlines()[0]
        raise CapabilityError(f"{needed_by} needs a model declaring {protocol.__name__} ({summary.rstrip('.')}); "
                              f"{type(model).__name__} does not")


# ---------------------------------------------------------------------------------------------- every model
class Fittable(Protocol):
    """What the driver asks of any model it fits."""

    #: True when the exact lap-end ELBO of batch or memoized VI never decreases (the driver and
    #: memoized VI warn otherwise); False for samplers and local steps restarted from scratch.
    monotone: bool


class Model(Fittable, Protocol):
    """The verbs over additive statistics that batch VB and stochastic VI use (Hughes 2016, Alg. 3.1-3.2).

    Callers pass every parameter after a method's first two by keyword; a model may take more
    options (with defaults) and may ignore those it has no use for.
    """

    @abstractmethod
    def n_items(self, batch: Any) -> int:
        """How many items the batch holds (documents, points, sequences)."""

    @abstractmethod
    def local_step(self, params: Any, batch: Any, warm: Any = None) -> Any:
        """Local parameters of one batch given the global parameters (responsibilities,
        document-topic counts, HMM marginals), started from ``warm`` when the model uses it."""

    @abstractmethod
    def warm_start(self, local: Any) -> Any:
        """What the next local step of the same batch may start from; ``None`` if nothing."""

    @abstractmethod
    def summarize(self, batch: Any, local: Any, uids: Any = None) -> Any:
        """Additive sufficient statistics of one batch: ``stats(A + B) = stats(A) + stats(B)``."""

    @abstractmethod
    def global_step(self, stats: Any, previous: Any) -> Any:
        """New global parameters from whole-data statistics (the conjugate update); iterative parts
        (sticks, locations) start from ``previous``, the current global parameters."""

    @abstractmethod
    def blend(self, old: Any, target: Any, step: float) -> Any:
        """Global parameters moved a fraction ``step`` from ``old`` towards ``target`` in natural
        coordinates (Hoffman et al. 2013, Eq. 25)."""

    @abstractmethod
    def elbo_terms(self, params: Any, stats: Any) -> dict[str, float]:
        """The exact ELBO of ``q`` as named terms that sum to it."""

    @abstractmethod
    def score(self, stats: Any, previous: Any) -> tuple[Any, dict[str, float]]:
        """``(global_step(stats, previous), elbo_terms(...))``, with the cheaper form valid right
        after a global step where there is one (Eq. 2.114): what memoized VI and the moves accept on."""


class Memoizable(Model, Protocol):
    """Memoized VI: statistics cached per batch, subtracted and re-added (Hughes 2016, Alg. 3.3).

    The statistics are :class:`SuffStats` (``-``, ``clipped``, merge terms). Memoized VI passes
    ``keep_loglik`` and ``merge_pairs`` to every local step; a model without moves ignores them.
    """

    @abstractmethod
    def local_step(self, params: Any, batch: Any, warm: Any = None, keep_loglik: bool = False,
                   merge_pairs: Any = None) -> Any:
        """As :meth:`Model.local_step`; ``keep_loglik`` keeps what births rebuild their proposal from,
        ``merge_pairs`` ((M, 2) uids) asks for each planned pair's merged terms on the way."""

    @abstractmethod
    def summarize(self, batch: Any, local: Any, uids: Any = None, merge_pairs: Any = None) -> SuffStats:
        """As :meth:`Model.summarize`, with the planned merge pairs' terms (Hughes 2016, Eq. 4.3)."""


# ---------------------------------------------------------------------------------------------- moves
class FeatureSliced(Protocol):
    """Local steps that read only the features a batch uses (a topic model: the words of its
    documents). A worker keeps its part on those features alone and is sent only their global
    parameters (:mod:`stickbreak.parallel`): for a topic model, the columns of ``lam`` its
    documents use instead of all ``V``."""

    @abstractmethod
    def features_of(self, batch: Any) -> np.ndarray:
        """The sorted features (columns) ``batch`` uses."""

    @abstractmethod
    def on_features(self, batch: Any, features: np.ndarray) -> Any:
        """``batch`` with column ``j`` holding feature ``features[j]``."""

    @abstractmethod
    def params_on_features(self, params: Any, features: np.ndarray, cut_derived: bool = False) -> Any:
        """What the local step of a batch on ``features`` needs of ``params`` (exactly the values
        the whole parameters would give it). With ``cut_derived`` what the local step derives per
        feature is computed once on ``params`` (and kept there) and cut: for a worker that cuts the
        same parameters for parts that together use at least every feature."""

    @abstractmethod
    def local_to_all_features(self, local: Any, features: np.ndarray, n_features: int) -> Any:
        """The local parameters of a batch on ``features`` over all ``n_features``, as the whole
        batch's would be (so that its statistics are the whole batch's)."""

    @abstractmethod
    def centers_on_features(self, centers: Any, features: np.ndarray) -> Any:
        """A birth's ``centers`` (:meth:`TrackedBirths.birth_expansion`) as a part on ``features``
        needs them (exactly the values the whole ones would give it)."""

    @abstractmethod
    def expansion_to_all_features(self, stats: SuffStats, features: np.ndarray, n_features: int) -> SuffStats:
        """A birth expansion of a part on ``features`` over all ``n_features``."""

    @abstractmethod
    def items_to_all_features(self, items: Any, features: np.ndarray, n_features: int) -> Any:
        """Pooled birth items (:meth:`Movable.birth_pool_items`) of a part on ``features`` over all ``n_features``."""


class Movable(Memoizable, Protocol):
    """Birth, merge and delete moves, each accepted on the exact whole-data ELBO (Hughes 2016, Ch. 4).

    A Movable model also declares how a birth's statistics are expanded: :class:`TrackedBirths`
    or :class:`WholeDataBirths`.
    """

    @abstractmethod
    def score(self, stats: SuffStats, previous: Any = None) -> tuple[Any, dict[str, float]]:
        """As :meth:`Model.score`; a birth's candidate is scored without ``previous`` too."""

    @abstractmethod
    def merge_scores(self, params: Any, stats: SuffStats, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Screening score of merging component ``second[m]`` into ``first[m]`` (column indices,
        ``first < second``) from the whole-data statistics, higher first (§4.1: an upper bound on
        the gain for mixtures, a screen for topics and HMMs); ``-inf``: never tried."""

    @property
    @abstractmethod
    def merge_scores_bound_gain(self) -> bool:
        """True: :meth:`merge_scores` bounds the exact ELBO gain from above, so a pair scoring <= 0
        cannot win and is not tried. False: the scores only rank the pairs, and the best-ranked are
        tried whatever their sign (acceptance is exact either way)."""

    @abstractmethod
    def delete_params(self, params: Any, targets: Any) -> Any:
        """The global parameters without the components ``targets`` (uids), their mass given to the others."""

    @abstractmethod
    def delete_part(self, local: Any, params: Any, targets: Any) -> Any:
        """What a delete's refinement keeps, at a part of a batch where it lives, of the part's
        local parameters (over ``params``, with ``targets`` to delete) between its rounds, or None."""

    @abstractmethod
    def delete_round(self, part: Any, batch: Any, current: Any, step: int, last: bool, merge_pairs: Any = None,
                     features: Any = None, n_features: int = 0) -> tuple[SuffStats, Any]:
        """Round ``step`` of a delete's refinement on a part of a batch (§4.3, Eq. 4.25-4.27; the
        learner's loop: :func:`stickbreak.moves.delete.refined`): the part's statistics over the
        remaining components ``current`` with the targets' mass re-assigned, and its next warm start
        (rows, or None). ``part``: its :meth:`delete_part`, which the round may update; the ``last``
        round carries ``merge_pairs``' merged terms if the model gathers them (merges may then follow
        an accepted delete); ``features``, ``n_features``: as
        :func:`~stickbreak.core.local_parts.local_summary`'s."""

    @property
    @abstractmethod
    def birth_item_model(self) -> Any:
        """What pooled birth items are clustered with (k-means++, Bregman k-means, soft EM, §4.2):
        an object with ``obs`` (an observation family) and ``obs_prior``."""

    @abstractmethod
    def birth_ownership(self, local: Any) -> Any:
        """Each item's share of each component (N, K; dense or L-sparse CSR): which items a birth
        pools, and how many items a component owns in a batch."""

    @abstractmethod
    def birth_scores(self, local: Any) -> np.ndarray | None:
        """Per component, the lower the more a birth is wanted (§4.2.4: the b-score, the average
        log-likelihood of a component's items); ``None``: the largest components first."""

    @abstractmethod
    def birth_row_items(self, batch: Any) -> np.ndarray:
        """The item of the batch that each row of :meth:`birth_ownership` belongs to, in increasing
        order (an HMM's frames belong to sequences; elsewhere row ``n`` is item ``n``)."""

    @abstractmethod
    def birth_pool_items(self, batch: Any, local: Any, params: Any, column: int, members: np.ndarray) -> Any:
        """The data a birth pools from the rows ``members`` of the batch for the target at ``column``."""


class MergesByRows(Movable, Protocol):
    """Merges scored from the two components' rows when the data term is a sum over components."""

    #: Fields a merge's score reads at the two merged rows only (a topic's word counts: K x V);
    #: the candidate handed to :meth:`merge_terms` is built without them, so judging a pair costs
    #: O(V + K), not a K x V copy.
    merge_row_fields: ClassVar[tuple[str, ...]]

    @abstractmethod
    def merge_terms(self, stats: SuffStats, candidate: SuffStats, params: Any, terms: dict, kept: int,
                    removed: int) -> dict[str, float]:
        """The ELBO terms of ``score(merged, params)``, ``merged`` being ``stats`` (whose terms under
        ``params`` are ``terms``) with ``removed`` merged into ``kept``; ``candidate`` is ``merged``
        without the :attr:`merge_row_fields`, whose merged row is the sum of ``stats``' two rows."""


class TrackedBirths(Movable, Protocol):
    """Births whose statistics split item by item, tracked through the batches (Hughes 2016, §4.2)."""

    @abstractmethod
    def birth_expansion(self, batch: Any, local: Any, params: Any, column: int, centers: Any,
                        log_weights: np.ndarray, uids: Any) -> SuffStats:
        """This batch's statistics over [target, newborns] (``uids``) after the restricted local step
        that re-splits the target's mass (Eq. 4.12-4.19) over ``centers`` with ``log_weights``."""


class WholeDataBirths(Movable, Protocol):
    """Births expanded on every batch at once (Hughes 2016, §6.5: a Markov chain's transition
    counts couple neighbouring items, so a state cannot be split item by item)."""

    @abstractmethod
    def birth_proposal(self, sweep: Callable, params: Any, whole: SuffStats, target: int, centers: Any,
                       log_weights: np.ndarray, born: np.ndarray, refine_steps: int,
                       merge_pairs: Any = None) -> list[SuffStats]:
        """Every batch's statistics over all components with ``target`` (uid) split into ``born``,
        refined ``refine_steps`` times (with the merge pairs' terms), in batch order. The local steps
        go through ``sweep(model, params, merge_pairs) -> [stats of each batch]``, which the
        learner runs where the batches live (:func:`~stickbreak.core.local_parts.on_batches` runs
        it here)."""


class ItemResponsibilities(Protocol):
    """Local parameters that are per-item responsibilities ``r_nk`` (mixtures): the restricted
    local steps of the moves re-assign items from log-weights (Hughes 2016, Eq. 3.46-3.49, 4.12, 4.25)."""

    @property
    @abstractmethod
    def split_slots(self) -> int | None:
        """Over how many of [target, newborns] one item's share of a split target may spread
        (L-sparse responsibilities, Alg. 7.2); ``None``: all of them."""

    @abstractmethod
    def log_weights(self, params: Any, batch: Any) -> np.ndarray:
        """``W_nk = E log p(x_n | phi_k) + E log pi_k`` (N, K)."""

    @abstractmethod
    def resp_from_log_weights(self, logits: np.ndarray, loglik: np.ndarray | None = None) -> Any:
        """Local parameters from log-weights (overwritten): softmax, or top-L (Sec. 7.1)."""

    @abstractmethod
    def summarize_resp(self, batch: Any, resp: Any, uids: Any) -> SuffStats:
        """Statistics of given responsibilities (a move's proposal), their entropy included."""


class ResampledItems(Protocol):
    """Items re-partitioned by the model's collapsed Gibbs sampler among its components and new ones
    (the DP mixture of multinomials): a stream's births across a whole chunk."""

    @abstractmethod
    def resampled_labels(self, batch: Any, held: SuffStats, rng: np.random.Generator) -> np.ndarray | None:
        """A partition of ``batch``'s items drawn by the sampler, every component of ``held`` (labels
        ``0..K-1``) also holding ``held``, the statistics of items not resampled; labels from K on
        are new clusters. None where the sampler does not apply (``batch``'s counts, the prior)."""


# ---------------------------------------------------------------------------------------------- truncation-free SVI
class Sampled(Fittable, Protocol):
    """Truncation-free SVI: sampled local steps on a lazily grown component store (Wang & Blei 2012, Alg. 2)."""

    #: Symmetric Dirichlet prior ``eta`` of every component's word distribution.
    topic_word_prior: float

    @property
    @abstractmethod
    def stick_concentration(self) -> float:
        """The corpus sticks' ``Beta(1, a)`` concentration ``a``."""

    @abstractmethod
    def n_items(self, batch: Any) -> int:
        """How many documents the batch holds."""

    @abstractmethod
    def empty_store(self, n_vocab: int) -> Any:
        """A component store with no components over ``n_vocab`` words (T = 0)."""

    @abstractmethod
    def params_from_store(self, store: Any) -> Any:
        """The instantiated components' parameters, copied out of the store."""

    @abstractmethod
    def sample_local(self, store: Any, counts: Any, rows: np.ndarray, seed: int) -> Any:
        """One sample (or expectation) of the local variables of documents ``rows`` of ``counts``
        under the store (Eq. 6), with each document's log-likelihood before the step."""

    @abstractmethod
    def keep_mask(self, store: Any) -> np.ndarray:
        """Which components survive a prune (§3)."""

    @abstractmethod
    def summary(self, store: Any) -> SuffStats:
        """The store's component sizes as statistics (what the driver reports)."""


# ---------------------------------------------------------------------------------------------- collapsed methods
class Swept(Fittable, Protocol):
    """Collapsed inference: count arrays swept by Gibbs or collapsed variational updates, one sweep a lap."""

    #: Vocabulary size.
    n_words: int

    @property
    @abstractmethod
    def samples(self) -> bool:
        """Whether any token is sampled: held-out predictives are then averaged over sweeps
        (Welling, Teh & Kappen 2008, Eq. 31)."""


class LDASweeps(Swept, Protocol):
    """Collapsed LDA (Welling, Teh & Kappen 2008): Gibbs, CVB, CVB0 and their hybrids."""

    #: Dirichlet prior over topics per document (K,) and the symmetric topic-word prior.
    alpha: np.ndarray
    beta: float

    @property
    @abstractmethod
    def n_topics(self) -> int:
        """K."""

    @property
    @abstractmethod
    def threshold(self) -> float:
        """Pairs with a count at most this are sampled, the others updated variationally."""

    @property
    @abstractmethod
    def vb_kind(self) -> int:
        """Which variational update the sweep applies to the other pairs."""

    @abstractmethod
    def log_joint(self, Nwk: np.ndarray, Njk: np.ndarray, Nk: np.ndarray) -> dict[str, float]:
        """``log p(z, x)`` at the counts (Eq. 1), as named terms."""


class HDPSweeps(Swept, Protocol):
    """The HDP topic model's direct-assignment Gibbs sampler (Teh et al. 2006, §5.3)."""

    doc_concentration: float
    corpus_concentration: float
    topic_word_prior: float
    #: ``((a_alpha, b_alpha), (a_gamma, b_gamma))`` Gamma priors, or ``None``: concentrations fixed.
    concentration_priors: tuple | None

    @abstractmethod
    def log_joint(self, params: Any) -> dict[str, float]:
        """``log p(x | z)`` and ``log p(z | beta)`` at the sampler's state (Eq. 37)."""


# ---------------------------------------------------------------------------------------------- blocked samplers
class ChainSweeps(Fittable, Protocol):
    """A Markov chain's states, transitions and emissions sampled in blocks: the weak-limit blocked
    Gibbs sampler of the sticky HDP-HMM (Fox et al. 2011, Alg. 3)."""

    #: The weak limit L (states), alpha, alpha_0, kappa and the top-level gamma.
    n_states: int
    transition_concentration: float
    start_concentration: float
    stickiness: float
    concentration: float

    @abstractmethod
    def row_concentrations(self, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The Dirichlet parameters of the start row (L,) and transition rows (L, L) given ``beta``."""

    @abstractmethod
    def emission_posterior(self, data: Any, states: np.ndarray) -> Any:
        """The emissions' conjugate posterior given every frame's state (all L states)."""

    @abstractmethod
    def sample_emissions(self, posterior: Any, rng: np.random.Generator) -> Any:
        """One draw of every state's emission parameters from ``posterior``."""

    @abstractmethod
    def emission_loglik(self, emissions: Any, data: Any) -> np.ndarray:
        """``log p(x_t | theta_k)`` at drawn parameters, (T, L)."""

    @abstractmethod
    def log_joint(self, data: Any, posterior: Any, start_counts: np.ndarray, trans_counts: np.ndarray,
                  beta: np.ndarray) -> dict[str, float]:
        """``log p(x, z | beta)`` with the emissions and transition rows integrated out, as named terms
        (``posterior``: :meth:`emission_posterior` of the states whose counts are given)."""
