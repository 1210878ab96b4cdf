"""The HDP topic model, :class:`HDPTopicModel` (Hughes 2016, Ch. 5; a shell over the topic models of
:mod:`stickbreak.models.topics`).

>>> from stickbreak import HDPTopicModel, datasets
>>> corpus = datasets.load("ap")
>>> model = HDPTopicModel(random_state=0).fit(corpus.X)  # a learned start, memoized VI with moves
>>> n_used, largest = model.n_topics_, model.top_words(5)[0]
"""

from __future__ import annotations

import numpy as np

from .. import persist
from ..config import MovesConfig, moves_config
from ..models.topics.init import LEARNED_INIT_METHODS, GibbsStart
from ..models.topics.model import TopicModel, TopicParams
from ..priors import TOPIC_WEIGHTS
from ._topic_plans import DIRECT, HDP_VARIANTS
from .topic_base import TopicEstimator, topic_docstring
from .topic_settings import DEFAULT_START_TOPICS

#: The HDP's concentrations ``learn_concentration`` may set by empirical Bayes.
LEARNABLE = ("doc_topic_prior", "concentration")


@persist.register
class HDPTopicModel(TopicEstimator):
    __doc__ = topic_docstring("""The HDP topic model of Hughes (2016, Ch. 5): the number of topics is learned.

    Direct-assignment truncation on ``q(z)`` only, a full Beta posterior on every top-level stick
    with the surrogate bound (Eqs. 5.18-5.29), the sticks' means optimised by L-BFGS; memoized VI
    with birth, merge and delete moves by default. ``HDPTopicModel.paper_preset(name)`` gives the
    settings of Hoffman et al. (2013), Wang & Blei (2012) or Hughes (2016).

    Parameters
    ----------
    n_topics : int, optional
        Where the run starts. With ``init="gibbs"`` (the default) the sampler's chain seeded with
        ``n_topics`` documents competes with the default's two (from no topics and from 100
        documents), and the ELBO picks the start, so K need not follow ``n_topics``; with the other
        inits ``n_topics`` topics (None: 100). Under memoized VI with moves (the default) the moves
        then merge, delete and split topics; under the other algorithms it is the truncation level
        K, an upper bound (a learned start keeps its ``n_topics`` largest topics, or adds random
        ones). Unused by "truncation_free" and "gibbs", which start from no topics.
    concentration : float, default=10.0
        Top-level stick concentration gamma (``u_k ~ Beta(1, gamma)``, ``pi^G = stick(u)``; Hughes
        2016, Ch. 5); larger favours more topics.
    doc_topic_prior : float, default=1.0
        Document concentration alpha of ``pi_d ~ Dir(alpha pi^G)`` (default 1; the thesis's 0.5
        is the ``"hughes2016"`` preset).
    topic_word_prior : float, default=0.05
        Dirichlet pseudo-count eta of every word in every topic (the thesis's 0.1 is the
        ``"hughes2016"`` preset).
    algorithm : {"memoized", "vb", "svi", "stochastic", "truncation_free", "gibbs"}, default="memoized"
        Memoized VI (Hughes 2016, Alg. 5.5; the only one with moves), full-batch coordinate ascent,
        stochastic VI ("svi", alias "stochastic"; Hoffman et al. 2013), truncation-free SVI (Wang &
        Blei 2012: starts from no topics and creates them in a sampled, locally collapsed local step)
        or the direct-assignment collapsed Gibbs sampler (Teh et al. 2006, §5.3): ``max_laps``
        sweeps (``tol=0`` runs them all), each followed by table counts and ``beta ~ Dir(m, gamma)``,
        topics created and removed freely. The last two need whole-number counts; under "gibbs",
        ``fit(X, heldout=H)`` scores held-out tokens of the same documents after every sweep
        (``heldout_per_word_``, the predictive averaged over the sweeps after ``burn_in``), and the
        ``concentration_priors`` option, ``((shape, rate), (shape, rate))``, puts Gamma priors on
        alpha and gamma, resampled after every sweep by auxiliary variables (Teh et al. 2006, App. A;
        Escobar & West 1995; Teh et al.'s choice is ``((1, 1), (1, 0.1))``).
    variational_family : {"direct", "two_level"}, default="direct"
        ``"direct"``: Hughes's direct assignment, truncated on ``q(z)`` only, with a full Beta
        posterior on every top-level stick and the surrogate bound (Hughes 2016, Eqs. 5.18-5.29).
        ``"two_level"``: the two-level stick-breaking family of Hoffman et al. (2013, §3.3; Wang et
        al. 2011) with ``doc_truncation`` atoms per document (an algorithm option, default 20)
        pointing to the ``n_topics`` corpus topics (``concentration`` is omega, ``doc_topic_prior``
        alpha); algorithms "vb" and "svi" only; ``local_tol`` is then the relative change of the
        document's ELBO (default 1e-4 for "vb", 1e-3 for "svi").
$options
$batches
    init : {"gibbs", "random", "documents", "exponential", "kmeans_l1"}, default="gibbs"
        The first topics. ``"gibbs"``: a learned start, the topics that the HDP's own
        direct-assignment collapsed Gibbs sampler (Teh et al. 2006, §5.3; the same alpha, gamma and
        eta) finds in ``init_sweeps`` sweeps (an algorithm option, default 200) over at most
        ``init_tokens`` tokens (default 5,000,000; a random subset of the documents beyond), the
        best by the model's ELBO of the chains judged halfway, from no topics, from 100 seed
        documents and, given another ``n_topics``, from that many; mean-field VI from them reaches a
        far higher ELBO than from random topics (``benchmarks/results/k_learning.md``). The others
        as for :class:`LDA`: nearly uniform random topics (the default before), topics from random
        documents, ``eta + Exponential(100 D / (K V))`` (Hoffman et al. 2013, footnote 6), or
        k-means with the L1 distance (Paisley et al. 2012, §5.2).
$laps
    moves : sequence of {"birth", "merge", "delete"}, optional
        Memoized VI only: split topics into new ones (births, from the documents that use them),
        merge pairs of topics and delete small ones, each accepted only when the exact whole-data
        ELBO rises (Hughes 2016, §5.5.1-5.5.3), so K adapts to what the data need. Default (None):
        all three under memoized VI, none otherwise; ``()`` for none.
    move_options : dict, optional
        Fields of :class:`stickbreak.config.MovesConfig`, e.g. ``{"merge_max_pairs": 50}``.
    learn_concentration : bool or sequence of {"doc_topic_prior", "concentration"}, default=False
        Set alpha and/or gamma by empirical Bayes (True: both): every global step alternates them
        with the sticks on the ELBO (alpha in closed form on the surrogate of Hughes 2016, Eq. 5.25,
        gamma by a 1-D search), so the ELBO never falls and moves stay exact; the values given are
        where they start, the values used are in ``concentrations_``. Direct family, variational
        algorithms only. Off by default: it raised the ELBO but not the held-out score on ap, wiki
        and 20newsgroups (``benchmarks/results/empirical_bayes.md``).
$runtime

$attributes
    concentrations_ : dict
        ``{"doc_topic_prior": alpha, "concentration": gamma}`` the final ELBO uses (learned ones as
        learned; "gibbs": the last sample's). Direct family and "gibbs" only.

    See Also
    --------
    LDA : Latent Dirichlet allocation with a fixed number of topics.
    DILN : The HDP with correlated topics.

    Examples
    --------
    >>> import numpy as np
    >>> from stickbreak import HDPTopicModel, datasets
    >>> ap = datasets.load("ap")
    >>> docs = ap.X[:200]
    >>> hdp = HDPTopicModel(n_topics=10, tol=1e-3, random_state=0).fit(docs)
    >>> 1 <= hdp.n_topics_ <= hdp.topic_word_.shape[0]    # moves change K
    True
    >>> theta = hdp.transform(docs)
    >>> theta.shape[0], bool(np.allclose(theta.sum(axis=1), 1))
    (200, True)
    >>> sorted(hdp.concentrations_)
    ['concentration', 'doc_topic_prior']
    """)

    _weight_model = "hdp"
    _variants = HDP_VARIANTS
    _option_keys = ("learning_rate_delay", "learning_rate_decay", "sampling", "local_max_iter", "local_tol",
                    "local_start", "local_accelerate", "total_docs", "n_restarts", "burn_in", "doc_truncation",
                    "n_sweeps", "prune_every", "concentration_priors", "init_sweeps", "init_tokens")
    _option_defaults = {"n_restarts": 5}

    def __init__(self, n_topics=None, *, concentration=10.0, doc_topic_prior=1.0, topic_word_prior=0.05,
                 algorithm="memoized", variational_family="direct", algorithm_options=None, n_batches=10,
                 batch_size=None, init="gibbs", max_laps=100, min_laps=2, tol=1e-4, n_active=None, moves=None,
                 move_options=None, learn_concentration=False, n_jobs=1, executor=None, random_state=None, verbose=0,
                 callbacks=None):
        self.n_topics, self.concentration = n_topics, concentration
        self.learn_concentration = learn_concentration
        self.doc_topic_prior, self.topic_word_prior = doc_topic_prior, topic_word_prior
        self.algorithm, self.variational_family = algorithm, variational_family
        self.algorithm_options = algorithm_options
        self.n_batches, self.batch_size, self.init = n_batches, batch_size, init
        self.max_laps, self.min_laps, self.tol, self.n_active = max_laps, min_laps, tol, n_active
        self.moves, self.move_options = moves, move_options
        self.n_jobs, self.executor = n_jobs, executor
        self.random_state, self.verbose, self.callbacks = random_state, verbose, callbacks

    _move_kinds = ("birth", "merge", "delete")
    #: A run from K=100 holds dozens of near-empty topics; deleting them together (the group
    #: doubling while deletes succeed) clears them in a few laps instead of one per lap.
    #: Merges are screened by the data gain alone (not a bound for topics: most screened pairs fail,
    #: 6 of 148 on AP) and each tried pair costs a global step: at most 50 a lap, best screen first.
    #: A delete's documents re-solve their own fixed point over the other topics, so two refinement
    #: rounds keep what five gave on AP (same deletes accepted) at 0.8x the CPU of a fit.
    _move_defaults = {"delete_max_targets": 64, "merge_max_pairs": 50, "delete_refine_steps": 2}
    #: Every move, so that a start below the corpus's K can grow (Reuters from 1 topic: 1 -> 8). From
    #: 100 topics births are rarely accepted on real corpora (0 of 27-53 in topic_curves.md); the
    #: held-out edge over merges and deletes alone (defaults.md) comes from deleting every other lap
    #: (``delete_every``): merge+delete with ``delete_every=2`` scores the same (ap -7.9326 vs -7.9321,
    #: 20newsgroups -8.0127 vs -8.0133) at 0.86-0.88x the CPU.
    _default_moves = ("birth", "merge", "delete")

    def _moves_config(self) -> MovesConfig:
        return moves_config(self.moves, self.move_options, self._move_kinds, type(self).__name__,
                            self._move_defaults, algorithm=self._algorithm, default_moves=self._default_moves)

    @property
    def _family(self) -> str:
        return self.variational_family

    def _set_fitted(self, model: TopicModel, params: TopicParams, *rest, **keywords):
        super()._set_fitted(model, params, *rest, **keywords)
        if self._variant() is DIRECT:
            self.concentrations_ = TOPIC_WEIGHTS["hdp"].concentrations(model.weights_prior, params.weights)
        elif "concentrations_" in vars(self):  # a refit in another family must not keep the last fit's
            del self.concentrations_

    def _model_settings(self) -> dict:
        return {"concentration": self.concentration, "doc_topic_prior": self.doc_topic_prior}

    def _gibbs_start(self) -> GibbsStart:
        """The HDP's own sampler, ``algorithm_options["init_sweeps"]`` sweeps on at most
        ``algorithm_options["init_tokens"]`` tokens."""
        options = self._options()
        return GibbsStart(float(self.doc_topic_prior), float(self.concentration), options.init_sweeps,
                          options.init_tokens)

    def _start_topics(self) -> int:
        """``n_topics``, or with ``n_topics=None`` 0 for a learned start (``init="gibbs"``: the
        sampler starts from no topics) and :data:`DEFAULT_START_TOPICS` for the other inits."""
        if self.n_topics is None:
            return 0 if self.init in LEARNED_INIT_METHODS else DEFAULT_START_TOPICS
        return super()._start_topics()

    def _learned(self) -> tuple[str, ...]:
        """``learn_concentration`` as the names of the learned parameters, checked."""
        learn = self.learn_concentration
        if isinstance(learn, (bool, np.bool_)):
            learn = LEARNABLE if learn else ()
        if isinstance(learn, str) or not set(learn) <= set(LEARNABLE):
            raise ValueError(f"learn_concentration must be True, False or a list of names among {LEARNABLE}, "
                             f"got {self.learn_concentration!r}")
        if learn and self._variant() is not DIRECT:
            raise ValueError(f"learn_concentration needs variational_family='direct' and algorithm 'vb', 'stochastic' "
                             f"or 'memoized', got {self.variational_family!r} and {self.algorithm!r}")
        return tuple(learn)

    def _weights_prior(self) -> dict:
        learn = self._learned()
        return TOPIC_WEIGHTS["hdp"].default_prior(self.doc_topic_prior, self.concentration,
                                                  learn_alpha="doc_topic_prior" in learn,
                                                  learn_gamma="concentration" in learn)
